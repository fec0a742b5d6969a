"""The internal-error log of the hook and the MCP server: redacted, owner-only, bounded, never raising."""

from __future__ import annotations

import stat
from pathlib import Path

from heedful.error_log import MAX_ENTRY_CHARS, append_error, log_path

SECRET = "sk-proj-" + "A1b2C3d4E5f6G7h8J9k0"


def _boom(message: str) -> BaseException:
    try:
        raise RuntimeError(message)
    except RuntimeError as exc:
        return exc


def test_a_secret_in_the_exception_or_the_context_never_reaches_the_file(tmp_path: Path) -> None:
    assert append_error(tmp_path, "hooks", f"claude-code: failed open for key={SECRET}", _boom(f"bad {SECRET}"))
    text = log_path(tmp_path, "hooks").read_text(encoding="utf-8")
    assert SECRET not in text
    assert "[REDACTED:api_key]" in text
    assert "Traceback" in text and "RuntimeError" in text and "failed open" in text


def test_the_file_is_the_owners_alone_even_when_an_older_one_was_loose(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir(mode=0o755)
    loose = log_path(tmp_path, "mcp")
    loose.write_text("older entry\n", encoding="utf-8")
    loose.chmod(0o644)
    assert append_error(tmp_path, "mcp", "tool call failed", _boom("no such table"))
    assert stat.S_IMODE(loose.stat().st_mode) == 0o600
    assert loose.read_text(encoding="utf-8").startswith("older entry\n")  # appended, not replaced
    fresh = tmp_path / "other"
    assert append_error(fresh, "hooks", "x")
    assert stat.S_IMODE((fresh / "logs").stat().st_mode) == 0o700
    assert stat.S_IMODE(log_path(fresh, "hooks").stat().st_mode) == 0o600


def test_a_full_log_moves_aside_and_both_files_stay_bounded(tmp_path: Path) -> None:
    limit = 4_000
    for number in range(60):
        assert append_error(tmp_path, "hooks", f"event {number}", _boom("x" * 200), max_bytes=limit)
    current = log_path(tmp_path, "hooks")
    previous = current.with_name("hooks.log.1")
    assert current.stat().st_size <= limit and previous.stat().st_size <= limit
    assert "event 59" in current.read_text(encoding="utf-8")
    assert "event 0\n" not in current.read_text(encoding="utf-8") + previous.read_text(encoding="utf-8")
    assert stat.S_IMODE(previous.stat().st_mode) == 0o600


def test_one_runaway_entry_is_cut(tmp_path: Path) -> None:
    assert append_error(tmp_path, "hooks", "huge", _boom("y" * (MAX_ENTRY_CHARS * 3)))
    text = log_path(tmp_path, "hooks").read_text(encoding="utf-8")
    assert len(text) <= MAX_ENTRY_CHARS + 40
    assert "entry cut" in text


def test_an_unwritable_home_is_false_not_an_exception(tmp_path: Path) -> None:
    home_is_a_file = tmp_path / "a-file"
    home_is_a_file.write_text("not a folder", encoding="utf-8")
    assert append_error(home_is_a_file, "hooks", "failed open", _boom("x")) is False
