"""`heedful serve`: the HTTP API (FastAPI), its API keys and rate limit, and the web UI.

Only `app` imports FastAPI; `keys`, `ratelimit` and `shapes` are plain Python, so the CLI can use
them without the `serve` extra.
"""
