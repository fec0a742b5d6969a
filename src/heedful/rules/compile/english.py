"""English words that are also programs (make, cat, find, trash): when the rule means the program.

A word such as `cat` is a program after a command cue ("use cat", "run cat"); these readers add the cases without a
cue where the sentence leaves no other reading: the whole object of a short ban ("avoid cat", "apt is banned") and a
contrast with another program of the same job ("trash, never rm", "switch from cat to bat").
"""

from __future__ import annotations

from heedful.rules.compile.roles import NEVER_USED
from heedful.rules.vocabulary import AMBIGUOUS, vocabulary

# A word that names a program only as the whole object of a short ban ("avoid cat", "no apt", "doas is banned"):
# these stay English words even then ("no code", "no go", "avoid more").
_ENGLISH_FIRST = frozenset(
    "code more less just file kind go sort tree touch stat patch diff cut head tail watch screen port snap sam emerge "
    "pest make open mix".split()
)
_BAN_LEADS = frozenset({"no", "avoid", "ban", "never", "forbid", "stop"})
_BANNED_AFTER = (
    ("is", "banned"),
    ("is", "forbidden"),
    ("is", "prohibited"),
    ("is", "off-limits"),
    ("is", "not"),
    ("is", "deprecated"),
)
_COURTESY = frozenset("please pls ever again anymore thanks thx here".split())


def banned_alone(flat: list[str], i: int) -> bool:
    """Whether the word at i is all a short ban names: "avoid cat", "no apt!", "apt is banned"."""
    if flat[i] in _ENGLISH_FIRST:
        return False
    words = [w for w in flat if w not in (".", "!", ";", ",")]
    at = words.index(flat[i]) if flat[i] in words else -1
    lead = words[: max(at, 0)]
    if lead in (["no", "more"], ["never", "use"], ["don't", "use"], ["do", "not", "use"]):
        lead = lead[:1]  # "no more cat": the ban's own words
    if at >= 1 and len(lead) == 1 and lead[0] in _BAN_LEADS and all(w in _COURTESY for w in words[at + 1 :]):
        return True
    return at == 0 and (
        tuple(words[1:3]) in _BANNED_AFTER or " ".join(words[1:4]) in NEVER_USED or words[1:3] == [":", "never"]
    )


def related(one: str, other: str) -> bool:
    """Whether two programs do the same job: one family, or one is the usual tool the other replaces."""
    vocab = vocabulary()
    first, second = vocab.family_of(one), vocab.family_of(other)
    if first is not None and first is second:
        return True
    return (first is not None and first.default == other) or (second is not None and second.default == one)


def beside_sibling(flat: list[str], i: int, name: str) -> bool:
    """ "trash, never rm", "just instead of make": an English word that is a program beside another program of the
    same job, named plainly in the same rule, is that program."""
    vocab = vocabulary()
    after = flat[i + 1] if i + 1 < len(flat) else ""
    infinitive = i > 0 and flat[i - 1] == "to" and "from" not in flat[: i - 1]  # not "from rm to trash"
    if infinitive or not (after in _CONTRAST_NEXT or not after[:1].isalnum()):
        return False  # "prefer fd to locate files": a verb, with its object after it
    for j, word in enumerate(flat):
        other = vocab.phrases.get((word,)) if j != i else None
        if other is None or other == name or other in AMBIGUOUS or not related(name, other):
            continue
        between = flat[min(i, j) + 1 : max(i, j)]
        if not all(w in (",", "or", "and", "&", "/") for w in between):  # "git, helm, or kustomize": a list
            return True
    return False


_CONTRAST_NEXT = frozenset("instead rather over only not with and or for to".split())
