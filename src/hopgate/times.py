"""Moments written as ``xsd:dateTime`` lexical forms, in UTC with a ``Z``.

One spelling for every record hopgate writes: microseconds kept where a time
orders records or names them (loads, evaluations, judgments, plans), whole
seconds where it only tells a reader when (a signature, a file's time).
"""

from __future__ import annotations

from datetime import UTC, datetime


def xsd_datetime(moment: datetime | None = None, *, seconds_only: bool = False) -> str:
    """``moment`` (default: now) in UTC as ``2026-12-01T23:58:12.123456Z``.

    ``seconds_only`` drops the fraction: ``2026-12-01T23:58:12Z``. A naive
    ``moment`` is taken as UTC.
    """
    moment = datetime.now(UTC) if moment is None else moment
    moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ" if seconds_only else "%Y-%m-%dT%H:%M:%S.%fZ")
