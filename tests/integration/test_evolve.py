"""`heedful evolve` end to end as real subprocesses: real git workspaces, scripted proposers and critics,
on a synthetic LoCoMo-shaped fixture (10 users, so the declared splits apply) with the hashing embedder.

Every user has a job and a move that the questions name in other words than the turns do ("job" /
"I work as"); only the development users (0-4) also play an instrument. A patch that bridges the
general vocabulary helps everyone; one that bridges only the instrument helps only the traced half.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

from cli_runner import run_cli
from evolve_fixture import beam_fixture, evolve, fixture, proposer
from pg_backend import add_settings
from recorded_endpoint import openai_chat, recorded_endpoint


def test_a_patch_that_helps_everyone_is_accepted_stored_and_adopted_only_on_request(tmp_path: Path, home: Path) -> None:
    command = proposer(tmp_path, "good", "params['query_expansions'] = {'job': 'work', 'move': 'relocated'}")
    critic = tmp_path / "critic.sh"
    verdict = json.dumps({"decision": "accept", "reasons": ["bridges vocabulary"]})
    critic.write_text(f"#!/bin/sh\ntest -s candidate.diff && test -s traces/development.jsonl && echo '{verdict}'\n")
    critic.chmod(0o700)
    [record] = evolve(tmp_path, home, "--proposer", command, "--critic", str(critic))

    assert record["decision"] == "accepted", record["reason"]
    assert record["version"] == "v2" and record["base"] == "v1"
    assert record["critic"]["reasons"] == ["bridges vocabulary"]
    assert all(half["gain"] > 0 for half in record["validation"])
    assert '+  "query_expansions": {' in str(record["diff"])
    traces = Path(str(record["development"]["folder"])) / "development.jsonl"
    first = json.loads(traces.read_text().splitlines()[0])
    assert first["user"] in {f"locomo-{i}" for i in range(5)}  # only development users are traced
    assert first["gold_evidence"][0]["turn"].startswith("D") and "context" in first and first["reader"]["score"] < 1

    # The new version sits beside v1; the default moves only on adopt, and the log records both.
    log_file = home / "evolve" / "log.jsonl"
    assert stat.S_IMODE(log_file.stat().st_mode) == 0o600
    versions = json.loads(run_cli("evolve", "versions", "--json", home=home).stdout)
    assert [(v["name"], v["default"]) for v in versions] == [("v1", True), ("v2", False)]
    assert versions[1]["changed"] == {"query_expansions": {"job": "work", "move": "relocated"}}
    adopted = run_cli("evolve", "adopt", "v2", home=home)
    assert adopted.returncode == 0 and "default harness: v2 (was v1)" in adopted.stdout
    bad = run_cli("evolve", "adopt", "v7", home=home)
    assert bad.returncode == 2 and bad.stderr.startswith("error: unknown harness 'v7'")
    log = json.loads(run_cli("evolve", "log", "--json", home=home).stdout)
    assert [entry["kind"] for entry in log] == ["candidate", "adoption"]
    assert "ACCEPTED" in run_cli("evolve", "log", home=home).stdout


def test_a_patch_that_only_helps_the_traced_users_is_rejected_by_the_evaluator(tmp_path: Path, home: Path) -> None:
    command = proposer(tmp_path, "overfit", "params['query_expansions'] = {'instrument': 'practising'}")
    [record] = evolve(tmp_path, home, "--proposer", command)
    assert record["decision"] == "rejected"
    assert [half["gain"] for half in record["validation"]] == [0.0, 0.0]
    assert "no gain on every validation half" in str(record["reason"])
    assert record["version"] is None and not (home / "harness" / "v2.json").exists()


def test_an_extraction_change_is_scored_on_memory_written_its_way(tmp_path: Path, home: Path) -> None:
    """Facts restate "I'm hoping to sail" as "plans to sail", which the questions' "plan" finds for every user."""
    [record] = evolve(tmp_path, home, "--proposer", proposer(tmp_path, "extract", "params['extract_facts'] = True"))
    assert record["params_changed"] == {"extract_facts": {"from": False, "to": True}}
    assert record["decision"] == "accepted", record["reason"]
    assert all(half["candidate"] > half["current"] for half in record["validation"])
    stored = json.loads((home / "harness" / f"{record['version']}.json").read_text())
    assert stored["params"]["extract_facts"] is True and "plans" in stored["params"]["extraction"]["groups"]


def test_an_extraction_change_without_the_rule_that_helps_gains_nothing_and_is_rejected(
    tmp_path: Path, home: Path
) -> None:
    body = (
        "params['extract_facts'] = True\n"
        "params['extraction']['groups'] = [g for g in params['extraction']['groups'] if g != 'plans']"
    )
    [record] = evolve(tmp_path, home, "--proposer", proposer(tmp_path, "no_plans", body))
    assert record["params_changed"]["extraction.groups"]["to"] == [
        g for g in record["params_changed"]["extraction.groups"]["from"] if g != "plans"
    ]
    assert record["decision"] == "rejected"
    assert [half["gain"] for half in record["validation"]] == [0.0, 0.0]
    assert "no gain on every validation half" in record["reason"]


def test_a_patch_that_edits_the_evaluator_is_refused_and_never_scored(tmp_path: Path, home: Path) -> None:
    body = (
        "params['max_excerpts'] = 10\n"
        "evaluator = pathlib.Path('evaluator/evaluator.py')\n"
        "evaluator.write_text(evaluator.read_text().replace('K = 10', 'K = 50'))"
    )
    [record] = evolve(tmp_path, home, "--proposer", proposer(tmp_path, "cheat", body))
    assert record["decision"] == "refused"
    assert str(record["reason"]).startswith("touches the frozen evaluator")
    assert record["validation"] == [] and "-K = 10" in str(record["diff"])


def test_a_template_keyed_patch_is_rejected_by_the_critic(tmp_path: Path, home: Path) -> None:
    command = proposer(tmp_path, "template", "params['query_expansions'] = {'what': 'work', 'where': 'relocated'}")
    critic = tmp_path / "critic.py"
    critic.write_text(
        "import json, pathlib\n"
        "added = [l for l in pathlib.Path('candidate.diff').read_text().splitlines() if l.startswith('+')]\n"
        "openers = {json.loads(l)['question'].split()[0].lower()\n"
        "           for l in pathlib.Path('traces/development.jsonl').read_text().splitlines()}\n"
        "keyed = sorted(w for w in openers if any(f'\"{w}\"' in l for l in added))\n"
        "print(json.dumps({'decision': 'reject' if keyed else 'accept',\n"
        "                  'reasons': [f'keyed to the question template {w!r}' for w in keyed]}))\n"
    )
    [record] = evolve(tmp_path, home, "--proposer", command, "--critic", f"{sys.executable} {critic}")
    assert record["decision"] == "rejected" and record["validation"] == []
    assert "keyed to the question template 'what'" in str(record["reason"])


def test_the_static_check_rejects_a_patch_naming_the_speakers_without_any_critic(tmp_path: Path, home: Path) -> None:
    command = proposer(tmp_path, "names", "params['query_expansions'] = {'job': 'Avery Blake work'}")
    [record] = evolve(tmp_path, home, "--proposer", command)
    assert record["decision"] == "rejected"
    assert "keyed to a speaker's name: 'avery'" in str(record["reason"])


def test_a_changed_installed_evaluator_stops_the_run(tmp_path: Path, home: Path) -> None:
    import heedful

    copy = tmp_path / "src"
    shutil.copytree(Path(heedful.__file__).parent, copy / "heedful", ignore=shutil.ignore_patterns("__pycache__"))
    evaluator = copy / "heedful" / "evolve" / "evaluator.py"
    evaluator.write_text(evaluator.read_text() + "\n# loosened\n")
    done = subprocess_with_path(copy, "evolve", "--data", str(fixture(tmp_path)), home=home)
    assert done.returncode == 2
    assert "the evaluator" in done.stderr and "refusing to evaluate" in done.stderr
    assert not (home / "evolve" / "log.jsonl").exists()


def subprocess_with_path(source: Path, *args: str, home: Path) -> subprocess.CompletedProcess[str]:
    """The CLI run from a copy of the package (PYTHONPATH first), as an installed copy would be."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEEDFUL_")}
    env.update({"HEEDFUL_HOME": str(home), "HEEDFUL_EMBEDDER": "hashing", "PYTHONPATH": str(source)})
    return subprocess.run(
        [sys.executable, "-m", "heedful", *args], capture_output=True, text=True, env=env, timeout=120
    )


def test_bad_input_is_one_line_and_changes_nothing(tmp_path: Path, home: Path) -> None:
    missing = run_cli("evolve", "--data", str(tmp_path / "nope.json"), home=home)
    assert missing.returncode == 2 and missing.stderr.startswith("error: the LoCoMo data is not at")
    other = run_cli("evolve", "--bench", "nope", "--data", str(fixture(tmp_path)), home=home)
    assert other.returncode == 2 and "no evolve driver for benchmark 'nope'; available: locomo, beam" in other.stderr
    not_beam = run_cli("evolve", "--bench", "beam", "--data", str(fixture(tmp_path)), home=home)
    assert not_beam.returncode == 2 and "is not a BEAM-100K folder" in not_beam.stderr
    guard_only = run_cli("evolve", "--data", str(fixture(tmp_path)), "--second-reader", "openai:x", home=home)
    assert guard_only.returncode == 2 and "--second-reader needs --reader" in guard_only.stderr
    offline = run_cli("evolve", "--data", str(fixture(tmp_path)), "--reader", "offline", home=home)
    assert offline.returncode == 2 and "the offline model, which cannot answer" in offline.stderr
    failing = run_cli("evolve", "--data", str(fixture(tmp_path)), "--proposer", "exit 3", "--json", home=home)
    assert failing.returncode == 0
    assert json.loads(failing.stdout)[0]["reason"] == "the proposer exited with status 3"
    assert not (home / "harness").exists()


def test_the_proposer_and_critic_run_as_heedfuls_child(tmp_path: Path, home: Path) -> None:
    """HEEDFUL_CHILD=1 reaches both commands: hooks of an agent CLI they start neither enforce nor learn."""
    body = "import os\nparams['max_excerpts'] = 7 if os.environ.get('HEEDFUL_CHILD') == '1' else 5"
    critic = tmp_path / "critic.sh"
    critic.write_text('#!/bin/sh\n[ "$HEEDFUL_CHILD" = 1 ] && echo \'{"decision": "accept", "reasons": ["child"]}\'\n')
    critic.chmod(0o700)
    [record] = evolve(tmp_path, home, "--proposer", proposer(tmp_path, "child", body), "--critic", str(critic))
    assert record["params_changed"] == {"max_excerpts": {"from": 6, "to": 7}}
    assert record["critic"]["reasons"] == ["child"]


def test_beam_has_its_own_declared_splits_and_the_same_rule(tmp_path: Path, home: Path) -> None:
    command = proposer(tmp_path, "good", "params['query_expansions'] = {'job': 'work', 'move': 'relocated'}")
    args = ("evolve", "--bench", "beam", "--data", str(beam_fixture(tmp_path)), "--proposer", command, "--json")
    done = run_cli(*args, home=home, timeout=300)
    assert done.returncode == 0, done.stderr
    [record] = json.loads(done.stdout)
    assert record["bench"] == "beam" and record["decision"] == "accepted", record["reason"]
    # Folders 11-15 reuse users 0-4 (4 questions each), 16-20 users 5-9 (3 each); abstention has no sources.
    assert [half["questions"] for half in record["validation"]] == [20, 15]
    traces = Path(str(record["development"]["folder"])) / "development.jsonl"
    users = {json.loads(line)["user"] for line in traces.read_text().splitlines()}
    assert users and users <= {f"beam-{i}" for i in range(1, 11)}  # folders 1-10 are the development split


def reading_model(body: dict[str, Any]) -> tuple[int, Any, float]:
    """The model double of the reader: answers from the context it was sent, as a careful reader would."""
    data = json.loads(body["messages"][-1]["content"].split("<data>", 1)[1].rsplit("</data>", 1)[0])
    context, question = data["memory_context"], data["question"].lower()
    patterns = {"job": r"I work as [^.]*", "move": r"I relocated to [^.]*", "instrument": r"practising the [^.]*"}
    found = [re.search(p, context) for word, p in patterns.items() if word in question]
    answer = found[0].group(0) if found and found[0] else "not mentioned"  # the sentence that holds the answer
    return 200, openai_chat(json.dumps({"answer": answer})), 0.0


def test_recorded_model_reader_decides_and_the_evidence_metric_guards(tmp_path: Path, home: Path) -> None:
    command = proposer(tmp_path, "good", "params['query_expansions'] = {'job': 'work', 'move': 'relocated'}")
    with recorded_endpoint() as endpoint:
        endpoint.respond = reading_model
        add_settings(
            home,
            f'[model]\nname = "openai:reader-model"\nbase_url = "{endpoint.url}/v1"\napi_key_env = "NO_SUCH_KEY"\n',
        )
        [record] = evolve(tmp_path, home, "--proposer", command, "--reader", "configured")
    assert record["decision"] == "accepted", (record["reason"], record["validation"], record["second_reader"])
    assert [h["metric"] for h in record["validation"]] == ["reader", "reader"]
    assert [h["metric"] for h in record["second_reader"]] == ["evidence", "evidence"]
    assert all(h["gain"] > 0 for h in record["validation"]) and "reader F1" in record["reason"]
    assert record["readers"]["reader"].endswith("answers, token F1")
    asked = [r["body"]["messages"][-1]["content"] for r in endpoint.requests]
    assert asked and all("<data>" in text for text in asked)  # the context reached the model as data
    assert any("job" in text for text in asked)


def layout_proposer(tmp_path: Path, name: str, old: str, new: str, params: str = "") -> str:
    """A proposer that changes the layout's code (harness/layout.py), and the parameters if `params` says."""
    script = tmp_path / f"{name}.py"
    script.write_text(
        "import json, pathlib\n"
        "layout = pathlib.Path('harness/layout.py')\n"
        f"text = layout.read_text()\nassert {old!r} in text\n"
        f"layout.write_text(text.replace({old!r}, {new!r}))\n"
        "params_path = pathlib.Path('harness/params.json')\n"
        "params = json.loads(params_path.read_text())\n" + params + "\n"
        "params_path.write_text(json.dumps(params, indent=2, sort_keys=True) + '\\n')\n"
        "print('hypothesis: the layout keeps too few excerpts')\n",
        encoding="utf-8",
    )
    return f"{sys.executable} {script}"


KEEP = '"excerpts": excerpts[: limits["max_excerpts"]],'


def test_a_layout_code_candidate_is_scored_in_its_sandbox_and_stored_with_its_code(tmp_path: Path, home: Path) -> None:
    sandbox = __import__("heedful.harness.sandbox", fromlist=["sandbox_problem"]).sandbox_problem()
    if sandbox:
        [record] = evolve(tmp_path, home, "--proposer", layout_proposer(tmp_path, "more", KEEP, KEEP))
        assert record["decision"] == "refused"
        return
    more = KEEP.replace('limits["max_excerpts"]', 'max(limits["max_excerpts"], 12)')
    bridge = "params['query_expansions'] = {'job': 'work', 'move': 'relocated'}"
    [record] = evolve(tmp_path, home, "--proposer", layout_proposer(tmp_path, "more", KEEP, more, bridge))
    assert record["layout_changed"] and list(record["params_changed"]) == ["query_expansions"]
    assert "+        " + more in record["diff"]
    assert record["decision"] == "accepted", record["reason"]
    stored = json.loads((home / "harness" / f"{record['version']}.json").read_text())
    assert more in stored["layout"]
    versions = json.loads(run_cli("evolve", "versions", "--json", home=home).stdout)
    assert versions[-1]["layout"] == "code (runs in a sandbox)"


def test_a_layout_that_reaches_for_the_benchmark_data_finds_nothing(tmp_path: Path, home: Path) -> None:
    from heedful.harness.sandbox import sandbox_problem

    data = fixture(tmp_path)
    peek = (
        "import json, pathlib\n    gold = json.loads(pathlib.Path("
        + repr(str(data))
        + ").read_text())\n    "
        + '"""Recall'
    )
    [record] = evolve(tmp_path, home, "--proposer", layout_proposer(tmp_path, "peek", '"""Recall', peek))
    assert record["decision"] == "refused" and record["validation"] == []
    if sandbox_problem() is None:
        assert "FileNotFoundError" in record["reason"]  # the data's folder is empty in the sandbox
    else:
        assert "only in a sandbox" in record["reason"]


def test_per_user_keeps_the_first_questions_of_each_user_and_is_logged(tmp_path: Path, home: Path) -> None:
    command = proposer(tmp_path, "good", "params['query_expansions'] = {'job': 'work', 'move': 'relocated'}")
    [record] = evolve(tmp_path, home, "--proposer", command, "--per-user", "1", "--per-split", "2")
    assert record["per_user"] == 1 and record["per_split"] == 2
    assert record["development"]["questions"] == 2
    assert [half["questions"] for half in record["validation"]] == [2, 2]
