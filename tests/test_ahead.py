"""Answers read ahead, two at a time: the same rows in the same order, bounded, stoppable."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from hopgate import ahead
from hopgate.ahead import answered_ahead


def _threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("hopgate-ahead")]


def test_each_source_is_read_whole_and_in_order() -> None:
    sizes = [0, 1, ahead._BATCH, ahead._BATCH * 3 + 7, 5]
    sources = [lambda n=n, k=k: ((k, i) for i in range(n)) for k, n in enumerate(sizes)]
    with answered_ahead(sources) as answered:
        read = [list(items) for items in answered]
    assert read == [[(k, i) for i in range(n)] for k, n in enumerate(sizes)]
    assert _threads() == []


def test_an_error_of_a_source_is_raised_by_its_iterator_after_its_rows() -> None:
    def failing() -> Iterator[int]:
        yield from range(3)
        raise ValueError("the engine refused")

    with answered_ahead([lambda: iter([1, 2]), failing, lambda: iter([9])]) as answered:
        first, second, third = answered
        assert list(first) == [1, 2]
        got = []
        with pytest.raises(ValueError, match="the engine refused"):
            for item in second:
                got.append(item)
        # The batch with the error is lost whole: a reader never builds on a failed answer.
        assert got in ([], [0, 1, 2])
    assert _threads() == []


def test_a_source_runs_only_a_few_batches_ahead_and_stops_when_the_block_ends() -> None:
    produced = [0, 0]

    def endless(index: int) -> Iterator[int]:
        while True:
            produced[index] += 1
            yield produced[index]

    started = time.perf_counter()
    with answered_ahead([lambda: endless(0), lambda: endless(1)]) as answered:
        first = answered[0]
        assert [next(first) for _ in range(10)] == list(range(1, 11))
        time.sleep(0.3)
        # Both sources run (two workers), each at most its queue and a batch or two ahead.
        assert 0 < produced[1] <= (ahead._DEPTH + 2) * ahead._BATCH
        assert produced[0] <= (ahead._DEPTH + 2) * ahead._BATCH + 10
    assert time.perf_counter() - started < 5
    assert _threads() == []


def test_a_slow_source_stops_within_a_few_hundred_rows() -> None:
    def slow() -> Iterator[int]:
        count = 0
        while True:
            time.sleep(0.001)
            count += 1
            yield count

    with answered_ahead([slow]) as answered:
        assert next(answered[0]) == 1
        left = time.perf_counter()
    # A whole batch (2,048 rows, 2 s at this pace) is not waited for: a step of them is.
    assert time.perf_counter() - left < 1.5
    assert _threads() == []


def test_an_iterator_read_after_its_block_raises() -> None:
    with answered_ahead([lambda: iter(range(ahead._BATCH * (ahead._DEPTH + 4)))]) as answered:
        late = answered[0]
    with pytest.raises(RuntimeError, match="after their block ended"):
        list(late)


def test_unbounded_sources_are_read_to_their_end_while_the_reader_waits() -> None:
    """bounded=False: a later source is answered whole while the reader still waits
    on an earlier one, so its thread is free for the next source."""
    finished = threading.Event()
    release = threading.Event()

    def slow() -> Iterator[int]:
        release.wait(5)
        yield 1

    def many() -> Iterator[int]:
        yield from range(ahead._BATCH * (ahead._DEPTH + 3))
        finished.set()

    with answered_ahead([slow, many], bounded=False) as answered:
        # The reader has not read anything yet: the long source still ran to its end.
        assert finished.wait(5)
        release.set()
        first, second = answered
        assert list(first) == [1]
        assert len(list(second)) == ahead._BATCH * (ahead._DEPTH + 3)
