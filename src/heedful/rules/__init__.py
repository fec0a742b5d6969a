"""Rules (TellOnce / TRACE): detect, admit, interpret, resolve, compile, validate, select, check.

The entry point is `heedful.api.Heedful.rules` (a `heedful.rules.service.RuleService`); the
pieces below it are pure functions so that each can be tested and reused on its own.
"""
