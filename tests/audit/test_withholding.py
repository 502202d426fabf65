"""The reader filter's parts (docs/spec/records.md "What a reader is shown"): what a
repeat is, and what :meth:`Withholding.redact` and :meth:`Withholding.ntriples` keep.

Every output applying it is tested in tests/test_reader_filter.py (one test per
finding of issue 25, item 3) and tests/test_reader_filter_property.py.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hopgate.audit import withholding
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


@settings(max_examples=60, deadline=None, database=None)
@given(
    texts=st.lists(st.text(alphabet="abcé x.", min_size=1, max_size=40), max_size=12),
    checked=st.lists(st.text(alphabet="abcé x.", max_size=90), min_size=1, max_size=30),
)
def test_the_scan_and_the_compiled_pattern_withhold_the_same_strings(
    texts: list[str], checked: list[str]
) -> None:
    """A filter scans for each withheld text until it has checked ``_SCANS`` strings,
    then compiles its pattern: both say a string is withheld exactly when it repeats one
    of the texts (normalized)."""
    scanning = Withholding("r", texts)
    compiled = Withholding("r", texts)
    compiled._scans = withholding._SCANS  # its scans used up: it compiles at once
    for text in checked:
        expected = any(t in normalize(text) for t in scanning.texts)
        assert scanning.withholds(text) == compiled.withholds(text) == expected, text
