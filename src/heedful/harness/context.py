"""Building the context an answering model reads from one user's memory, as a version's parameters say.

Order, as in the paper: the memory-use policy, the user's requests to forget (how many, and
their coarse areas such as "health": never the forgotten words), the profile,
the recalled facts (superseded ones marked as no longer true), then a few session summaries
and raw excerpts. For multiple-choice questions, evidence is recalled once per option.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from heedful.harness.options import option_queries
from heedful.harness.params import HarnessParams
from heedful.harness.sandbox import HEADING_KEYS, BuiltinLayout, Layout

if TYPE_CHECKING:
    from heedful.api import Heedful
    from heedful.memory.recall.engine import Recaller
    from heedful.memory.recall.types import RecallItem, RecallResult


@dataclass(slots=True)
class MemoryContext:
    harness: str
    question: str
    text: str
    forgotten: list[str]  # the areas of the requests to forget ("health"), never their content
    profile: str | None
    facts: list[dict[str, object]]
    summaries: list[str]
    excerpts: list[str]
    options: list[dict[str, object]] = field(default_factory=list)
    # Not part of the JSON: the source messages of each listed item in the order the context shows
    # them, and the recall behind it (with each item's routes), for evaluation and failure traces.
    sources: list[list[str]] = field(default_factory=list)
    recalled: RecallResult | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "harness": self.harness,
            "question": self.question,
            "text": self.text,
            "forgotten": self.forgotten,
            "profile": self.profile,
            "facts": self.facts,
            "summaries": self.summaries,
            "excerpts": self.excerpts,
            "options": self.options,
        }


def item_data(item: RecallItem) -> dict[str, object]:
    """A recalled item as the layout reads it (plain data: the layout may run in another process)."""
    return {
        "kind": item.kind,
        "text": item.text,
        "state": item.state,
        "score": item.score,
        "valid_from": item.valid_from,
        "valid_to": item.valid_to,
        "event_at": item.event_at,
        "routes": {name: hit.rank for name, hit in item.routes.items()},
    }


class ParamHarness:
    """A harness version: the v1 layout, driven by the version's parameters."""

    def __init__(
        self,
        name: str = "v1",
        params: HarnessParams | None = None,
        layout: Layout | None = None,
        layout_source: str | None = None,
    ) -> None:
        self.name = name
        self.params = params or HarnessParams()
        self.layout = layout or BuiltinLayout()
        self.layout_source = layout_source  # the code of a layout other than heedful's own
        self._recallers: list[tuple[Heedful, Recaller]] = []

    def recaller(self, hf: Heedful) -> Recaller:
        """The home's recaller, or one with this version's recall configuration (made once per home)."""
        if not self.params.recall_weights and self.params.recall_config == hf.memory.recaller.config.name:
            return hf.memory.recaller
        for home, recaller in self._recallers:
            if home is hf:
                return recaller
        from heedful.memory.recall.engine import Recaller

        recaller = Recaller(
            hf.store, lambda: hf.embedder, config=self.params.recall_config, weights=self.params.recall_weights
        )
        self._recallers.append((hf, recaller))
        return recaller

    def close(self) -> None:
        """Stop the recallers this version made (the home's own recaller is the home's to close)."""
        for _, recaller in self._recallers:
            recaller.close()
        self._recallers.clear()
        self.layout.close()

    def recall(self, hf: Heedful, user_id: str, query: str, limit: int | None, as_of: str | None) -> RecallResult:
        return self.recaller(hf).recall(
            user_id,
            self.params.expand_query(query),
            limit=limit,
            budget_tokens=self.params.budget_tokens,
            as_of=as_of,
        )

    def build(
        self,
        hf: Heedful,
        user_id: str,
        question: str,
        options: list[str] | None = None,
        as_of: str | None = None,
    ) -> MemoryContext:
        params = self.params
        memory = hf.memory
        user_id = memory.require_user(user_id)
        # Only the number and the areas of the requests to forget: never the forgotten words.
        requests = hf.store.memory.list_facts(user_id, kinds=["tombstone"], current_only=True)
        forgotten = memory.forgotten_areas(user_id) if requests else []
        profile_row = memory.profile(user_id)
        profile = profile_row.statement if profile_row else None
        result = self.recall(hf, user_id, question, params.recall_limit, as_of)
        limits = {"max_facts": params.max_facts, "max_summaries": params.max_summaries}
        arranged = self.layout.arrange(
            [item_data(i) for i in result.items], limits | {"max_excerpts": params.max_excerpts}
        )
        facts, summaries, excerpts = ([result.items[p] for p in arranged.chosen[key]] for key in HEADING_KEYS)
        option_blocks: list[dict[str, object]] = []
        if options:
            for label, (option, query) in enumerate(zip(options, option_queries(question, options), strict=True)):
                found = self.recall(hf, user_id, query, params.per_option_limit, as_of).items
                option_blocks.append(
                    {
                        "option": option,
                        "label": chr(65 + label),
                        "query": query,
                        "evidence": self.layout.render([item_data(i) for i in found]),
                    }
                )
        sections = [arranged.policy]
        if requests:
            count = f"{len(requests)} thing" + ("s" if len(requests) != 1 else "")
            sections.append(
                f"The user asked to forget {count} (area: {', '.join(forgotten)}). Never use, mention or guess at"
                " what it was; if something below seems to touch it, leave it out."
            )
        if profile:
            sections.append("Profile (current facts):\n" + profile)
        for key in HEADING_KEYS:
            if arranged.rendered[key]:
                sections.append(arranged.headings[key] + "\n" + "\n".join(arranged.rendered[key]))
        for block in option_blocks:
            evidence = block["evidence"] or ["- (nothing found)"]
            sections.append(f"Evidence for option ({block['label']}) {block['option']}:\n" + "\n".join(evidence))  # type: ignore[arg-type]
        return MemoryContext(
            harness=self.name,
            question=question,
            text="\n\n".join(sections),
            forgotten=forgotten,
            profile=profile,
            facts=[i.to_json() for i in facts],
            summaries=[i.text for i in summaries],
            excerpts=[i.text for i in excerpts],
            options=option_blocks,
            sources=[i.source_message_ids for i in (*facts, *summaries, *excerpts)],
            recalled=result,
        )


class HarnessV1(ParamHarness):
    """The first version: every parameter at its default."""

    def __init__(self) -> None:
        super().__init__("v1", HarnessParams())
