"""The critic's failure clusters, end to end: a critic command's own clusters, and the built-in clustering,
recorded in the log and shown by `heedful evolve log` (real subprocesses, the synthetic fixture)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from cli_runner import run_cli
from evolve_fixture import evolve, proposer

BRIDGE = "params['query_expansions'] = {'job': 'work', 'move': 'relocated'}"


def traces_of(record: dict[str, object]) -> list[dict[str, object]]:
    folder = Path(str(record["development"]["folder"]))  # type: ignore[index]
    return [json.loads(line) for line in (folder / "development.jsonl").read_text().splitlines()]


def test_a_critic_commands_clusters_are_recorded_and_shown(tmp_path: Path, home: Path) -> None:
    critic = tmp_path / "critic.py"
    critic.write_text(
        "import json, pathlib\n"
        "groups = {}\n"
        "for line in pathlib.Path('traces/development.jsonl').read_text().splitlines():\n"
        "    trace = json.loads(line)\n"
        "    groups.setdefault(trace['question'].split()[0].lower(), []).append(trace['id'])\n"
        "clusters = [{'label': f'asks {w!r}', 'traces': ids, 'count': len(ids)} for w, ids in sorted(groups.items())]\n"
        "clusters.append({'label': 'made up', 'traces': ['nobody:q1']})\n"
        "print(json.dumps({'decision': 'accept', 'reasons': ['bridges vocabulary'], 'clusters': clusters}))\n"
    )
    [record] = evolve(
        tmp_path, home, "--proposer", proposer(tmp_path, "good", BRIDGE), "--critic", f"{sys.executable} {critic}"
    )
    assert record["decision"] == "accepted" and record["clustered_by"] == "critic"
    expected: dict[str, list[str]] = {}
    for trace in traces_of(record):
        expected.setdefault(f"asks {trace['question'].split()[0].lower()!r}", []).append(trace["id"])
    assert {c["label"]: c["traces"] for c in record["clusters"]} == expected
    assert all(c["count"] == len(c["traces"]) for c in record["clusters"])
    assert record["critic"]["notes"] == ["the critic cited 1 trace id not in the traces (dropped)"]

    shown = run_cli("evolve", "log", home=home).stdout
    assert "failure clusters (by the critic):" in shown
    assert "  critic: the critic cited 1 trace id not in the traces (dropped)" in shown
    where = expected["asks 'what'"]
    assert f"{len(where):>4}  asks 'what' ({', '.join(where[:3])}" in shown
    logged = json.loads(run_cli("evolve", "log", "--json", home=home).stdout)
    assert logged[0]["clusters"] == record["clusters"]


def test_without_a_critic_the_failures_are_clustered_by_the_step_that_lost_them(tmp_path: Path, home: Path) -> None:
    [record] = evolve(tmp_path, home, "--proposer", proposer(tmp_path, "good", BRIDGE))
    assert record["clustered_by"] == "built-in"
    traces = traces_of(record)
    by_id = {t["id"]: t for t in traces}
    # Every traced failure sits in exactly one cluster: the step that lost its evidence, and its category.
    members = [i for c in record["clusters"] for i in c["traces"]]
    assert sorted(members) == sorted(by_id) and len(members) == len(set(members))
    for cluster in record["clusters"]:
        assert cluster["count"] == len(cluster["traces"])
        assert {f"{by_id[i]['failure']}: {by_id[i]['category']}" for i in cluster["traces"]} == {cluster["label"]}
    assert [c["count"] for c in record["clusters"]] == sorted((c["count"] for c in record["clusters"]), reverse=True)
    # The fixture's questions name what the turns say in other words: their evidence ranks too low.
    assert record["clusters"][0]["label"] == "recalled below the cut: single-hop"
    for trace in traces:
        lost = [g for g in trace["gold_evidence"] if g["failure"]]
        assert lost and trace["failure"] == lost[0]["failure"]  # one gold turn per fixture question
    assert "failure clusters (built-in):" in run_cli("evolve", "log", home=home).stdout
