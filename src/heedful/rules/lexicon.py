"""Word lists and patterns the offline learner reads user messages with.

Kept apart from the logic so that they can be reviewed (and extended) on their own.
"""

from __future__ import annotations

import re

from heedful.rules.lazy_regex import lazy


def rx(*parts: str) -> re.Pattern[str]:
    return lazy("|".join(f"(?:{p})" for p in parts), re.IGNORECASE)


ALWAYS_NEVER = (
    r"(?:^|[,.;:!(-]\s*|\b(?:please|you|should|must|and|but|so|to|we|i|just|then|also|"
    r"pls)\s+)(?:always|never)\b(?!\s+(?:behind|above|below|on|in|at|visible|hidden|true|false|null|empty|zero))"
    r"|\b(?:always|never) (?:use|run|add|write|commit|push|put|include|ask|leave|create|make|call|import|install|"
    r"edit|touch|modify|format|start|end|reply|respond|answer|explain|keep|mention|check|test|pin|prefix|wrap|"
    r"sort|do|be|give|show|open|merge|rebase|force|delete|remove|skip|bump|update|document|type|name|split)\b"
)

# A lasting change: the user says the behaviour should outlive the current task.
LASTING = rx(
    r"\bfrom now on\b",
    r"\bgoing forward\b",
    r"\bfrom here on\b",
    r"\bhenceforth\b",
    r"\bin (?:the )?future\b",
    r"\bfor (?:all )?future\b",
    ALWAYS_NEVER,
    r"\bevery ?time\b",
    r"\beach time\b",
    r"\bwhenever\b",
    r"\bany ?time you\b",
    r"\bby default\b",
    r"\bas a rule\b",
    r"\bin general\b",
    r"\bremember (?:to|that|:)",
    r"\bkeep in mind\b",
    r"\bdon'?t ever\b",
    r"\bdo not ever\b",
    r"\bever again\b",
    r"\bno more\b",
    r"\bnot (?:just|only) (?:for )?this (?:time|task|once)\b",
    r"\bthe rule is\b",
    r"\bstop (?:\w+ )?\w+ing\b",
    r"\bquit (?:\w+ing)\b",
    r"\bwe (?:don'?t|do not|never|always) \w+",
    r"^when (?:the |a |an |i |someone )?\w+ (?:calls|asks|runs|opens|sends|requests|pings|"
    r"triggers)\b",
    r"\bplease stop\b",
    r"\b(?:i|we) (?:always|never)\b",
    r"\bmake (?:it|this) a habit\b",
    r"\bfor every\b",
    r"\bin all (?:your|future)\b",
    r"\ball (?:your|future) "
    r"(?:replies|responses|answers|commits|prs|messages|code)\b",
    r"\bnext time\b",
    r"\bfor good\b",
    r"\bpermanently\b",
    r"\bstanding (?:rule|instruction)\b",
    r"\bhouse style\b",
    r"\bour (?:convention|standard)\b",
    r"\bthe convention (?:here )?is\b",
    r"\bkeep (?:doing|using)\b",
    r"\bhabit\b",
    r"\bwe (?:use|prefer|switched|moved"
    r"|migrated|don'?t use|do not use|'ve switched|have switched|only use)\b",
    r"\bi (?:prefer|hate|dislike|"
    r"like it when"
    r"|don'?t like it when|want you to always|want you to never|never want)\b",
    r"^(?:in|for) this (?:repo|repository|project|codebase|code base|monorepo)\b",
    r",? (?:in|for) this (?:repo|repository|project|codebase|code base)[.!]*$",
    r"\bin (?:our|this) team\b",
    r"\b(?:don'?t|do not|never|stop)\b.*\bagain\b",
    r"\beverywhere\b",
    r"\byou keep (?:on )?\w+ing\b[^.;?!]*[.;?!,]\s*(?:please )?(?:use|don'?t|do not|stop|always|never|prefer)\b",
    r"\b(?:this|our) (?:repo|repository|project|codebase|team) (?:uses|follows|prefers)\b",
    r"^(?:when|if|whenever) (?:you(?:'re| are)? )?(?:writing|adding|editing|committing|creating|working|touching|"
    r"changing|refactoring|reviewing|testing|debugging|deploying|installing|naming|documenting|coding|pushing|"
    r"merging|releasing|fixing|updating|generating|using)\b[^,]{0,60},",
)

# Bound to the current task: a request, a temporary exception, a one-off constraint.
TASK_LOCAL = rx(
    r"\bthis time\b",
    r"\bfor this (?:task|one|change|fix|bug|ticket|pr|pull request|commit|refactor|feature|run|"
    r"session|branch|migration|release|issue|script|file|function|test|module|component|answer|reply|question)\b",
    r"\bjust for now\b",
    r"\bfor now\b",
    r"\bright now\b",
    r"\bthis once\b",
    r"\bjust once\b",
    r"(?<!\btime )(?<!\btimes )\btoday\b",  # "the third time today" counts a recurrence, it bounds nothing
    r"\bfor the moment\b",
    r"\btemporarily\b",
    r"\bfor the time being\b",
    r"\bin this (?:pr|pull request|commit|"
    r"session|task|branch|change|ticket)\b",
    r"\bthis particular\b",
    r"\buntil (?:this|it|the pr) is merged\b",
    r"\bfor the rest of this (?:task|session|conversation)\b",
    r"\bonly (?:for|in) this (?:task|one|change|pr|file)\b",
    r"\bjust here\b",
    r"\bjust this\b",
    r"\bthis one time\b",
    r"\bfor this\b(?! (?:repo|repository|project|codebase))",
)
NOT_TASK_LOCAL = rx(r"\bnot (?:just|only) (?:for )?this (?:time|task|once|one)\b")

# Project scope: the rule binds to the project the message came from.
PROJECT = rx(
    r"\bin this (?:repo|repository|project|codebase|code base|monorepo|workspace|package)\b",
    r"\bfor this (?:repo|repository|project|codebase|code base)\b",
    r"\bthis (?:repo|project|codebase)'s\b",
    r"\bin (?:our|the) (?:repo|repository|project|codebase|code base|monorepo)\b",
    r"\bour (?:codebase|repo|project)\b",
    r"\bthis (?:repo|repository|project|codebase) (?:uses|follows|prefers)\b",
    r"\bhere\b(?!'s)",
    r"\bwe (?:use|prefer|don'?t use|do not use|switched|moved|migrated|'ve switched|have switched|"
    r"only use|always|never|run|keep|write|name|put|follow|deploy|target|support)\b",
    r"\bin (?:this|our) team\b",
    r"\bour (?:convention|standard|style guide|team)\b",
    r"\bthe convention here\b",
)

# Withdrawal: a verb of taking back, then what is taken back (what I said / told you, a rule, a ban).
_WITHDRAW = r"(?:forget|disregard|drop|scrap|scratch|delete|remove|undo|cancel|ignore|take back|retract|lift|rescind)"
_WITHDRAWN = (
    r"(?:what i (?:said|told you|asked)"
    r"|my (?:earlier |previous |old )?(?:rule|instruction|preference|note|request|ban)s?"
    r"|the (?:rule|instruction|preference|ban)s?|that (?:rule|instruction|ban))"
)
RETRACT = rx(
    rf"\b{_WITHDRAW} {_WITHDRAWN}",
    r"\byou (?:can|may) (?:use|run|do) .{1,40} again\b",
    r"\bforget about\b",
    r"\bno longer (?:need|have) to\b",
    r"\byou (?:can|may) (?:now )?stop\b",
    r"\bignore (?:my|the) (?:earlier|previous|old) (?:rule|instruction|preference)s?\b",
    r"\bdon'?t (?:need|have) to .{1,60} any ?more\b",
    r"\bthat rule (?:about .{1,60} )?(?:is|no longer)\b",
    r"\bit'?s fine to .{1,60} (?:again|now)\b",
    r"\byou can go back to\b",
)

# Vague content or activation: reusable behaviour whose meaning or trigger is unclear.
VAGUE = rx(
    r"\bbe (?:more )?careful\b",
    r"\bthe way i (?:showed|told|said|like|want|explained|did)\b",
    r"\blike (?:before|last time|i said|i showed|we discussed|i told you|the other one|we did)\b",
    r"\bas (?:usual|before|discussed|we discussed|i said|i mentioned|agreed)\b",
    r"\byou know what i mean\b",
    r"\bdo (?:it|things|this|that) (?:right|properly|correctly|better|the right way)\b",
    r"\bdo better\b",
    r"\bbe (?:smarter|better|more thoughtful|more sensible|more professional)\b",
    r"\bcommon sense\b",
    r"\bthe usual (?:way|stuff|thing)\b",
    r"\bthat (?:thing|stuff)\b",
    r"\bpay (?:more )?attention\b",
    r"\bwhen (?:the project|it|this|everything|the feature|the work|things|we|it all) (?:is|are|'s) "
    r"(?:done|finished|ready|complete|stable|over|mature)\b",
    r"\bonce (?:it'?s|it is|things are|we'?re|we are|"
    r"everything is|the project is) (?:done|ready|stable|finished|mature|in production)\b",
    r"\bwhen (?:appropriate|necessary|needed|relevant|it makes sense|it matters|you think|you feel)\b",
    r"\bif (?:needed|necessary|appropriate|it makes sense|relevant|you think)\b",
    r"\bat the right time\b",
    r"\bwhen the time (?:comes|is right)\b",
    r"\b(?:sometimes|occasionally)\b",
    r"\bfor (?:important|big|major|"
    r"serious|risky) (?:stuff|things|changes|work)\b",
    r"\bwhen things get (?:complicated|messy|hard)\b",
    r"\bhandle (?:\w+ )?(?:properly|better|right|correctly)\b",
    r"\bmore carefully\b",
    r"\b(?:don'?t|do not|never|stop) (?:do|doing) (?:that|this|it)(?: again)?[.!]*$",
    r"^(?:please )?(?:keep|do) (?:doing )?(?:that|this|it)(?: from now on| going forward)?[.!]*$",
    r"^(?:remember|note) (?:this|that)[.!]*$",
    r"\bwhat we talked about\b",
    r"\bthe thing i mentioned\b",
    r"\b(?:right|proper|correct) way\b",
)

# Words that show the message is an instruction of some kind (the detector errs toward yes).
DIRECTIVE = rx(
    r"\b(?:always|never|don'?t|do not|stop|avoid|prefer|use|using|please|be|give|show|tell|make sure|ensure|"
    r"remember|keep|must|"
    r"should|shouldn'?t|instead|no more|quit|forget|want|need|add|remove|run|write|fix|change|rename|delete|"
    r"create|update|implement|refactor|move|put|set|make|try|let'?s|can you|could you|would you|go ahead|"
    r"commit|push|install|switch|replace|include|exclude|limit|reply|respond|answer|explain|document|test|"
    r"check|verify|clean|leave|only|mention|ask|call|name|format|indent|sort|split|merge|bump|revert|drop|"
    r"search|grep|find|look|show|handle|save|open|start|stash|rebase|deploy|release|document|log|print)\b",
)
QUESTION_START = lazy(
    r"^(?:what|why|how|where|who|which|is|are|does|do|did|can|could|would|will|should|have|has|was|were)\b(?!n't)",
    re.IGNORECASE,
)
ACK = lazy(
    r"^(?:never ?mind|ok(?:ay)?|thanks?|thank you|thx|great|nice|cool|perfect|awesome|lgtm|looks good|"
    r"sounds good|got it|"
    r"yes|yep|yeah|no|nope|sure|good|works|it works|done|hmm+|hi|hello|hey)\b[\s\w,!.']{0,40}$",
    re.IGNORECASE,
)

# A correction about general behaviour (tools, style, process) rather than one artifact.
GENERIC_CORRECTION = rx(
    r"^(?:please |pls |and |also |oh and |btw,? )?(?:don'?t|do not|never|stop|avoid|quit|no) (?:\w+ing |use |"
    r"add |write |run |put |leave |commit |push |create |make |call |mention |ask |include |open |install |"
    r"import |touch |edit |modify |change )",
    r"^(?:please )?(?:use|prefer) \S+(?: \S+){0,3},? (?:not|instead of|over|rather than) \S+",
    r"\b\S+, not \S+[.!]*$",
    r"\bwhy (?:do|did|are|would) you (?:always|keep) \w+",
    r"^(?:please )?always \w+",
    r"^(?:please |actually,? |and )?keep (?:your |the |all |all your )?(?:final |future )?(?:replies|answers|"
    r"responses|messages|explanations|summaries|commit "
    r"messages|commits|prs|pull requests|functions|lines|comments|docstrings|diffs|changes)\b",
    r"^(?:please )?(?:use|prefer|write|put|name|format) (?:\w+ ){0,4}(?:for|in|on) (?:all|every|any) ",
    r"^(?:please |always )?(?:clean up|delete|remove) (?:any |all |the )?\S+ files? (?:that )?you "
    r"(?:create|make|add)\b",
    r"\byour (?:replies|answers|responses|messages|explanations|commit messages|commits|prs|summaries|comments) "
    r"are (?:way |far |much |always )?(?:too|so)\b",
)
ARTIFACT_SPECIFIC = rx(
    r"\b(?:this|that|the) (?:button|function|method|class|variable|line|file|test|header|footer|page|"
    r"component|endpoint|query|loop|bug|error|screen|modal|field|column|table|script|import|diff|change|pr|"
    r"commit|branch|output|log|message|label|title|color|colour|margin|padding|font|icon|image|link|route|"
    r"config|version|value|name|string|regex|section|paragraph|sentence|word|chart|graph|plot|api|call)\b",
    r"\bline \d+\b",
    r"\bon line\b",
)

DANGEROUS_WHEN_DONE = rx(
    r"--no-verify\b",
    r"--force\b(?!-with)",
    r"\bforce[- ]push",
    r"\bpush -f\b",
    r"\brm -rf\b",
    r"\bchmod 777\b",
    r"--insecure\b",
    r"\bverify\s*=\s*false\b",
    r"\bdisable (?:the )?(?:ssl|tls|certificate|security|hooks?|"
    r"pre-commit|tests?|ci|checks?|lint\w*|verification|sandbox)\b",
    r"\bskip (?:the )?(?:tests?|hooks?|ci|checks?|"
    r"review|pre-commit|verification|lint\w*|type ?check\w*)\b",
    r"\bcommit (?:the )?(?:secrets?|credentials|\.env|"
    r"api keys?|passwords?|tokens?)\b",
    r"\bpush (?:directly |straight )?to (?:main|master|prod\w*)\b",
    r"\bwithout (?:asking|confirmation|confirming|checking with me|review|running (?:the )?tests)\b",
    r"\bdelete (?:files|branches|data|everything) without\b",
    r"\b--dangerously\S*",
    r"\bbypass\w*\b",
    r"\bdrop (?:the )?(?:database|tables?)\b",
    r"\bgit reset --hard\b",
    r"\bsudo\b",
)
SAFEGUARD_NEGATED = rx(
    r"\b(?:never|don'?t|do not|stop|no need to|skip|quit) (?:\w+ )?(?:ask|asking|confirm|confirming|check with me|"
    r"run(?:ning)? (?:the )?tests?|review|reviewing|verify|verifying|back(?:ing)? ?up|making backups|"
    r"wait(?:ing)? for (?:my )?(?:approval|review|ok))\b",
    r"\bno need to (?:ask|confirm|check|test|run (?:the )?tests)\b",
)
NEGATION = lazy(r"\b(?:never|don'?t|do not|avoid|stop|no|not|without|quit|refrain)\b", re.IGNORECASE)
