"""Check every corpus file in this folder against the corpus format and print counts.

Usage: python validate_corpus.py [FOLDER]. Exits 1 and lists the problems when any row is malformed.
Standard library only, so it runs before the package is installed.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

DECISIONS = {"persist", "task_local", "underspecified", "none"}
SCOPES = {"global", "project"}
LINE_KINDS = {"directive", "heading", "prose", "example", "other"}
CHECK_PARAMS: dict[str, tuple[set[str], set[str]]] = {
    # kind: (required params, optional params)
    "forbidden_command": (
        {"program"},
        {"subcommand", "flags", "args", "alternatives", "bare", "piped_into", "synonyms"},
    ),
    "forbidden_path": ({"globs"}, {"outside_project", "created_only"}),
    "staged_path": ({"globs"}, set()),
    "commit_message": (set(), {"forbid", "require", "max_subject"}),
    "reply_word_limit": ({"limit"}, set()),
    "reply_count_limit": ({"unit", "limit"}, set()),
    "reply_forbidden_text": ({"patterns"}, set()),
    "reply_json_fields": ({"fields"}, set()),
    "field_value": ({"target", "path", "op", "value"}, set()),
    "required_event": ({"commands"}, {"after", "edit_globs"}),
    "workspace_leftovers": ({"globs"}, set()),
}
# Files whose rows name a source other than the file stem.
SOURCE_OF_FILE = {"instructions": "instruction_files"}
# Sources whose rows are lines of agent-instruction files (line kinds, repository provenance).
INSTRUCTION_SOURCES = {
    "instruction_files",
    "instructions_b",
    "instructions_c",
    "instructions_d",
    "instructions_e",
    "instructions_f",
    "instructions_g",
    "instructions_h",
    "instructions_i",
    "instructions_j",
    "instructions_k",
}
# Sources whose rows are user turns of committed chat histories: the turn before is known.
DIALOGUE_SOURCES = {
    "dialogues_a",
    "dialogues_b",
    "dialogues_c",
    "dialogues_d",
    "dialogues_e",
    "dialogues_f",
    "dialogues_g",
}
REQUIRED = ("id", "source", "text", "decision", "scope", "rules", "retraction", "derived", "provenance")


def check_rule(rule: object, where: str) -> list[str]:
    """Problems with one atomic rule: text, condition and a known check kind with its parameters."""
    if not isinstance(rule, dict):
        return [f"{where}: rule is not an object"]
    problems = []
    if not isinstance(rule.get("text"), str) or not rule["text"].strip():
        problems.append(f"{where}: rule without text")
    if "condition" not in rule or not (rule["condition"] is None or isinstance(rule["condition"], str)):
        problems.append(f"{where}: rule condition must be a string or null")
    check = rule.get("check")
    if check == "guidance":
        return problems
    if not isinstance(check, dict) or check.get("kind") not in CHECK_PARAMS:
        return [*problems, f"{where}: check must be 'guidance' or a known kind, got {check!r}"]
    params = check.get("params")
    if not isinstance(params, dict):
        return [*problems, f"{where}: check params must be an object"]
    required, optional = CHECK_PARAMS[check["kind"]]
    missing = required - params.keys()
    unknown = params.keys() - required - optional
    if missing:
        problems.append(f"{where}: {check['kind']} lacks {sorted(missing)}")
    if unknown:
        problems.append(f"{where}: {check['kind']} has unknown params {sorted(unknown)}")
    flags = params.get("flags")
    if flags is not None and not (isinstance(flags, list) and all(isinstance(g, list) and g for g in flags)):
        problems.append(f"{where}: flags must be a list of non-empty alias groups")
    return problems


def check_row(row: dict, stem: str, ids: set[str]) -> list[str]:
    """Problems with one corpus row."""
    where = f"{stem}:{row.get('id', '?')}"
    problems = [f"{where}: missing field {key}" for key in REQUIRED if key not in row]
    if problems:
        return problems
    if row["id"] in ids:
        problems.append(f"{where}: duplicate id")
    ids.add(row["id"])
    if row["source"] != SOURCE_OF_FILE.get(stem, stem):
        problems.append(f"{where}: source {row['source']!r} does not belong in {stem}.jsonl")
    if not isinstance(row["text"], str) or not row["text"].strip():
        problems.append(f"{where}: empty text")
    decision = row["decision"]
    if decision not in DECISIONS:
        problems.append(f"{where}: unknown decision {decision!r}")
    if decision in ("persist", "underspecified"):
        if row["scope"] not in SCOPES:
            problems.append(f"{where}: {decision} needs scope global|project")
    elif row["scope"] is not None:
        problems.append(f"{where}: scope must be null for {decision}")
    rules = row["rules"]
    if not isinstance(rules, list):
        problems.append(f"{where}: rules must be a list")
    elif decision == "persist" and not rules:
        problems.append(f"{where}: persist row without rules")
    elif decision != "persist" and rules:
        problems.append(f"{where}: non-persist row with rules")
    else:
        for index, rule in enumerate(rules):
            problems.extend(check_rule(rule, f"{where} rule {index}"))
    for flag in ("retraction", "derived"):
        if not isinstance(row[flag], bool):
            problems.append(f"{where}: {flag} must be a boolean")
    if not isinstance(row["provenance"], dict):
        problems.append(f"{where}: provenance must be an object")
    if row["source"] in INSTRUCTION_SOURCES:
        prov = row["provenance"]
        for key in ("repo", "path", "line", "licence"):
            if key not in prov:
                problems.append(f"{where}: provenance lacks {key}")
        if row.get("line_kind") not in LINE_KINDS:
            problems.append(f"{where}: line_kind must be one of {sorted(LINE_KINDS)}")
        if (row.get("line_kind") == "directive") != (decision == "persist"):
            problems.append(f"{where}: directive lines persist, other lines do not")
        if "clean" not in row:
            problems.append(f"{where}: missing clean")
    if row["source"] in DIALOGUE_SOURCES:
        prov = row["provenance"]
        for key in ("repository", "path", "commit"):
            if not isinstance(prov.get(key), str) or not prov.get(key):
                problems.append(f"{where}: provenance lacks {key}")
        if "previous" not in row or not (row["previous"] is None or isinstance(row["previous"], str)):
            problems.append(f"{where}: previous must be the prior user turn or null")
        if row.get("points_back") and not row["previous"]:
            problems.append(f"{where}: a turn that points back needs its previous turn")
    if row["derived"] and not row["provenance"].get("from"):
        problems.append(f"{where}: derived row without provenance.from")
    return problems


def main(argv: list[str]) -> int:
    """Validate the folder's JSONL files and print counts; return the exit status."""
    folder = Path(argv[1]) if len(argv) > 1 else Path(__file__).parent
    files = sorted(p for p in folder.glob("*.jsonl"))
    problems: list[str] = []
    ids: set[str] = set()
    rows_by_id: dict[str, dict] = {}
    counts: dict[str, Counter] = {
        "source/decision": Counter(),
        "source/scope": Counter(),
        "line_kind": Counter(),
        "check kind": Counter(),
        "voice": Counter(),
    }
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as error:
                problems.append(f"{path.name}:{number}: not JSON ({error.msg})")
                continue
            problems.extend(check_row(row, path.stem, ids))
            rows_by_id[row.get("id", "")] = row
            counts["source/decision"][(path.stem, row.get("decision"))] += 1
            if row.get("scope"):
                counts["source/scope"][(path.stem, row["scope"])] += 1
            if "line_kind" in row:
                counts["line_kind"][row["line_kind"]] += 1
            if "voice" in row:
                counts["voice"][row["voice"]] += 1
            for rule in row.get("rules") or []:
                if isinstance(rule, dict):
                    check = rule.get("check")
                    kind = check if isinstance(check, str) else (check or {}).get("kind")
                    counts["check kind"][(path.stem, kind)] += 1
    for row in rows_by_id.values():
        origin = row.get("provenance", {}).get("from") if isinstance(row.get("provenance"), dict) else None
        if origin and origin not in rows_by_id:
            problems.append(f"{row['id']}: provenance.from {origin} is not a row of this corpus")
    for title, counter in counts.items():
        print(f"== {title}")
        for key, value in sorted(counter.items(), key=lambda item: str(item[0])):
            print(f"  {key}: {value}")
    print(f"{len(ids)} rows in {len(files)} files, {len(problems)} problems")
    for problem in problems[:50]:
        print("  " + problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
