"""Anchoring spans in version texts: offsets are Unicode code points, quotes are exact."""

from __future__ import annotations

import hashlib
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hopgate.errors import AnchorError
from hopgate.ingest.anchoring import Anchor, anchor, sha256_digest

# "café" occurs twice, "東京" twice, the emoji twice; one emoji sits before each café.
TEXT = "Zürich — 東京 😀 café au lait; café noir 😀 東京."
FIRST_CAFE = 14  # code points: Z ü r i c h ␠ — ␠ 東 京 ␠ 😀 ␠ → 14
SECOND_CAFE = TEXT.index("café", FIRST_CAFE + 1)


def test_the_fixture_text_is_what_the_tests_assume() -> None:
    assert TEXT[FIRST_CAFE : FIRST_CAFE + 4] == "café"
    assert TEXT.count("café") == 2
    assert SECOND_CAFE == 28
    # the same place in other units is further on: the tests below tell them apart
    assert len(TEXT[:FIRST_CAFE].encode("utf-8")) == 24
    assert len(TEXT[:FIRST_CAFE].encode("utf-16-le")) // 2 == 15


def test_offsets_are_code_points_after_an_emoji() -> None:
    assert anchor(TEXT, start=FIRST_CAFE, end=FIRST_CAFE + 12) == Anchor(
        FIRST_CAFE, FIRST_CAFE + 12, "café au lait"
    )


def test_quote_found_gives_code_point_offsets() -> None:
    found = anchor(TEXT, quote="café au lait")
    assert (found.start, found.end, found.exact) == (FIRST_CAFE, FIRST_CAFE + 12, "café au lait")


@pytest.mark.parametrize("quote", ["Zürich", "—", "😀 café au", "noir 😀 東京.", TEXT])
def test_quote_found_anywhere(quote: str) -> None:
    found = anchor(TEXT, quote=quote)
    assert found.start == TEXT.index(quote)
    assert found.end == found.start + len(quote)
    assert TEXT[found.start : found.end] == found.exact == quote


def test_an_emoji_is_one_code_point() -> None:
    emoji = TEXT.index("😀")
    assert anchor(TEXT, start=emoji, end=emoji + 1).exact == "😀"
    assert anchor(TEXT, start=emoji, end=emoji + 2).exact == "😀 "


def test_a_negative_offset_is_an_error_not_a_slice_from_the_end() -> None:
    # text[-5:-1] would be a real slice of other text: every caller (the ledger's schema,
    # the importers) relies on anchor refusing it too.
    with pytest.raises(AnchorError, match="start >= 0") as caught:
        anchor(TEXT, start=-5, end=-1)
    assert caught.value.field == "start"


@pytest.mark.parametrize("quote", ["café", "東京", "😀"])
def test_ambiguous_quote_is_an_error(quote: str) -> None:
    with pytest.raises(AnchorError, match="occurs 2 times") as caught:
        anchor(TEXT, quote=quote)
    assert caught.value.field == "quote"
    assert "prefix or suffix" in str(caught.value)


def test_overlapping_occurrences_count_as_ambiguous() -> None:
    with pytest.raises(AnchorError, match="occurs 2 times"):
        anchor("ééé", quote="éé")


@pytest.mark.parametrize(
    ("prefix", "suffix", "start"),
    [
        ("😀 ", None, FIRST_CAFE),
        ("; ", None, SECOND_CAFE),
        (None, " au lait", FIRST_CAFE),
        (None, " noir", SECOND_CAFE),
        ("lait; ", " noir 😀", SECOND_CAFE),
        ("", " au", FIRST_CAFE),  # an empty prefix chooses nothing; the suffix does
    ],
)
def test_prefix_or_suffix_resolves_an_ambiguous_quote(
    prefix: str | None, suffix: str | None, start: int
) -> None:
    found = anchor(TEXT, quote="café", prefix=prefix, suffix=suffix)
    assert found == Anchor(start, start + 4, "café")


@pytest.mark.parametrize(
    ("prefix", "suffix"),
    [("東京 ", None), (None, " crème"), ("😀 ", " noir")],
)
def test_prefix_or_suffix_matching_no_occurrence(prefix: str | None, suffix: str | None) -> None:
    with pytest.raises(AnchorError, match="not found in the version's text with that prefix"):
        anchor(TEXT, quote="café", prefix=prefix, suffix=suffix)


def test_prefix_and_suffix_matching_both_occurrences_is_still_ambiguous() -> None:
    with pytest.raises(AnchorError, match="occurs 2 times"):
        anchor(TEXT, quote="東京", prefix=" ")


@pytest.mark.parametrize("quote", ["Zurich", "café crème", "CAFÉ", "😃"])
def test_quote_not_found(quote: str) -> None:
    with pytest.raises(AnchorError, match="quote not found") as caught:
        anchor(TEXT, quote=quote)
    assert caught.value.field == "quote"


def test_quote_is_exact_not_normalised() -> None:
    decomposed = unicodedata.normalize("NFD", "café au lait")
    assert decomposed != "café au lait"
    with pytest.raises(AnchorError, match="quote not found"):
        anchor(TEXT, quote=decomposed)


def test_quote_at_its_offsets() -> None:
    found = anchor(TEXT, start=SECOND_CAFE, end=SECOND_CAFE + 4, quote="café")
    assert found == Anchor(SECOND_CAFE, SECOND_CAFE + 4, "café")


@pytest.mark.parametrize(
    ("start", "end"),
    [
        (24, 28),  # the UTF-8 byte offsets of the first café
        (15, 19),  # its UTF-16 offsets
        (FIRST_CAFE, FIRST_CAFE + 3),  # one code point short
        (FIRST_CAFE + 1, FIRST_CAFE + 5),
    ],
)
def test_quote_not_at_its_offsets(start: int, end: int) -> None:
    with pytest.raises(AnchorError, match="quote is not at its offsets") as caught:
        anchor(TEXT, start=start, end=end, quote="café")
    assert caught.value.field == "quote"
    assert repr(TEXT[start:end]) in str(caught.value)


def test_prefix_and_suffix_are_checked_against_offsets() -> None:
    assert anchor(TEXT, start=FIRST_CAFE, end=FIRST_CAFE + 4, prefix="😀 ", suffix=" au")
    with pytest.raises(AnchorError) as caught:
        anchor(TEXT, start=FIRST_CAFE, end=FIRST_CAFE + 4, prefix="; ")
    assert caught.value.field == "prefix"
    with pytest.raises(AnchorError) as caught:
        anchor(TEXT, start=FIRST_CAFE, end=FIRST_CAFE + 4, suffix=" noir")
    assert caught.value.field == "suffix"


def test_end_at_the_end_of_the_text_is_allowed() -> None:
    length = len(TEXT)
    assert anchor(TEXT, start=length - 1, end=length).exact == "."
    assert anchor(TEXT, start=0, end=length).exact == TEXT


@pytest.mark.parametrize(
    ("start", "end"),
    [
        (0, len(TEXT) + 1),
        (len(TEXT.encode("utf-8")) - 4, len(TEXT.encode("utf-8"))),  # byte offsets
        (len(TEXT), len(TEXT) + 5),
        (1000, 1001),
    ],
)
def test_end_beyond_the_text(start: int, end: int) -> None:
    with pytest.raises(AnchorError, match="offsets outside the text") as caught:
        anchor(TEXT, start=start, end=end)
    assert caught.value.field == "end"
    assert f"text length {len(TEXT)} code points" in str(caught.value)


@pytest.mark.parametrize(("start", "end"), [(5, 5), (6, 5), (0, 0)])
def test_end_not_after_start(start: int, end: int) -> None:
    with pytest.raises(AnchorError, match="expected end > start") as caught:
        anchor(TEXT, start=start, end=end)
    assert caught.value.field == "end"


@pytest.mark.parametrize(
    ("start", "end", "field"),
    [(3, None, "end"), (None, 3, "start")],
)
def test_only_one_of_start_and_end(start: int | None, end: int | None, field: str) -> None:
    with pytest.raises(AnchorError, match="expected both start and end") as caught:
        anchor(TEXT, start=start, end=end, quote="Zürich")
    assert caught.value.field == field


def test_nothing_to_place_the_span_by() -> None:
    with pytest.raises(
        AnchorError, match="expected start and end, a quote, or a locator"
    ) as caught:
        anchor(TEXT)
    assert caught.value.field == "quote"


def test_anchor_error_is_a_value_error() -> None:
    assert issubclass(AnchorError, ValueError)


@given(st.text(min_size=1), st.data())
def test_offsets_slice_the_text_by_code_points(text: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    found = anchor(text, start=start, end=end)
    assert found == Anchor(start, end, text[start:end])
    assert anchor(text, start=start, end=end, quote=text[start:end]) == found


@given(st.text(min_size=1), st.data())
def test_a_unique_quote_is_found_where_it_is(text: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    quote = text[start:end]
    hits = [i for i in range(len(text)) if text.startswith(quote, i)]
    if len(hits) == 1:
        assert anchor(text, quote=quote) == Anchor(start, end, quote)
    else:
        with pytest.raises(AnchorError, match=f"occurs {len(hits)} times"):
            anchor(text, quote=quote)
        # the text before the chosen occurrence always picks it out
        found = anchor(text, quote=quote, prefix=text[:start], suffix=text[end:])
        assert found == Anchor(start, end, quote)


@pytest.mark.parametrize("text", ["", "a", TEXT, "😀", "line\nbreak\r\n", "\x00nul"])
def test_sha256_digest_is_hashlib_over_utf8(text: str) -> None:
    expected = "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert sha256_digest(text) == expected
    assert len(expected) == len("sha256:") + 64


def test_sha256_digest_is_not_over_another_encoding() -> None:
    assert sha256_digest(TEXT) != "sha256:" + hashlib.sha256(TEXT.encode("utf-16")).hexdigest()
    assert sha256_digest("café") != sha256_digest(unicodedata.normalize("NFD", "café"))


@given(st.text())
def test_sha256_digest_property(text: str) -> None:
    assert sha256_digest(text) == "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
