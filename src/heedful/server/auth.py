"""Who is calling: the bearer key, the user it acts for, and its share of the rate limit.

A key acts for its own user. An admin key acts for the user named in `X-Heedful-User` (its own
when absent). Every refusal says the same for an unknown user and for someone else's, so the
answers never tell whether another user exists.
"""

from __future__ import annotations

import math
import time
from typing import Annotated

from fastapi import Depends, Header, HTTPException, Request

from heedful.errors import InputError
from heedful.ids import validate_user_id
from heedful.server.keys import verify_key
from heedful.server.state import Caller, ServerState
from heedful.store.records import ApiKeyRecord

USER_HEADER = "X-Heedful-User"
UNAUTHORIZED = "missing, unknown or revoked API key: send 'Authorization: Bearer <key>' (`heedful keys create`)"


def state_of(request: Request) -> ServerState:
    return request.app.state.heedful  # type: ignore[no-any-return]


def unauthorized() -> HTTPException:
    return HTTPException(401, UNAUTHORIZED, headers={"WWW-Authenticate": 'Bearer realm="heedful"'})


def spend(state: ServerState, key: ApiKeyRecord) -> None:
    """One request of `key`'s budget, or 429 with the seconds to wait."""
    wait = state.limiter.take(key.id, time.monotonic())
    if wait > 0:
        raise HTTPException(
            429,
            f"rate limit: at most {state.limiter.rate:g} requests per second per key; retry later",
            headers={"Retry-After": str(max(1, math.ceil(wait)))},
        )


def acting_user(key: ApiKeyRecord, named: str | None) -> str:
    if named is None or named == key.user_id:
        return key.user_id
    if not key.admin:
        raise HTTPException(403, f"this key acts only for its own user; only an admin key may send {USER_HEADER}")
    try:
        return validate_user_id(named)
    except InputError as exc:
        raise HTTPException(422, f"{USER_HEADER}: {exc}") from exc


def bearer_key(state: ServerState, authorization: str | None) -> ApiKeyRecord:
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise unauthorized()
    with state.lock:
        key = verify_key(state.keys, token.strip())
    if key is None:
        raise unauthorized()
    return key


def caller(
    request: Request,
    authorization: Annotated[str | None, Header(description="Bearer <API key>")] = None,
    x_heedful_user: Annotated[
        str | None, Header(alias=USER_HEADER, description="The user an admin key acts for.")
    ] = None,
) -> Caller:
    state = state_of(request)
    key = bearer_key(state, authorization)
    spend(state, key)
    return Caller(key=key, user=acting_user(key, x_heedful_user))


CallerDep = Annotated[Caller, Depends(caller)]
StateDep = Annotated[ServerState, Depends(state_of)]
