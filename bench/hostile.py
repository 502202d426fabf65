"""How long hostile inputs take to be read, checked or refused (issue 25, items 8 and 9).

Each case runs in a fresh Python process (a crash or a hang cannot stop the others), with
``src/`` of this tree, or of ``--against DIR`` (another checkout's ``src``), first on the
path; it prints wall seconds, ``timeout`` past ``--timeout``, or how the process died.
It asserts nothing (tests/test_hostile_files.py holds the behaviour)::

    python bench/hostile.py
    python bench/hostile.py --against /work/main/src --timeout 120
"""

from __future__ import annotations

import argparse
import gzip
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PREFIXES = "@prefix sh: <http://www.w3.org/ns/shacl#> .\n@prefix ex: <https://example.org/> .\n"
DATA = PREFIXES + 'ex:a ex:p "x" ; ex:q ex:b . ex:b ex:p ex:a .\n'


def _files(scratch: Path) -> None:
    """Write the hostile files every case reads."""
    (scratch / "data.ttl").write_text(DATA)
    (scratch / "blank.jsonl.gz").write_bytes(gzip.compress(b"\n" * 10_000_000))
    values = " ".join(f'"v{i}"' for i in range(10_000))
    (scratch / "in.ttl").write_text(
        PREFIXES + f"ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:property [ sh:path ex:p ; "
        f"sh:in ( {values} ) ] .\n"
    )
    for steps, name in ((64, "path64.ttl"), (3000, "path3000.ttl")):
        path = " ".join(["ex:q ex:p"] * (steps // 2))
        (scratch / name).write_text(
            PREFIXES + f"ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:property [ "
            f"sh:path ( {path} ) ; sh:minCount 1 ] .\n"
        )
    for levels, name in ((62, "chain64.ttl"), (3000, "chain3000.ttl")):
        lines = [PREFIXES, "ex:N0 a sh:NodeShape ; sh:targetNode ex:a ; sh:node ex:N1 ."]
        lines += [f"ex:N{i} sh:node ex:N{i + 1} ." for i in range(1, levels)]
        lines.append(f"ex:N{levels} sh:property [ sh:path ex:q ; sh:class ex:C ] .")
        (scratch / name).write_text("\n".join(lines) + "\n")
    entities = "".join(
        f'<!ENTITY {c} "{(f"&{p};" * 10) if p else "a" * 60}">\n'
        for p, c in zip(["", "a", "b", "c", "d", "e"], "abcdef", strict=True)
    )
    (scratch / "laughs.rdf").write_text(
        f'<?xml version="1.0"?>\n<!DOCTYPE rdf:RDF [\n{entities}]>\n'
        '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
        'xmlns:ex="https://example.org/"><rdf:Description rdf:about="https://example.org/a">'
        "<ex:p>&f;</ex:p></rdf:Description></rdf:RDF>\n"
    )
    (scratch / "regex.ttl").write_text(
        PREFIXES + "ex:S a sh:NodeShape ; sh:targetNode ex:r ; sh:property [ sh:path ex:t ; "
        'sh:pattern "^(a+)+$" ] .\n'
    )
    (scratch / "regex-data.ttl").write_text(PREFIXES + 'ex:r ex:t "' + "a" * 40 + 'b" .\n')


#: name -> Python code run in the child (``scratch`` is the folder of the files).
CASES = {
    "(start-up: import hopgate and rdflib)": """
        import hopgate, hopgate.shacl.graphs
    """,
    "10M blank lines, gzip'd (ledger reader)": """
        from hopgate.ingest.ledger import read_records
        assert list(read_records(scratch / "blank.jsonl.gz")) == []
    """,
    "sh:in of 10,000 values": """
        from hopgate.shacl.graphs import validate_graph
        validate_graph(scratch / "data.ttl", scratch / "in.ttl")
    """,
    "64-step path (store engine)": """
        from hopgate.shacl.graphs import validate_graph
        validate_graph(scratch / "data.ttl", scratch / "path64.ttl")
    """,
    "3,000-step path": """
        from hopgate.shacl.graphs import validate_graph
        try: validate_graph(scratch / "data.ttl", scratch / "path3000.ttl")
        except Exception as exc: print(type(exc).__name__, str(exc)[:60])
    """,
    "64-deep sh:node chain (store engine)": """
        from hopgate.shacl.graphs import validate_graph
        validate_graph(scratch / "data.ttl", scratch / "chain64.ttl")
    """,
    "3,000-deep sh:node chain": """
        from hopgate.shacl.graphs import validate_graph
        try: validate_graph(scratch / "data.ttl", scratch / "chain3000.ttl")
        except Exception as exc: print(type(exc).__name__, str(exc)[:60])
    """,
    "billion laughs (RDF/XML, 6 levels)": """
        from hopgate.shacl.graphs import validate_graph
        try: validate_graph(scratch / "laughs.rdf", scratch / "data.ttl")
        except Exception as exc: print(type(exc).__name__, str(exc)[:60])
    """,
    "^(a+)+$ on 40 a's and a b (store engine)": """
        from hopgate.shacl.graphs import validate_graph
        validate_graph(scratch / "regex-data.ttl", scratch / "regex.ttl")
    """,
    "8 quotes in a 10 MB text (anchoring)": """
        from hopgate.anchoring import anchor
        text = "a" * 10_000_000 + "b"
        for _ in range(8):
            anchor(text, quote="a", suffix="b")
    """,
}


def run(code: str, scratch: Path, src: Path, timeout: float) -> str:
    """Run one case; its wall time, or how it ended."""
    program = f"from pathlib import Path\nscratch = Path({str(scratch)!r})\n"
    program += textwrap.dedent(code)
    env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    started = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-c", program], env=env, capture_output=True, text=True,
            timeout=timeout,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return f"timeout (> {timeout:g} s)"
    elapsed = time.perf_counter() - started
    if done.returncode < 0:
        return f"died: {signal.Signals(-done.returncode).name} after {elapsed:.2f} s"
    if done.returncode != 0:
        return f"failed after {elapsed:.2f} s: {done.stderr.strip().splitlines()[-1][:80]}"
    said = done.stdout.strip()
    return f"{elapsed:.2f} s" + (f" ({said})" if said else "")


def main() -> int:
    """Print one line per case (and per source tree with --against)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, help="another checkout's src/ to compare")
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args()
    trees = [("this tree", ROOT / "src")]
    if args.against is not None:
        trees.insert(0, (str(args.against), args.against))
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        _files(scratch)
        for name, code in CASES.items():
            for label, src in trees:
                print(f"{name:<44} {label:<20} {run(code, scratch, src, args.timeout)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
