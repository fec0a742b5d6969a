"""The request-or-rule and anchor flags the admission model reads beside the embedding."""

from __future__ import annotations

import pytest

from heedful.rules import admission_request


def _fired(text: str) -> set[str]:
    return {name for name, value in zip(admission_request.NAMES, admission_request.values(text), strict=True) if value}


@pytest.mark.parametrize(
    ("text", "fired", "silent"),
    [
        (
            "The new endpoint must always return results sorted by creation date.",
            {"spec_of_artefact", "new_artefact"},
            {"agent_subject", "habit_verb_first"},
        ),
        ("Your replies must always be short.", {"agent_subject"}, {"spec_of_artefact"}),
        ("initialize a typescript project for the CLI", {"deliver_verb_first"}, {"habit_verb_first"}),
        ("never use sudo with pip", {"habit_verb_first", "program_unanchored"}, {"deliver_verb_first"}),
        ("why do you keep doing that?? thats the third time today", {"nth_time"}, {"program_output"}),
        ("ModuleNotFoundError: No module named 'app.cli'", {"program_output"}, {"deliver_verb_first"}),
        ("fatal: not a git repository", {"program_output"}, set()),
        ("@workspace /explain the build error", {"mention"}, set()),
        ("let's use python instead of bash", {"lets"}, set()),
        (
            "use rg, not grep -r. grep takes forever on this monorepo",
            {"repo_anchor"},
            {"program_unanchored"},
        ),
        ("Nothing under infra/terraform/ is ours to change", {"directory", "repo_setup"}, {"program_unanchored"}),
        ("This repo is on Python 3.8, no walrus", {"repo_anchor", "language_version"}, set()),
        ("no --privileged containers", {"program_unanchored"}, {"repo_anchor", "directory", "repo_setup"}),
        ("it breaks the system python on my machine", {"own_machine"}, set()),
        ("- Run `pnpm run format` before pushing", {"list_item"}, {"emphasis"}),
        ("**Lint**: fix every warning", {"emphasis"}, {"list_item"}),
        ("see https://example.com/docs/page", set(), {"directory"}),
    ],
)
def test_flags_read_the_message(text: str, fired: set[str], silent: set[str]) -> None:
    found = _fired(text)
    assert fired <= found, (text, found)
    assert not silent & found, (text, found)


@pytest.mark.parametrize("text", ["", "   ", "x" * 5000, "\udfff odd", "???", "- ", "**"])
def test_flags_are_total_and_binary(text: str) -> None:
    values = admission_request.values(text)
    assert len(values) == len(admission_request.NAMES)
    assert set(values) <= {0.0, 1.0}
