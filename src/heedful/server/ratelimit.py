"""A token bucket per API key, in this process's memory (each worker process keeps its own).

    buckets = RateLimiter(rate=5, burst=10)
    buckets.take("k-1", now=0.0)   # -> 0.0: allowed
    ... after 10 quick calls ...
    buckets.take("k-1", now=0.0)   # -> 0.2: refused; retry after 0.2 s

Pure apart from the lock: the caller passes the clock, so tests need no sleeping.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass


@dataclass(slots=True)
class _Bucket:
    tokens: float
    updated: float


class RateLimiter:
    def __init__(self, rate: float, burst: int, max_keys: int = 100_000) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("the rate must be positive and the burst at least 1")
        self.rate = rate
        self.burst = float(burst)
        self.max_keys = max_keys
        self._buckets: dict[str, _Bucket] = {}
        self._lock = threading.Lock()

    def take(self, key: str, now: float) -> float:
        """Spend one token of `key`'s bucket: 0.0 when allowed, else the seconds until one is free."""
        with self._lock:
            bucket = self._buckets.get(key)
            if bucket is None:
                if len(self._buckets) >= self.max_keys:  # bounded memory; only verified keys ever get here
                    self._buckets.clear()
                bucket = self._buckets[key] = _Bucket(tokens=self.burst, updated=now)
            bucket.tokens = min(self.burst, bucket.tokens + max(0.0, now - bucket.updated) * self.rate)
            bucket.updated = now
            if bucket.tokens >= 1.0:
                bucket.tokens -= 1.0
                return 0.0
            return (1.0 - bucket.tokens) / self.rate
