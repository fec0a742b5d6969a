"""SessionStart says when an imported instruction file changed since its import (real hook subprocess).

The import records each file's size, mtime and digest; the hook stats the file, hashes it only when
size or mtime moved, and never imports: the library stays as it was until the user imports again.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from heedful.api import Heedful
from heedful.integrations.payloads import claude, hook_env, run_hook
from heedful.rules.import_origin import FileStamp, changed_files, read_stamps, stamps_key, text_digest
from heedful.rules.importer import import_rules

CLAUDE_MD = """\
# Acme

## Rules

- Use uv, not pip, for every Python dependency.
- Never force-push.
"""
NOTICE = "heedful: CLAUDE.md changed since it was imported: run `heedful rules import CLAUDE.md`"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = (tmp_path / "acme").resolve()
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "CLAUDE.md").write_text(CLAUDE_MD, encoding="utf-8")
    return root


def imported(home: Path, repo: Path) -> int:
    with Heedful.open(home, embedder="hashing") as hf:
        report = import_rules(hf, "me", [repo / "CLAUDE.md"])
        assert report.library_version is not None
        return len(hf.rules.list("me"))


def session_context(home: Path, cwd: Path, session: str = "s1") -> str:
    env = hook_env(home, user="me", HEEDFUL_EMBEDDER="hashing")
    code, out, err, _ = run_hook("claude-code", claude("SessionStart", session, str(cwd)), env)
    assert code == 0, err
    if not out.strip():
        return ""
    return str(json.loads(out)["hookSpecificOutput"]["additionalContext"])


def test_an_unchanged_import_gives_no_notice(home: Path, repo: Path) -> None:
    imported(home, repo)
    context = session_context(home, repo)
    assert "Use uv, not pip" in context and "changed since" not in context


def test_a_touched_but_identical_file_gives_no_notice(home: Path, repo: Path) -> None:
    imported(home, repo)
    later = os.stat(repo / "CLAUDE.md").st_mtime_ns + 5_000_000_000
    os.utime(repo / "CLAUDE.md", ns=(later, later))
    assert "changed since" not in session_context(home, repo)


def test_an_edited_file_is_noticed_and_nothing_is_imported(home: Path, repo: Path) -> None:
    count = imported(home, repo)
    (repo / "CLAUDE.md").write_text(CLAUDE_MD + "- Never edit files under migrations/.\n", encoding="utf-8")
    context = session_context(home, repo)
    assert NOTICE in context, context
    assert "Use uv, not pip" in context  # the rule index is still there
    with Heedful.open(home, embedder="hashing") as hf:
        assert len(hf.rules.list("me")) == count  # the hook imported nothing
    # Started in a subdirectory: the same project, the same notice.
    (repo / "src").mkdir()
    assert NOTICE in session_context(home, repo / "src", session="s2")
    # Importing again records the new state: the notice goes.
    imported(home, repo)
    assert "changed since" not in session_context(home, repo, session="s3")


def test_the_notice_is_only_for_the_project_that_imported_the_file(home: Path, repo: Path, tmp_path: Path) -> None:
    imported(home, repo)
    (repo / "CLAUDE.md").write_text(CLAUDE_MD + "- Always run the tests.\n", encoding="utf-8")
    other = tmp_path / "other"
    other.mkdir()
    assert "changed since" not in session_context(home, other)


def test_a_deleted_file_is_noticed(home: Path, repo: Path) -> None:
    imported(home, repo)
    (repo / "CLAUDE.md").unlink()
    context = session_context(home, repo)
    assert "heedful: CLAUDE.md was imported but no longer exists" in context, context


def test_a_dry_run_records_nothing(home: Path, repo: Path) -> None:
    with Heedful.open(home, embedder="hashing") as hf:
        import_rules(hf, "me", [repo / "CLAUDE.md"], dry_run=True)
        assert hf.store.get_meta(stamps_key("me")) is None


def test_the_hook_hashes_a_file_only_when_its_size_or_mtime_moved(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    path.write_text("- Never force-push.\n", encoding="utf-8")
    info = path.stat()
    stamp = FileStamp(str(path), "global", None, info.st_size, info.st_mtime_ns, text_digest(path.read_text()))
    reads: list[str] = []

    def read(file: str) -> str:
        reads.append(file)
        return Path(file).read_text(encoding="utf-8")

    assert changed_files([stamp], [], read) == [] and reads == []  # stat only
    os.utime(path, ns=(info.st_mtime_ns + 10**9, info.st_mtime_ns + 10**9))
    assert changed_files([stamp], [], read) == [] and reads == [str(path)]  # hashed: same text
    path.write_text("- Never force-push to main.\n", encoding="utf-8")
    (change,) = changed_files([stamp], [], read)
    assert not change.gone


def test_stamps_that_do_not_parse_are_ignored() -> None:
    assert read_stamps("not json") == {}
    assert read_stamps('{"/a": {"file": "/a"}}') == {}
