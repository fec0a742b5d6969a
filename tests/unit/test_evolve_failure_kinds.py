"""Failure kinds and clusters: the step that lost a gold turn, the built-in clustering, a critic's own clusters."""

from __future__ import annotations

from heedful.evolve.clusters import (
    FailureCluster,
    answered_clusters,
    builtin_clusters,
    gold_failure,
    question_failure,
)


def test_each_gold_turn_is_lost_at_the_first_step_that_dropped_it() -> None:
    # (context rank, recall rank, rank without limits, recall's item limit, K)
    assert gold_failure(3, 3, 3, 45, 10) is None
    assert gold_failure(12, 12, 12, 45, 10) == "listed after item K"
    assert gold_failure(None, 7, 7, 45, 10) == "left out of the context"
    assert gold_failure(None, 23, 23, 45, 10) == "recalled below the cut"
    assert gold_failure(None, None, 30, 45, 10) == "packed out by the token budget"
    assert gold_failure(None, None, 80, 45, 10) == "beyond recall's item limit"
    assert gold_failure(None, None, None, 45, 10) == "never recalled"
    # A question is lost where its first gold turn was lost, whatever the order of its turns.
    assert question_failure([None, "left out of the context", "never recalled"]) == "never recalled"
    assert question_failure([None, None]) is None


def trace(trace_id: str, failure: str, category: str) -> dict[str, object]:
    return {"id": trace_id, "failure": failure, "category": category, "question": "q"}


def test_the_builtin_critic_clusters_by_lost_step_and_category_largest_first() -> None:
    traces = [
        trace("u-0:q0", "never recalled", "multi-hop"),
        trace("u-0:q1", "recalled below the cut", "single-hop"),
        trace("u-0:q2", "never recalled", "multi-hop"),
        trace("u-1:q0", "recalled below the cut", "temporal"),
        trace("u-1:q1", "never recalled", "multi-hop"),
        trace("u-1:q2", "recalled below the cut", "single-hop"),
        trace("u-1:q3", "left out of the context", "single-hop"),
        {"id": "u-1:q4", "failure": None, "category": "single-hop"},  # listed in time: no failure to cluster
    ]
    clusters = builtin_clusters(traces)
    assert [(c.label, c.traces, c.count) for c in clusters] == [
        ("never recalled: multi-hop", ("u-0:q0", "u-0:q2", "u-1:q1"), 3),
        ("recalled below the cut: single-hop", ("u-0:q1", "u-1:q2"), 2),
        ("recalled below the cut: temporal", ("u-1:q0",), 1),
        ("left out of the context: single-hop", ("u-1:q3",), 1),
    ]
    assert builtin_clusters([]) == []


def test_a_critics_clusters_keep_only_trace_ids_it_was_shown_and_skip_what_cannot_be_read() -> None:
    known = {"u-0:q0", "u-0:q1", "u-0:q2"}
    answer = [
        {"label": "the question names a job, the turn an occupation", "traces": ["u-0:q0", "u-0:q1"], "count": 2},
        {"label": "a sample of a larger group", "traces": ["u-0:q2", "u-9:q9"], "count": 5},
        {"label": "", "traces": ["u-0:q0"]},
        {"traces": ["u-0:q1"]},
        {"label": "only unknown ids", "traces": ["zz"]},
        {"label": "counted, no ids", "count": 4},
    ]
    clusters, notes = answered_clusters(answer, known)
    assert [(c.label, c.traces, c.count) for c in clusters] == [
        ("the question names a job, the turn an occupation", ("u-0:q0", "u-0:q1"), 2),
        ("a sample of a larger group", ("u-0:q2",), 5),
        ("counted, no ids", (), 4),
    ]
    assert any(n.startswith("the critic's cluster 3 cannot be read (label:") for n in notes)
    assert any(n.startswith("the critic's cluster 4 cannot be read (label:") for n in notes)
    assert "the critic cited 2 trace ids not in the traces (dropped)" in notes
    assert answered_clusters(None, known) == ([], ["the critic gave no clusters"])
    assert answered_clusters("three groups", known) == ([], ["the critic's clusters are not a list"])
    # A count below the ids it cites is raised to them; a count may be larger (a sample of ids).
    assert FailureCluster(label="x", traces=("a", "b"), count=1).count == 2
