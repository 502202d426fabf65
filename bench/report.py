"""Benchmark ``hopgate report`` on a synthetic run, and the page's load time in Chromium.

For each size (claims), in a fresh subprocess:

1. write a synthetic JSON Lines ledger (``bench/synthetic.py``), load it into
   an on-disk store and evaluate its run (not part of the figures);
2. time ``hopgate report --run run0 -o report.html`` as a user runs it (a
   subprocess: reading the evaluation, peer figures, 50 card pictures with
   graphviz, rendering), and its parts in-process;
3. with Chromium installed, open the page headless and report its load time
   (navigation start to the end of the load event) and its size.

It prints figures and asserts nothing::

    python bench/report.py --sizes 1000,10000
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _module(path: Path, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _hopgate(store: Path, *args: str) -> float:
    clock = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-c",
            "from hopgate.cli import main; main()",
            "--store",
            str(store),
            *args,
        ],
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - clock


def measure(claims: int, folder: Path) -> dict[str, Any]:
    """The figures of one size (see the module docstring)."""
    import hopgate
    from hopgate.report.build import build_report
    from hopgate.report.pages import render

    synthetic = _module(ROOT / "bench" / "synthetic.py", "synthetic")
    ledger = folder / "ledger.jsonl"
    synthetic.write_ledger(ledger, claims)
    store = folder / "store"
    figures: dict[str, Any] = {"claims": claims}
    figures["load_s"] = _hopgate(store, "load", str(ledger))
    figures["evaluate_s"] = _hopgate(store, "evaluate")
    page = folder / "report.html"
    figures["report_cli_s"] = _hopgate(store, "report", "--run", "run0", "-o", str(page))
    figures["report_md_cli_s"] = _hopgate(
        store, "report", "--run", "run0", "--format", "md", "-o", str(folder / "report.md")
    )
    figures["html_mb"] = round(page.stat().st_size / 1e6, 2)
    with hopgate.open_store(store) as opened:
        clock = time.perf_counter()
        report = build_report(opened, run="run0", pictures=0, peers=False)
        figures["read_cards_s"] = time.perf_counter() - clock
        figures["cards"] = len(report.cards)
        clock = time.perf_counter()
        render(report, "html")
        figures["render_html_s"] = time.perf_counter() - clock
    sys.path.insert(0, str(ROOT / "tests"))
    from browser import Browser, chromium

    if chromium() is not None:
        with Browser(folder / "profile", timeout=300) as browser:
            figures["page_load_s"] = browser.open(page.as_uri())
            figures["console_errors"] = len(browser.console_errors())
            figures["requests"] = len(browser.requests())
    return {k: round(v, 2) if isinstance(v, float) else v for k, v in figures.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000", help="claims per run, comma-separated")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one is not None:
        with tempfile.TemporaryDirectory(prefix="hopgate-bench-report-") as folder:
            print(json.dumps(measure(args.one, Path(folder))))
        return 0
    for size in (int(s) for s in args.sizes.split(",")):
        done = subprocess.run(
            [sys.executable, __file__, "--one", str(size)], capture_output=True, text=True
        )
        if done.returncode != 0:
            print(f"{size} claims: failed\n{done.stderr}")
            continue
        print(done.stdout.strip().splitlines()[-1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
