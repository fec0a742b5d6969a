"""`heedful bench locomo --peer mem0`: mem0 beside heedful on a small LoCoMo-shaped conversation, offline.

The benchmark runs in a real subprocess whose sockets refuse and record every connection and name
lookup, so a run that tried to reach the network (telemetry, a model download, an LLM call) is
seen even where mem0 swallows the failure."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from heedful.bench import locomo
from heedful.errors import InputError

needs_mem0 = pytest.mark.skipif(
    importlib.util.find_spec("mem0") is None, reason="mem0ai (the peer-mem0 extra) is not installed"
)

# Runs `heedful <args>` with every outbound connection refused and written to a file.
GUARDED = """
import json, socket, sys
attempts = []
def refuse(kind):
    def call(*args, **kwargs):
        attempts.append([kind, repr(args[1:] if kind == "connect" else args[:2])])
        raise OSError("network disabled in this test")
    return call
real_connect = socket.socket.connect
def connect(sock, address):
    if sock.family == socket.AF_UNIX:
        return real_connect(sock, address)
    return refuse("connect")(sock, address)
socket.socket.connect = connect
socket.socket.connect_ex = connect
socket.create_connection = refuse("create_connection")
socket.getaddrinfo = refuse("getaddrinfo")
if sys.argv[2] == "hide-mem0":
    sys.modules["mem0"] = None  # as if the extra were not installed
from heedful.cli import main
try:
    main(sys.argv[3:])
finally:
    with open(sys.argv[1], "w") as handle:
        json.dump(attempts, handle)
"""


def conversation_file(folder: Path) -> Path:
    """Two sessions between Ana and Ben, and questions whose evidence is one or two known turns."""
    session_1: list[tuple[str, ...]] = [
        ("Ana", "I adopted a beagle puppy and named him Biscuit."),
        ("Ben", "Biscuit is a great name for a beagle!"),
        ("Ana", "He already chewed my new running shoes."),
        ("Ben", "My sister runs a bakery in Porto, she sells sourdough."),
        ("Ana", "I would love to visit Porto and try her sourdough."),
        ("Ben", "I am learning the cello on weekends.", "a photo of a cello in a music room"),
        ("Ana", "The cello sounds lovely, how long have you played?"),
        ("Ben", "About three months, my teacher is patient."),
    ]
    session_2: list[tuple[str, ...]] = [
        ("Ben", "I signed up for pottery classes on Tuesdays."),
        ("Ana", "Pottery sounds relaxing. I went hiking in the Alps last week."),
        ("Ben", "Did you see any glaciers in the Alps?"),
        ("Ana", "Yes, a huge glacier near Chamonix."),
        ("Ben", "My pottery teacher made a blue vase for me."),
        ("Ana", "Biscuit stayed with my neighbour while I was hiking."),
    ]
    conversation: dict[str, object] = {"speaker_a": "Ana", "speaker_b": "Ben"}
    dated: list[tuple[str, list[tuple[str, ...]]]] = [
        ("1:56 pm on 8 May, 2023", session_1),
        ("10:00 am on 20 June, 2023", session_2),
    ]
    for number, (when, turns) in enumerate(dated, start=1):
        conversation[f"session_{number}_date_time"] = when
        conversation[f"session_{number}"] = [
            {"speaker": t[0], "dia_id": f"D{number}:{i}", "text": t[1], **({"blip_caption": t[2]} if t[2:] else {})}
            for i, t in enumerate(turns, start=1)
        ]
    qa = [
        {"question": "What did Ana name her beagle puppy?", "answer": "Biscuit", "evidence": ["D1:1"], "category": 4},
        {"question": "Where does Ben's sister run a bakery?", "answer": "Porto", "evidence": ["D1:4"], "category": 4},
        {"question": "Which instrument is Ben learning?", "answer": "cello", "evidence": ["D1:6"], "category": 4},
        {"question": "When did Ben sign up for pottery?", "answer": "June 2023", "evidence": ["D2:1"], "category": 2},
        {"question": "What glacier did Ana see hiking in the Alps?", "evidence": ["D2:2; D2:4"], "category": 1},
        {"question": "Did Ana go skiing?", "adversarial_answer": "no", "evidence": [], "category": 5},
    ]
    file = folder / "locomo10.json"
    file.write_text(json.dumps([{"sample_id": "fixture", "conversation": conversation, "qa": qa}]))
    return file


def run_guarded(folder: Path, mode: str, *args: str) -> tuple[subprocess.CompletedProcess[str], list[object]]:
    attempts_file = folder / "attempts.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HEEDFUL_", "MEM0_"))}
    env["HOME"] = str(folder / "home")  # anything written to the home folder shows here
    result = subprocess.run(
        [sys.executable, "-c", GUARDED, str(attempts_file), mode, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=folder,
        timeout=600,
    )
    return result, json.loads(attempts_file.read_text()) if attempts_file.exists() else []


@needs_mem0
def test_peer_mem0_runs_beside_heedful_without_the_network(tmp_path: Path) -> None:
    data = conversation_file(tmp_path)
    (tmp_path / "home").mkdir(exist_ok=True)  # the PostgreSQL pass names its database in it
    result, attempts = run_guarded(
        tmp_path,
        "with-mem0",
        *("bench", "locomo", "--data", str(data), "--embedder", "hashing", "--json"),
        *("--peer", "mem0", "--peer-scale", "120"),
    )
    assert result.returncode == 0, result.stderr
    assert attempts == []  # no connection and no name lookup was even tried
    assert not (tmp_path / "home" / ".mem0").exists()  # mem0's state went to a temporary folder
    report = json.loads(result.stdout)
    peer = report["peer"]
    assert peer["system"] == "mem0" and peer["store"] == "disk"
    assert peer["recall"]["overall"]["n"] == report["recall"]["overall"]["n"] == 6
    # Every evidence turn sits among the 14 turns, so at @25 both rankings hold all of it.
    assert peer["recall"]["overall"]["@25"] == report["recall"]["overall"]["@25"] == 100.0
    # The questions share rare words with their evidence: mem0 must rank it near the top too.
    assert peer["recall"]["single-hop"]["@5"] == 100.0
    assert peer["ingest"]["turns_per_s"] > 0
    assert peer["latency_ms"]["p95"] >= peer["latency_ms"]["p50"] > 0
    assert any("adapter over heedful's embedder (hashing-256" in note for note in peer["notes"])
    grown = peer["grown_user"]
    assert grown["items"] == 120 and grown["runs"] >= 1
    assert set(grown["latency_ms"]) == {"heedful", "mem0"}
    assert all(ms["p95"] >= ms["p50"] > 0 for ms in grown["latency_ms"].values())


@needs_mem0
def test_peer_mem0_in_memory_store_prints_both_rows(tmp_path: Path) -> None:
    data = conversation_file(tmp_path)
    (tmp_path / "home").mkdir(exist_ok=True)  # the PostgreSQL pass names its database in it
    result, attempts = run_guarded(
        tmp_path,
        "with-mem0",
        *("bench", "locomo", "--data", str(data), "--embedder", "hashing"),
        *("--peer", "mem0", "--peer-store", "memory"),
    )
    assert result.returncode == 0, result.stderr
    assert attempts == []
    assert "heedful and mem0" in result.stdout and "(memory)" in result.stdout
    assert "note: mem0's embedding model replaced by an adapter" in result.stdout.replace("\n", " ")


def test_peer_without_mem0_installed_is_one_line_error(tmp_path: Path) -> None:
    data = conversation_file(tmp_path)
    (tmp_path / "home").mkdir(exist_ok=True)  # the PostgreSQL pass names its database in it
    result, attempts = run_guarded(
        tmp_path, "hide-mem0", "bench", "locomo", "--data", str(data), "--embedder", "hashing", "--peer", "mem0"
    )
    assert result.returncode == 2
    expected = "error: --peer mem0 needs mem0ai: pip install 'heedful[peer-mem0]' (mem0 is missing)"
    assert result.stderr.strip() == expected
    assert result.stdout == "" and attempts == []


def test_peer_options_are_checked_before_any_data_is_read(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.json"
    with pytest.raises(InputError, match="unknown peer 'zep'; choose one of: mem0"):
        locomo.run(missing, embedder="hashing", show_progress=False, peer="zep")
    with pytest.raises(InputError, match="--peer-scale needs --peer mem0"):
        locomo.run(missing, embedder="hashing", show_progress=False, peer_scale=1000)
    with pytest.raises(InputError, match="unknown peer store 'cloud'"):
        locomo.run(missing, embedder="hashing", show_progress=False, peer="mem0", peer_store="cloud")
