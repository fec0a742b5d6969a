"""Compilation: read a rule's directive as one of the closed check kinds, or decline.

`propose(text)` returns candidate check specs, most faithful first (the offline compiler). It
only proposes a programmatic check when the directive's wording fully states what the check
tests; anything else stays guidance. Conditions and exceptions are never dropped to make a rule
checkable: a rule with either is guidance (the caller decides that before proposing).
"""

from __future__ import annotations

import re
from typing import Any

from heedful.rules.checks import stage_of
from heedful.rules.models import CheckSpec
from heedful.rules.shell import simple_commands

KNOWN_PROGRAMS = frozenset(
    "pip pip3 uv poetry pipenv conda npm npx yarn pnpm bun deno node git docker podman kubectl helm terraform "
    "make cmake cargo go rustc pytest tox nox black ruff flake8 pylint mypy isort autopep8 yapf eslint prettier tsc "
    "jest vitest mocha grep rg ag ack find fd sed awk curl wget sudo rm chmod chown brew apt apt-get yum dnf "
    "gradle mvn ant bundle gem rake rails composer php java javac python python3 virtualenv venv ssh scp rsync "
    "gh hub heroku vercel netlify aws gcloud az cat less vim nano emacs code tmux screen nohup kill pkill killall "
    "bazel buck pants lerna nx turbo webpack vite rollup esbuild parcel swc babel".split()
)
_TEST_COMMANDS = [
    ["pytest"], ["python", "-m", "pytest"], ["tox"], ["nox"], ["npm", "test"], ["npm", "run", "test"], ["yarn", "test"],
    ["pnpm", "test"], ["bun", "test"], ["go", "test"], ["cargo", "test"], ["make", "test"], ["make", "check"],
    ["jest"], ["vitest"], ["mocha"], ["unittest"], ["gradle", "test"], ["mvn", "test"], ["rspec"], ["rake", "test"],
    ["uv", "run", "pytest"], ["poetry", "run", "pytest"], ["ctest"], ["dotnet", "test"], ["phpunit"],
]
_FLAG_ALIASES: dict[tuple[str, str], list[str]] = {
    ("git", "--force"): ["--force", "-f", "--force-with-lease"], ("git", "-f"): ["--force", "-f", "--force-with-lease"],
    ("git", "--no-verify"): ["--no-verify", "-n"], ("rm", "-r"): ["-r", "-R", "--recursive"],
    ("rm", "-f"): ["-f", "--force"], ("git", "--hard"): ["--hard"], ("npm", "--force"): ["--force", "-f"],
    ("pip", "--user"): ["--user"], ("pip", "--break-system-packages"): ["--break-system-packages"],
}
_REPLY = r"(?:replies|reply|answers?|responses?|messages to me|final messages?|explanations?|summaries|summary|output)"
_WORD_LIMIT = re.compile(
    rf"\b{_REPLY}\b.{{0,40}}?\b(?P<op>under|below|fewer than|less than|at most|no more than|max(?:imum)?(?: of)?|"
    r"within|not exceed(?:ing)?|limit(?:ed)? to|up to|no longer than)\s+(?P<n>\d{1,5})\s+words?\b",
    re.IGNORECASE,
)
_JSON_REPLY = re.compile(rf"\b(?:{_REPLY}|respond|reply|answer|output)\b.{{0,30}}\bjson\b", re.IGNORECASE)
_FIELDS = re.compile(
    r"\b(?:fields?|keys?|properties)\s*:?\s+(?P<list>.+?)(?:$|\.(?:\s|$))|\b(?:with|including|include|includes|"
    r"containing|contain|has|have)\s+(?:an? |the )?(?P<list2>`[^`]+`(?:(?:,\s*|,?\s+and\s+)`[^`]+`)*)",
    re.IGNORECASE,
)
_FIELD_VALUE = re.compile(
    r"`(?P<field>[\w.-]+)`\s+(?:field\s+)?(?:must|should|has to|needs to)\s+(?:always\s+)?(?P<neg>not\s+|never\s+)?"
    r"(?:be|equal|equals|be set to)\s+`?(?P<value>[^`\s]+)`?"
    r"|never set\s+`(?P<field2>[\w.-]+)`\s+to\s+`?(?P<value2>[^`\s]+)`?",
    re.IGNORECASE,
)
_EVENT = re.compile(
    r"\b(?:run|execute|rerun|re-run)\s+(?P<what>the (?:full )?(?:unit )?tests?(?: suite)?|tests?|the test suite|"
    r"`[^`]+`|\w[\w-]*(?: \w[\w-]*)?)\s+(?P<when>before|after)\s+(?P<rest>.+)$",
    re.IGNORECASE,
)
_DELIVERY_WORDS = re.compile(
    r"\b(?:say|saying|tell|telling|report|reporting|claim|claiming|declare|finish|finishing|deliver|hand(?:ing)? "
    r"(?:it )?(?:back|over)|reply|replying|respond|responding|done|complete|wrap(?:ping)? up|call(?:ing)? it done|"
    r"mark(?:ing)? (?:it|the task) (?:as )?(?:done|complete))\b",
    re.IGNORECASE,
)
_LEFTOVER = re.compile(
    r"\b(?:clean up|cleanup|delete|remove|get rid of|(?:don'?t|do not|never) leave)\b.{0,40}?"
    r"(?P<what>temp(?:orary)? files|tmp files|scratch files|backup files|debug (?:scripts|files)|`[^`]+`|\*\.\w+)",
    re.IGNORECASE,
)
_LEFTOVER_GLOBS = {
    "temp files": ["*.tmp", "*.temp"], "temporary files": ["*.tmp", "*.temp"], "tmp files": ["*.tmp"],
    "scratch files": ["scratch*"], "backup files": ["*.bak", "*.orig", "*~"], "debug scripts": ["debug_*", "*_debug.*"],
    "debug files": ["debug_*", "*_debug.*"],
}
_PATH_VERB = (
    r"(?:never|don'?t|do not|stop|avoid)\s+(?:ever\s+)?(?:edit(?:ing)?|modify(?:ing)?|touch(?:ing)?|chang(?:e|ing)|"
    r"writ(?:e|ing)(?:\s+(?:to|in|into))?|overwrit(?:e|ing)|creat(?:e|ing) files in|put(?:ting)? files in|"
    r"delet(?:e|ing))\s+(?:anything\s+(?:in|under)\s+|(?:any\s+)?files?\s+(?:in|under|inside)\s+)?(?:the\s+)?"
)
_PATH_OBJECT = re.compile(_PATH_VERB + r"(?P<what>`[^`]+`|[\w./*-]*[/*.][\w./*-]*)(?:\s+(?:folder|directory|dir))?",
                          re.IGNORECASE)
_PATH_DIR_WORD = re.compile(_PATH_VERB + r"(?P<what>[\w.-]+)\s+(?:folder|directory|dir)\b", re.IGNORECASE)
_OUTSIDE = re.compile(
    r"\b(?:never|don'?t|do not)\b.{0,40}\b(?:write|edit|modify|touch|create|change)\w*\b.{0,30}\boutside\s+"
    r"(?:of\s+)?(?:the|this|our)\s+(?:repo|repository|project|workspace|working directory|codebase)\b",
    re.IGNORECASE,
)
_PUSH_BRANCH = re.compile(
    r"\b(?:never|don'?t|do not|stop)\b\s+(?:ever\s+)?(?:git\s+)?push(?:ing)?\s+(?:\w+\s+)?(?:directly\s+|straight\s+)?"
    r"(?:to|into|on)\s+(?:the\s+)?`?(?P<branch>[\w./-]+)`?(?:\s+branch)?",
    re.IGNORECASE,
)
_FORCE_PUSH = re.compile(r"\b(?:never|don'?t|do not|stop)\b\s+(?:ever\s+)?force[- ]?push", re.IGNORECASE)
_NOT_TOOL = re.compile(
    r"\buse\s+`?(?P<good>[\w.-]+)`?(?:\s+\w+)?,?\s+(?:not|instead of|rather than|over)\s+`?(?P<bad>[\w.-]+)`?"
    r"|\b(?:don'?t|do not|never|stop|avoid)\s+(?:ever\s+)?(?:use|using|run|running|call|calling|invoke)\s+"
    r"`?(?P<bad2>[\w.-]+)`?(?:[,;]\s*|\s+)(?:(?:and\s+)?use|instead,?\s+use|go with|prefer)\s+`?(?P<good2>[\w.-]+)`?"
    r"|\b(?:we\s+)?(?:switched|moved|migrated)\s+(?:from\s+`?(?P<bad3>[\w.-]+)`?\s+)?to\s+`?(?P<good3>[\w.-]+)`?"
    r"(?:,?\s+not\s+`?(?P<bad4>[\w.-]+)`?)?"
    r"|\b(?P<good5>[\w.-]+)`?,?\s+not\s+`?(?P<bad5>[\w.-]+)`?",
    re.IGNORECASE,
)
_BARE_TOOL = re.compile(
    r"\b(?:never|don'?t|do not|stop|avoid)\s+(?:ever\s+)?(?:use|using|run|running|call|calling|invoke|invoking)\s+"
    r"(?P<cmd>`[^`]+`|[\w.-]+(?:\s+[^\s,.;:!?`]+)*)",
    re.IGNORECASE,
)
# Words that end a command named in prose ("never run git push --force on main"): what follows
# them describes when or where, not the command itself.
COMMAND_STOP_WORDS = frozenset(
    "in on at to for with without when unless because and or but here there this that the a an anymore ever "
    "again please instead directly anywhere while if so since before after from into we you i it".split()
)


def command_words(phrase: str, keep_adverbs: bool = False) -> list[str]:
    """The leading words of a command named in prose, up to the first word that is not part of it.

    An adverb ("globally", "locally") ends the command too, unless `keep_adverbs`: validation keeps
    it to notice that the rule says more than any command check can state.
    """
    words: list[str] = []
    for word in phrase.split():
        lowered = word.lower()
        if lowered in COMMAND_STOP_WORDS or (not keep_adverbs and lowered.endswith("ly") and word[0] != "-"):
            break
        words.append(word)
    return words
_FLAG_USE = re.compile(r"\b(?:never|don'?t|do not|stop|avoid)\b.{0,40}?(?P<flag>--[\w-]+)", re.IGNORECASE)


def _program(word: str) -> str | None:
    name = word.strip("`").lower()
    if name in ("pip3",):
        name = "pip"
    return name if name in KNOWN_PROGRAMS else None


def _spec(kind: str, params: dict[str, Any]) -> CheckSpec:
    from heedful.rules.checks import KINDS

    module = KINDS[kind]
    evidence = module.evidence_for(params) if hasattr(module, "evidence_for") else list(module.EVIDENCE)
    return CheckSpec(kind=kind, stage=stage_of(kind, params), params=params, evidence=evidence)


def _flags_for(program: str | None, flag: str) -> list[str]:
    return _FLAG_ALIASES.get((program or "", flag), [flag])


def _command_from_text(cmd: str) -> dict[str, Any] | None:
    if cmd.strip("`").strip().lower() in ("sudo", "doas"):
        return {"program": "sudo"}
    parsed = simple_commands(cmd.strip("`"))
    if len(parsed) != 1:
        return None
    command = parsed[0]
    if command.program == "sudo" or (command.sudo and not command.args):
        return {"program": "sudo"}
    if _program(command.program) is None and not cmd.startswith("`"):
        return None
    subcommand: list[str] = []
    flags: list[list[str]] = []
    for arg in command.args:
        if arg.startswith("--"):
            flags.append(_flags_for(command.program, arg.split("=", 1)[0]))
        elif re.fullmatch(r"-[A-Za-z]+", arg):
            flags.extend(_flags_for(command.program, f"-{letter}") for letter in arg[1:])
        elif not flags:
            subcommand.append(arg)
        else:
            return None
    return {"program": command.program, "subcommand": subcommand, "flags": flags}


def _command_proposals(text: str) -> list[dict[str, Any]]:
    proposals: list[dict[str, Any]] = []
    push = _PUSH_BRANCH.search(text)
    if push and push.group("branch").lower() not in ("it", "the", "remote", "origin", "github", "prod"):
        proposals.append({"program": "git", "subcommand": ["push"], "args": [push.group("branch")],
                          "implicit_target": True})
    if _FORCE_PUSH.search(text):
        proposals.append({"program": "git", "subcommand": ["push"], "flags": [_flags_for("git", "--force")]})
    for match in _NOT_TOOL.finditer(text):
        good = next((match.group(g) for g in ("good", "good2", "good3", "good5") if match.group(g)), None)
        bad = next((match.group(b) for b in ("bad", "bad2", "bad3", "bad4", "bad5") if match.group(b)), None)
        if bad and _program(bad) and (good is None or _program(good)):
            params: dict[str, Any] = {"program": _program(bad)}
            if good:
                params["alternatives"] = [good.strip("`").lower()]
            proposals.append(params)
    for match in _BARE_TOOL.finditer(text):
        phrase = match.group("cmd")
        parsed = _command_from_text(phrase if phrase.startswith("`") else " ".join(command_words(phrase)))
        if parsed is not None and parsed not in proposals:
            proposals.append(parsed)
    flag = _FLAG_USE.search(text)
    if flag and not any(p.get("flags") for p in proposals):
        program_match = re.search(r"\bgit (?:commit|push)\b|\bcommit\b", text, re.IGNORECASE)
        proposals.append({"program": "git" if program_match else None, "flags": [[flag.group("flag")]]})
    return proposals


def _path_proposals(text: str) -> list[dict[str, Any]]:
    if _OUTSIDE.search(text):
        return [{"globs": [], "outside_project": True}]
    directory = _PATH_DIR_WORD.search(text)
    match = directory or _PATH_OBJECT.search(text)
    if not match:
        return []
    what = match.group("what").strip("`")
    if directory or re.match(r"\s*(?:folder|directory|dir)\b", text[match.end("what") :], re.IGNORECASE):
        what = what.rstrip("/") + "/"
    if what.startswith("/") or len(what.strip("/")) < 2:
        return []
    return [{"globs": [what], "outside_project": False}]


def propose(text: str) -> list[CheckSpec]:
    """Programmatic check specs this directive fully states; empty when it states none."""
    text = text.strip().rstrip(".!?;:, ")
    proposals: list[CheckSpec] = []
    limit = _WORD_LIMIT.search(text)
    if limit:
        n = int(limit.group("n"))
        strict = limit.group("op").lower() in ("under", "below", "fewer than", "less than")
        if n - strict > 0:
            proposals.append(_spec("reply_word_limit", {"limit": n - 1 if strict else n}))
    if _JSON_REPLY.search(text):
        fields_match = _FIELDS.search(text)
        if fields_match:
            raw = fields_match.group("list") or fields_match.group("list2") or ""
            fields = re.findall(r"`([^`]+)`", raw) or [
                f.strip(" .'\"") for f in re.split(r",\s*|\s+and\s+", raw) if re.fullmatch(r"[\w-]+", f.strip(" .'\""))
            ]
            if fields:
                proposals.append(_spec("reply_json_fields", {"fields": fields}))
    value = _FIELD_VALUE.search(text)
    if value and re.search(r"\bjson\b|\breply\b|\bresponse\b|\boutput\b|\bpayload\b", text, re.IGNORECASE):
        field = value.group("field") or value.group("field2")
        literal = value.group("value") or value.group("value2")
        negated = bool(value.group("neg")) or bool(value.group("field2"))
        parsed: Any = literal.strip("'\"")
        if parsed in ("true", "false"):
            parsed = parsed == "true"
        elif re.fullmatch(r"-?\d+", parsed):
            parsed = int(parsed)
        target = "artifact" if re.search(r"\bfile\b|\bartifact\b|\.json\b", text, re.IGNORECASE) else "delivery"
        proposals.append(_spec("field_value", {"target": target, "path": field.split("."),
                                               "op": "not_equals" if negated else "equals", "value": parsed}))
    event = _EVENT.search(text)
    if event and event.group("when").lower() == "before" and _DELIVERY_WORDS.search(event.group("rest")):
        what = event.group("what").strip("`").lower()
        if re.fullmatch(r"(?:the )?(?:full )?(?:unit )?tests?(?: suite)?|the test suite", what):
            commands = _TEST_COMMANDS
        elif _program(what.split()[0]):
            commands = [what.split()]
        else:
            commands = []
        if commands:
            proposals.append(_spec("required_event", {"commands": commands, "after": "edit"}))
    leftover = _LEFTOVER.search(text)
    if leftover:
        what = leftover.group("what").lower()
        globs = _LEFTOVER_GLOBS.get(what) or ([what.strip("`")] if what.startswith(("`", "*")) else [])
        if globs:
            proposals.append(_spec("workspace_leftovers", {"globs": globs}))
    for params in _path_proposals(text):
        proposals.append(_spec("forbidden_path", params))
    if not any(p.kind == "forbidden_path" for p in proposals):
        for params in _command_proposals(text):
            clean = {k: v for k, v in params.items() if v not in (None, [], "")}
            if clean and not any(p.params == clean for p in proposals):
                proposals.append(_spec("forbidden_command", clean))
    return proposals
