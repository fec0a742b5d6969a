"""Shared fixtures: every test gets its own heedful home in a temporary folder, on the backend chosen
for the run (tests/pg_backend.py: `HEEDFUL_TEST_BACKEND=postgres` runs the suite on PostgreSQL)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli_runner import run_cli
from heedful.api import Heedful
from pg_backend import (
    BACKEND_VARIABLE,
    ServerUnavailable,
    SessionServer,
    create_database,
    drop_database,
    migrated_template,
    selected_backend,
    session,
    write_store_setting,
)

POSTGRES_TESTS = Path(__file__).resolve().parent / "postgres"
DATABASE_VARIABLES = ("HEEDFUL_DATABASE_URL", "HEEDFUL_STORE")
sqlite_homes: list[str] = []  # tests that made a SQLite home anyway on the PostgreSQL pass
backend = "sqlite"


def pytest_configure(config: pytest.Config) -> None:
    global backend
    config.addinivalue_line(
        "markers", "sqlite_only(reason): tests SQLite itself (its file, its migrations); skipped on the PostgreSQL pass"
    )
    try:
        backend = selected_backend()
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None


def pytest_report_header() -> str:
    return f"heedful test backend: {backend} ({BACKEND_VARIABLE})"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if backend != "postgres":
        return
    for item in items:
        marker = item.get_closest_marker("sqlite_only")
        if marker is not None:
            reason = marker.kwargs.get("reason") or (marker.args[0] if marker.args else "tests SQLite itself")
            item.add_marker(pytest.mark.skip(reason=f"SQLite only: {reason}"))
        elif POSTGRES_TESTS in Path(str(item.path)).resolve().parents:
            # These choose their backend themselves and already run on both in the default pass.
            item.add_marker(pytest.mark.skip(reason="tests/postgres runs on both backends in the default pass"))


@pytest.fixture(scope="session")
def pg_server_url() -> Iterator[str]:
    """Superuser URL of the session's PostgreSQL server. Missing on the PostgreSQL pass is an error;
    otherwise the tests that need it skip with the reason."""
    server = SessionServer()
    try:
        server.start()
    except ServerUnavailable as exc:
        if backend == "postgres":
            pytest.exit(f"{BACKEND_VARIABLE}=postgres but {exc}", returncode=1)
        pytest.skip(str(exc))
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="session")
def pg_template(pg_server_url: str) -> str:
    """The name of a database migrated to the newest schema, to copy for each test."""
    return migrated_template(pg_server_url)


@pytest.fixture
def pg_url(pg_server_url: str, pg_template: str) -> Iterator[str]:
    """URL of a new, migrated database for this test, dropped afterwards."""
    url = create_database(pg_server_url, pg_template)
    try:
        yield url
    finally:
        drop_database(pg_server_url, url)


@pytest.fixture(scope="session", autouse=True)
def postgres_session(request: pytest.FixtureRequest) -> None:
    """On the PostgreSQL pass, the server and template before any fixture of a wider scope needs them."""
    if backend == "postgres":
        session.update(server=request.getfixturevalue("pg_server_url"), template=request.getfixturevalue("pg_template"))


@pytest.fixture(autouse=True)
def backend_database(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[str | None]:
    """This test's database on the PostgreSQL pass (None on SQLite).

    It is named by `[store] url` in the config.toml of `tmp_path / "home"` (the `home` fixture's
    folder, and the name most tests give a home of their own), which every process opening that home
    reads: in-process opens, CLI and hook subprocesses (whose environments drop HEEDFUL_* variables),
    the server, the worker. A home elsewhere stays on SQLite, and the run's summary lists the tests
    that made one. A database URL in the developer's own environment is removed on both passes: no
    test writes to a real database.
    """
    for name in DATABASE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    if backend != "postgres" or POSTGRES_TESTS in Path(str(request.path)).resolve().parents:
        yield None
        return
    url: str = request.getfixturevalue("pg_url")
    write_store_setting(tmp_path / "home", url)
    yield url
    if any(tmp_path.rglob("heedful.db")):
        sqlite_homes.append(request.node.nodeid)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if backend == "postgres" and sqlite_homes:
        terminalreporter.write_sep("-", f"{len(sqlite_homes)} test(s) opened a SQLite home on the PostgreSQL pass")
        for nodeid in sqlite_homes:
            terminalreporter.write_line(nodeid)


@pytest.fixture
def home(tmp_path: Path, backend_database: str | None) -> Path:
    return tmp_path / "home"


@pytest.fixture
def hf(home: Path) -> Iterator[Heedful]:
    """A heedful with the fast hashing embedder (word overlap only)."""
    with Heedful.open(home, embedder="hashing") as opened:
        yield opened


@pytest.fixture
def hf_minilm(home: Path) -> Iterator[Heedful]:
    """A heedful with the real bundled MiniLM embedder."""
    with Heedful.open(home) as opened:
        yield opened


@pytest.fixture
def cli(home: Path):  # type: ignore[no-untyped-def]
    """`cli("memory", "add", ...)` runs the real command in a subprocess against this test's home."""

    def call(*args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
        return run_cli(*args, home=home, **kwargs)  # type: ignore[arg-type]

    return call
