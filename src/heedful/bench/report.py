"""Shared helpers for the recall benchmarks: recall@k, percentiles, data paths and tables."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from heedful.errors import InputError

if TYPE_CHECKING:
    from rich.progress import Progress

# The repository's sibling `shared/data` directory, where benchmark data is kept (never copied in).
REPO_ROOT = Path(__file__).resolve().parents[3]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"


def resolve_data(path: Path | str | None, default: Path, what: str) -> Path:
    """The data path to use, or an InputError that says where it was looked for."""
    chosen = Path(path).expanduser() if path is not None else default
    if not chosen.exists():
        raise InputError(f"the {what} data is not at {chosen}; pass --data PATH to point at it")
    return chosen


def recall_at_k(ranked: Sequence[str], evidence: Iterable[str], k: int) -> float:
    """The share of `evidence` found in the first k of `ranked`; no evidence counts as 1."""
    wanted = set(evidence)
    if not wanted:
        return 1.0
    return len(wanted & set(ranked[:k])) / len(wanted)


def any_at_k(ranked: Sequence[str], evidence: Iterable[str], k: int) -> float:
    """1 when any of `evidence` is in the first k of `ranked` (1 when there is no evidence)."""
    wanted = set(evidence)
    if not wanted:
        return 1.0
    return 1.0 if wanted & set(ranked[:k]) else 0.0


def dedupe(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(values))


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) by linear interpolation; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def mean_percent(values: Sequence[float]) -> float:
    return round(100 * sum(values) / len(values), 1) if values else 0.0


class Scores:
    """Per-question scores grouped by a label (category, split), averaged as percentages."""

    def __init__(self, ks: Sequence[int]) -> None:
        self.ks = list(ks)
        self.groups: dict[str, dict[int, list[float]]] = {}

    def add(self, groups: Iterable[str], scores: Mapping[int, float]) -> None:
        for group in groups:
            bucket = self.groups.setdefault(group, {k: [] for k in self.ks})
            for k in self.ks:
                bucket[k].append(scores[k])

    def summary(self, group: str) -> dict[str, float | int]:
        bucket = self.groups.get(group, {k: [] for k in self.ks})
        out: dict[str, float | int] = {f"@{k}": mean_percent(bucket[k]) for k in self.ks}
        out["n"] = len(bucket[self.ks[0]]) if self.ks else 0
        return out

    def table(self) -> dict[str, dict[str, float | int]]:
        return {group: self.summary(group) for group in self.groups}


def print_table(title: str, rows: Mapping[str, Mapping[str, float | int]]) -> None:
    from rich.console import Console
    from rich.table import Table

    if not rows:
        return
    columns = list(next(iter(rows.values())).keys())
    table = Table(title=title)
    table.add_column("")
    for column in columns:
        table.add_column(column, justify="right")
    for name, row in rows.items():
        table.add_row(name, *(str(row.get(column, "")) for column in columns))
    Console().print(table)


def progress(enabled: bool = True) -> Progress:
    """A rich progress bar (drawn on stderr; disabled for `--json` output or when not wanted)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        transient=True,
        disable=not enabled,
        console=Console(stderr=True),
    )
