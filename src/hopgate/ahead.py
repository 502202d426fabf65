"""Queries answered ahead of their reader, two at a time, their rows handed over in order.

The engine answers a query without holding Python's lock for most of its
work, so while the reader takes one query's rows the next query can be
answered on the other core. Two readers use it: an evaluation's result queries
into the spool (:mod:`hopgate.decide.spool`; at 10k claims nine of them took
3.1-3.3 s one after another and 1.95-2.2 s two at a time, bench/README.md
"6 December, morning") and the compiled SHACL checks of ``validate``
(:mod:`hopgate.shacl.runner`). Each query's rows come in batches, for the
spool at most a few batches ahead of the reader: it holds a bounded number of
rows, never a whole answer (its reason to be). The validation report keeps
every row anyway, so there each query is read to its end at once.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from itertools import islice
from typing import TypeVar, cast

T = TypeVar("T")

#: Rows handed over at a time, and how many such batches a query may be ahead.
_BATCH = 2048
_DEPTH = 4
#: How many rows a thread reads between two looks at whether to stop.
_STEP = 256
_DONE = object()


@contextmanager
def answered_ahead(
    sources: Sequence[Callable[[], Iterable[T]]], *, workers: int = 2, bounded: bool = True
) -> Iterator[list[Iterator[T]]]:
    """Each source's items as an iterator, for the length of the block.

    ``workers`` sources are answered at once, in threads, in the order given;
    the next one starts when one of them has handed over its last batch, so
    the block must read each iterator to its end, in order (as the spool
    does). An error of a source is raised by its iterator. On leaving the
    block, the threads stop within a few hundred rows and are waited for (an
    interrupt meanwhile is raised once they are): nothing reads the store
    afterwards. An iterator read after the block raises RuntimeError.

    ``bounded``: each source at most a few batches ahead of the reader, so the
    block holds a bounded number of items. Without, a source is read to its
    end while the reader waits on an earlier one: for a reader that keeps every
    item anyway (a validation report), where a thread waiting for the reader
    would leave its core idle.
    """
    stop = threading.Event()
    depth = _DEPTH if bounded else 0  # 0: a queue without bound
    handed: list[queue.Queue[object]] = [queue.Queue(maxsize=depth) for _ in sources]

    def hand(into: queue.Queue[object], item: object) -> bool:
        while not stop.is_set():
            try:
                into.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def produce(index: int) -> None:
        into = handed[index]
        try:
            items = iter(sources[index]())
            ended = False
            while not ended and not stop.is_set():
                batch: list[T] = []
                while len(batch) < _BATCH and not stop.is_set():
                    step = list(islice(items, _STEP))
                    batch += step
                    if len(step) < _STEP:
                        ended = True
                        break
                if stop.is_set() or (batch and not hand(into, batch)):
                    return
        except BaseException as exc:  # handed to the reader, which raises it
            hand(into, exc)
            return
        hand(into, _DONE)

    def read(index: int) -> Iterator[T]:
        while True:
            try:
                item = handed[index].get(timeout=0.05)
            except queue.Empty:
                if stop.is_set():
                    raise RuntimeError("the answers were read after their block ended") from None
                continue
            if item is _DONE:
                return
            if isinstance(item, BaseException):
                raise item
            yield from cast(list[T], item)

    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="hopgate-ahead")
    try:
        for index in range(len(sources)):
            pool.submit(produce, index)
        yield [read(index) for index in range(len(sources))]
    finally:
        stop.set()
        try:
            pool.shutdown(wait=True, cancel_futures=True)
        except BaseException:
            # Interrupted while waiting: the threads still stop; wait for them, then raise.
            pool.shutdown(wait=True, cancel_futures=True)
            raise


__all__ = ["answered_ahead"]
