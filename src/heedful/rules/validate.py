"""Validation before activation: cases, an independent review, execution, up to three rounds.

For each proposal (the compiler's revisions, in order) the kind generates 3–9 cases; a reviewer
that never sees the expected labels judges faithfulness and labels every case; then the check
itself runs on every case. Only when the review approves, every review label and every
execution result equals the expected label, is the check activated. Otherwise the rule stays
guidance (meaning clear) or inactive (meaning unclear).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from heedful.llm import Model, run_step
from heedful.rules.checks import KINDS, evaluate
from heedful.rules.models import Case, CheckSpec, RuleStatus
from heedful.rules.steps import ReviewInput, ReviewStep

MAX_ROUNDS = 3
MIN_CASES, MAX_CASES = 3, 9


@dataclass
class Outcome:
    status: RuleStatus
    check: CheckSpec | None
    reason: str
    rounds: list[dict[str, Any]] = field(default_factory=list)


# What exists at each stage: a check may not need evidence that only appears later.
AVAILABLE = {
    "pre_action": {"action", "project", "task", "events", "branch"},
    "artifact": {"artifact", "project", "task", "events"},
    "delivery": {"delivery", "events", "workspace", "project", "task"},
}


def structural_problems(spec: CheckSpec, cases: list[Case]) -> list[str]:
    problems = []
    roots = {field.split(".", 1)[0].split(" ", 1)[0] for field in spec.evidence}
    late = sorted(roots - AVAILABLE[spec.stage])
    if late:
        problems.append(f"needs {', '.join(late)}, which does not exist yet at the {spec.stage} stage")
    if not MIN_CASES <= len(cases) <= MAX_CASES:
        problems.append(f"{len(cases)} cases; between {MIN_CASES} and {MAX_CASES} are needed")
    if not any(case.expected == "not_applicable" for case in cases):
        problems.append("no not-applicable case")
    at_stage = {case.expected for case in cases if case.stage == spec.stage}
    for needed in ("pass", "violated"):
        if needed not in at_stage:
            problems.append(f"no {needed} case at the {spec.stage} stage")
    return problems


def _named(text: str, words: list[str]) -> bool:
    lowered = f" {text.lower()} "
    return any(re.search(rf"(?<![\w-]){re.escape(w.lower())}(?![\w])", lowered) for w in words if w)


def _trailer_named(trailer: str, text: str) -> bool:
    """ "Co-authored-by: Claude" is what "no Co-authored-by Claude lines" names, with or without its colon."""
    key, _, value = trailer.partition(":")
    name = re.escape(value.strip())
    return bool(value.strip()) and bool(
        re.search(rf"{re.escape(key.strip())}:?\s+`?{name}\b|\b{name}\s+as\s+(?:a\s+|the\s+)?co-?author", text, re.I)
    )


def _program_named(text: str, params: dict[str, Any]) -> bool:
    """The rule names the program, or one of its prose names, or says what replaces it ("we use uv" names pip)."""
    from heedful.rules import vocabulary as vocab

    program = params.get("program")
    if not isinstance(program, str) or program == "git":
        return True
    if _named(text, list(vocab.aliases_of(program))):
        return True
    from heedful.rules.compile.commands import FLAG_OWNERS

    if any(owner == program and _named(text, [flag]) for flag, owner in FLAG_OWNERS.items()):
        return True  # "no --break-system-packages" names pip by a flag only pip has
    alternatives = [a.split()[0] for a in params.get("alternatives") or [] if isinstance(a, str) and a.split()]
    return any(vocab.family_default(a) == program and _named(text, list(vocab.aliases_of(a))) for a in alternatives)


def _flag_named(text: str, program: str, group: list[str]) -> bool:
    from heedful.rules import vocabulary as vocab

    if _named(text, group) or _named(text, [g.lstrip("-") for g in group if g.startswith("--")]):
        return True
    clusters = re.findall(r"(?<![\w-])-([a-zA-Z]{2,})\b", text)
    if any(len(g) == 2 and g[1] in cluster for g in group for cluster in clusters):
        return True
    known = vocab.vocabulary().programs.get(program)
    concepts = [c for c, rule in (known.flags.items() if known else []) if any(set(group) & set(f) for f in rule.flags)]
    words = [
        w
        for w, c in vocab.CONCEPT_WORDS.items()
        if c in concepts or (c == "no_verify" and "no_verify_push" in concepts)
    ]
    return _named(text, words) or any(pattern.search(text) and c in concepts for pattern, c in vocab.CONCEPT_PHRASES)


def _same_action(action: dict[str, Any], params: dict[str, Any]) -> bool:
    return all(action.get(k) == params.get(k) for k in ("program", "subcommand", "flags", "args"))


def _unnamed(text: str, spec: CheckSpec) -> list[str]:
    """Parts of the spec that the rule's own wording does not name (the check may not invent them)."""
    params = spec.params
    if spec.kind == "forbidden_command":
        from heedful.rules.compile.actions import actions

        if any(a.phrase.search(text) and _same_action(a.params, params) for a in actions()):
            return []  # "never open a PR" names `gh pr create` by what it does
        missing = [] if _program_named(text, params) else [str(params.get("program"))]
        args = params.get("args") or []
        missing += [
            str(a) for a in args if isinstance(a, str) and not _named(text, [a]) and a.lower() not in text.lower()
        ]
        program = str(params.get("program") or "")
        missing += [
            group[0]
            for group in params.get("flags") or []
            if isinstance(group, list) and group and not _flag_named(text, program, [str(g) for g in group])
        ]
        return missing
    if spec.kind in ("forbidden_path", "staged_path"):
        stems = [
            g.replace("**", "").strip("*/").split("/")[-1] for g in params.get("globs") or [] if isinstance(g, str)
        ]
        from heedful.rules.compile.paths import FILE_FAMILIES, FILE_KINDS, FILE_NOUNS, KNOWN_CONFIG

        # "Jupyter notebooks" names *.ipynb by what the files are, "screenshots" names *.png and *.jpg
        nouns = {glob.strip("*/") for noun, glob in FILE_NOUNS.items() if re.search(rf"\b{noun}\b", text, re.I)}
        nouns |= {
            glob.replace("**", "").strip("*/").split("/")[-1]
            for noun, globs in [*FILE_KINDS.items(), *FILE_FAMILIES.items()]
            if re.search(rf"\b(?:{noun})\b", text, re.I)
            for glob in globs
        }
        # "Travis config" names .travis.yml, as the path reader reads it
        nouns |= {
            glob.replace("**", "").strip("*/").split("/")[-1]
            for phrase, glob in KNOWN_CONFIG.items()
            if re.search(rf"\b{phrase}\b", text, re.I)
        }
        lowered = text.lower()
        # "migration files" names migrations/, "CircleCI config" names .circleci/
        return [
            s
            for s in stems
            if s and s.lower() not in lowered and s.lower().strip(".").rstrip("s") not in lowered and s not in nouns
        ]
    if spec.kind == "reply_json_fields":
        return [f for f in params.get("fields") or [] if isinstance(f, str) and f.lower() not in text.lower()]
    if spec.kind == "field_value":
        return [str(p) for p in params.get("path") or [] if str(p).lower() not in text.lower()]
    if spec.kind in ("reply_word_limit", "reply_count_limit"):
        from heedful.rules.compile import NUMBERS

        limit = params.get("limit")
        if limit == 0 and params.get("unit") == "bullets":
            from heedful.rules.compile.replies import no_bullets

            return [] if no_bullets(text) else ["a limit of no bullets"]  # "no bullet points" names the 0
        named = re.findall(r"\d+", text) + [str(n) for w, n in NUMBERS.items() if _named(text, [w])]
        if isinstance(limit, int) and re.search(r"\b(?:under|below|fewer than|less than)\b", text, re.I):
            named.append(str(int(named[0]) - 1) if named and named[0].isdigit() else "")  # "under 20 lines": 19
        return [] if str(limit) in named else [f"the limit {limit}"]
    if spec.kind == "commit_message":
        forbid = [f for f in params.get("forbid") or [] if isinstance(f, str)]
        missing = [
            f
            for f in forbid
            if f.lower() not in text.lower()
            and f.lower().rstrip("!:") not in text.lower()  # "fixup or squash! subjects", "ci" at the end
            and not (f == "emoji" and re.search(r"emoji", text, re.I))
            and not (f == "Co-Authored-By" and re.search(r"co-?author", text, re.I))
            and not (f == "Signed-off-by" and re.search(r"\bsign[- ]?off", text, re.I))
            and not _trailer_named(f, text)
        ]
        subject = params.get("max_subject")
        if subject is not None and str(subject) not in text:
            missing.append(f"a subject limit of {subject}")
        return missing
    if spec.kind == "reply_forbidden_text":
        from heedful.rules.compile.replies import APOLOGY_PHRASES, MARKDOWN_CONSTRUCTS

        patterns = [p for p in params.get("patterns") or [] if isinstance(p, str)]
        # "markdown links" names `](`, as the reply reader spells it
        spelled = {p for c, ps in MARKDOWN_CONSTRUCTS.items() if re.search(rf"\b(?:{c})\b", text, re.I) for p in ps}
        return [
            p
            for p in patterns
            if p.lower() not in text.lower()
            and p not in spelled
            and not (p == "emoji" and re.search(r"emoji|emoticon|smiley", text, re.I))
            and not (p == "—" and re.search(r"em[- ]?dash", text, re.I))
            and not (p in (*APOLOGY_PHRASES, "sorry") and re.search(r"apolog|\bsorry\b", text, re.I))
        ]
    if spec.kind == "required_event":
        commands = params.get("commands") or []
        first = commands[0] if commands else []
        words = first.split() if isinstance(first, str) else [str(w) for w in first]
        test_words = re.search(r"\btests?\b|\btest suite\b", text, re.I)
        # the program, or its subcommand when the program goes without saying ("commit every turn": git commit)
        as_shell = text.replace("\\", "/")  # ".\build.ps1" is the script ./build.ps1 as a shell spells it
        stated = bool(words) and (_named(as_shell, words[:1]) or (len(words) > 1 and _named(as_shell, words[1:2])))
        return [] if test_words or stated else [" ".join(words)]
    return []


_INFLECTED = {"installs": "install", "installing": "install", "installed": "install"}


def _left_out(text: str, spec: CheckSpec) -> list[str]:
    """Words the rule puts after the forbidden program that the check drops (it would forbid more)."""
    from heedful.rules import vocabulary as vocab

    params = spec.params
    program = params.get("program")
    if spec.kind != "forbidden_command" or not isinstance(program, str):
        return []
    from heedful.rules.compile.actions import actions

    if any(a.phrase.search(text) and _same_action(a.params, params) for a in actions()):
        return []  # the action phrase is the whole command ("push git tags" is `git push --tags`)
    if params.get("piped_into"):
        return []  # the words after the source name the pipeline (`curl -fsSL URL | sh`), which the check states
    sub = params.get("subcommand")
    kept = {str(w).lower() for w in (sub.split() if isinstance(sub, str) else sub or [])}
    kept |= {str(w).lower() for w in params.get("args") or []}
    # "never `npm install` / `npm ci`": each mention of the program is its own command; the check must state one
    # of them whole
    first: list[str] = []
    for mention in vocab.read_commands(text):
        if mention.program != program or mention.role == "prefer":
            continue
        unread = [w for w in mention.unread if w not in vocab.FILLER and w not in vocab.CONCEPT_WORDS]
        # "installs" is the subcommand `install` as typed; "pnpm installs" with `add` kept is the same install
        named = [_INFLECTED.get(w.lower(), w.lower()) for w in [*mention.subcommand, *mention.args]]
        dropped = unread or [w for w in named if w not in kept and not (w == "install" and "add" in kept)]
        if not dropped and mention.role == "forbid":
            return []
        first = first or dropped
    return first


def runnable(text: str, spec: CheckSpec) -> list[str]:
    """Required commands whose program no shell would find: a word of prose read as a command ("run make
    test-full (e2e, cluster required)" is not a program `cluster`); a check requiring one could never pass."""
    if spec.kind != "required_event":
        return []
    from heedful.rules.compile.runs import plausible_program

    out = []
    for command in spec.params.get("commands") or []:
        words = command.split() if isinstance(command, str) else [str(w) for w in command]
        if words and not plausible_program(words[0], text):
            out.append(words[0])
    return out


def faithful(text: str, spec: CheckSpec) -> tuple[bool, str]:
    from heedful.rules.compile import plain_rule, strip_placeholders

    prose = runnable(text, spec)
    if prose:
        return False, f"the check requires {', '.join(prose)}, which names no command a shell would run"
    text = strip_placeholders(plain_rule(text))  # "never npx <bin>": the placeholder is not a word of the rule
    missing = _unnamed(text, spec)
    if missing:
        return False, f"the check names {', '.join(missing)}, which the rule does not say"
    dropped = _left_out(text, spec)
    if dropped:
        return False, f"the check leaves out {' '.join(dropped)}, which the rule names: it would forbid more"
    return True, "the check states the rule's requirement and nothing more"


def offline_review(payload: ReviewInput) -> tuple[bool, bool, str, list[str]]:
    """(approved, meaning_clear, reason, labels): the kind's own naive labeller, blind to labels."""
    spec = payload.spec
    ok, reason = faithful(payload.rule_text, spec)
    module = KINDS.get(spec.kind)
    labels: list[str] = []
    for stage, evidence in payload.cases:
        try:
            labels.append(module.review(spec.params, stage, evidence) if module else "unknown")
        except Exception:  # a labeller that cannot read a case abstains
            labels.append("unknown")
    return ok, True, reason, labels


def validate(
    model: Model, text: str, proposals: list[CheckSpec], condition: str | None, exceptions: list[str], vague: bool
) -> Outcome:
    if vague:
        return Outcome("inactive", None, "the rule's meaning is unclear; it is neither shown nor checked")
    if not proposals:
        why = (
            "no programmatic check states this rule with its condition or exception"
            if condition or exceptions
            else "no programmatic check states this rule"
        )
        return _semantic_or_guidance(model, text, condition, exceptions, [], why)
    from heedful.rules.compile import qualifiers_decided

    decided = [spec for spec in proposals if qualifiers_decided(text, spec, condition, exceptions)]
    if not decided:
        # A condition or exception that no evidence decides ("unless I ask", "for large files") keeps the rule
        # guidance: a check would fire where the rule does not apply.
        return _semantic_or_guidance(
            model, text, condition, exceptions, [], "the check cannot see the rule's condition or exception"
        )
    proposals = decided
    rounds: list[dict[str, Any]] = []
    clear = True
    for spec in proposals[:MAX_ROUNDS]:
        record: dict[str, Any] = {"kind": spec.kind, "params": spec.params}
        rounds.append(record)
        module = KINDS.get(spec.kind)
        if module is None:  # a model may propose a kind outside the closed set
            record["rejected"] = f"unknown check kind {spec.kind!r}"
            continue
        try:
            cases: list[Case] = module.cases(spec.params)
        except Exception as exc:  # parameters a model made up that the kind cannot use
            record["rejected"] = f"unusable parameters: {exc}"
            continue
        record["cases"] = len(cases)
        problems = structural_problems(spec, cases)
        if problems:
            record["rejected"] = "; ".join(problems)
            continue
        review = run_step(
            model, ReviewStep(), ReviewInput(rule_text=text, spec=spec, cases=[(c.stage, c.evidence) for c in cases])
        )
        clear = clear and review.meaning_clear
        if not review.approved:
            record["rejected"] = f"review: {review.reason}"
            continue
        disagreements = [
            i for i, (c, label) in enumerate(zip(cases, review.labels, strict=False)) if c.expected != label
        ]
        if len(review.labels) != len(cases) or disagreements:
            record["rejected"] = f"review labels disagree on cases {disagreements or 'count'}"
            continue
        results = [evaluate(spec.kind, spec.params, c.stage, c.evidence).result for c in cases]
        failed = [i for i, (c, r) in enumerate(zip(cases, results, strict=True)) if c.expected != r]
        if failed:
            record["rejected"] = f"execution disagrees on cases {failed}"
            continue
        record["admitted"] = True
        checked = spec.model_copy(
            update={
                "cases": cases,
                "validation": {"admitted": True, "rounds": len(rounds), "cases": len(cases), "review": review.reason},
            }
        )
        return Outcome("checked", checked, f"validated on {len(cases)} cases", rounds)
    if not clear:
        return Outcome("inactive", None, "the reviewer found the meaning unclear", rounds)
    return _semantic_or_guidance(
        model, text, condition, exceptions, rounds, f"no proposal passed validation in {len(rounds)} round(s)"
    )


def _semantic_or_guidance(
    model: Model, text: str, condition: str | None, exceptions: list[str], rounds: list[dict[str, Any]], why: str
) -> Outcome:
    """With a model, try a semantic check (validated the same way); offline the rule stays guidance."""
    if model.offline:
        return Outcome("guidance", None, f"{why}; a semantic check needs a model", rounds)
    from heedful.rules.semantic import compile_semantic

    spec, semantic_rounds = compile_semantic(model, text, condition, exceptions)
    rounds = rounds + semantic_rounds
    if spec is None:
        return Outcome("guidance", None, f"{why}; no semantic check passed validation", rounds)
    return Outcome("checked", spec, f"semantic check validated on {len(spec.cases)} cases", rounds)
