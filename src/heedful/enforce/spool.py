"""The side file for hook writes the database could not take at once: nothing decided is lost.

A hook answers first and stores afterwards (`SQLiteEnforceRepo.apply`) with a short wait for the
write lock. When another process holds the lock longer, the event's writes go to one file under
HEEDFUL_HOME/spool/enforce/, named `<time>-<session hash>-<pid>-<random>.json` so that files sort
oldest first and an event reads only its own session's files. The next store attempt (any later
hook event; `fold` for the worker or a command) claims the files by renaming them (a rename is
atomic: one process wins), applies them and its own writes in one transaction, then deletes them;
on failure it renames them back. A claim left by a dead process is taken over. A file whose writes
the database rejects for what they contain (not for a lock) is parked as `*.rejected` and reported,
so that one bad batch never blocks the rest. A crash between the commit and the delete applies
that batch again on the next fold (at least once, never lost).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from heedful.enforce.ledger import Write

WRITE_BUSY_MS = 250  # how long a hook waits for the write lock after answering, before spooling
READY = ".json"
CLAIMED = ".claimed"
REJECTED = ".rejected"
# What a batch's content can provoke, as opposed to a lock, a full disk or a read-only file.
_BAD_BATCH = (
    sqlite3.IntegrityError,
    sqlite3.ProgrammingError,
    sqlite3.InterfaceError,
    sqlite3.DataError,
    ValueError,
    TypeError,
    KeyError,
)


class FlushReport:
    """What a store attempt did (a plain class: the hook's start-up path stays off `dataclasses`)."""

    __slots__ = ("rejected", "spooled", "stored")

    def __init__(self) -> None:
        self.stored = 0  # writes now in the database (this event's and folded ones)
        self.spooled = 0  # writes left in the spool for a later attempt
        self.rejected: list[str] = []  # parked files, with the reason


def session_key(user: str, session: str) -> str:
    digest = hashlib.sha1(json.dumps([user, session], ensure_ascii=True).encode("ascii"))
    return digest.hexdigest()[:12]


class Spool:
    def __init__(self, home: Path) -> None:
        self.folder = home / "spool" / "enforce"

    # -- reading ---------------------------------------------------------------------------------
    def _names(self) -> list[str]:
        try:
            return sorted(entry.name for entry in os.scandir(self.folder))
        except OSError:  # no spool yet (the common case), or an unreadable one
            return []

    def _load(self, name: str) -> list[Write] | None:
        try:
            data = json.loads((self.folder / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        writes = [Write.from_json(item) for item in data.get("writes", [])] if isinstance(data, dict) else []
        return [w for w in writes if w is not None]

    def waiting(self, user: str, session: str) -> list[Write]:
        """The spooled writes of one session, oldest first (claimed ones too: they are not stored yet)."""
        key = f"-{session_key(user, session)}-"
        found: list[Write] = []
        for name in self._names():
            if key in name and not name.endswith((REJECTED, ".tmp")):
                found += [w for w in self._load(name) or [] if w.user == user and w.session == session]
        return found

    def pending_files(self) -> int:
        return sum(1 for name in self._names() if name.endswith(READY))

    # -- writing ---------------------------------------------------------------------------------
    def save(self, writes: Sequence[Write]) -> Path:
        """Put one event's writes in a new spool file (written whole, then renamed into place)."""
        first = writes[0]
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        name = f"{time.time_ns():020d}-{session_key(first.user, first.session)}-{os.getpid()}-{os.urandom(4).hex()}"
        from heedful.redact_values import redact_record  # secrets never reach the spool either

        records = [{**w.to_json(), "data": redact_record(w.data)} for w in writes]
        body = json.dumps({"writes": records}, ensure_ascii=True)
        temp = self.folder / f"{name}.tmp"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(body)
        final = self.folder / f"{name}{READY}"
        os.replace(temp, final)
        return final

    def _claim(self) -> list[tuple[str, str]]:
        """(original name, claimed name) of every ready file and every claim of a dead process."""
        me = os.getpid()
        claimed = []
        for name in self._names():
            if name.endswith(READY):
                original = name
            elif name.endswith(CLAIMED) and not _alive(_claimer(name)):
                original = name[: name.index(READY) + len(READY)]
            else:
                continue
            target = f"{original}.{me}{CLAIMED}"
            try:
                os.rename(self.folder / name, self.folder / target)
            except OSError:  # another process claimed it first
                continue
            claimed.append((original, target))
        return claimed

    def _release(self, claimed: list[tuple[str, str]]) -> None:
        for original, target in claimed:
            with contextlib.suppress(OSError):
                os.rename(self.folder / target, self.folder / original)

    def _park(self, target: str) -> None:
        with contextlib.suppress(OSError):
            os.rename(self.folder / target, self.folder / f"{target}{REJECTED}")

    def flush(self, repo: Any, writes: Sequence[Write]) -> FlushReport:
        """Store the spooled writes and then `writes` in one transaction; spool `writes` if that fails."""
        report = FlushReport()
        claimed = self._claim()
        if not claimed and not writes:
            return report
        batches: list[tuple[str | None, list[Write]]] = []
        for original, target in claimed:
            loaded = self._load(target)
            if loaded is None:
                self._park(target)
                report.rejected.append(f"{original}: unreadable")
                continue
            batches.append((target, loaded))
        batches.append((None, list(writes)))
        try:
            repo.apply([w for _, batch in batches for w in batch])
        except _BAD_BATCH:
            return self._one_by_one(repo, batches, claimed, report)
        except Exception:
            self._release([pair for pair in claimed if any(pair[1] == name for name, _ in batches)])
            report.spooled = sum(len(batch) for _, batch in batches)
            if writes:
                self.save(writes)
            return report
        for _, target in claimed:
            with contextlib.suppress(OSError):
                os.unlink(self.folder / target)
        report.stored = sum(len(batch) for _, batch in batches)
        return report

    def _one_by_one(
        self,
        repo: Any,
        batches: list[tuple[str | None, list[Write]]],
        claimed: list[tuple[str, str]],
        report: FlushReport,
    ) -> FlushReport:
        """Some batch is bad: store each alone, park the bad ones, keep the rest for later."""
        originals = {target: original for original, target in claimed}
        for target, batch in batches:
            try:
                repo.apply(batch)
            except _BAD_BATCH as exc:
                if target is not None:
                    self._park(target)
                report.rejected.append(f"{originals.get(target or '', 'this event')}: {type(exc).__name__}: {exc}")
                continue
            except Exception:
                report.spooled += len(batch)
                if target is not None:
                    self._release([(originals[target], target)])
                elif batch:
                    self.save(batch)
                continue
            report.stored += len(batch)
            if target is not None:
                with contextlib.suppress(OSError):
                    os.unlink(self.folder / target)
        return report


def fold(home: Path, repo: Any) -> FlushReport:
    """Store whatever hooks left in the spool (for the worker or a command with the database open)."""
    return Spool(home).flush(repo, [])


def _claimer(name: str) -> int | None:
    try:
        return int(name[: -len(CLAIMED)].rsplit(".", 1)[-1])
    except ValueError:
        return None


def _alive(pid: int | None) -> bool:
    if pid is None:
        return False
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True
