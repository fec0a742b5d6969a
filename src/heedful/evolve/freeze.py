"""The evaluator's recorded hash, checked before every run and before every evaluation.

A candidate cannot change the evaluator through its diff (the proposer step refuses that), and
this check catches a proposer that reached outside its workspace and edited the installed module.
Changing the evaluator on purpose means updating this hash in the same commit.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from heedful.errors import InputError

EVALUATOR_SHA256 = "0d2838e471c69be52ea8c50ae3dbc2784fbe5af9e656f967368d0f0875f320e7"


def evaluator_path() -> Path:
    return Path(__file__).with_name("evaluator.py")


def evaluator_sha256() -> str:
    return hashlib.sha256(evaluator_path().read_bytes()).hexdigest()


def check_frozen() -> str:
    """The evaluator's hash, or an InputError when it differs from the recorded one."""
    actual = evaluator_sha256()
    if actual != EVALUATOR_SHA256:
        raise InputError(
            f"the evaluator {evaluator_path()} changed (sha256 {actual[:12]}, recorded {EVALUATOR_SHA256[:12]});"
            " refusing to evaluate"
        )
    return actual
