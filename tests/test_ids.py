"""Minting IRIs from ledger ids is reversible, and parsing accepts only what mint makes."""

from __future__ import annotations

import re
import string
from urllib.parse import quote

import pyoxigraph as ox
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from hopgate import ids
from hopgate.vocab import ID_BASE

RECORD_KINDS = sorted(ids.KINDS - {"case"})
UNRESERVED = string.ascii_letters + string.digits + "-._~"
#: What an encoded id segment may contain: unreserved characters and %XX escapes.
SEGMENT = re.compile(r"(?:[A-Za-z0-9\-._~]|%[0-9A-F]{2})+")
WEIRD = "Zürich/é #1 @x"


@pytest.mark.parametrize(
    ("kind", "ledger_id", "iri"),
    [
        ("span", "a1", ID_BASE + "span/a1"),
        ("version", "registry@3", ID_BASE + "version/registry%403"),
        ("output", "sys-a/qA/o1", ID_BASE + "output/sys-a%2FqA%2Fo1"),
        ("claim", "c 1#2", ID_BASE + "claim/c%201%232"),
        ("source", WEIRD, ID_BASE + "source/Z%C3%BCrich%2F%C3%A9%20%231%20%40x"),
        ("question", "東京", ID_BASE + "question/%E6%9D%B1%E4%BA%AC"),
        ("agent", "😀", ID_BASE + "agent/%F0%9F%98%80"),
        ("reader", "100%", ID_BASE + "reader/100%25"),
        ("set", "a+b?c=d&e", ID_BASE + "set/a%2Bb%3Fc%3Dd%26e"),
        ("run", UNRESERVED, ID_BASE + "run/" + UNRESERVED),
    ],
)
def test_mint_percent_encodes_everything_but_unreserved(
    kind: str, ledger_id: str, iri: str
) -> None:
    assert ids.mint(kind, ledger_id) == iri
    assert ids.parse(iri) == (kind, ledger_id)
    assert ids.ledger_id(iri) == ledger_id


@pytest.mark.parametrize("kind", RECORD_KINDS)
def test_every_kind_round_trips(kind: str) -> None:
    iri = ids.mint(kind, WEIRD)
    assert iri.startswith(f"{ID_BASE}{kind}/")
    assert ids.parse(iri) == (kind, WEIRD)


def test_ids_are_unique_per_kind_not_across_kinds() -> None:
    assert ids.mint("span", "a1") != ids.mint("claim", "a1")


@pytest.mark.parametrize("kind", ["spans", "Span", "", "case/x", "catalog"])
def test_mint_rejects_unknown_kinds(kind: str) -> None:
    with pytest.raises(ValueError, match="unknown record kind"):
        ids.mint(kind, "a1")


def test_mint_rejects_an_empty_id() -> None:
    with pytest.raises(ValueError, match="non-empty"):
        ids.mint("span", "")


def test_mint_refuses_case_which_needs_run_and_question() -> None:
    with pytest.raises(ValueError, match="mint_case"):
        ids.mint("case", "sys-a/q1")


@pytest.mark.parametrize(
    ("run", "question", "path"),
    [
        ("sys-a", "q1", "sys-a/q1"),
        ("sys/a", "q#1", "sys%2Fa/q%231"),
        (WEIRD, WEIRD, "Z%C3%BCrich%2F%C3%A9%20%231%20%40x/Z%C3%BCrich%2F%C3%A9%20%231%20%40x"),
    ],
)
def test_case_ids(run: str, question: str, path: str) -> None:
    iri = ids.mint_case(run, question)
    assert ids.case_id(run, question) == path
    assert iri == f"{ID_BASE}case/{path}"
    assert ids.parse_case(iri) == (run, question)
    assert ids.parse(iri) == ("case", f"{run}/{question}")


def test_case_ids_do_not_collide_when_ids_contain_slashes() -> None:
    assert ids.mint_case("a/b", "c") != ids.mint_case("a", "b/c")
    assert ids.parse_case(ids.mint_case("a/b", "c")) == ("a/b", "c")
    assert ids.parse_case(ids.mint_case("a", "b/c")) == ("a", "b/c")


@pytest.mark.parametrize(
    "iri",
    [
        "https://example.org/span/a1",
        "http://w3id.org/hopgate/id/span/a1",  # http, not https
        "https://w3id.org/hopgate/ns#Span",
        ID_BASE + "catalog",
        ID_BASE + "widget/a1",
        ID_BASE + "span",
        ID_BASE + "span/",
        ID_BASE + "span/a1/position",  # a selector, not a record
        ID_BASE + "span/a1/quote",
        ID_BASE + "load/abc/activity",
        ID_BASE + "span/a#b",  # a raw '#': mint writes %23
        ID_BASE + "span/a b",  # a raw space
        ID_BASE + "source/Zürich",  # raw non-ASCII
        ID_BASE + "span/a%2fb",  # lower-case escape: mint writes %2F
        ID_BASE + "span/%41",  # an escaped unreserved character: mint writes A
        ID_BASE + "span/%FF",  # not UTF-8
        ID_BASE + "case/sys-a",  # a case needs run and question
        ID_BASE + "case/sys-a/",
        ID_BASE + "case//q1",
        ID_BASE + "case/sys-a/q1/o1",
        ID_BASE + "case/sys a/q1",
        "",
        "span/a1",
    ],
)
def test_parse_rejects_iris_mint_does_not_make(iri: str) -> None:
    with pytest.raises(ValueError):
        ids.parse(iri)
    with pytest.raises(ValueError):
        ids.ledger_id(iri)


@pytest.mark.parametrize(
    "iri",
    [
        ID_BASE + "span/a1",
        "https://example.org/case/a/b",
        ID_BASE + "case/a",
        ID_BASE + "case/a/b/c",
        ID_BASE + "case/a/",
        ID_BASE + "case/a%2fb/c",
    ],
)
def test_parse_case_rejects_non_case_iris(iri: str) -> None:
    with pytest.raises(ValueError):
        ids.parse_case(iri)


kinds = st.sampled_from(RECORD_KINDS)
ledger_ids = st.text(min_size=1)


@given(kinds, ledger_ids)
def test_mint_parse_round_trip(kind: str, ledger_id: str) -> None:
    iri = ids.mint(kind, ledger_id)
    assert ids.parse(iri) == (kind, ledger_id)
    assert ids.ledger_id(iri) == ledger_id


@given(kinds, ledger_ids)
def test_the_id_segment_is_one_safe_path_segment(kind: str, ledger_id: str) -> None:
    iri = ids.mint(kind, ledger_id)
    segment = iri.removeprefix(f"{ID_BASE}{kind}/")
    assert SEGMENT.fullmatch(segment), segment
    for raw in ("/", "#", " ", "?", "@", "\n"):
        assert raw not in segment
    assert segment.isascii()
    ox.NamedNode(iri)  # a valid IRI for the store


@given(ledger_ids | st.text(alphabet="Az09_.~-/%\n ", min_size=1))
def test_an_id_is_encoded_as_quote_encodes_it(ledger_id: str) -> None:
    # encode_id passes the ids quote() leaves as they are without calling it.
    assert ids.encode_id.__wrapped__(ledger_id) == quote(ledger_id, safe="")


@given(kinds, ledger_ids, ledger_ids)
def test_mint_is_injective(kind: str, first: str, second: str) -> None:
    assume(first != second)
    assert ids.mint(kind, first) != ids.mint(kind, second)


@given(ledger_ids, ledger_ids)
def test_case_round_trip(run: str, question: str) -> None:
    iri = ids.mint_case(run, question)
    assert ids.parse_case(iri) == (run, question)
    assert ids.parse(iri) == ("case", f"{run}/{question}")
    path = iri.removeprefix(ID_BASE + "case/")
    assert path.count("/") == 1
    assert "#" not in path and " " not in path
    ox.NamedNode(iri)


@given(kinds, ledger_ids)
def test_parse_is_exact_inverse_of_mint(kind: str, ledger_id: str) -> None:
    """Whatever parse accepts, mint makes again: parse(iri) = (k, i) implies mint(k, i) = iri."""
    iri = ID_BASE + kind + "/" + ledger_id
    try:
        parsed = ids.parse(iri)
    except ValueError:
        return
    assert ids.mint(*parsed) == iri


_PIECES = ["a", "Z", "9", "-", "~", "%", "2F", "%2F", "%2f", "%41", "%7E", "%20", "%25"]
_PIECES += ["%C3", "%A9", "%E6%9D%B1", "%FF", "%80", "%F0%9F%98%80", "é", " "]


@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=8).map("".join))
def test_parse_decodes_escapes_as_unquote_and_mint_do(segment: str) -> None:
    """parse's decoding (a fast path for ASCII escapes) accepts exactly the segments
    whose decoding mint writes again, and reads each back as unquote does."""
    from urllib.parse import quote, unquote

    iri = ID_BASE + "claim/" + segment
    minted_again = quote(unquote(segment), safe="") == segment
    try:
        parsed = ids.parse(iri)
    except ValueError:
        assert not minted_again
        return
    assert minted_again and parsed == ("claim", unquote(segment))


#: Ids that once split a string key, an IRI or a record path (issue 13, item 8).
HOSTILE_IDS = [
    "g\n1",
    "a\tb",
    "a\u0001A",
    "😀",
    "a/b",
    "r@3",
    "#x",
    "V[0:10]",
    " a ",
    "\"q'",
    "k:v",
]


@pytest.mark.parametrize("ledger_id", HOSTILE_IDS)
def test_hostile_ids_read_back_exactly(ledger_id: str) -> None:
    for kind in RECORD_KINDS:
        assert ids.parse(ids.mint(kind, ledger_id)) == (kind, ledger_id)
    for other in HOSTILE_IDS:
        assert ids.parse_case(ids.mint_case(ledger_id, other)) == (ledger_id, other)


def _one_by_one(iris: list[str | None]) -> list[str | None] | type[ValueError]:
    try:
        return [None if iri is None else ids.ledger_id(iri) for iri in iris]
    except ValueError:
        return ValueError


@settings(max_examples=500, deadline=None)
@given(
    st.sampled_from(RECORD_KINDS + ["case"]),
    st.lists(
        st.one_of(
            st.none(),
            st.text(min_size=1, max_size=12),
            st.text(alphabet=UNRESERVED + "/%\n", min_size=0, max_size=12),
            # Escapes quote() makes ("%2F", "%25", "%0A", UTF-8) and ones it never makes
            # ("%41" for "A", lower-case digits): only the first read back.
            st.lists(
                st.sampled_from(
                    ["a", "1A", "%2F", "%25", "%3A", "%0A", "%2f", "%C3%A9", "%41", "%20", "%"]
                ),
                max_size=5,
            ).map("".join),
        ),
        max_size=8,
    ),
    st.booleans(),
)
def test_ids_decoded_together_are_the_ids_decoded_one_by_one(
    kind: str, raw: list[str | None], minted: bool
) -> None:
    """``ledger_ids`` (a read's columns of card ids decoded in one scan) gives what
    ``ledger_id`` gives each IRI, and refuses what it refuses: ids minted as they are,
    and segments appended raw (a bare "/", "%", line end or empty segment: not minted)."""
    if kind == "case":
        iris = [None if t is None else ids.mint_case(t, t) if t else ID_BASE + "case/" for t in raw]
    elif minted:
        iris = [None if t is None or not t else ids.mint(kind, t) for t in raw]
    else:
        iris = [None if t is None else f"{ID_BASE}{kind}/{t}" for t in raw]
    expected = _one_by_one(iris)
    if expected is ValueError:
        with pytest.raises(ValueError):
            ids.ledger_ids(iris)
    else:
        assert ids.ledger_ids(iris) == expected


def test_ids_of_several_kinds_or_foreign_iris_are_decoded_one_by_one() -> None:
    mixed = [ids.mint("output", "sys-a/q1/o1"), ids.mint("claim", "c/1"), None]
    assert ids.ledger_ids(mixed) == ["sys-a/q1/o1", "c/1", None]
    for foreign in (
        "https://example.org/output/o",
        "o2",
        ID_BASE + "output",
        "",
        ID_BASE + "output/%2F%%2F1A",  # a lone "%" that a removed escape would leave before "1A"
    ):
        with pytest.raises(ValueError, match="not a hopgate"):
            ids.ledger_ids([ids.mint("output", "o"), foreign])
