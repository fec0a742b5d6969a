"""heedful: tell an agent once.

Rules learned from a user's corrections are enforced in later sessions, and each user's
memory is an append-only, bitemporal record that supersedes and forgets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__version__ = "0.1.0"

if TYPE_CHECKING:
    from heedful.api import Heedful

__all__ = ["Heedful", "__version__"]


def __getattr__(name: str) -> object:
    # Lazy so that `import heedful` stays cheap on the hook start-up path.
    if name == "Heedful":
        from heedful.api import Heedful

        return Heedful
    raise AttributeError(name)
