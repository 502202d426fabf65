"""Intervals for proportions (hopgate.audit.statistics), docs/spec/acceptance.md "Intervals".

The Wilson interval against its textbook values; the question-level bootstrap
against what it must be whatever the draw: inside [0, 1], around the estimate,
deterministic for a seed, and degenerate where every question agrees.
"""

from __future__ import annotations

import pytest

from hopgate.audit.statistics import cluster_bootstrap, wilson


def test_wilson_gives_the_textbook_interval() -> None:
    # 2 of 4 at 95%: (0.1500, 0.8500), as in the worked example's complete-set recall.
    low, high = wilson(2, 4)  # type: ignore[misc]
    assert (low, high) == pytest.approx((0.15003898915214953, 0.8499610108478505))
    # 81 of 263 at z = 1.96: (0.2553, 0.3662), worked by hand from the score interval.
    assert wilson(81, 263, z=1.96) == pytest.approx((0.2553, 0.3662), abs=5e-5)


def test_wilson_stays_within_zero_and_one_and_is_none_without_a_denominator() -> None:
    assert wilson(0, 5)[0] == 0.0  # type: ignore[index]
    assert wilson(5, 5)[1] == 1.0  # type: ignore[index]
    assert wilson(0, 0) is None and wilson(3, -1) is None


def test_the_bootstrap_resamples_whole_questions() -> None:
    clusters = [(1, 2), (0, 1), (3, 3), (2, 4), (0, 0)]
    low, high = cluster_bootstrap(clusters)  # type: ignore[misc]
    estimate = 6 / 10
    assert 0.0 <= low <= estimate <= high <= 1.0
    assert cluster_bootstrap(clusters) == (low, high)  # deterministic for the seed
    assert cluster_bootstrap(clusters, seed=1) != (low, high)
    # Every question at the same ratio: no spread to find.
    assert cluster_bootstrap([(1, 2), (2, 4), (3, 6)]) == pytest.approx((0.5, 0.5))


def test_the_bootstrap_without_a_denominator_is_none() -> None:
    assert cluster_bootstrap([]) is None
    assert cluster_bootstrap([(0, 0), (1, 0)]) is None
