"""The second stage of recall: what the first stage found, read by session and by neighbouring turn.

The first stage (the routes, fused) finds the right session far more often than the right turn:
on LoCoMo the session holding the evidence is among the first ten for 97% of questions, the turn
itself among the first ten for three quarters. So the fused list is scored again:

- a session prior: each session collects the fused scores of its turns among the first `voters`
  items; a turn gains `session_prior` times its session's share of the best session's votes (at
  the scale of a first place in fusion);
- a neighbouring-turn window: a turn gains `neighbour_share` of the better of the turns just
  before and after it (evidence comes in runs of turns: a question, its answer, a follow-up), and
  the neighbours of the first `bring_from` items come in even when no route found them.

For a question about the present, neighbours share nothing: the reply to an old statement would
lift it above the later statement that updated it (on BEAM's knowledge-update questions the
updated message ranked first 10 points less often with it).

Measured and left out (LoCoMo conversations 0-4, recall@10): ranking the turns of the best three
sessions again as one more fused route, by their cosine to the question moved toward the best
turns found (pseudo-relevance feedback) and by session centroids, cost 1 to 2 points at any weight
tried (0.2-0.5); a penalty for many turns of one session in the first ten cost up to 6.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from heedful.store.sqlite.recall_index import UserRecallIndex


@dataclass(frozen=True, slots=True)
class SessionStage:
    """How the second stage reads the first (tuned on LoCoMo conversations 0-4: see the module docstring)."""

    voters: int = 30
    session_prior: float = 0.1
    neighbour_share: float = 0.3
    bring_from: int = 10
    present_neighbours: bool = False


def session_rescored(
    index: UserRecallIndex,
    positions: Sequence[int],
    scores: Sequence[float],
    stage: SessionStage,
    k: int,
    neighbours: bool = True,
) -> dict[int, float]:
    """Position -> second-stage score, for the fused positions (best first, with their fused `scores`)
    and the neighbours brought in. `k` is fusion's RRF constant: the prior is a share of 1 / (k + 1)."""
    found, rescored = rescore(
        index, np.asarray(positions, dtype=np.int64), np.asarray(scores, dtype=np.float64), stage, k, neighbours
    )
    return dict(zip(found.tolist(), rescored.tolist(), strict=True))


def rescore(
    index: UserRecallIndex, positions: np.ndarray, scores: np.ndarray, stage: SessionStage, k: int, neighbours: bool
) -> tuple[np.ndarray, np.ndarray]:
    """`session_rescored` as arrays: (positions, scores) of the fused positions (distinct, best first)
    followed by the neighbours brought in."""
    if not len(positions):
        return positions, scores
    first = _Scores(positions, scores)
    share = stage.neighbour_share if neighbours else 0.0
    candidates = positions
    if share > 0:
        leading = positions[: stage.bring_from]
        near = np.concatenate([index.previous[leading], index.following[leading]])
        near = near[near >= 0].astype(np.int64)
        brought = np.setdiff1d(near, positions)
        candidates = np.concatenate([positions, brought])
    out = first.at(candidates)
    if share > 0:
        best = np.maximum(first.at(index.previous[candidates]), first.at(index.following[candidates]))
        out = out + share * best
    if stage.session_prior > 0:
        codes = index.session_codes()
        voting = codes[positions[: stage.voters]]
        named = voting >= 0
        votes = np.zeros(int(codes.max(initial=-1)) + 2)  # the extra last one: what no session (-1) reads
        np.add.at(votes, voting[named], scores[: stage.voters][named])  # in rank order, as a running sum
        best_vote = float(votes.max(initial=0.0)) or 1.0
        mine = codes[candidates]
        prior = stage.session_prior * votes[mine] / best_vote / (k + 1)
        out = out + prior
    return candidates, out


class _Scores:
    """The first stage's score of each position (0 for a position it did not find, or -1), looked up
    in its sorted positions: no array as long as the user's index per recall."""

    def __init__(self, positions: np.ndarray, scores: np.ndarray) -> None:
        order = np.argsort(positions)
        self.keys, self.values = positions[order], scores[order]

    def at(self, where: np.ndarray) -> np.ndarray:
        found = np.minimum(np.searchsorted(self.keys, where), len(self.keys) - 1)
        return np.where(self.keys[found] == where, self.values[found], 0.0)
