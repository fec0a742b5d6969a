"""Speed of the memory kernel's hot paths, measured with pytest-benchmark.

These run once as ordinary tests; `python -m pytest tests/bench --benchmark-enable` measures
them. No wall-clock limits are asserted: figures are reported, not enforced.
"""

from __future__ import annotations

from pytest_benchmark.fixture import BenchmarkFixture

from heedful.api import Heedful
from heedful.memory.redact import redact
from heedful.memory.write import NewMessage

TEXT = "My key is sk-proj-abcdefghijklmnopqrstuvwx12 and my card 4111 1111 1111 1111; I moved to Lisbon."


def test_redaction_speed(benchmark: BenchmarkFixture) -> None:
    result = benchmark(redact, TEXT * 4)
    assert result.counts["api_key"] == 4


def test_add_with_extraction_speed(benchmark: BenchmarkFixture, hf: Heedful) -> None:
    counter = iter(range(10**6))

    def add() -> None:
        n = next(counter)
        hf.memory.add("alice", f"I have {n} green plants in room {n}", flush=True)

    benchmark(add)
    assert hf.memory.list("alice")


def test_recall_speed_over_500_messages(benchmark: BenchmarkFixture, hf: Heedful) -> None:
    hf.memory.add(
        "alice",
        [
            NewMessage(f"Session note {n}: talked about topic {n % 37} and city {n % 11}", session_id=f"s{n // 20}")
            for n in range(500)
        ],
        extract=False,
    )
    result = benchmark(hf.memory.recall, "alice", "what about topic 12 in city 3?")
    assert result.items
