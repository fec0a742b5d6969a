"""A synthetic LoCoMo-shaped benchmark for `heedful evolve` tests: 10 users, so the declared splits apply.

Every user has a job and a move that the questions name in other words than the turns do ("job" /
"I work as"); only the development users (0-4) also play an instrument. A patch that bridges the
general vocabulary helps everyone; one that bridges only the instrument helps only the traced half.
Every user also says what they are hoping to do, asked about as what they "plan": extracting facts,
whose statements say "plans to", finds it for everyone.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from cli_runner import run_cli

NAMES = ["Avery", "Blake", "Casey", "Devon", "Emery", "Finley", "Harper", "Jordan", "Kendall", "Logan"]
FRIENDS = ["Quinn", "Reese", "Sage", "Tatum", "Val", "Wren", "Arden", "Briar", "Cove", "Dale"]
JOBS = ["nurse", "baker", "pilot", "welder", "tailor", "chemist", "plumber", "farmer", "editor", "jeweler"]
CITIES = ["Porto", "Leeds", "Turin", "Ghent", "Lyon", "Graz", "Bergen", "Tartu", "Cork", "Split"]
ISLANDS = ["Crete", "Corsica", "Malta", "Gozo", "Rhodes", "Elba", "Hvar", "Capri", "Ibiza", "Naxos"]
FILLER_TOPICS = ["weather", "garden", "movie", "soup", "hiking", "painting", "football", "coffee", "novel", "beach"]
FILLER = [
    "The {t} today was lovely, {f}.",
    "Did you see that {t} thing last night?",
    "I keep thinking about the {t} we talked about.",
    "Honestly the {t} made my whole day better.",
    "My sister asked me about the {t} again.",
    "We should plan something around the {t} soon.",
]


def conversation(index: int) -> dict[str, object]:
    rng = random.Random(index)
    name, friend = NAMES[index], FRIENDS[index]
    facts = [f"I work as a {JOBS[index]} at the old hospital.", f"Last spring I relocated to {CITIES[index]}."]
    if index < 5:
        facts.append("I have been practising the cello every evening.")
    facts.append(f"I'm hoping to sail around {ISLANDS[index]} with my cousin.")
    sessions: dict[str, object] = {}
    questions = []
    for number in (1, 2):
        turns = []
        for position in range(24):
            speaker = name if position % 2 == 0 else friend
            text = rng.choice(FILLER).format(t=rng.choice(FILLER_TOPICS), f=friend if speaker == name else name)
            turns.append({"speaker": speaker, "dia_id": f"D{number}:{position + 1}", "text": text})
        for slot, fact in enumerate(facts[number - 1 :: 2]):
            position = 4 + 8 * slot + rng.randrange(4)
            turns[position] = {"speaker": name, "dia_id": f"D{number}:{position + 1}", "text": fact}
            questions.append((fact, f"D{number}:{position + 1}"))
        sessions[f"session_{number}"] = turns
        sessions[f"session_{number}_date_time"] = f"1:{10 + number} pm on {number + 2} May, 2023"
    wording = {
        "work": f"What is {name}'s job?",
        "relocated": f"Where did {name} move?",
        "cello": f"Which instrument does {name} play?",
        "hoping": f"What does {name} plan to do?",
    }
    qa = [
        {
            "question": q,
            "answer": f"sail around {ISLANDS[index]}" if key == "hoping" else fact.split()[-1].strip("."),
            "evidence": [turn],
            "category": 4,
        }
        for fact, turn in questions
        for key, q in wording.items()
        if key in fact
    ]
    return {
        "sample_id": f"conv-{index}",
        "conversation": {"speaker_a": name, "speaker_b": friend, **sessions},
        "qa": qa,
    }


def fixture(tmp_path: Path) -> Path:
    path = tmp_path / "locomo10.json"
    path.write_text(json.dumps([conversation(i) for i in range(10)]), encoding="utf-8")
    return path


def beam_fixture(tmp_path: Path) -> Path:
    """A BEAM-shaped benchmark: 20 conversation folders (chat.json.gz, probing_questions.json) built from
    the same users, the user's own facts asked about in other words ("my job" / "I work as")."""
    import gzip

    root = tmp_path / "beam100k"
    for index in range(20):
        folder = root / str(index + 1)
        folder.mkdir(parents=True)
        sample = conversation(index % 10)
        chat, asked, number = [], [], 0
        for session in (1, 2):
            turns = []
            for turn in sample["conversation"][f"session_{session}"]:  # type: ignore[index]
                role = "user" if turn["speaker"] == sample["conversation"]["speaker_a"] else "assistant"  # type: ignore[index]
                turns.append([{"role": role, "id": number, "content": turn["text"], "dia_id": turn["dia_id"]}])
                number += 1
            chat.append({"batch_number": session, "time_anchor": f"March-{10 + session}-2024", "turns": turns})
        ids = {m["dia_id"]: m["id"] for batch in chat for turn in batch["turns"] for m in turn}
        for qa in sample["qa"]:  # type: ignore[union-attr]
            question = str(qa["question"]).replace(str(sample["conversation"]["speaker_a"]) + "'s", "my")  # type: ignore[index]
            question = question.replace("does " + str(sample["conversation"]["speaker_a"]), "do I")  # type: ignore[index]
            question = question.replace("did " + str(sample["conversation"]["speaker_a"]), "did I")  # type: ignore[index]
            asked.append({"question": question, "answer": qa["answer"], "source_chat_ids": [ids[qa["evidence"][0]]]})
        (folder / "chat.json.gz").write_bytes(gzip.compress(json.dumps(chat).encode()))
        questions = {"information_extraction": asked, "abstention": [{"question": "What is my pet's name?"}]}
        (folder / "probing_questions.json").write_text(json.dumps(questions), encoding="utf-8")
    return root


def proposer(tmp_path: Path, name: str, body: str) -> str:
    """A scripted proposer: a Python script run in the workspace, as any proposer command is."""
    script = tmp_path / f"{name}.py"
    script.write_text(
        "import json, pathlib\n"
        "params_path = pathlib.Path('harness/params.json')\n"
        "params = json.loads(params_path.read_text())\n" + body + "\n"
        "params_path.write_text(json.dumps(params, indent=2, sort_keys=True) + '\\n')\n"
        "print('hypothesis: the questions name things in other words than the turns')\n",
        encoding="utf-8",
    )
    return f"{sys.executable} {script}"


def evolve(tmp_path: Path, home: Path, *args: str) -> list[dict[str, Any]]:
    done = run_cli("evolve", "--data", str(fixture(tmp_path)), "--json", *args, home=home, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
