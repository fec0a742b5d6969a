"""The domain does not depend on a storage backend: rules and enforcement import protocols and records only.

The hook's spool redacts with the neutral `heedful.redact_values`; only the hook's runtime (which
opens the store, and so is where a backend is chosen) may name one.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import heedful

SRC = Path(heedful.__file__).parent
BACKENDS = ("heedful.store.sqlite", "heedful.store.postgres")
# Where a backend is chosen: the hook runtime opens the store it is configured with.
COMPOSITION = {"enforce/runtime.py"}


def _imported_modules(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
    return found


def test_rules_and_enforcement_import_no_backend() -> None:
    offenders = []
    for package in ("rules", "enforce"):
        for path in sorted((SRC / package).rglob("*.py")):
            relative = path.relative_to(SRC).as_posix()
            if relative in COMPOSITION:
                continue
            offenders += [f"{relative}: {m}" for m in _imported_modules(path) if m.startswith(BACKENDS)]
    assert offenders == []


def test_spool_redacts_without_loading_a_backend(tmp_path: Path) -> None:
    script = """
import sys
from pathlib import Path
from heedful.enforce.spool import Spool
from heedful.enforce.ledger import Write
spool = Spool(Path(sys.argv[1]))
secret = "key sk-abcdef1234567890abcdef12"
path = spool.save([Write("log", "me", "s1", "2026-01-01T00:00:00Z", {"reason": secret, "session_id": "s1"})])
text = path.read_text()
assert "sk-abcdef1234567890abcdef12" not in text and "s1" in text and "[REDACTED" in text, text
assert not [m for m in sys.modules if m.startswith(("heedful.store.sqlite", "heedful.store.postgres"))]
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "spool")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_the_old_import_path_still_works() -> None:
    from heedful import redact_values
    from heedful.store.sqlite import redaction

    assert redaction.redact_record is redact_values.redact_record
    assert redaction.redact_value is redact_values.redact_value
    assert redaction.is_safe_column is redact_values.is_safe_column
    assert redaction.placeholder_columns is redact_values.placeholder_columns


def test_rule_operations_get_their_parts_not_the_facade() -> None:
    """The learner and the rule service take `RuleParts` (a store, model and embedder loaders, new ids),
    never the `Heedful` facade or the service's private attributes; enforcement takes its repository."""
    import inspect

    from heedful.enforce.engine import Enforcer
    from heedful.rules import learn
    from heedful.rules.parts import RuleParts
    from heedful.rules.service import RuleService

    assert inspect.signature(RuleService.__init__).parameters["parts"].annotation in ("RuleParts", RuleParts)
    assert "parts" in inspect.signature(learn.learn).parameters
    for module in ("rules/learn.py", "rules/retraction.py", "rules/service_checks.py"):
        path = SRC / module
        imported = _imported_modules(path)
        assert "heedful.api" not in imported and "heedful.rules.service" not in imported, module
        assert "._repo" not in path.read_text(encoding="utf-8") and "._new_id" not in path.read_text(encoding="utf-8")
    given = inspect.signature(Enforcer.__init__).parameters
    assert "hf" not in given and all("Heedful" not in str(p.annotation) for p in given.values())
