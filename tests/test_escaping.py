"""The escaping rules of every output (hopgate.escaping), each held over arbitrary text.

Each function is checked against the parser of its output: Markdown through a
CommonMark parser (markdown-it-py, GFM tables), HTML through Python's HTML
parser, CSV through the csv module, JSON through the json module. Then the
rules' one home: no printer escapes on its own, every value an HTML template
prints is escaped once, and the report page's Content-Security-Policy allows its own
script and style sheet by digest and nothing else.
"""

from __future__ import annotations

import base64
import collections
import csv
import hashlib
import io
import json
import re
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markupsafe import Markup

from hopgate import escaping
from hopgate.cli.formatting import render
from hopgate.cli.shared import UsageError
from hopgate.report.pages import _environment, page_assets

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "hopgate"
MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])
#: Arbitrary text, weighted towards what outputs act on.
SYNTAX = (
    "\\`*_[]<>&|~$#!()-+=.:@'\"\t\r\n\x0b\x0c\x1b\x7f\x85\x9b\u2028\u2029\u202e\u2066 ab1"
    "\xad\u034f\u200b\u200d\u2060\ufe0f\ufeff\U000e0049"
)
texts = st.one_of(st.text(), st.text(alphabet=SYNTAX))


# --- terminal ----------------------------------------------------------------------------------


@given(texts)
def test_terminal_text_holds_no_raw_line_end_control_or_bidi_character(text: str) -> None:
    shown = escaping.terminal(text)
    assert not escaping.INVISIBLE.search(shown)
    assert len(shown.splitlines()) <= 1
    if not escaping.INVISIBLE.search(text):
        assert shown == text  # everything else is printed as it is


def test_terminal_escapes_are_readable() -> None:
    assert escaping.terminal("a\nb\tc\r\x1b[2J\x7f\x85\u202eZ\u2066") == (
        "a\\nb\\tc\\r\\x1b[2J\\x7f\\x85\\u202eZ\\u2066"
    )
    assert escaping.terminal(None) == ""


def test_every_character_drawn_as_nothing_is_made_visible_in_every_output() -> None:
    """An id ``o\u200b1`` must not pass for ``o1`` in a table or a CSV, nor a judgment's
    reason hide words in tag characters (U+E0000-U+E007F) or variation selectors: every
    default-ignorable character (escaping.DEFAULT_IGNORABLE) is written as an escape."""
    assert escaping.terminal("o\u200b1 \u2060\ufeff\xad\U000e0049") == (
        "o\\u200b1 \\u2060\\ufeff\\xad\\U000e0049"
    )
    for start, end in escaping.DEFAULT_IGNORABLE:
        for point in {start, end}:
            char = chr(point)
            for shown in (
                escaping.terminal(char),
                escaping.csv_cell(char),
                escaping.markdown(char),
                escaping.html(char),
                escaping.json_text([char], indent=None),
            ):
                assert char not in shown, hex(point)
            assert json.loads(escaping.json_text([char], indent=None)) == [char]


def test_a_table_keeps_one_line_per_row() -> None:
    rows = [{"id": "o1\nrun x: gate passed", "n": 1}, {"id": "\u202edeppots", "n": 2}]
    table = render(rows, columns=["id", "n"], format="table")
    lines = table.splitlines()
    assert len(lines) == 4 and lines[2].startswith("o1\\nrun x: gate passed")
    assert not escaping.INVISIBLE.search(table.replace("\n", ""))


@given(st.lists(texts, max_size=6))
def test_cells_escaped_together_are_each_escaped_alone(cells: list[str]) -> None:
    """Tables and CSV escape their cells in one scan (visible_each): the same cells."""
    assert escaping.visible_each(cells) == [escaping.visible(cell) for cell in cells]
    assert escaping.csv_cells(cells) == [escaping.csv_cell(cell) for cell in cells]


def test_an_error_message_is_one_line() -> None:
    message = UsageError("unknown run 'a\nrun b: gate passed\x1b[2J'").format_message()
    assert message == "unknown run 'a\\nrun b: gate passed\\x1b[2J'"


# --- CSV ---------------------------------------------------------------------------------------


@given(st.lists(st.tuples(texts, st.integers(-5, 5) | texts), max_size=4))
def test_csv_reads_back_the_cells_written_one_record_a_line(rows: list[tuple[str, object]]) -> None:
    written = render([{"a": a, "b": b} for a, b in rows], columns=["a", "b"], format="csv")
    read = list(csv.reader(io.StringIO(written)))
    assert read == [["a", "b"]] + [[escaping.csv_cell(a), escaping.csv_cell(b)] for a, b in rows]
    assert written.count("\n") == len(read) == len(written.splitlines())


@pytest.mark.parametrize("start", escaping.FORMULA_STARTS)
def test_a_cell_a_spreadsheet_reads_as_a_formula_starts_with_a_quote(start: str) -> None:
    cell = escaping.csv_cell(start + "cmd|' /C calc'!A0")
    assert cell.startswith("'") and not cell[1:].startswith(("\t", "\r"))
    assert escaping.csv_cell(-3) == "-3" and escaping.csv_cell(2.5) == "2.5"
    assert escaping.csv_cell(True) == "true" and escaping.csv_cell(None) == ""
    # After white space (an import that trims it) or in a full-width form (security review).
    for lead in (" ", "\u00a0", "  \u3000") if start.strip() else ():
        assert escaping.csv_cell(lead + start + "1+1").startswith("'"), repr(lead + start)
    assert escaping.csv_cell("\uff1d1+1").startswith("'")  # a full-width equals sign
    assert escaping.csv_cell(" plain") == " plain"


# --- JSON --------------------------------------------------------------------------------------


@given(st.dictionaries(texts, st.lists(texts, max_size=3), max_size=3))
def test_json_keeps_every_string_exact_and_writes_no_raw_control(
    value: dict[str, list[str]],
) -> None:
    written = escaping.json_text(value, indent=None)
    assert json.loads(written) == value
    assert not escaping.INVISIBLE.search(written)


@given(st.dictionaries(texts, st.lists(texts, max_size=3), max_size=3), st.sampled_from([None, 2]))
def test_the_json_files_hopgate_writes_keep_strings_exact_and_no_raw_control(
    value: dict[str, list[str]], indent: int | None
) -> None:
    """manifest.json, proofs.json, import ledgers and intervention plans (json_data) wrote
    C1, U+2028 and bidi characters raw (security review, 7 December)."""
    written = escaping.json_data(value, indent=indent)
    assert json.loads(written) == value
    assert not escaping.INVISIBLE.search(written.replace("\n", ""))  # indented: its own lines
    assert written == escaping.json_data(dict(reversed(value.items())), indent=indent)


_json_leaves = (
    texts
    | st.integers()
    | st.floats()
    | st.none()
    | st.booleans()
    | st.decimals(allow_nan=False, places=3)
)
_json_values = st.recursive(
    _json_leaves,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(texts | st.integers() | st.floats() | st.booleans() | st.none(), inner)
    ),
    max_leaves=25,
)


def _floats_marked(value: object, floats: list[float]) -> object:
    """``value`` with each float value (not key) replaced by a marker string naming it."""
    if isinstance(value, float):
        floats.append(value)
        return f"\x00{len(floats) - 1}\x00"
    if isinstance(value, list | tuple):
        return [_floats_marked(item, floats) for item in value]
    if isinstance(value, dict):
        return {key: _floats_marked(item, floats) for key, item in value.items()}
    return value


@given(_json_values)
def test_indented_json_is_the_standard_librarys_text(value: object) -> None:
    # The CLI's indented JSON has its own writers (speed); they must write what
    # json.dumps writes, character for character, and then escape as before;
    # except a float value, written as orjson writes it (NaN as null).
    floats: list[float] = []
    expected = json.dumps(_floats_marked(value, floats), indent=2, ensure_ascii=False, default=str)
    expected = re.sub(
        r'"\\u0000(\d+)\\u0000"',
        lambda m: orjson.dumps(floats[int(m.group(1))]).decode(),
        expected,
    )
    assert escaping.json_text(value) == "".join(map(_json_escaped, expected))


def _json_escaped(char: str) -> str:
    """``char`` as json_text writes it after json.dumps: DEL, C1, U+2028/U+2029 and every
    default-ignorable character as ``\\uXXXX`` (beyond the BMP, its surrogate pair)."""
    point = ord(char)
    ignorable = any(start <= point <= end for start, end in escaping.DEFAULT_IGNORABLE)
    if not (0x7F <= point <= 0x9F or point in (0x2028, 0x2029) or ignorable):
        return char
    units = char.encode("utf-16-be")
    return "".join(f"\\u{int.from_bytes(units[i : i + 2]):04x}" for i in range(0, len(units), 2))


@given(_json_values)
def test_the_two_indented_json_writers_write_the_same_text(value: object) -> None:
    # orjson writes what it takes; the Python writer writes the rest (str keys only, ints
    # within 64 bits, no lone surrogate): the same text either way.
    fast = escaping._indented_fast(value)
    if fast is not None:
        assert fast == escaping._indented(value, 2)


def test_indented_json_writes_what_orjson_refuses_and_floats_alike() -> None:
    # An integer beyond 64 bits: orjson refuses the value, the Python writer writes it,
    # its floats as orjson would have.
    refused = {"n": 2**70, "f": [1e-05, float("nan"), -float("inf"), 0.5]}
    assert escaping._indented_fast(refused) is None
    floats = '"f": [\n    0.00001,\n    null,\n    null,\n    0.5\n  ]'
    assert escaping.json_text(refused) == '{\n  "n": 1180591620717411303424,\n  ' + floats + "\n}"
    assert escaping.json_text({**refused, "n": 1}) == '{\n  "n": 1,\n  ' + floats + "\n}"


def test_indented_json_writes_a_named_tuple_as_a_list() -> None:
    pair = collections.namedtuple("pair", "left right")
    assert escaping.json_text({"p": pair(1, "x")}) == '{\n  "p": [\n    1,\n    "x"\n  ]\n}'


def test_indented_json_writes_equal_keys_of_other_types_as_their_own() -> None:
    # The writer reuses a key's text across a document's dicts: 0.0 and -0.0,
    # or 1 and True, are equal keys written differently, so never shared.
    value = [{0.0: 1, 1: 2, "k": 3}, {-0.0: 1, True: 2, "k": 3}, {"k": {"k": []}}]
    assert escaping.json_text(value) == json.dumps(value, indent=2, ensure_ascii=False)


def test_json_writes_a_dataclass_as_asdict_gives_it() -> None:
    from dataclasses import asdict, dataclass, field

    @dataclass
    class Inner:
        name: str
        tags: tuple[str, ...] = ("a\u202e", "b")

    @dataclass
    class Outer:
        inner: Inner
        items: list[Inner] = field(default_factory=list)
        extra: dict[str, object] = field(default_factory=dict)

    @dataclass
    class Empty:
        pass

    class Name(str):  # a str subclass, as an IRI is
        pass

    @dataclass
    class Stamped:
        at: datetime
        later: int = field(default=1, init=False)

    value = [
        Outer(Inner("x"), [Inner("y", ())], {"k": Inner("z"), "e": Empty()}),
        Outer(Inner(Name("w")), [Inner(Name("v"), (Name("t"),))]),
    ]
    for indent in (2, None):
        plain = [asdict(v) for v in value]
        assert escaping.json_text(value, indent=indent) == escaping.json_text(plain, indent=indent)
    # Both indented writers alike, a field set after __init__ and a time among them.
    stamped = [Stamped(datetime(2026, 12, 6, 3, 51, tzinfo=UTC)), *value]
    assert escaping._indented_fast(stamped) == escaping._indented(stamped, 2)
    assert '"at": "2026-12-06 03:51:00+00:00"' in escaping.json_text(stamped)
    assert '"later": 1' in escaping.json_text(stamped)


# --- Markdown ----------------------------------------------------------------------------------


def _inline_text(token: object) -> str:
    # The empty comment escaping.markdown puts after an "@" (no e-mail link, no mention).
    children = [
        child
        for child in getattr(token, "children", None) or []
        if (child.type, child.content) != ("html_inline", "<!-- -->")
    ]
    assert all(child.type == "text" for child in children), [c.type for c in children]
    return "".join(child.content for child in children)


@settings(max_examples=300)
@given(texts)
def test_markdown_text_stays_text_in_a_paragraph_a_list_item_and_a_heading(text: str) -> None:
    shown = escaping.markdown(text)
    expected = escaping.visible(text)
    document = f"Before {shown} after.\n\n- Item: {shown}\n\n### Card {shown}: accept\n"
    tokens = MD.parse(document)
    assert [t.type for t in tokens] == [
        "paragraph_open", "inline", "paragraph_close",
        "bullet_list_open", "list_item_open", "paragraph_open", "inline", "paragraph_close",
        "list_item_close", "bullet_list_close",
        "heading_open", "inline", "heading_close",
    ]  # fmt: skip
    assert _inline_text(tokens[1]) == f"Before {expected} after."
    assert _inline_text(tokens[6]).strip() == f"Item: {expected}".strip()
    assert _inline_text(tokens[11]) == f"Card {expected}: accept"


@settings(max_examples=300)
@given(texts, texts)
def test_markdown_text_never_leaves_its_table_cell(left: str, right: str) -> None:
    document = (
        "| a | b |\n|---|---|\n"
        f"| {escaping.markdown(left)} | {escaping.markdown(right)} |\n"
        "| c | d |\n"
    )
    tokens = MD.parse(document)
    cells = [_inline_text(t) for t in tokens if t.type == "inline"]
    assert [t.type for t in tokens].count("tr_open") == 3
    assert cells[2:4] == [escaping.visible(left).strip(), escaping.visible(right).strip()]
    assert cells[4:] == ["c", "d"]


def test_github_makes_no_link_or_mention_of_markdown_text() -> None:
    """The Markdown report is for a pull-request comment: GitHub's renderer (cmark-gfm,
    its autolink extension) made links of bare URLs, www. names and e-mail addresses
    from a ledger, and would notify an @name."""
    cmarkgfm = pytest.importorskip("cmarkgfm")
    data = (
        "Sign at _https://evil.example/login, 1www.evil.example, éhttps://x.example/a, "
        "Sign at https://evil.example/login, www.evil.example/sign, HTTP://x.example, "
        "ftp://f.example, mailto:a@b.example, xmpp:c@d.example, approve@evil.example "
        "or ask @octocat and @org/team"
    )
    shown = cmarkgfm.github_flavored_markdown_to_html(
        f"| x |\n|---|\n| {escaping.markdown(data)} |\n"
    )
    assert "<a " not in shown and "evil.example/login" in shown
    text = re.sub(r"<!--.*?-->", "", shown)
    assert "approve@evil.example" in text and "@octocat" in text


@settings(max_examples=1500)
@given(st.text(alphabet="wW.:/@-_+ abc1éßhtpsfrmailoxvHTPS\\[]<>()*~", max_size=40))
def test_github_makes_no_link_of_any_markdown_text(text: str) -> None:
    cmarkgfm = pytest.importorskip("cmarkgfm")
    shown = cmarkgfm.github_flavored_markdown_to_html(f"x {escaping.markdown(text)} y")
    assert "<a " not in shown and "<img" not in shown, (text, shown)


# --- HTML --------------------------------------------------------------------------------------


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.text = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, attrs))

    def handle_data(self, data: str) -> None:
        self.text += data


@given(texts)
def test_html_text_is_one_text_node_and_one_attribute_value(text: str) -> None:
    shown = escaping.html(text)
    parser = _Elements()
    parser.feed(f"<p title=\"{shown}\" class='{shown}'>{shown}</p><b>end</b>")
    parser.close()
    expected = re.sub(
        "[^\t\n]",
        lambda m: escaping.visible(m.group()),
        text,
    )
    assert parser.found == [("p", [("title", expected), ("class", expected)]), ("b", [])]
    assert parser.text == expected + "end"


#: The drawings a report embeds: graphviz's, and the report's own charts.
GRAPHVIZ = (
    '<svg width="62pt" height="44pt" viewBox="0.00 0.00 62.00 44.00" '
    'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">\n'
    '<g id="graph0" class="graph"><title>card</title><!-- a&#45;&gt;b -->\n'
    '<polygon fill="white" stroke="transparent" points="-4,4 -4,-40 58,-40 58,4 -4,4"/>\n'
    '<text text-anchor="middle" x="27" y="-14.3">&lt;script&gt;</text></g>\n</svg>\n'
)


@pytest.mark.parametrize(
    "hostile",
    [
        '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
        '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>',
        '<svg xmlns="http://www.w3.org/2000/svg"><g ONCLICK="alert(1)"/></svg>',
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:x="http://www.w3.org/1999/xlink">'
        '<a x:href="javascript:alert(1)"><text>x</text></a></svg>',
        '<svg xmlns="http://www.w3.org/2000/svg"><text style="x">y</text></svg>',
        '<svg xmlns="http://www.w3.org/2000/svg"><foreignObject><p>x</p></foreignObject></svg>',
        '<svg xmlns="http://www.w3.org/2000/svg"><use href="#a"/></svg>',
        '<!DOCTYPE svg [<!ENTITY a "aaaa">]><svg xmlns="http://www.w3.org/2000/svg">&a;</svg>',
        '<svg xmlns="http://www.w3.org/2000/svg"><![CDATA[<script>x</script>]]></svg>',
        '<?xml-stylesheet href="x.css"?><svg xmlns="http://www.w3.org/2000/svg"/>',
        '<svg xmlns="http://www.w3.org/2000/svg"><text>unclosed</svg>',
        "<svg><text>no namespace</text></svg>",
    ],
)
def test_only_a_plain_drawing_is_embedded(hostile: str) -> None:
    assert escaping.html_picture(hostile) is None
    assert escaping.html_picture(GRAPHVIZ) == GRAPHVIZ


def test_the_report_charts_are_plain_drawings() -> None:
    from hopgate.report import charts

    bars = charts.stacked_bars("<script>", [("</svg><script>x", {"accept": 2, "reject": 1})])
    figures = charts.proportion_bars("t", [("\u202ename", 0.5, 0.2, 0.8, "hopgate")])
    for chart in (bars, figures):
        assert escaping.html_picture(chart) is not None
    assert "\u202e" not in figures and "\\u202ename" in figures


# --- one home ----------------------------------------------------------------------------------

PRINTERS = [
    *sorted((SRC / "cli").glob("*.py")),
    *sorted((SRC / "report").glob("*.py")),
]


def test_printers_escape_through_the_one_home() -> None:
    """No printer writes JSON, CSV or HTML by itself: each goes through hopgate.escaping."""
    for path in PRINTERS:
        source = path.read_text(encoding="utf-8")
        assert "json.dumps(" not in source, path
        assert not re.search(r"from html import|html\.escape|markupsafe import escape", source), (
            path
        )
    for path in sorted(SRC.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        if path.name != "formatting.py":
            assert not re.search(r"csv\.(writer|DictWriter)\(", source), path
        if path.name != "pages.py":
            assert "Environment(" not in source, path


#: The expression forms the HTML templates print values in: plain, joined, formatted,
#: defaulted, concatenated, conditional, through the report's own filter.
_HTML_FORMS = (
    "{{ x }}",
    '{{ [x, x] | join(", ") }}',
    '{{ "%s!" | format(x) }}',
    '{{ x or "-" }}',
    '{{ x ~ "." }}',
    '{{ x if y else "none" }}',
    "{{ [x, x] | show }}",
)
#: The same forms' values as plain text.
_PLAIN = (
    lambda x: x,
    lambda x: f"{x}, {x}",
    lambda x: f"{x}!",
    lambda x: x or "-",
    lambda x: x + ".",
    lambda x: x,
    lambda x: f"{x}, {x}",
)


@given(texts)
def test_every_html_value_is_escaped_once(text: str) -> None:
    """Every value an HTML template prints, in every form the templates use, passes
    through escaping.html exactly once (Jinja2's finalize; autoescape is off because it
    would escape html()'s Markup again): one text node and one attribute value, never
    markup, never escaped twice."""
    env = _environment(False)
    assert env.finalize is escaping.html
    for form, plain in zip(_HTML_FORMS, _PLAIN, strict=True):
        page = env.from_string(f'<p title="{form}">{form}</p><b>end</b>').render(x=text, y=True)
        parser = _Elements()
        parser.feed(page)
        parser.close()
        expected = re.sub("[^\t\n]", lambda m: escaping.visible(m.group()), plain(text))
        assert parser.found == [("p", [("title", expected)]), ("b", [])], form
        assert parser.text == expected + "end", form


def test_html_templates_print_nothing_unescaped() -> None:
    """Each HTML template's values are escaped, and Markup (a checked picture, the page's
    own style and script) is kept as it is."""
    env = _environment(False)
    assert "report.html.j2" in env.list_templates()
    template = env.from_string('<p title="{{ x }}">{{ x }}</p>{{ m }}')
    assert template.render(x='"><script>x</script>\u202e&amp;', m=Markup("<i>ok</i>")) == (
        '<p title="&#34;&gt;&lt;script&gt;x&lt;/script&gt;\\u202e&amp;amp;">'
        "&#34;&gt;&lt;script&gt;x&lt;/script&gt;\\u202e&amp;amp;</p><i>ok</i>"
    )


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def test_the_page_policy_allows_its_own_script_and_style_by_digest_only() -> None:
    env = _environment(False)
    assets = page_assets(env)
    policy = dict(part.strip().split(" ", 1) for part in str(assets["csp"]).split(";"))
    assert policy == {
        "default-src": "'none'",
        "style-src": _sha256(str(assets["style"])),
        "script-src": _sha256(str(assets["script"])),
        "img-src": "data:",
        "base-uri": "'none'",
        "form-action": "'none'",
    }
    assert "unsafe" not in str(assets["csp"])
    # The script is the template folder's report.js as it is, and it reads no data.
    shipped = SRC / "report" / "templates" / "report.js"
    assert str(assets["script"]) == shipped.read_text(encoding="utf-8")
    assert "innerHTML" not in str(assets["script"])


def test_the_page_carries_exactly_the_script_and_style_its_policy_names() -> None:
    import hopgate
    from hopgate.decide.evaluation import evaluate
    from hopgate.report.build import build_report
    from hopgate.report.pages import render as render_report

    with hopgate.open_store(None) as store:
        hopgate.load(store, ROOT / "examples" / "cedar.yaml")
        evaluate(store)
        page = render_report(build_report(store, run="sys-a", pictures=0), "html")
    scripts = re.findall(r"<script>(.*?)</script>", page, re.S)
    styles = re.findall(r"<style>(.*?)</style>", page, re.S)
    assert len(scripts) == 1 and len(styles) == 1
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page)
    assert policy is not None
    assert f"script-src {_sha256(scripts[0])};" in policy.group(1)
    assert f"style-src {_sha256(styles[0])};" in policy.group(1)
