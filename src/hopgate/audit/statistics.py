"""Uncertainty for proportions: Wilson intervals and a question-level bootstrap.

Which interval a figure gets is docs/spec/acceptance.md "Intervals".
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

Z95 = 1.959963984540054
BOOTSTRAP_SAMPLES = 2000
BOOTSTRAP_SEED = 20261007


def wilson(numerator: int, denominator: int, *, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of ``numerator / denominator``; None for an empty denominator."""
    if denominator <= 0:
        return None
    p = numerator / denominator
    z2 = z * z
    centre = (p + z2 / (2 * denominator)) / (1 + z2 / denominator)
    half = (z / (1 + z2 / denominator)) * math.sqrt(
        p * (1 - p) / denominator + z2 / (4 * denominator * denominator)
    )
    return max(0.0, centre - half), min(1.0, centre + half)


def cluster_bootstrap(
    clusters: Sequence[tuple[int, int]],
    *,
    samples: int = BOOTSTRAP_SAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float] | None:
    """A 95% percentile interval of sum(num) / sum(den), resampling whole clusters.

    ``clusters`` holds one (numerator, denominator) pair per question, so that
    claims of one question stay together. Resamples with an empty denominator
    are skipped. Deterministic for a seed.
    """
    used = [c for c in clusters if c[1] > 0]
    if not used:
        return None
    rng = random.Random(seed)
    n = len(used)
    ratios = []
    for _ in range(samples):
        num = den = 0
        for _ in range(n):
            a, b = used[rng.randrange(n)]
            num += a
            den += b
        if den:
            ratios.append(num / den)
    ratios.sort()
    low = ratios[int(0.025 * (len(ratios) - 1))]
    high = ratios[int(math.ceil(0.975 * (len(ratios) - 1)))]
    return low, high
