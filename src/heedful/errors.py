"""Errors a user can act on: each carries one clear sentence."""

from __future__ import annotations


class HeedfulError(Exception):
    """Base class: the message is shown to the user as is."""


class InputError(HeedfulError):
    """Bad input from the caller; nothing was changed."""


class NotFoundError(HeedfulError):
    """A user, fact, rule or job that does not exist (for this user)."""


class StoreError(HeedfulError):
    """The store cannot serve the request (schema too new, dimension mismatch, ...)."""


class EmbedderError(HeedfulError):
    """The embedder cannot be loaded or used."""
