"""How stale a batch is: its loss tokens by how many policy versions behind the update's starting weights they were
sampled (the batch's rolloutVersions, schemas/training.ts)."""

from __future__ import annotations

import logging

import numpy as np

log = logging.getLogger(__name__)


def staleness_histogram(episodes: list[dict], start_version: int) -> list[int] | None:
    """Loss tokens by lag = start_version - the version that sampled them: entry i counts lag i. None when an episode
    records no versions (a batch written before them). Tokens of unknown version (-1) are left out, and so, with a
    warning, are tokens of a version newer than the starting weights, which no correct schedule produces."""
    if not all("rolloutVersions" in e for e in episodes):
        return None
    counts = np.zeros(0, dtype=np.int64)
    newer = 0
    for episode in episodes:
        versions = np.asarray(episode["rolloutVersions"])[np.asarray(episode["lossMask"]) != 0]
        lags = start_version - versions[versions >= 0].astype(np.int64)
        newer += int(np.count_nonzero(lags < 0))
        found = np.bincount(lags[lags >= 0])
        if len(found) > len(counts):
            counts = np.pad(counts, (0, len(found) - len(counts)))
        counts[: len(found)] += found
    if newer:
        log.warning("%d loss tokens were sampled by a version newer than the starting weights (%d)", newer, start_version)
    return counts.tolist()


def staleness_metrics(histogram: list[int] | None) -> dict:
    """stalenessMean and stalenessMax (PolicyUpdateMetrics) of a histogram; nothing when no token's version is known."""
    if histogram is None or sum(histogram) == 0:
        return {}
    lags = np.arange(len(histogram))
    counts = np.asarray(histogram)
    return {"stalenessMean": float((lags * counts).sum() / counts.sum()), "stalenessMax": int(lags[counts > 0].max())}
