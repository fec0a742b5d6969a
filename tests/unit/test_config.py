"""The one settings loader: defaults < config.toml < HEEDFUL_* environment < overrides, with one-line errors."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from heedful.config import MAX_MESSAGE_CHARS, child_environment, load_settings
from heedful.errors import InputError, StoreError

OURS = (
    "HEEDFUL_HOME",
    "HEEDFUL_EMBEDDER",
    "HEEDFUL_MODEL",
    "HEEDFUL_MODEL_BASE_URL",
    "HEEDFUL_MODEL_API_KEY_ENV",
    "HEEDFUL_STORE",
    "HEEDFUL_DATABASE_URL",
    "HEEDFUL_USER",
)


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in OURS:
        monkeypatch.delenv(name, raising=False)


def write_config(home: Path, text: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(text, encoding="utf-8")


def test_defaults_without_a_file(tmp_path: Path) -> None:
    settings = load_settings(tmp_path)
    assert settings.home == tmp_path
    assert (settings.embedder.name, settings.model.name, settings.user.default) == ("minilm", "offline", "me")
    assert settings.db_path == tmp_path / "heedful.db"
    assert not settings.store.is_postgres and settings.database == str(tmp_path / "heedful.db")
    assert MAX_MESSAGE_CHARS == 20_000


def test_file_then_environment_then_overrides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_config(
        tmp_path,
        '[embedder]\nname = "hashing"\nbatch_size = 8\n[model]\nname = "local"\ntimeout_seconds = 5\n'
        '[user]\ndefault = "ana"\n[store]\nbusy_timeout_ms = 100\n',
    )
    settings = load_settings(tmp_path)
    assert (settings.embedder.name, settings.embedder.batch_size) == ("hashing", 8)
    assert (settings.model.name, settings.model.timeout_seconds) == ("local", 5.0)
    assert (settings.user.default, settings.store.busy_timeout_ms) == ("ana", 100)

    monkeypatch.setenv("HEEDFUL_MODEL", "openai:gpt-4o-mini")
    monkeypatch.setenv("HEEDFUL_USER", "bo")
    settings = load_settings(tmp_path)
    assert (settings.model.name, settings.user.default, settings.embedder.name) == (
        "openai:gpt-4o-mini",
        "bo",
        "hashing",
    )

    settings = load_settings(tmp_path, {"model.name": "offline", "embedder.name": None})
    assert (settings.model.name, settings.embedder.name) == ("offline", "hashing")  # None leaves it as it was


def test_home_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEEDFUL_HOME", str(tmp_path / "elsewhere"))
    assert load_settings().home == tmp_path / "elsewhere"


def test_store_path_is_relative_to_the_home_unless_absolute(tmp_path: Path) -> None:
    write_config(tmp_path / "a", '[store]\npath = "data/rules.db"\n')
    assert load_settings(tmp_path / "a").db_path == tmp_path / "a" / "data" / "rules.db"
    absolute = tmp_path / "shared.db"
    write_config(tmp_path / "b", f'[store]\npath = "{absolute}"\n')
    assert load_settings(tmp_path / "b").db_path == absolute


def test_database_url_from_the_file_or_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_config(tmp_path, '[store]\nurl = "postgresql://heedful:s3cret@db.internal:5432/heedful"\n')
    settings = load_settings(tmp_path)
    assert settings.store.is_postgres
    assert settings.database == "postgresql://heedful@db.internal:5432/heedful"  # no password in messages
    monkeypatch.setenv("HEEDFUL_STORE", "sqlite")
    monkeypatch.setenv("HEEDFUL_DATABASE_URL", "postgres://other/db")
    assert load_settings(tmp_path).store.url == "postgres://other/db"  # the newer name wins over the older
    monkeypatch.delenv("HEEDFUL_DATABASE_URL")
    assert not load_settings(tmp_path).store.is_postgres
    assert load_settings(tmp_path, {"store.url": "sqlite"}).database == str(tmp_path / "heedful.db")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[model\nname = 1", ["not valid TOML"]),
        ('[modle]\nname = "local"\n', ["unknown section [modle]"]),
        ('[model]\nnmae = "local"\n', ["unknown setting 'model.nmae'"]),
        ("[model]\nname = 3\n", ["'model.name'", "must be a string"]),
        ('[embedder]\nbatch_size = "many"\n', ["'embedder.batch_size'", "must be a number"]),
        ("[embedder]\nbatch_size = 0\n", ["'embedder.batch_size'", "at least 1"]),
        ("[store]\nbusy_timeout_ms = true\n", ["'store.busy_timeout_ms'"]),
        ('[store]\nurl = "mysql://db/x"\n', ["'store.url'", "postgresql://"]),
        ('[model]\njson_mode = "yaml"\n', ["'model.json_mode'", "'json_schema'"]),
        ('model = "local"\n', ["[model] must be a table"]),
    ],
)
def test_bad_settings_are_one_line(tmp_path: Path, text: str, words: list[str]) -> None:
    write_config(tmp_path, text)
    with pytest.raises(InputError) as caught:
        load_settings(tmp_path)
    message = str(caught.value)
    assert "\n" not in message and str(tmp_path / "config.toml") in message
    for word in words:
        assert word in message, (word, message)


def test_bad_environment_value_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEEDFUL_DATABASE_URL", "mongodb://nope")
    with pytest.raises(InputError, match=r"'store\.url'"):
        load_settings(tmp_path)
    with pytest.raises(InputError, match=r"unknown setting 'colour\.name'"):
        load_settings(tmp_path, {"colour.name": "blue"})


def test_child_environment_carries_overrides_as_the_variables_children_read() -> None:
    base = {"PATH": "/bin", "HEEDFUL_STORE": "sqlite", "HEEDFUL_MODEL": "local"}
    env = child_environment({"model.name": "offline", "store.url": "postgresql://x/y", "embedder.name": None}, base)
    assert env == {"PATH": "/bin", "HEEDFUL_MODEL": "offline", "HEEDFUL_DATABASE_URL": "postgresql://x/y"}
    assert base["HEEDFUL_MODEL"] == "local"  # the given environment is not changed
    with pytest.raises(InputError):
        child_environment({"model.max_tokens": "5"}, base)


def test_open_store_chooses_sqlite_at_the_configured_path(tmp_path: Path) -> None:
    from heedful.store.open import open_store
    from heedful.store.sqlite import SQLiteStore

    write_config(tmp_path, '[store]\npath = "db/main.sqlite"\nbusy_timeout_ms = 250\n')
    store = open_store(load_settings(tmp_path))
    try:
        assert isinstance(store, SQLiteStore)
        store.set_meta("probe", "1")
        assert (tmp_path / "db" / "main.sqlite").exists() and not (tmp_path / "heedful.db").exists()
        assert store.db.conn.execute("PRAGMA busy_timeout").fetchone()[0] == 250
    finally:
        store.close()


def test_open_store_without_the_postgres_extra_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from heedful.store.open import POSTGRES_EXTRA, open_store

    # As on a base install: the driver cannot be imported (whether or not the backend module exists).
    monkeypatch.setitem(sys.modules, "psycopg", None)
    monkeypatch.setitem(sys.modules, "psycopg_pool", None)
    for name in [m for m in sys.modules if m == "heedful.store.postgres" or m.startswith("heedful.store.postgres.")]:
        monkeypatch.delitem(sys.modules, name)  # imported earlier in this process: import it afresh
    monkeypatch.setenv("HEEDFUL_DATABASE_URL", "postgresql://heedful@127.0.0.1:1/heedful")
    with pytest.raises(StoreError) as caught:
        open_store(load_settings(tmp_path))
    message = str(caught.value)  # this module's sentence, or the backend's own when it is installed
    assert (
        "\n" not in message
        and "pip install 'heedful[postgres]'" in message
        and POSTGRES_EXTRA.endswith("pip install 'heedful[postgres]'")
    )
    assert not (tmp_path / "heedful.db").exists()  # nothing was opened in its place


def test_library_overrides_and_the_store_they_open(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from heedful.api import Heedful

    monkeypatch.setenv("HEEDFUL_DATABASE_URL", "postgresql://heedful@127.0.0.1:1/heedful")
    with Heedful.open(tmp_path, embedder="hashing", store_url="sqlite") as hf:  # a scratch home stays a file
        assert hf.settings.embedder.name == "hashing" and hf.settings.database == str(tmp_path / "heedful.db")
        assert hf.store.get_meta("embedder") == "hashing-256"
    with pytest.raises(TypeError, match="store_url"):
        Heedful.open(tmp_path, colour="blue")
