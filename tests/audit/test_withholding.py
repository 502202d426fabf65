"""The reader filter's parts (docs/spec/records.md "What a reader is shown"): what a
repeat is, and what :meth:`Withholding.redact` and :meth:`Withholding.ntriples` keep.

Every output applying it is tested in tests/test_reader_filter.py (one test per
finding of issue 25, item 3) and tests/test_reader_filter_property.py.
"""

from __future__ import annotations

from hopgate.audit.withholding import MARKER, NOTHING, Withholding, normalize

NARROWED = "Cedar maps to zqnarrowed7731 kestrel"


def test_a_repeat_differing_in_case_spacing_or_invisible_characters_is_a_repeat() -> None:
    rule = Withholding("public", [NARROWED, "  "])
    assert rule.texts == (normalize(NARROWED),)  # a blank text withholds nothing
    for text in (
        NARROWED.upper(),
        "x " + NARROWED.replace(" ", "\n  ") + " y",
        NARROWED.replace("zq", "z\u200bq").replace("kestrel", "kes\u202etrel"),
        NARROWED.replace("Cedar", "Ｃｅｄａｒ"),  # fullwidth compatibility forms
    ):
        assert rule.withholds(text), text
    assert not rule.withholds("Cedar maps to zqnarrowed7731")  # a part is not the whole
    assert not NOTHING.withholds(NARROWED)


def test_redact_keeps_names_numbers_and_keys() -> None:
    rule = Withholding("public", ["secret words"])
    rows = [{"id": "secret words", "n": 3, "t": "the secret words", "ok": True}]
    assert rule.redact(rows) == [{"id": MARKER, "n": 3, "t": MARKER, "ok": True}]
    assert rule.redact(rows, frozenset({"id"}))[0]["id"] == "secret words"
    assert rule.redact({"secret words": 1}) == {"secret words": 1}
    assert rule.ntriples(b'<a> <b> "the Secret  words"@en .\n<a> <b> "7"^^<x> .\n') == (
        b'<a> <b> "' + MARKER.replace('"', '\\"').encode() + b'" .\n<a> <b> "7"^^<x> .\n'
    )
