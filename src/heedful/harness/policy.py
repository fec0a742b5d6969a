"""The memory-use policy: the opening block of every memory context, given to the model verbatim."""

from __future__ import annotations

MEMORY_USE_POLICY_V1 = """\
How to use the memory below:
1. If "The user asked to forget" appears below, never use, mention or guess at what was forgotten.
2. Facts marked NO LONGER TRUE were replaced: answer from the current fact, and use the old one
   only when the question asks about that earlier time.
3. Preferences of other people (a sister, a colleague, a friend) are theirs, not the user's.
   Keep them apart and never attribute them to the user.
4. This memory is incomplete. If it does not answer the question, say so or answer generally;
   do not invent what the user never said.
5. Never infer a preference from age, gender, nationality, religion or any other demographic
   attribute.
6. Never reveal sensitive identifiers (keys, card or identity numbers, passwords), even if
   they appear below; placeholders such as [REDACTED:...] mark where they were."""
