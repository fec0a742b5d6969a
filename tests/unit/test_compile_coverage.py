"""Rules that name a program, flag, path, count, required command or commit text compile to a validated check."""

from __future__ import annotations

import pytest

from heedful.llm import OfflineModel
from heedful.rules.coverage import coverage, render, same_params
from heedful.rules.library import compile_candidate
from heedful.rules.models import Candidate

MODEL = OfflineModel()


def compiled(text: str, condition: str | None = None) -> tuple[str, str | None, dict[str, object]]:
    outcome = compile_candidate(MODEL, Candidate(text=text, condition=condition, evidence=[text]))
    return outcome.status, outcome.check.kind if outcome.check else None, outcome.check.params if outcome.check else {}


@pytest.mark.parametrize(
    ("text", "kind", "params"),
    [
        (
            "No force pushes. Ever.",
            "forbidden_command",
            {"program": "git", "subcommand": ["push"], "flags": [["--force", "-f"]]},
        ),
        ("Don't use doas for anything", "forbidden_command", {"program": "doas"}),
        ("no global yarn installs", "forbidden_command", {"program": "yarn", "subcommand": ["global", "add"]}),
        (
            "use fd instead of find when you look for files",
            "forbidden_command",
            {"program": "find", "alternatives": ["fd"]},
        ),
        ("never commit the .envrc", "staged_path", {"globs": [".envrc"]}),
        # "under 5" is at most 4
        ("keep replies under 5 bullet points", "reply_count_limit", {"unit": "bullets", "limit": 4}),
        ("keep replies to at most 5 bullet points", "reply_count_limit", {"unit": "bullets", "limit": 5}),
        ("no emojis in your answers", "reply_forbidden_text", {"patterns": ["emoji"]}),
        ("don't put Co-Authored-By lines in commits", "commit_message", {"forbid": ["Co-Authored-By"]}),
        (
            "always run cargo clippy before you say you're done",
            "required_event",
            {"commands": [["cargo", "clippy"]], "after": "edit"},
        ),
        ("don't touch anything in vendor/", "forbidden_path", {"globs": ["vendor/**"], "outside_project": False}),
        ("stop using sudo", "forbidden_command", {"program": "sudo"}),
        ("When writing Python, use uv", "forbidden_command", {"program": "pip", "alternatives": ["uv"]}),
        ("prefer rg over grep", "forbidden_command", {"program": "grep", "alternatives": ["rg"]}),
        (
            "Never install npm packages globally.",
            "forbidden_command",
            {"program": "npm", "subcommand": ["install"], "flags": [["--global", "-g"]]},
        ),
        ("Keep commit subjects to at most 72 characters.", "commit_message", {"max_subject": 72}),
    ],
)
def test_everyday_phrasings_compile(text: str, kind: str, params: dict[str, object]) -> None:
    assert compiled(text) == ("checked", kind, params)


def test_a_condition_the_evidence_decides_does_not_block() -> None:
    assert compiled("Use fd instead of find.", "when looking for files")[0] == "checked"
    assert compiled("Use uv, not pip.", "when writing Python")[0] == "checked"


@pytest.mark.parametrize(
    "text",
    [
        # a request for detail lifts a length limit through the override (test_compile_classes_counts); this does not
        "Keep replies under 100 words unless the question is hard.",
        "Never run rm -rf for large directories.",
        "Use pytest, not unittest.",
        "Retract the earlier rule to use rg instead of grep.",
        "Prefer small functions.",
    ],
)
def test_undecidable_qualifiers_and_non_commands_stay_guidance(text: str) -> None:
    assert compiled(text)[0] == "guidance"


def test_force_push_rule_allows_force_with_lease() -> None:
    from heedful.rules.checks import evaluate

    _, _, params = compiled("never run git push --force")
    bash = {"action": {"tool": "Bash", "command": "git push --force-with-lease origin feat"}}
    assert evaluate("forbidden_command", params, "pre_action", bash).result == "pass"


def test_coverage_report_counts_right_wrong_and_guidance() -> None:
    rows = [
        {
            "id": "a",
            "decision": "persist",
            "rules": [
                {
                    "text": "Never force-push.",
                    "condition": None,
                    "check": {
                        "kind": "forbidden_command",
                        "params": {"program": "git", "subcommand": "push", "flags": [["--force", "-f"]]},
                    },
                },
                {
                    "text": "Never commit .envrc.",
                    "condition": None,
                    "check": {"kind": "staged_path", "params": {"globs": ["secrets/**"]}},
                },
                {"text": "Prefer small functions.", "condition": None, "check": "guidance"},
            ],
        },
        {"id": "b", "decision": "task_local", "rules": []},
    ]
    report = coverage(rows)
    assert report.kinds["forbidden_command"].right == 1
    assert report.kinds["staged_path"].wrong_params == 1
    assert report.guidance_labelled == 1 and report.guidance_checked == 0
    assert "forbidden_command" in render(report) and report.rate == 0.5


def test_key_parameters_read_subcommand_and_args_as_one_sequence() -> None:
    label = {"program": "docker", "subcommand": "system", "args": ["prune"]}
    assert same_params("forbidden_command", label, {"program": "docker", "subcommand": ["system", "prune"]})
    assert not same_params("forbidden_command", label, {"program": "docker", "subcommand": ["push"]})
    assert same_params("forbidden_path", {"globs": ["vendor/**"]}, {"globs": ["vendor/"]})
