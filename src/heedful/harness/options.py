"""Per-option recall for multiple-choice questions: query with the words that set an option apart.

Options usually share a template, so recall on the full option text returns nearly the same
items for each; the distinguishing words find the evidence for that option. Pure functions.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[\w'’-]+", re.UNICODE)
_STOP = frozenset(
    """a an the and or but of to in on at for with by from is are was were be been being it its this that
    these those i you he she we they me him her us them my your his our their as so if then than too very
    can could would should will shall may might must do does did have has had not no yes""".split()
)


def content_words(text: str) -> list[str]:
    return [w for w in (m.lower() for m in _WORD.findall(text)) if w not in _STOP]


def distinguishing_words(options: list[str]) -> list[list[str]]:
    """For each option, its content words that not every other option shares."""
    word_sets = [set(content_words(option)) for option in options]
    result = []
    for index, option in enumerate(options):
        others = [s for j, s in enumerate(word_sets) if j != index]
        common = set.intersection(*others) if others else set()
        words = [w for w in dict.fromkeys(content_words(option)) if w not in common]
        result.append(words or content_words(option))
    return result


def option_queries(question: str, options: list[str]) -> list[str]:
    """One recall query per option: the question's content words plus the option's own words."""
    stem = " ".join(content_words(question))
    return [f"{' '.join(words)} {stem}".strip() for words in distinguishing_words(options)]
