"""How far a forbidden command reaches: the words after it that narrow it to one use.

"Use gh instead of curl against the GitHub API" forbids curl only against that API, and "never use grep
on JSON output" only grep on JSON: a check on the whole program would block every other use, which the
rule allows. The phrase after the command (`against ...`, `on ...`, `for ...`, `into ...`) is read as a
condition of the rule: a check is kept only when the command's own firing decides it ("use rg instead of
grep for searching code", "never use pip to install packages"), the branch of a push, or the whole tree.

    narrowed(text, mention, spec)  # -> the narrowing phrase no evidence decides, or None
"""

from __future__ import annotations

from heedful.rules import vocabulary as vocab
from heedful.rules.compile.qualifiers import condition_decided
from heedful.rules.lazy_regex import lazy
from heedful.rules.models import CheckSpec

# Words that open a phrase narrowing the command to some use or target. "To ..." and "in ..." mostly say why or
# where in general ("never run open to launch a browser", "not in feature work"): they narrow nothing a check sees.
_NARROWING = frozenset("against on for into inside at within over across onto".split())
_CLAUSE_END = frozenset({".", ";", "!", "?", ",", ":", "—", "(", ")", "|"})
# Words after a command that say nothing about where or how it is used ("never run X commands directly").
_COMMAND_NOUNS = frozenset("command commands directly straight itself anything everything stuff things".split())
# "In", "to" and "from" narrow when a path follows ("git commit anything in build/", "cat secrets from .env").
_PLACES = frozenset("in to from into under inside within".split())
_PATHLIKE = lazy(r"/|^\.\w|\w\.\w{1,5}$|\*")
# "In" narrows when a mode or a folder follows: "jest in watch mode", "npm run build in the root".
_IN_PLACE = frozenset(
    "mode root folder folders directory directories dir subdirectory subfolder package packages top-level toplevel "
    "monorepo subproject".split()
)
# A relative clause after the command's object says which of them: "commits that were already pushed".
_RELATIVE = frozenset("that which whose who where".split())
# Words that end the narrowing phrase: what follows is another clause ("..., use jq instead").
_PHRASE_END = frozenset("instead use prefer and but or then unless except".split())
# Scope and emphasis that narrow nothing: "in this repo", "on any machine", "for any reason".
_SCOPE = frozenset(
    "this these the a an any my your our repo repository project projects codebase here anymore again ever please "
    "reason circumstances case machine machines workspace now all everything anything path".split()
)


def _command_words(spec: CheckSpec) -> set[str]:
    params = spec.params
    words = {str(params.get("program") or "").lower()}
    for key in ("subcommand", "args"):
        words |= {str(w).lower() for w in params.get(key) or []}
    words |= {str(f).lower() for group in params.get("flags") or [] for f in group}
    return words


def narrowed(text: str, start: int, end: int, spec: CheckSpec) -> str | None:
    """The phrase after the mention at words[start:end] that limits the command to a use its check cannot tell
    apart, or None when nothing narrows it (or the check decides the phrase)."""
    words = vocab.plain_words(text)
    own = _command_words(spec)
    j = end
    while j < len(words) and (
        words[j] in own
        or words[j].startswith("-")
        or words[j] in vocab.FILLER
        or words[j] in vocab.CONCEPT_WORDS
        or words[j] in _COMMAND_NOUNS
    ):
        j += 1
    path = words[j + 1] if j + 1 < len(words) else ""
    named = path.strip("`")
    if (
        j < len(words)
        and words[j] in _PLACES
        and _PATHLIKE.search(path)
        and named not in own
        and not set(named.split("/")) <= own
    ):
        return " ".join(words[j : j + 2])  # "never commit anything in build/": a path no command line check sees
    if j < len(words) and words[j] in ("in", "inside", "within") and _IN_PLACE & set(words[j + 1 : j + 4]):
        return " ".join(words[j : j + 4])  # "in watch mode", "in the root": a mode or a folder no check sees
    if j + 1 < len(words) and words[j + 1] in _RELATIVE and words[j].isalpha():
        j += 1  # "force push branches that others use": the object, then which of them
    if j < len(words) and words[j] in _RELATIVE:  # "amend commits that were already pushed": which ones
        clause = [w for w in words[j + 1 :] if w not in _CLAUSE_END]
        joined = " ".join(words[j:])
        content = [w for w in clause if w not in _SCOPE and w not in own]
        alone = spec.model_copy(update={"params": {k: v for k, v in spec.params.items() if k != "alternatives"}})
        return None if not content or condition_decided(" ".join(content), alone) else joined
    if j >= len(words) or words[j] not in _NARROWING:
        return None
    phrase: list[str] = []
    for word in words[j:]:
        if word in _CLAUSE_END or (phrase and word in _PHRASE_END):
            break
        phrase.append(word)
    # "onto main/master": branches named together are the check's arguments one by one
    content = [w for w in phrase[1:] if w not in _SCOPE and w not in own and not set(w.split("/")) <= own]
    if not content:
        return None  # "never push to main" (the branch is the check's argument), "not in this repo"
    if words[j] == "on" and content[:1] in (["whole"], ["entire"], ["full"], ["complete"]):
        return None  # "prettier --write on the whole repo": the tree is the check's argument
    joined = " ".join(phrase)
    # the forbidden program's own activities decide it, not its alternative's (jq decides "JSON output", grep not)
    alone = spec.model_copy(update={"params": {k: v for k, v in spec.params.items() if k != "alternatives"}})
    return None if condition_decided(joined, alone) else joined
