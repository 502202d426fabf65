"""hopgate.inputs, the one home of the input bounds: each reader's building blocks."""

from __future__ import annotations

import gzip
import io
import json
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hopgate.errors import InputRefused
from hopgate.inputs import (
    ALLOWED_CONTROLS,
    MAX_DEPTH,
    MAX_DIGITS,
    lines,
    open_regular,
    parse_json,
    read_document,
    read_regular,
    refused_character,
    replace_refused,
    scan,
    text_lines,
)


def _model(data: bytes) -> list[tuple[int, bytes]]:
    """Lines as JSON Lines means them: split at LF only, blanks skipped, leading blanks off."""
    found = []
    for number, line in enumerate(data.split(b"\n"), start=1):
        if line.strip(b" \t\r"):
            found.append((number, line.lstrip(b" \t\r")))
    return found


@given(
    data=st.lists(st.sampled_from([b" ", b"\t", b"\r", b"\n", b"a", b"{}", b"\xe2\x80\xa8"])).map(
        b"".join
    ),
    block=st.integers(1, 9),
)
def test_lines_split_at_line_feed_only_whatever_the_block(data: bytes, block: int) -> None:
    assert list(lines(io.BytesIO(data), block=block)) == _model(data)


def test_a_line_over_the_limit_is_refused_when_it_reaches_it() -> None:
    with pytest.raises(InputRefused) as caught:
        list(lines(io.BytesIO(b"ok\n" + b"x" * 50 + b"\n"), limit=10, block=4))
    assert caught.value.record == "line 2" and "longer than 10 bytes" in str(caught.value)
    assert list(lines(io.BytesIO(b" " * 50 + b"\nok"), limit=10, block=4)) == [(2, b"ok")]


def test_unicode_line_breaks_stay_inside_a_line(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl.gz"
    text = '\ufeff{"a": "x\u2028y\u0085z\u2029"}\n\n{"b": 1}\r\n'
    path.write_bytes(gzip.compress(text.encode("utf-8")))
    assert [(n, json.loads(t)) for n, t in text_lines(path)] == [
        (1, {"a": "x\u2028y\u0085z\u2029"}),
        (3, {"b": 1}),
    ]


def test_only_regular_files_are_opened(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "folder").mkdir()
    (tmp_path / "file").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "file")
    for name in ("fifo", "folder"):
        with pytest.raises(InputRefused, match="not a regular file"):
            open_regular(tmp_path / name)
    with pytest.raises(InputRefused, match="not a regular file"):
        open_regular("/dev/null")
    with pytest.raises(InputRefused, match="no such file"):
        open_regular(tmp_path / "missing")
    with open_regular(tmp_path / "link") as handle:
        assert handle.read() == b"x"
    with pytest.raises(InputRefused, match="cannot read"):
        open_regular(tmp_path / "link", follow_links=False)


def test_a_file_read_whole_is_bounded_before_and_after_gunzip(tmp_path: Path) -> None:
    plain = tmp_path / "big.json"
    plain.write_bytes(b"x" * 101)
    with pytest.raises(InputRefused, match="larger than 100 bytes"):
        read_regular(plain, limit=100)
    bomb = tmp_path / "bomb.json.gz"
    bomb.write_bytes(gzip.compress(b"\n" * 1_000_000))
    assert bomb.stat().st_size < 5000
    with pytest.raises(InputRefused, match="once gunzipped"):
        read_document(bomb, limit=100_000)
    broken = tmp_path / "broken.json.gz"
    broken.write_bytes(b"\x1f\x8b\x08\x00garbage")
    with pytest.raises(InputRefused, match="not a readable gzip file"):
        read_document(broken)


def test_json_numbers_and_nesting_are_bounded() -> None:
    assert parse_json("9" * MAX_DIGITS) == int("9" * MAX_DIGITS)
    with pytest.raises(InputRefused, match=f"{MAX_DIGITS + 1:,} digits"):
        parse_json("-" + "9" * (MAX_DIGITS + 1), strict=False)
    with pytest.raises(InputRefused, match="levels deep"):
        parse_json("[" * 100_000 + "]" * 100_000)
    with pytest.raises(InputRefused, match="given twice"):
        parse_json('{"a": 1, "a": 2}')
    assert parse_json('{"a": 1, "a": 2}', strict=False) == {"a": 2}
    with pytest.raises(InputRefused, match="NaN"):
        parse_json("[NaN]")
    with pytest.raises(json.JSONDecodeError):
        parse_json("{")


def test_scan_bounds_depth_without_recursion() -> None:
    deep: list[object] = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(InputRefused, match=f"nested more than {MAX_DEPTH} levels deep"):
        scan({"a": deep})
    nested: object = "x"
    for _ in range(MAX_DEPTH - 1):
        nested = [nested]
    scan(nested)


@pytest.mark.parametrize("code", [*range(0x20), *range(0x7F, 0xA0)])
def test_control_characters_other_than_tab_and_line_breaks_are_refused(code: int) -> None:
    char = chr(code)
    if char in ALLOWED_CONTROLS:
        assert refused_character(f"a{char}b") is None
        scan({"id": char, "x": [char]})
        return
    reason = refused_character(f"a{char}b")
    assert reason is not None and f"U+{code:04X}" in reason
    with pytest.raises(InputRefused) as caught:
        scan({"a": [{"b": f"text {char}"}]})
    assert caught.value.field == "a[0].b"
    with pytest.raises(InputRefused) as caught:
        scan({f"key{char}": 1})
    assert caught.value.field == f"key{char}"


def test_other_hostile_characters_are_text() -> None:
    for text in ("\u2028", "\u2029", "\u202e", "\ufeff", "😀", "\u200b", "<script>"):
        assert refused_character(text) is None
    assert "lone surrogate" in (refused_character("\ud800") or "")
    assert "U+FFFE" in (refused_character("\ufffe") or "")


def test_benchmark_texts_have_refused_characters_replaced_one_for_one() -> None:
    """WiCE's scraped pages hold C1 mojibake (U+0095): a benchmark import keeps their
    offsets with U+FFFD in place; a pipeline's files and ledgers refuse them instead."""
    value = {"text": "a\x95b\x1bc\td", "k\x7f": ["\x00", {"n": 1}], "ok": "\u2028\x85"}
    cleaned, count = replace_refused(value)
    assert count == 4
    assert cleaned == {
        "text": "a\ufffdb\ufffdc\td",
        "k\ufffd": ["\ufffd", {"n": 1}],
        "ok": "\u2028\x85",
    }
    assert len(cleaned["text"]) == len(value["text"])
    scan(cleaned)
