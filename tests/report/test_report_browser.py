"""The audit report in a real browser: headless Chromium, driven over a pipe.

Each test opens a report as a committee member would, checks that it renders
with no console error and makes no request beyond its own file, and keeps a
screenshot (or the PDF print) in the test's temporary folder. Without
Chromium the tests skip, except under CI=true, where they fail.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from browser import LOCAL_SCHEMES, Browser, chromium
from conftest import CEDAR, bench_module, required

import hopgate
from hopgate.audit.results import gate
from hopgate.decide.evaluation import evaluate
from hopgate.report.build import build_report
from hopgate.report.pages import PAGE_SIZE, render
from hopgate.store.catalog import runs

ROOT = Path(__file__).resolve().parents[2]
MISSING_HOP_A = "Project Cedar is mapped to record R17"


@pytest.fixture()
def browser(tmp_path: Path) -> Iterator[Browser]:
    if chromium() is None:
        required("chromium is not installed (apt-get install chromium)")
    with Browser(tmp_path / "profile") as opened:
        yield opened


def _write_report(store: Any, run: str, path: Path, **options: Any) -> Path:
    path.write_text(render(build_report(store, run=run, **options), "html"), encoding="utf-8")
    return path


def _check_rendered(browser: Browser, page: Path) -> None:
    browser.open(page.as_uri())
    assert browser.console_errors() == []
    # The page's own file is the only request: styles, charts and pictures are inline.
    requests = browser.requests()
    assert requests == [page.as_uri()], requests
    assert all(url.startswith(LOCAL_SCHEMES) for url in requests)


def _visible(browser: Browser, selector: str, text: str) -> bool:
    """Whether an element matching ``selector`` holding ``text`` is drawn on screen."""
    script = (
        "(() => { const found = [...document.querySelectorAll(%s)]"
        "  .filter(e => e.textContent.includes(%s));"
        " if (!found.length) return false; const e = found[0]; e.scrollIntoView();"
        " const r = e.getBoundingClientRect(); const s = getComputedStyle(e);"
        " return r.width > 0 && r.height > 0 && r.bottom > 0 && r.top < innerHeight"
        "  && s.visibility === 'visible' && s.display !== 'none'"
        "  && e.innerText.includes(%s); })()"
    )
    quoted = [f'"{value}"' for value in (selector, text, text)]
    return bool(browser.evaluate(script % tuple(quoted)))


def test_worked_example_report_in_a_browser(browser: Browser, cedar: Any, tmp_path: Path) -> None:
    page = _write_report(cedar, "sys-a", tmp_path / "report.html")
    _check_rendered(browser, page)
    assert _visible(browser, "blockquote.missing", MISSING_HOP_A)
    assert browser.evaluate("document.querySelectorAll('svg.chart').length") >= 5
    browser.screenshot(tmp_path / "report-case-a.png")
    assert (tmp_path / "report-case-a.png").read_bytes().startswith(b"\x89PNG")


def test_worked_example_report_prints_to_pdf(browser: Browser, cedar: Any, tmp_path: Path) -> None:
    page = _write_report(cedar, "sys-a", tmp_path / "report.html")
    _check_rendered(browser, page)
    target = tmp_path / "report.pdf"
    browser.pdf(target)
    data = target.read_bytes()
    assert data.startswith(b"%PDF-")
    pages = re.findall(rb"/Type\s*/Page[^s]", data)
    assert 2 <= len(pages) <= 20
    # A4 portrait: 595 x 842 points.
    boxes = re.findall(rb"/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]", data)
    assert boxes and all(abs(float(w) - 595) < 2 and abs(float(h) - 842) < 2 for w, h in boxes)
    # Printing opened every collapsed section (the beforeprint handler ran).
    assert browser.evaluate("[...document.querySelectorAll('details')].every(d => d.open)")


#: An A4 page less the report's 15 mm margins, in CSS pixels (96 per inch).
PAGE_WIDTH, PAGE_HEIGHT = 180 / 25.4 * 96, 267 / 25.4 * 96


def test_a_printed_card_keeps_its_picture_on_its_page(
    browser: Browser, cedar: Any, tmp_path: Path
) -> None:
    """Each card, its picture included, fits one printed page and is never split, so
    the PDF has a page per card at most beyond the summary (no near-empty pages)."""
    page = _write_report(cedar, "sys-a", tmp_path / "report.html")
    _check_rendered(browser, page)
    browser.pdf(tmp_path / "report.pdf")
    printed = len(re.findall(rb"/Type\s*/Page[^s]", (tmp_path / "report.pdf").read_bytes()))
    browser.call("Emulation.setEmulatedMedia", {"media": "print"}, session=True)
    browser.call(
        "Emulation.setDeviceMetricsOverride",
        {"width": round(PAGE_WIDTH), "height": round(PAGE_HEIGHT), "deviceScaleFactor": 1,
         "mobile": False},
        session=True,
    )  # fmt: skip
    cards = browser.evaluate(
        "[...document.querySelectorAll('article.card')].map(e => ({"
        " height: e.getBoundingClientRect().height,"
        " picture: e.querySelector('figure.picture svg')?.getBoundingClientRect().height || 0,"
        " kept: getComputedStyle(e).breakInside + ' ' +"
        "   getComputedStyle(e.querySelector('figure.picture')).breakInside }))"
    )
    assert len(cards) == 4
    for card in cards:
        assert card["picture"] > 200, card  # drawn, at a size one can read
        assert card["height"] <= PAGE_HEIGHT, card
        assert card["kept"] == "avoid-page avoid-page", card
    assert printed <= len(cards) + 5, printed


@pytest.mark.slow
def test_1k_claim_report_in_a_browser(browser: Browser, tmp_path: Path) -> None:
    """A 1k-claim report renders whole, and lays out only its first page of cards: the
    rest sit in collapsed sections (the page's load time: bench/report.py)."""
    ledger = tmp_path / "ledger.jsonl"
    bench_module("synthetic").write_ledger(ledger, 1_000)
    with hopgate.open_store(None) as store:
        hopgate.load(store, ledger)
        evaluate(store)
        run = runs(store)[0]
        report = build_report(store, run=run, pictures=20)
        page = tmp_path / "report.html"
        page.write_text(render(report, "html"), encoding="utf-8")
    _check_rendered(browser, page)
    cards = len(report.cards)
    assert cards > PAGE_SIZE
    assert browser.evaluate("document.querySelectorAll('article.card').length") == cards
    # The first page is open, every later one collapsed until asked for.
    first = browser.evaluate("document.querySelectorAll('div.page article.card').length")
    closed = browser.evaluate(
        "document.querySelectorAll('details.page:not([open]) article.card').length"
    )
    assert (first, closed) == (PAGE_SIZE, cards - PAGE_SIZE)
    shown = "[...document.querySelectorAll('article.card')].filter(c => c.checkVisibility()).length"
    assert browser.evaluate(shown) == PAGE_SIZE
    browser.screenshot(tmp_path / "report-1k.png")
    assert (tmp_path / "report-1k.png").read_bytes().startswith(b"\x89PNG")


#: The attack of issue 25: a system answer that rewrites the release banner and removes
#: the cards needing attention.
BANNER_ATTACK = (
    "Entity R.<script>var g=document.getElementById('gate');g.className='banner pass';"
    "g.textContent='Release decision: PASS';document.getElementById('attention').remove();"
    "window.__pwned=1</script>"
)


def test_a_script_in_a_system_answer_cannot_turn_fail_into_pass(
    browser: Browser, tmp_path: Path
) -> None:
    ledger = yaml.safe_load(CEDAR.read_text(encoding="utf-8"))
    for case in ledger["cases"]:
        for output in case["outputs"]:
            if output["id"] == "sys-a/qA/o1":
                output["text"] = BANNER_ATTACK
    path = tmp_path / "attack.yaml"
    path.write_text(yaml.safe_dump(ledger, allow_unicode=True), encoding="utf-8")
    with hopgate.open_store(None) as store:
        hopgate.load(store, path)
        evaluate(store)
        assert not gate(store, run="sys-a").passed
        page = _write_report(store, "sys-a", tmp_path / "report.html", pictures=0)
    _check_rendered(browser, page)
    assert browser.evaluate("window.__pwned") is None
    banner = browser.evaluate("document.getElementById('gate').textContent")
    assert banner.startswith("Release decision: FAIL")
    assert browser.evaluate("document.getElementById('gate').className") == "banner fail"
    assert browser.evaluate("document.querySelectorAll('#attention li').length") == 1
    # The answer is shown as the text it is.
    assert _visible(browser, "dd", "g.textContent='Release decision: PASS'")
