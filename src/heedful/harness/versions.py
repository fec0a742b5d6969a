"""The registry of harness versions. A new version is added beside the old, never edited in place,
so that stored evaluations stay reproducible; the default moves only when the user adopts a version.

Built-in: v1. Further versions are files `HOME/harness/NAME.json` (written when `heedful evolve`
accepts a candidate): parameters and, when the candidate changed it, the layout's code, which runs
only in a sandbox (`heedful.harness.sandbox`). `HOME/harness/DEFAULT` names the adopted default.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from pydantic import BaseModel, ConfigDict, ValidationError

from heedful.errors import InputError
from heedful.harness.context import HarnessV1, MemoryContext, ParamHarness
from heedful.harness.params import HarnessParams

if TYPE_CHECKING:
    from heedful.api import Heedful


class Harness(Protocol):
    name: str

    def build(
        self,
        hf: Heedful,
        user_id: str,
        question: str,
        options: list[str] | None = None,
        as_of: str | None = None,
    ) -> MemoryContext: ...


HARNESSES: dict[str, type[ParamHarness]] = {"v1": HarnessV1}
DEFAULT_HARNESS = "v1"
VERSIONS_DIR = "harness"
DEFAULT_FILE = "DEFAULT"
_NAME = re.compile(r"v[1-9]\d{0,5}")


class HarnessVersion(BaseModel):
    """A stored version: its parameters, the version it was derived from, and why it exists."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    base: str | None = None
    params: HarnessParams = HarnessParams()
    layout: str | None = None  # the layout module's source when it differs from heedful's own
    created_at: str | None = None
    note: str = ""


def _home(home: Path | str | None) -> Path:
    from heedful.config import default_home

    return Path(home).expanduser() if home is not None else default_home()


def versions_dir(home: Path | str | None = None) -> Path:
    return _home(home) / VERSIONS_DIR


def stored_versions(home: Path | str | None = None) -> dict[str, HarnessVersion]:
    """Every version: the built-in ones, then the parameter files in the home (in version order)."""
    found = {name: HarnessVersion(name=name, note="built in") for name in HARNESSES}
    folder = versions_dir(home)
    files = sorted(folder.glob("v*.json"), key=lambda p: int(p.stem[1:]) if _NAME.fullmatch(p.stem) else 0)
    for path in files:
        if not _NAME.fullmatch(path.stem) or path.stem in HARNESSES:
            continue
        try:
            version = HarnessVersion.model_validate_json(path.read_text(encoding="utf-8"))
        except (OSError, ValidationError) as exc:
            raise InputError(f"harness version file {path} cannot be read: {str(exc).splitlines()[0]}") from exc
        if version.name != path.stem:
            raise InputError(f"harness version file {path} names itself {version.name!r}")
        found[version.name] = version
    return found


def default_version(home: Path | str | None = None) -> str:
    path = versions_dir(home) / DEFAULT_FILE
    if path.exists():
        name = path.read_text(encoding="utf-8").strip()
        if name:
            return name
    return DEFAULT_HARNESS


def get_harness(name: str | None = None, home: Path | str | None = None, hidden: Sequence[Path] = ()) -> ParamHarness:
    """The named version (default: the adopted one, else v1). A version with layout code runs it in a
    sandbox that cannot read the home nor the `hidden` folders (the benchmark data, when evaluating)."""
    chosen = name or default_version(home)
    if chosen in HARNESSES:
        return HARNESSES[chosen]()
    versions = stored_versions(home)
    if chosen not in versions:
        raise InputError(f"unknown harness {chosen!r}; available: {', '.join(versions)}")
    from heedful.harness.sandbox import home_folders, layout_for

    version = versions[chosen]
    layout = layout_for(version.layout, hidden=home_folders(_home(home), *hidden))
    return ParamHarness(chosen, version.params, layout, layout_source=version.layout)


def save_version(
    params: HarnessParams, base: str, note: str, home: Path | str | None = None, layout: str | None = None
) -> HarnessVersion:
    """Store `params` (and `layout` code, if any) as the next free version name; never overwrites a file."""
    folder = versions_dir(home)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    number = max(int(name[1:]) for name in stored_versions(home)) + 1
    while True:
        version = HarnessVersion(
            name=f"v{number}",
            base=base,
            params=params,
            layout=layout,
            created_at=datetime.now(UTC).isoformat(),
            note=note,
        )
        try:  # exclusive create: two runs never write the same version
            fd = os.open(folder / f"{version.name}.json", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            number += 1
            continue
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(version.model_dump_json(indent=2) + "\n")
        return version


def adopt(name: str, home: Path | str | None = None) -> str:
    """Make `name` the default version; returns the previous default."""
    if name not in stored_versions(home):
        raise InputError(f"unknown harness {name!r}; available: {', '.join(stored_versions(home))}")
    previous = default_version(home)
    folder = versions_dir(home)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    temporary = folder / f".{DEFAULT_FILE}.tmp"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(name + "\n")
    temporary.replace(folder / DEFAULT_FILE)
    return previous


def describe(version: HarnessVersion) -> dict[str, object]:
    """A version as JSON, with only the parameters that differ from v1."""
    changed = version.params.model_dump(exclude_defaults=True)
    return {
        "name": version.name,
        "base": version.base,
        "created_at": version.created_at,
        "changed": changed,
        "layout": "code (runs in a sandbox)" if version.layout else "built in",
    }


__all__ = [
    "DEFAULT_HARNESS",
    "HARNESSES",
    "Harness",
    "HarnessVersion",
    "adopt",
    "default_version",
    "describe",
    "get_harness",
    "save_version",
    "stored_versions",
]
