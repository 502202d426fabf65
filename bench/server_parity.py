"""How often Virtuoso 7.2.5 answers an evaluation step differently from Oxigraph, on random ledgers.

Starts fresh private Virtuoso servers (tests/virtuoso.py). On each, draws
random ledgers (tests/ledger_strategies.py, not derandomised), loads each
into an embedded store and the server, and compares every step of each run's
evaluation: the scratch graph after each update, then each result query's
rows (``tests/decide/test_server_evaluation.py``'s comparison), under each join
order (the server's own plans, and the order the text is written, which
forces others). Prints, per server and order, how many ledgers differed and
at which step first; asserts nothing. The tests compare a few ledgers this
way under CI; this runs as many as asked.

    python bench/server_parity.py --servers 3 --ledgers 30
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import warnings
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The step comparison is the test suite's own (tests/decide/test_server_evaluation.py).
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "decide")]

from conftest import write  # noqa: E402
from ledger_strategies import ledgers  # noqa: E402
from test_server_evaluation import _clear, _remote, _steps  # noqa: E402
from virtuoso import VirtuosoServer, missing  # noqa: E402

import hopgate  # noqa: E402
from hopgate.store import catalog  # noqa: E402


def _first_difference(path: Path, remote: object) -> str | None:
    """The first step that answers differently on the server, or None."""
    _clear(remote)  # type: ignore[arg-type]
    with hopgate.open_store(None) as embedded:
        hopgate.load(embedded, path)
        hopgate.load(remote, path)  # type: ignore[arg-type]
        for run in catalog.runs(embedded):
            try:
                found = _steps(remote, run)  # type: ignore[arg-type]
            except hopgate.HopgateError as exc:
                return f"error: {str(exc)[:80]}"
            for (step, rows), (_, answer) in zip(_steps(embedded, run), found, strict=True):
                if answer != rows:
                    return step
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=3)
    parser.add_argument(
        "--ledgers", type=int, default=30, help="random ledgers per server and join order"
    )
    parser.add_argument("--orders", default="server,written", help="join orders to run")
    args = parser.parse_args(argv)
    reason = missing()
    if reason:
        print(reason)
        return 1
    warnings.simplefilter("ignore")  # Hypothesis warns about example() outside a test.
    strategy = ledgers()
    total: Counter[str] = Counter()
    orders = args.orders.split(",")
    print("server  join order  ledgers  differing  first differing step")
    with tempfile.TemporaryDirectory(prefix="hopgate-parity-") as folder:
        for number in range(args.servers):
            server = VirtuosoServer(Path(folder) / f"virtuoso-{number}")
            server.start()
            try:
                for order in orders:
                    remote = _remote(server, order)
                    found: Counter[str] = Counter()
                    for index in range(args.ledgers):
                        path = write(
                            Path(folder) / f"ledger-{number}-{order}-{index}",
                            strategy.example(),
                            "yaml",
                        )
                        step = _first_difference(path, remote)
                        if step is not None:
                            found[step] += 1
                    total.update(found)
                    steps = ", ".join(f"{step} ({n})" for step, n in found.most_common()) or "-"
                    print(
                        f"{number:>6}  {order:<10}  {args.ledgers:>7}  "
                        f"{sum(found.values()):>9}  {steps}",
                        flush=True,
                    )
            finally:
                server.stop()
    compared = args.servers * len(orders) * args.ledgers
    print(f"all     {'':<10}  {compared:>7}  {sum(total.values()):>9}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
