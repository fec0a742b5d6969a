"""The op literals name every op the memory kernel writes: each path that logs a change (write, correct,
delete, forget, Dream, undo) is run on the test's backend and what it stored and reported is compared."""

from __future__ import annotations

from typing import get_args

from heedful.api import Heedful
from heedful.memory.events import MemoryEvent, MemoryOp
from heedful.memory.results import UndoneChange
from heedful.store.records import RecordOp


def test_every_logged_and_reported_op_is_a_named_literal(hf: Heedful) -> None:
    events: list[MemoryEvent] = []
    events += hf.memory.add("alice", "I live in Berlin and I love sushi", flush=True).events
    events += hf.memory.add("alice", "I moved to Lisbon", flush=True).events
    events += hf.memory.add("alice", "I don't like sushi anymore", flush=True).events
    events += hf.memory.add("alice", "I live in Lisbon", flush=True).events  # the same statement: confirmed
    lisbon = next(f for f in hf.memory.list("alice") if "Lisbon" in f.statement)
    events.append(hf.memory.correct("alice", lisbon.id, "I live in Porto"))
    porto = next(f for f in hf.memory.list("alice") if "Porto" in f.statement)
    events.append(hf.memory.delete("alice", porto.id))
    hf.memory.add("alice", "I take sertraline every day", flush=True)
    events += hf.memory.forget("alice", "I take sertraline")
    hf.memory.add("alice", "My sister Anna hates cilantro and I love hiking", flush=True)
    hf.memory.dream("alice")
    undone: list[UndoneChange] = hf.memory.undo("alice")  # reverses the Dream pass

    reported = {e.op for e in events}
    assert reported <= set(get_args(MemoryOp))
    assert {"add", "supersede", "retract", "confirm"} <= reported
    logged = {op.op for op in hf.store.memory.ops("alice")}
    assert logged == set(get_args(RecordOp))  # every kind of change above, and nothing unnamed
    assert undone and {c.op for c in undone} <= logged - {"undo"}
