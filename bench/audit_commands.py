"""The audit commands as a committee and an auditor run them, this checkout beside an earlier one.

On one store (``--store``: a folder holding ``store/``, as ``bench/read_commands.py``
builds them, with a run ``run0`` evaluated), each step runs as a process,
``hopgate -q --store STORE/store ...``, alternating the earlier checkout
(``--before``, a git worktree) and this one for ``--rounds`` rounds:

1. ``export --run run0`` (TriG, the evaluation's reader) into a fresh folder;
2. ``sign`` that folder with a key made for the benchmark;
3. ``verify`` it, trusting that key;
4. ``validate`` the store.

It prints wall and CPU seconds (the child's user + system), the best of the
rounds, and whether both checkouts gave the same thing: the same export bytes,
the same ``verify`` text, the same ``validate`` report (its closing line, which
states the seconds, left out). ``sign`` writes a proof with the time in it, so
its check is the other checkout's ``verify`` accepting it. It asserts nothing::

    git worktree add /tmp/before 718ff76
    python bench/audit_commands.py --before /tmp/before --store /tmp/hopgate-read-commands/after-10000
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.read_commands import run_command  # noqa: E402


def _round(checkout: Path, store: Path, work: Path, key: Path) -> dict[str, tuple]:
    """One round of the four steps with ``checkout``: each step's (output, wall, cpu)."""
    export = work / "export"
    shutil.rmtree(export, ignore_errors=True)
    found = {"export": run_command(checkout, store, ["export", "--run", "run0", "-o", str(export)])}
    found["export"] = ((export / "export.trig").read_bytes(), *found["export"][1:])
    found["sign"] = run_command(
        checkout, store, ["sign", str(export), "--key", str(key), "--by", "bench"]
    )
    text, wall, cpu = run_command(checkout, store, ["verify", str(export), "--trust", f"{key}.pub"])
    # The text names the folder, which differs between the checkouts.
    found["verify"] = (text.replace(str(export).encode(), b"EXPORT"), wall, cpu)
    text, wall, cpu = run_command(checkout, store, ["validate"])
    found["validate"] = (b"\n".join(text.rstrip(b"\n").split(b"\n")[:-1]), wall, cpu)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="the earlier checkout")
    parser.add_argument("--store", type=Path, required=True, help="a folder holding store/")
    parser.add_argument("--rounds", type=int, default=1)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        key = work / "bench.key"
        run_command(ROOT, options.store, ["keys", "new", "-o", str(key)])
        rounds: dict[str, list[dict[str, tuple]]] = {"before": [], "after": []}
        for _ in range(options.rounds):
            rounds["before"].append(_round(options.before, options.store, work / "b", key))
            rounds["after"].append(_round(ROOT, options.store, work / "a", key))
        # Each checkout's verify of the other's last signed export.
        crossed = [
            run_command(options.before, options.store, ["verify", str(work / "a" / "export")]),
            run_command(ROOT, options.store, ["verify", str(work / "b" / "export")]),
        ]
    print("| step | before, wall (CPU) | after, wall (CPU) | ratio (wall) | same |")
    print("|---|---|---|---|---|")
    for step in ("export", "sign", "verify", "validate"):
        (bw, bc), (aw, ac) = (
            min((r[step][1], r[step][2]) for r in rounds[which]) for which in ("before", "after")
        )
        if step == "sign":
            same = "yes" if all(b"valid proof" in out for out, _, _ in crossed) else "NO"
        else:
            same = "yes" if rounds["before"][-1][step][0] == rounds["after"][-1][step][0] else "NO"
        print(f"| `{step}` | {bw:.2f} ({bc:.2f}) | {aw:.2f} ({ac:.2f}) | {aw / bw:.2f}x | {same} |")


if __name__ == "__main__":
    main()
