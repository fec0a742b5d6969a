"""The second stage of recall: sessions first, then the turns inside the best sessions.

The first stage (the routes, fused) finds the right session far more often than the right turn:
on LoCoMo the session holding the evidence is among the first ten for 97% of questions, the turn
itself among the first ten for three quarters. Questions that share few words with their evidence
(multi-hop, open-domain) are the ones whose turns rank low. So the sessions are scored, and the
turns of the best few are ranked again, as one more content route ("session"):

- a session's score adds up what the first stage found in it (the fused scores of its turns, each
  turn after the first counting less), plus how close the session as a whole (the mean of its
  turns' vectors) lies to the question;
- inside the best `top_sessions` sessions, each turn is scored by its cosine to the question moved
  toward the best turns the first stage found (pseudo-relevance feedback: their mean vector), and
  takes a share of its neighbours' scores (a question's answer is often the turn after the one
  that matches, or the one before).

Pure given the user's index (positions, session ids, vectors, excerpt neighbours).
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
    """How the second stage reads the first: see the module docstring."""

    top_sessions: int = 3
    # Fused turns of the first stage that vote for their session, and how a session's later votes count.
    voters: int = 30
    vote_decay: float = 0.5
    # How much the session's centroid cosine adds to its votes (the votes are scaled to a best of 1).
    centroid_weight: float = 0.5
    # Pseudo-relevance feedback: the best first-stage turns whose mean vector moves the query, and how far.
    feedback_turns: int = 3
    feedback_weight: float = 0.5
    # A turn's score also takes this share of its best neighbour's.
    neighbour_share: float = 0.3
    # Turns of the best sessions that the route returns at most.
    depth: int = 60


def session_ranking(
    index: UserRecallIndex,
    fused_positions: Sequence[int],
    fused_scores: Sequence[float],
    query: np.ndarray | None,
    stage: SessionStage,
) -> list[tuple[int, float]]:
    """Positions of turns in the best sessions, best first, with their second-stage scores."""
    if not len(fused_positions) or not len(index):
        return []
    sessions = index.sessions
    votes: dict[str | None, float] = {}
    seen: dict[str | None, int] = {}
    best = float(fused_scores[0]) or 1.0
    for here, score in zip(fused_positions[: stage.voters], fused_scores[: stage.voters], strict=False):
        session = sessions[here]
        if session is None:
            continue
        count = seen.get(session, 0)
        votes[session] = votes.get(session, 0.0) + (stage.vote_decay**count) * float(score) / best
        seen[session] = count + 1
    if not votes:
        return []
    members = index.session_members()
    has_query = query is not None and index.matrix.shape[1] == query.shape[-1]
    if has_query and stage.centroid_weight > 0:
        centroids = index.session_centroids()
        for session in votes:
            row = centroids.get(session)
            if row is not None:
                votes[session] += stage.centroid_weight * float(row @ query)
    chosen = sorted(votes, key=lambda s: (-votes[s], str(s)))[: stage.top_sessions]
    positions = np.concatenate([members[s] for s in chosen if s in members]) if chosen else np.zeros(0, np.int64)
    if not len(positions):
        return []
    if has_query:
        assert query is not None
        probe = query.astype(np.float32).reshape(-1)
        if stage.feedback_turns > 0 and stage.feedback_weight > 0:
            top = np.asarray(fused_positions[: stage.feedback_turns], dtype=np.int64)
            top = top[index.has_vector[top]]
            if len(top):
                centre = index.matrix[top].mean(axis=0)
                probe = probe + stage.feedback_weight * centre / (float(np.linalg.norm(centre)) or 1.0)
                probe = probe / (float(np.linalg.norm(probe)) or 1.0)
        scores = index.matrix[positions] @ probe
        scores[~index.has_vector[positions]] = 0.0
    else:
        first = dict(zip(fused_positions, fused_scores, strict=False))
        scores = np.array([first.get(int(here), 0.0) / best for here in positions])
    if stage.neighbour_share > 0:
        local = dict(zip(positions.tolist(), scores.tolist(), strict=True))
        smoothed = scores.copy()
        for n, here in enumerate(positions.tolist()):
            around = [local.get(int(index.previous[here]), 0.0), local.get(int(index.following[here]), 0.0)]
            smoothed[n] += stage.neighbour_share * max(around)
        scores = smoothed
    order = np.lexsort((positions, -scores))[: stage.depth]
    return [(int(positions[n]), float(scores[n])) for n in order]
