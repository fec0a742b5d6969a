from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from heedful.memory.recall.budget import estimate_tokens, pack


def test_pack_keeps_rank_order_and_skips_items_too_large() -> None:
    items = [("a", 50), ("b", 200), ("c", 30), ("d", 40)]
    kept, used = pack(items, lambda item: item[1], budget_tokens=100, max_items=10)
    assert [name for name, _ in kept] == ["a", "c"]
    assert used == 80


def test_pack_stops_at_max_items() -> None:
    kept, used = pack(list(range(10)), lambda _: 1, budget_tokens=100, max_items=3)
    assert kept == [0, 1, 2] and used == 3


def test_pack_with_no_budget_is_empty() -> None:
    assert pack([1, 2], lambda _: 1, budget_tokens=0, max_items=5) == ([], 0)


def test_estimate_tokens_is_positive_and_grows() -> None:
    assert estimate_tokens("") == 1
    assert estimate_tokens("word " * 100) > estimate_tokens("word " * 10)


@given(st.lists(st.integers(1, 500), max_size=60), st.integers(0, 3000), st.integers(0, 60))
def test_pack_never_exceeds_limits(costs: list[int], budget: int, max_items: int) -> None:
    items = list(enumerate(costs))
    kept, used = pack(items, lambda item: item[1], budget, max_items)
    assert used == sum(cost for _, cost in kept) <= budget
    assert len(kept) <= max_items
    positions = [index for index, _ in kept]
    assert positions == sorted(positions)
    # Greedy: nothing skipped before the last kept item would have fitted when it was reached.
    if len(kept) < max_items:
        total = 0
        for index, cost in items:
            if (index, cost) in kept:
                total += cost
            elif positions and index < positions[-1]:
                assert total + cost > budget
