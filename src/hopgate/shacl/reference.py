"""pySHACL, the reference engine, run in a child process: bounded in time, cut off from the network.

pySHACL matches ``sh:pattern`` with Python's backtracking regular
expressions: a catastrophic pattern such as ``^(a+)+$`` runs for ever on a
forty-letter string, and a match cannot be interrupted inside the
interpreter. It also answers SHACL-SPARQL with rdflib's engine, which loads
the graphs a query names in ``FROM`` (over HTTP, or ``file:``). So the
validation is forked (:func:`validate_reference`):

- the child switches rdflib's graph loading off and installs an audit hook
  that refuses sockets, processes and opening any file outside Python's own
  installation, then validates and sends the report's triples back;
- the parent waits at most :data:`hopgate.inputs.REFERENCE_SECONDS`, then
  kills the child and reports that the engine did not finish.

The compiled engine (:mod:`hopgate.shacl.compiler`) needs none of this: its
regular expressions are Oxigraph's, which run in time linear in the text.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
from collections.abc import Iterator
from multiprocessing.connection import Connection
from typing import Any

import rdflib

from hopgate.errors import ShaclError
from hopgate.inputs import MAX_DEPTH, REFERENCE_SECONDS

#: Audit events the child refuses: the network, other processes.
_REFUSED_EVENTS = frozenset(
    {
        "socket.connect",
        "socket.bind",
        "socket.getaddrinfo",
        "socket.gethostbyname",
        "socket.gethostbyaddr",
        "urllib.Request",
        "subprocess.Popen",
        "os.system",
        "os.exec",
        "os.posix_spawn",
        "os.spawn",
        "os.fork",
    }
)


@contextlib.contextmanager
def literals_as_written() -> Iterator[None]:
    """rdflib keeps literals as written while this holds (it rewrites ``"01"^^xsd:integer``
    to ``"1"`` on parse, and on unpickling, unless told not to)."""
    saved = rdflib.NORMALIZE_LITERALS
    rdflib.NORMALIZE_LITERALS = False
    try:
        yield
    finally:
        rdflib.NORMALIZE_LITERALS = saved


class _Refused(Exception):
    """What the child's audit hook raises; reported as the reason the run stopped."""


def _python_roots() -> tuple[str, ...]:
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    roots |= {os.path.dirname(os.path.dirname(rdflib.__file__))}
    return tuple(sorted(os.path.realpath(root) + os.sep for root in roots))


def _sandbox() -> None:
    """Refuse, in this (child) process, the network, other processes and foreign files."""
    import rdflib.plugins.sparql

    rdflib.plugins.sparql.SPARQL_LOAD_GRAPHS = False
    roots = _python_roots()

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event in _REFUSED_EVENTS:
            raise _Refused(f"{event} is refused while the shapes run")
        if event == "open" and args:
            path, mode = args[0], args[1] if len(args) > 1 else "r"
            if isinstance(path, int):
                return
            name = os.path.realpath(os.fsdecode(path))
            writing = isinstance(mode, str) and any(flag in mode for flag in "wax+")
            if writing or not name.startswith(roots):
                raise _Refused(f"opening {name} is refused while the shapes run")

    sys.addaudithook(hook)


def _child(connection: Connection, data: rdflib.Graph, shapes: rdflib.Graph) -> None:
    try:
        import pyshacl

        _sandbox()
        # pySHACL nests a frame per shape level; hopgate.shacl.bounds allows MAX_DEPTH.
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 20 * MAX_DEPTH + 2000))
        _, report, _ = pyshacl.validate(
            data,
            shacl_graph=shapes,
            inference="none",
            allow_warnings=True,
            allow_infos=True,
            advanced=False,
            max_validation_depth=MAX_DEPTH + 1,
        )
        if not isinstance(report, rdflib.Graph):
            connection.send(("error", str(report)))
        else:
            connection.send(("report", list(report)))
    except BaseException as exc:  # noqa: BLE001 - everything the child meets is reported
        connection.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        connection.close()


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else "no reason given"
    return line if len(line) <= 300 else line[:300] + "..."


def validate_reference(
    data: rdflib.Graph, shapes: rdflib.Graph, *, seconds: float = REFERENCE_SECONDS
) -> rdflib.Graph:
    """pySHACL's ``sh:ValidationReport`` of ``data`` against ``shapes``, from a child process.

    Args:
        data: the data graph.
        shapes: the shapes graph.
        seconds: how long the child may run.

    Raises:
        ShaclError: pySHACL refused the shapes, touched the network or a file, did not
            finish within ``seconds``, or stopped without a report.
    """
    import pyshacl  # noqa: F401 - imported once here, not in every child

    context = multiprocessing.get_context("fork")
    reader, writer = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(writer, data, shapes), daemon=True)
    process.start()
    writer.close()
    try:
        if not reader.poll(seconds):
            raise ShaclError(
                f"pySHACL did not finish within {seconds:g} s and was stopped (a sh:pattern "
                "that makes Python's regular expressions backtrack, or very large data); "
                "the store engine runs sh:pattern in linear time",
                engine="pyshacl",
            )
        with literals_as_written():
            kind, payload = reader.recv()
    except EOFError:
        process.join(5)
        raise ShaclError(
            f"pySHACL stopped without a report (exit code {process.exitcode})", engine="pyshacl"
        ) from None
    finally:
        reader.close()
        if process.is_alive():
            process.kill()
        process.join()
    if kind == "error":
        raise ShaclError(f"pySHACL refused the shapes: {_first_line(payload)}", engine="pyshacl")
    report = rdflib.Graph()
    for triple in payload:
        report.add(triple)
    return report


__all__ = ["literals_as_written", "validate_reference"]
