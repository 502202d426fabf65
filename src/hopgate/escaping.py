"""How every output writes attacker-controlled text: one function per kind of output.

Every string read from a ledger, a pipeline log, a proofs file or a system's
output (ids, texts, titles, names, reasons, decisions) is data, and no data
string may act as markup, start a line, break out of a cell, move the
terminal's cursor or reorder what is shown around it. The printers never
write such a string raw: they pass it through the function of their output
here, the one home of these rules (docs/security.md "What each output escapes").

- :func:`visible`: line ends, control characters (C0, DEL, C1) and bidi
  controls become printable escapes (``\\n``, ``\\x1b``, ``\\u202e``).
- :func:`terminal`: a value in the CLI's text output and tables.
- :func:`csv_cell`: a CSV cell; a cell a spreadsheet would read as a formula
  gets a leading ``'``.
- :func:`json_text`: JSON whose strings read back exactly, with no raw
  character a terminal or a JavaScript parser would act on.
- :func:`markdown`: Markdown text that stays inline text where the template
  put it (CommonMark, GitHub Flavored Markdown tables).
- :func:`html`: HTML text or an attribute value (every value the report's
  HTML templates print passes through it); :func:`html_picture`: an SVG drawing embedded in a
  page only if it holds nothing but drawing elements.
"""

from __future__ import annotations

import functools
import json
import operator
import re
import unicodedata
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Sequence
from dataclasses import fields, is_dataclass
from typing import Any

import orjson
from markupsafe import Markup, escape

#: The characters a renderer draws as nothing (Unicode's Default_Ignorable_Code_Point,
#: DerivedCoreProperties.txt, which :mod:`unicodedata` does not expose), as ranges: the
#: soft hyphen, the combining grapheme joiner, ALM, the Hangul fillers, the Khmer
#: inherent vowels, the Mongolian variation selectors and vowel separator, the
#: zero-width space, non-joiner and joiner, LRM/RLM, the bidi embeddings, overrides and
#: isolates, the word joiner and invisible operators, the variation selectors, the byte
#: order mark, the shorthand and musical format controls, and the tags. Data holding
#: one can look like other data (an id ``o\u200b1`` like ``o1``) or hide text (tags
#: spell words nobody sees): every output makes them visible (:func:`visible`) and the
#: reader filter ignores them (hopgate.audit.withholding.normalize).
DEFAULT_IGNORABLE: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
_IGNORABLE_CLASS = "".join(
    chr(start) if start == end else f"{chr(start)}-{chr(end)}" for start, end in DEFAULT_IGNORABLE
)
#: What :func:`visible` escapes: C0 controls (tab and line ends included), DEL, C1
#: controls (NEL U+0085 included), the line and paragraph separators U+2028/U+2029, and
#: every default-ignorable character (:data:`DEFAULT_IGNORABLE`: the bidi controls that
#: reorder text around them among them).
INVISIBLE = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029{_IGNORABLE_CLASS}]")
#: The same, less tab and LF: in HTML they are white space (a multi-line answer stays one),
#: and an RDF syntax writes them raw only as white space or inside a long literal.
_INVISIBLE_BUT_TAB_LF = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029{_IGNORABLE_CLASS}]")
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape_char(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    point = ord(char)
    if point <= 0xFF:
        return f"\\x{point:02x}"
    return f"\\u{point:04x}" if point <= 0xFFFF else f"\\U{point:08x}"


def visible(text: str) -> str:
    """``text`` with every line end, control character and bidi control written as an escape.

    Tab, LF and CR become ``\\t``, ``\\n``, ``\\r``; other characters up to U+00FF
    ``\\xHH``; the rest ``\\uHHHH``. Everything else, backslashes included, is kept.

    >>> visible("a\\nb\\x1b[31m\\u202egood")
    'a\\\\nb\\\\x1b[31m\\\\u202egood'
    """
    return INVISIBLE.sub(_escape_char, text)


def visible_each(texts: list[str]) -> list[str]:
    """:func:`visible` of each text. A table's thousands of cells rarely hold a character
    to escape: one scan of them all finds none, and they are returned as they are.

    >>> visible_each(["a", "b"]), visible_each(["a", "b\\tc"])
    (['a', 'b'], ['a', 'b\\\\tc'])
    """
    # INVISIBLE matches single characters, so it finds one in the texts joined
    # exactly when it finds one in a text.
    if INVISIBLE.search("".join(texts)) is None:
        return texts
    return [visible(text) for text in texts]


def _uchar(match: re.Match[str]) -> str:
    point = ord(match.group())
    return f"\\u{point:04X}" if point <= 0xFFFF else f"\\U{point:08X}"


def rdf_text(text: str) -> str:
    """RDF text (N-Triples, N-Quads, Turtle, TriG) as printed: every control, bidi and
    invisible character but tab and LF written as the syntax's own ``\\uXXXX`` escape
    (UCHAR, allowed in IRIs and string literals, where such characters can only be), so
    the text reads back as the same terms and shows nothing a terminal acts on.

    >>> rdf_text('<http://e/a> <http://e/p> "x\\u202ey\\x1b[2J" .')
    '<http://e/a> <http://e/p> "x\\\\u202Ey\\\\u001B[2J" .'
    """
    return _INVISIBLE_BUT_TAB_LF.sub(_uchar, text)


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def terminal(value: Any) -> str:
    """A value as the CLI prints it in text and tables: one line, nothing a terminal acts on.

    >>> terminal("o1\\nrun sys-a: gate passed")
    'o1\\\\nrun sys-a: gate passed'
    """
    return visible(_text(value))


#: The first characters that make a spreadsheet read a cell as a formula (OWASP's list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> str:
    """A CSV cell: a string starting like a formula is prefixed with ``'``; line ends,
    control characters and bidi controls are made visible, so each record is one line.

    Numbers are written as they are (``-3`` stays a number).

    >>> csv_cell("=HYPERLINK(\\"http://x\\")"), csv_cell(-3), csv_cell("a\\r\\nb")
    ('\\'=HYPERLINK("http://x")', '-3', 'a\\\\r\\\\nb')
    """
    return visible(_csv_text(value))


def csv_cells(values: Sequence[Any]) -> list[str]:
    """:func:`csv_cell` of each value (escaped together: :func:`visible_each`)."""
    return visible_each([_csv_text(value) for value in values])


def _csv_text(value: Any) -> str:
    """A CSV cell before :func:`visible`."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    text = str(value)
    if isinstance(value, str) and _formula_like(text):
        text = "'" + text
    return text


def _formula_like(text: str) -> bool:
    """Whether a spreadsheet may read ``text`` as a formula: it starts like one, or does so
    after white space (an import that trims spaces) or in a full-width form (``＝``)."""
    if text.startswith(FORMULA_STARTS):
        return True
    first = text.lstrip()[:1]
    return bool(first) and unicodedata.normalize("NFKC", first).startswith(FORMULA_STARTS)


def _json_escape(match: re.Match[str]) -> str:
    point = ord(match.group())
    if point <= 0xFFFF:
        return f"\\u{point:04x}"
    # JSON escapes a character beyond the BMP as its UTF-16 surrogate pair.
    point -= 0x10000
    return f"\\u{0xD800 + (point >> 10):04x}\\u{0xDC00 + (point & 0x3FF):04x}"


#: What json.dumps(ensure_ascii=False) leaves raw that a terminal or an older JavaScript
#: parser acts on, or that a reader cannot see: DEL, C1 controls, U+2028/U+2029 and the
#: default-ignorable characters (C0 it escapes).
_JSON_RAW = re.compile(f"[\x7f-\x9f\u2028\u2029{_IGNORABLE_CLASS}]")


#: JSON's string writer (C), as ``json.dumps(ensure_ascii=False)`` uses it.
_JSON_STRING = json.encoder.encode_basestring
_JSON_CONSTANTS = {None: "null", True: "true", False: "false"}


def _json_float(value: float) -> str:
    """A float value as the indented JSON writes it: as orjson writes it (the shortest
    text that reads back the same double, e.g. ``0.00001``; ``null`` for NaN and the
    infinities, which JSON has no number for), in either writer."""
    return orjson.dumps(value).decode()


def _json_key_float(value: float) -> str:
    # A float key is text, written as json.dumps writes it (the writers differ in keys only
    # where orjson refuses the dict: it takes str keys only).
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    return float.__repr__(value)


def _json_key(key: Any) -> str:
    if isinstance(key, str):
        return _JSON_STRING(key)
    if key is None or key is True or key is False:
        return _JSON_STRING(_JSON_CONSTANTS[key])
    if isinstance(key, int):
        return _JSON_STRING(int.__repr__(key))
    if isinstance(key, float):
        return _JSON_STRING(_json_key_float(key))
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


@functools.cache
def _field_values(cls: type) -> Callable[[Any], tuple[Any, ...]]:
    # One C call per row for all its fields: a getattr each was half of writing
    # verdicts' 20,600 cards.
    names = _field_names(cls)
    if len(names) > 1:
        return operator.attrgetter(*names)
    return lambda item: tuple(getattr(item, name) for name in names)


def _json_default(item: Any) -> Any:
    """What JSON is written for a value JSON has no form for: a dataclass as its fields,
    one level at a time (as ``dataclasses.asdict`` gives it, without its deep copies:
    the CLI writes thousands of rows), a tuple of a subclass (a named tuple) as a list,
    anything else as its text."""
    if is_dataclass(item) and not isinstance(item, type):
        cls = item.__class__
        return dict(zip(_field_names(cls), _field_values(cls)(item), strict=True))
    if isinstance(item, tuple):
        return list(item)
    return str(item)


#: orjson writes what :func:`_indented` writes, indented by 2; dataclasses and times
#: are handed to :func:`_json_default` (orjson's own forms differ: it leaves out a
#: dataclass's fields that ``__init__`` does not take, and writes a time with its ``T``).
#: It writes an Enum member as its value (hopgate writes none).
_ORJSON_OPTIONS = (
    orjson.OPT_INDENT_2 | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
)


def _indented_fast(value: Any) -> str | None:
    """:func:`_indented` by 2, written by orjson (Rust): None where orjson refuses the
    value (a dict key that is not a string, an integer beyond 64 bits, a lone surrogate,
    nesting deeper than 254), which the Python writer then writes."""
    try:
        return orjson.dumps(value, default=_json_default, option=_ORJSON_OPTIONS).decode()
    except orjson.JSONEncodeError:
        return None


def _indented(value: Any, indent: int) -> str:
    """``json.dumps(value, indent=indent, ensure_ascii=False, default=str)``, the same text,
    except that a dataclass instance is written as ``dataclasses.asdict`` gives it and
    a float value as :func:`_json_float` writes it.

    The standard library writes indented JSON with its pure-Python encoder
    (a generator per container): 3.2 s of ``verdicts --format json`` at 10k
    claims. This writes the same characters in one recursive pass, with the
    C string writer for every string (``tests/test_escaping.py`` holds the
    two equal on random values). By 2, orjson writes them first
    (:func:`_indented_fast`, 0.05 s for this one's 0.5 s there); this writes
    what it refuses.
    """
    parts: list[str] = []
    add = parts.append
    # A card's keys repeat on every card, and the line breaks on every line:
    # each text is made once per document.
    keys: dict[str, str] = {}
    breaks: list[str] = []

    def line_break(level: int) -> str:
        while len(breaks) <= level:
            breaks.append("\n" + " " * (indent * len(breaks)))
        return breaks[level]

    def write(item: Any, level: int) -> None:
        if isinstance(item, str):
            add(_JSON_STRING(item))
        elif item is None or item is True or item is False:
            add(_JSON_CONSTANTS[item])
        elif isinstance(item, int):
            add(int.__repr__(item))
        elif isinstance(item, float):
            add(_json_float(item))
        elif isinstance(item, list | tuple):
            if not item:
                add("[]")
                return
            inner = line_break(level + 1)
            add("[")
            separator = inner
            for element in item:
                add(separator)
                separator = "," + inner
                if isinstance(element, str):
                    add(_JSON_STRING(element))
                else:
                    write(element, level + 1)
            add(line_break(level) + "]")
        elif isinstance(item, dict):
            if not item:
                add("{}")
                return
            inner = line_break(level + 1)
            comma_inner = "," + inner
            add("{")
            separator = inner
            for key, element in item.items():
                add(separator)
                separator = comma_inner
                if key.__class__ is str:
                    written = keys.get(key)
                    if written is None:
                        written = keys[key] = _JSON_STRING(key) + ": "
                    add(written)
                else:
                    # Not cached: equal keys such as 1 and True, or 0.0 and -0.0, are written differently.
                    add(_json_key(key) + ": ")
                if isinstance(element, str):
                    add(_JSON_STRING(element))
                else:
                    write(element, level + 1)
            add(line_break(level) + "}")
        else:
            write(_json_default(item), level)

    write(value, 0)
    return "".join(parts)


def json_text(value: Any, *, indent: int | None = 2) -> str:
    """``value`` as JSON (no trailing newline): strings read back exactly, and the text
    holds no raw control, separator or bidi character (each written as ``\\uXXXX``).
    A dataclass instance is written as ``dataclasses.asdict`` gives it, a tuple as a
    list; any other value JSON has no form for, as its ``str``. Indented, a float is
    written in the shortest form that reads back the same number (``0.00001``,
    ``1.5e-7``) and NaN and the infinities, which JSON has no number for, as ``null``.

    >>> json_text({"a": "x\\u202ey"}, indent=None)
    '{"a": "x\\\\u202ey"}'
    """
    if indent is None:
        text = json.dumps(value, ensure_ascii=False, default=_json_default)
    else:
        fast = _indented_fast(value) if indent == 2 else None
        text = _indented(value, indent) if fast is None else fast
    return _json_escaped(text)


def _json_escaped(text: str) -> str:
    """JSON text with DEL, C1, U+2028/9 and the characters drawn as nothing as ``\\u``."""
    # An ASCII text holds none of them but DEL; Python knows a text is ASCII without a scan
    # (the regex's scan was 0.12 s of `verdicts --format json`'s 30 MB at 10k claims).
    if text.isascii() and "\x7f" not in text:
        return text
    # These characters occur only inside JSON strings, where \\uXXXX means the same.
    return _JSON_RAW.sub(_json_escape, text)


def json_data(value: Any, *, indent: int | None = None) -> str:
    """``value`` (JSON's own types only) as a file hopgate writes holds it: keys sorted (the
    same data gives the same bytes), strings exact, no raw control, separator or bidi
    character (as :func:`json_text`); no trailing newline.

    >>> json_data({"b": 1, "a": "x\\u202ey"})
    '{"a": "x\\\\u202ey", "b": 1}'
    """
    return _json_escaped(json.dumps(value, ensure_ascii=False, sort_keys=True, indent=indent))


#: What :func:`markdown` backslash-escapes: every character that is inline syntax
#: somewhere in CommonMark or GitHub Flavored Markdown (escapes, code spans, emphasis,
#: links and images, autolinks and raw HTML (``<`` opens both), entities, table cells,
#: strikethrough, math, headings' closing sequence). Data never starts a line (its line
#: ends are made visible), so what counts only at a line's start (``>``, ``-``, ``1.``,
#: indentation) cannot apply.
MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<&|~$#])")


#: What GitHub's Markdown makes a link of with no link syntax (GFM "autolinks
#: (extension)"): a scheme's colon and the dot after ``www`` are escaped, wherever they
#: stand (cmark-gfm looks back over letters only: ``_https://`` and ``1www.`` link).
_AUTOLINK = re.compile(r"(?i)((?:https?|ftp|mailto|xmpp)|www)([:.])")
#: An ``@`` before a domain is an e-mail link, and one starting a word before a name a
#: mention (a notification) on GitHub; no escape keeps it text, so an empty HTML
#: comment after it splits the words. Escapes (``\\_``) count as the name's.
_AUTOLINK_AT = re.compile(r"@(?=[\w\\-]*\.)|(?<![\w\\])@(?=[\w\\])")


def markdown(value: Any) -> str:
    """A value as inline Markdown text: syntax characters escaped, line ends, control
    characters and bidi controls made visible; it neither starts a line nor leaves a
    table cell, and GitHub makes no link or mention of it (``https\\:``, ``www\\.``,
    ``@<!-- -->``).

    >>> markdown("**PASS** | <b>x</b>\\r# y")
    '\\\\*\\\\*PASS\\\\*\\\\* \\\\| \\\\<b>x\\\\</b>\\\\\\\\r\\\\# y'
    """
    escaped = MARKDOWN_SPECIAL.sub(r"\\\1", visible(_text(value)))
    return _AUTOLINK_AT.sub("@<!-- -->", _AUTOLINK.sub(r"\1\\\2", escaped))


def html(value: Any) -> Markup:
    """A value as HTML text or a quoted attribute value: ``< > & " '`` escaped, and
    control and bidi characters made visible (tab and LF stay, as HTML whitespace).

    Markup (a value already safe, such as an inert picture) is returned as it is.

    >>> str(html('<img src=x onerror="go()">\\u202e'))
    '&lt;img src=x onerror=&#34;go()&#34;&gt;\\\\u202e'
    """
    if isinstance(value, Markup):
        return value
    return escape(_INVISIBLE_BUT_TAB_LF.sub(_escape_char, _text(value)))


_SVG = "{http://www.w3.org/2000/svg}"
#: The SVG elements a drawing (graphviz's, or the report's charts) is made of.
DRAWING_ELEMENTS = frozenset(
    _SVG + name
    for name in (
        "svg", "g", "title", "desc", "text", "tspan", "path", "polygon", "polyline",
        "ellipse", "circle", "rect", "line", "defs", "linearGradient", "radialGradient", "stop",
    )
)  # fmt: skip


def html_picture(svg: str) -> Markup | None:
    """``svg`` as markup to embed in a page, or None when it is not a plain drawing.

    A plain drawing is well-formed XML made only of :data:`DRAWING_ELEMENTS`, with no
    event-handler attribute (``on...``), no link (``href``) and no ``style``
    attribute: nothing in it can run, load or restyle the page.
    """
    # No DTD (entities), CDATA or processing instruction: a drawing needs none.
    if re.search(r"<!(?!--)|<\?", svg):
        return None
    try:
        root = ElementTree.fromstring(svg)
    except ElementTree.ParseError:
        return None
    for element in root.iter():
        if element.tag not in DRAWING_ELEMENTS:
            return None
        for name in element.attrib:
            local = name.rpartition("}")[2].lower()
            if local.startswith("on") or local in ("href", "style"):
                return None
    return Markup(svg)


__all__ = [
    "FORMULA_STARTS",
    "INVISIBLE",
    "MARKDOWN_SPECIAL",
    "csv_cell",
    "html",
    "html_picture",
    "json_text",
    "markdown",
    "terminal",
    "visible",
]
