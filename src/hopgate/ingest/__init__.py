"""Ledgers come in: the ledger format, anchoring spans, judgments, the loader, the pipeline record API, baselines and adapters for public benchmarks."""
