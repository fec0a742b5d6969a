"""Property: no sequence of add / supersede / forget / correct / delete / undo rewrites or loses a fact."""

from __future__ import annotations

import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from heedful.api import Heedful
from heedful.errors import HeedfulError

CITIES = ["Berlin", "Lisbon", "Oslo", "Rome"]
HOBBIES = ["hiking", "sailing", "chess"]

operations = st.lists(
    st.one_of(
        st.tuples(st.just("live"), st.sampled_from(CITIES)),
        st.tuples(st.just("like"), st.sampled_from(HOBBIES)),
        st.tuples(st.just("unlike"), st.sampled_from(HOBBIES)),
        st.tuples(st.just("forget"), st.sampled_from(CITIES + HOBBIES)),
        st.tuples(st.just("correct"), st.sampled_from(CITIES)),
        st.tuples(st.just("delete"), st.just("")),
        st.tuples(st.just("undo"), st.just("")),
    ),
    min_size=1,
    max_size=12,
)


def apply(hf: Heedful, op: str, arg: str) -> None:
    memory = hf.memory
    try:
        if op == "live":
            memory.add("u", f"I live in {arg}", flush=True)
        elif op == "like":
            memory.add("u", f"I love {arg}", flush=True)
        elif op == "unlike":
            memory.add("u", f"I don't like {arg} anymore", flush=True)
        elif op == "forget":
            memory.add("u", "hello there friend")  # make sure the user exists
            memory.forget("u", f"forget that I like {arg}")
        elif op == "correct" and (current := memory.list("u", kinds=["fact"])):
            memory.correct("u", current[0].id, f"The user lives in {arg}")
        elif op == "delete" and (current := memory.list("u", kinds=["fact"])):
            memory.delete("u", current[-1].id)
        elif op == "undo":
            memory.undo("u")
    except HeedfulError:
        pass  # e.g. nothing to undo: a refused call must change nothing, checked below


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(operations)
def test_no_sequence_rewrites_or_loses_a_fact(ops: list[tuple[str, str]]) -> None:
    with tempfile.TemporaryDirectory() as home, Heedful.open(home, embedder="hashing") as hf:
        seen: dict[str, str] = {}
        for op, arg in ops:
            apply(hf, op, arg)
            if not hf.store.memory.user_exists("u"):
                continue
            rows = {f.id: f for f in hf.store.memory.list_facts("u")}
            for fact_id, statement in seen.items():
                assert fact_id in rows, f"{fact_id} was lost after {op}"
                assert rows[fact_id].statement == statement, f"{fact_id} was rewritten after {op}"
            seen.update({f.id: f.statement for f in rows.values()})
            current = [f for f in rows.values() if f.state_at() == "current" and f.kind == "fact"]
            lives = [f for f in current if f.predicate == "lives_in"]
            assert len(lives) <= 1, "two current homes: a supersede was lost"
