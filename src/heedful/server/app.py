"""The FastAPI application of `heedful serve`: the API under /v1, the web UI under /ui, OpenAPI at /docs.

    app = create_app(Path("~/.heedful"))          # one process
    uvicorn.run("heedful.server.app:app_from_env", factory=True, workers=4)   # several

Errors are one line: `{"error": "..."}` with 401/403/404/422/429 (heedful's own InputError is
422, NotFoundError 404); a request refused for bad input has changed nothing.
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from heedful import __version__
from heedful.config import Settings
from heedful.errors import InputError, NotFoundError, StoreError
from heedful.server.docs import install_docs
from heedful.server.ratelimit import RateLimiter
from heedful.server.state import DEFAULT_BURST, DEFAULT_RATE, ServerState, load_or_create_secret
from heedful.server.ui import LoginNeeded

log = logging.getLogger("heedful.server")
RATE_ENV = "HEEDFUL_SERVE_RATE"
BURST_ENV = "HEEDFUL_SERVE_BURST"


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


def validation_line(exc: RequestValidationError) -> str:
    """The first problem of a request FastAPI could not read, as one line: `body.limit: ...`."""
    errors = exc.errors()
    if not errors:
        return "the request is not valid"
    first = errors[0]
    where = ".".join(str(part) for part in first.get("loc", ()))
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{where}: {first.get('msg', 'invalid')}{more}".replace("\n", " ")


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(HTTPException)  # starlette's: FastAPI's own and the router's 404/405 alike
    async def http_error(request: Request, exc: HTTPException) -> Response:
        return _error(exc.status_code, str(exc.detail), dict(exc.headers or {}))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        return _error(422, validation_line(exc))

    @app.exception_handler(InputError)
    async def bad_input(request: Request, exc: InputError) -> Response:
        return _error(422, str(exc))

    @app.exception_handler(NotFoundError)
    async def not_found(request: Request, exc: NotFoundError) -> Response:
        return _error(404, str(exc))

    @app.exception_handler(LoginNeeded)
    async def login_needed(request: Request, exc: LoginNeeded) -> Response:
        return RedirectResponse("/ui/login", status_code=303)

    @app.exception_handler(StoreError)
    async def store_unavailable(request: Request, exc: StoreError) -> Response:
        return _error(503, str(exc))


def create_app(
    home: Path | str | None = None,
    rate: float = DEFAULT_RATE,
    burst: int = DEFAULT_BURST,
    settings: Settings | None = None,
) -> FastAPI:
    """The app for `settings` or else the heedful home `home` (default `$HEEDFUL_HOME`); opens it now so
    errors show at start."""
    from heedful.api import Heedful
    from heedful.server import api_memory, api_rules, ui

    hf = Heedful.from_settings(settings) if settings is not None else Heedful.open(home)
    state = ServerState(hf=hf, limiter=RateLimiter(rate, burst), secret=load_or_create_secret(hf.settings.home))

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        try:
            _ = hf.embedder  # load the embedder before the first request rather than during it
            yield
        finally:
            hf.close()

    app = FastAPI(
        title="heedful",
        version=__version__,
        summary="Each user's memory and learned rules, over HTTP. Send `Authorization: Bearer <key>`.",
        lifespan=lifespan,
        docs_url=None,  # served from the bundled files below, not a CDN
        redoc_url=None,
    )
    app.state.heedful = state
    _install_error_handlers(app)
    app.include_router(api_memory.router)
    app.include_router(api_rules.router)
    app.include_router(ui.router)
    app.mount("/static", StaticFiles(directory=Path(__file__).parent / "static"), name="static")
    install_docs(app)

    @app.get("/", include_in_schema=False)
    def root() -> RedirectResponse:
        return RedirectResponse("/ui/", status_code=303)

    @app.get("/healthz", tags=["service"], summary="Liveness: no key needed, says nothing about users.")
    def healthz() -> dict[str, Any]:
        return {"ok": True, "version": __version__}

    return app


def app_from_env() -> FastAPI:
    """The factory `heedful serve --workers N` gives uvicorn: each worker process builds its own app."""
    return create_app(
        os.environ.get("HEEDFUL_HOME"),
        rate=float(os.environ.get(RATE_ENV, DEFAULT_RATE)),
        burst=int(os.environ.get(BURST_ENV, DEFAULT_BURST)),
    )
