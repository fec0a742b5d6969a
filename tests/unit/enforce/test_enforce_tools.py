"""Tool calls as evidence: actions, patches, events, artifacts, project roots."""

from __future__ import annotations

from pathlib import Path

from heedful.enforce import tools
from heedful.enforce.project import lineage, normalise, project_root

PATCH = (
    "*** Begin Patch\n*** Add File: docs/a.md\n+hi\n*** Update File: src/b.py\n@@\n-x\n+y\n"
    "*** Delete File: old.txt\n*** Update File: c.py\n*** Move to: d.py\n*** End Patch\n"
)


def test_actions_keep_commands_for_shells_and_paths_for_patches() -> None:
    assert tools.action("Bash", {"command": "ls", "description": "x"})["input"]["command"] == "ls"
    assert tools.action("exec_command", {"cmd": ["git", "push"]})["input"]["command"] == "git push"
    patch = tools.action("apply_patch", {"command": PATCH})
    assert "command" not in patch["input"] and patch["paths"] == ["docs/a.md", "src/b.py", "old.txt", "c.py", "d.py"]
    assert tools.action("Write", {"file_path": "/p/a", "content": "c"})["input"]["file_path"] == "/p/a"


def test_events_for_every_tool_kind(tmp_path: Path) -> None:
    project, cwd = str(tmp_path), str(tmp_path)
    assert tools.events("Bash", {"command": "pytest -q"}, {}, project, cwd) == [
        {"tool": "Bash", "ok": True, "kind": "command", "command": "pytest -q"}
    ]
    created = tools.events(
        "Write", {"file_path": f"{project}/n.py", "content": ""}, {}, project, cwd, existed={f"{project}/n.py": False}
    )
    assert created == [{"tool": "Write", "ok": True, "kind": "create", "path": "n.py", "created": True}]
    rewritten = tools.events("Write", {"file_path": f"{project}/n.py", "content": ""}, {"type": "update"}, project, cwd)
    assert rewritten[0]["kind"] == "write"
    kinds = [(e["kind"], e["path"]) for e in tools.events("apply_patch", {"command": PATCH}, "ok", project, cwd)]
    assert kinds == [
        ("create", "docs/a.md"),
        ("edit", "src/b.py"),
        ("delete", "old.txt"),
        ("edit", "c.py"),
        ("create", "d.py"),
    ]
    assert tools.events("Read", {"file_path": "/etc/hosts"}, {}, project, cwd) == [
        {"tool": "Read", "ok": True, "kind": "tool", "path": "/etc/hosts"}
    ]


def test_existence_before_and_artifacts_after(tmp_path: Path) -> None:
    (tmp_path / "there.txt").write_text("old")
    assert tools.existed_before("Write", {"file_path": "there.txt"}, str(tmp_path)) == {"there.txt": True}
    assert tools.existed_before("Write", {"file_path": "new.txt"}, str(tmp_path)) == {"new.txt": False}
    (tmp_path / "there.txt").write_text("new content")
    (art,) = tools.artifacts("Edit", {"file_path": "there.txt"}, str(tmp_path))
    assert art == {"path": str(tmp_path / "there.txt"), "content": "new content", "kind": "text"}
    (gone,) = tools.artifacts("Write", {"file_path": "missing.txt", "content": "x"}, str(tmp_path))
    assert gone["kind"] == "deleted"
    assert tools.present(["there.txt", "missing.txt"], str(tmp_path), str(tmp_path)) == ["there.txt"]


def test_project_root_and_branch(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/feature/x\n")
    assert project_root(str(repo / "src")) == str(repo.resolve())
    assert project_root(str(repo / "src"), env_dir=str(tmp_path)) == str(tmp_path.resolve())
    assert project_root(str(tmp_path)) == str(tmp_path.resolve())
    assert tools.git_branch(str(repo)) == "feature/x"
    assert tools.git_branch(str(tmp_path)) is None
    assert tools.relative(str(repo / "src" / "a.py"), str(repo), str(repo)) == "src/a.py"
    assert tools.relative("/elsewhere/a.py", str(repo), str(repo)) == "/elsewhere/a.py"


def test_branch_of_a_worktree(tmp_path: Path) -> None:
    real = tmp_path / "main-repo" / ".git" / "worktrees" / "wt"
    real.mkdir(parents=True)
    (real / "HEAD").write_text("ref: refs/heads/topic\n")
    worktree = tmp_path / "wt"
    worktree.mkdir()
    (worktree / ".git").write_text(f"gitdir: {real}\n")
    assert tools.git_branch(str(worktree)) == "topic"
    assert project_root(str(worktree)) == str(worktree.resolve())


def test_a_subdirectory_resolves_to_its_repository_root(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "src" / "pkg").mkdir(parents=True)
    (repo / ".hg").mkdir()  # any VCS marker, not only git
    assert project_root(str(repo / "src" / "pkg")) == str(repo.resolve())
    # Claude Code started in a subdirectory: CLAUDE_PROJECT_DIR names it, the repository is the project.
    assert project_root(str(tmp_path), env_dir=str(repo / "src")) == str(repo.resolve())
    assert normalise(str(repo / "src")) == str(repo.resolve())
    assert normalise(str(tmp_path / "plain")) == str((tmp_path / "plain").resolve())
    assert lineage("/a/b/c") == ["/a/b/c", "/a/b", "/a", "/"]
    assert lineage(None) == []


def test_writes_through_the_shell_are_writes(tmp_path: Path) -> None:
    """Codex sends `apply_patch <<'EOF'` as a shell call; redirections write too: artifacts and events see them."""
    patch = (
        "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: config.json\n+{}\n"
        "*** Update File: a.py\n@@\n*** End Patch\nEOF\n"
    )
    assert tools.written_paths("Bash", {"command": patch}) == [("add", "config.json"), ("update", "a.py")]
    assert tools.written_paths("exec_command", {"cmd": "mkdir -p out && echo hi > out/x.txt"}) == [
        ("write", "out"),
        ("write", "out/x.txt"),
    ]
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "x.txt").write_text("hi\n")
    (art,) = tools.artifacts("Bash", {"command": "mkdir -p out && echo hi > out/x.txt"}, str(tmp_path))
    assert art == {"path": str(tmp_path / "out" / "x.txt"), "content": "hi\n", "kind": "text"}
    found = tools.events("Bash", {"command": "echo hi > out/x.txt; rm gone.txt"}, None, str(tmp_path), str(tmp_path))
    assert [(e["kind"], e.get("path")) for e in found] == [
        ("command", None),
        ("write", "out/x.txt"),
        ("delete", "gone.txt"),
    ]
    assert tools.written_paths("Bash", {"command": "ls -la && git status"}) == []
