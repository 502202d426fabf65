"""The audit report a review committee reads and signs (:mod:`.build`, :mod:`.pages`), ``explain`` (one sentence per rule) and ``diff``."""
