"""The reader filter's parts (docs/spec/records.md "What a reader is shown"): what a
repeat is, and what :meth:`Withholding.redact` and :meth:`Withholding.ntriples` keep.

Every output applying it is tested in tests/test_reader_filter.py (one test per
finding of issue 25, item 3) and tests/test_reader_filter_property.py.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

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


@settings(max_examples=200, deadline=None, database=None)
@given(
    texts=st.lists(st.text(alphabet="abcé x.", min_size=1, max_size=40), max_size=12),
    checked=st.lists(st.text(alphabet="abcé x.", max_size=90), min_size=1, max_size=30),
)
def test_the_index_of_pieces_withholds_exactly_what_repeats_a_text(
    texts: list[str], checked: list[str]
) -> None:
    """The filter looks a string up by pieces of the withheld texts
    (``withholding._Grams``, one index per length class): it says a string is
    withheld exactly when the string (normalized) contains one of the texts.
    The short alphabet makes near-misses and overlapping texts common."""
    rule = Withholding("r", texts)
    for text in checked:
        expected = any(t in normalize(text) for t in rule.texts)
        assert rule.withholds(text) == expected, text


def test_a_repeat_is_found_at_every_offset_and_in_every_length_class() -> None:
    """A text of each length class, repeated at each offset of a longer string: the
    index samples every ``step``-th position, so every offset must still be found."""
    texts = ["q", "zq", "xyzw", "k7k7k7k", "m" * 15 + "n", "abcdefghij" * 3 + "xy", "p" * 70]
    rule = Withholding("r", texts)
    for text in texts:
        for offset in range(0, 40):
            assert rule.withholds("." * offset + text + "." * (offset % 7)), (text, offset)
    assert not Withholding("r", texts[1:]).withholds("." * 50 + "q")
    assert not Withholding("r", ["p" * 70]).withholds("p" * 69)
