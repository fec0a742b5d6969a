from heedful.llm.prompts.adjudicate_facts import AdjudicationContext, CandidateWithNeighbours, StoredFact
from heedful.llm.prompts.extract_facts import Candidate
from heedful.memory.adjudicate import adjudicate_offline


def candidate(
    predicate: str,
    obj: str,
    *,
    entity: str = "user",
    negated: bool = False,
    single: bool = False,
    replaces: str | None = None,
) -> Candidate:
    return Candidate(
        kind="fact",
        statement=f"{entity} {predicate} {obj}",
        entity=entity,
        predicate=predicate,
        object=obj,
        negated=negated,
        single_valued=single,
        replaces=replaces,
        source_message_ids=["m"],
    )


def stored(fid: str, predicate: str, obj: str, entity: str = "user", similarity: float = 0.5) -> StoredFact:
    return StoredFact(
        id=fid,
        statement=f"{entity} {predicate} {obj}",
        entity=entity,
        predicate=predicate,
        object=obj,
        similarity=similarity,
    )


def decide(c: Candidate, neighbours: list[StoredFact]) -> tuple[str, list[str]]:
    result = adjudicate_offline(
        AdjudicationContext(items=[CandidateWithNeighbours(index=0, candidate=c, neighbours=neighbours)])
    )
    (decision,) = result.decisions
    return decision.action, decision.target_ids


def test_single_valued_change_is_a_replacement() -> None:
    assert decide(candidate("lives_in", "Lisbon", single=True), [stored("f1", "lives_in", "Berlin")]) == (
        "replacement",
        ["f1"],
    )


def test_flipped_preference_and_no_longer_replace() -> None:
    assert decide(candidate("dislikes", "sushi"), [stored("f1", "likes", "sushi")]) == ("replacement", ["f1"])
    assert decide(candidate("likes", "sushi", negated=True), [stored("f1", "likes", "sushi")]) == (
        "replacement",
        ["f1"],
    )


def test_switched_from_replaces_the_old_value() -> None:
    assert decide(candidate("uses", "yarn", replaces="pnpm"), [stored("f1", "uses", "pnpm")]) == ("replacement", ["f1"])


def test_multi_valued_preferences_coexist() -> None:
    assert decide(candidate("likes", "tea"), [stored("f1", "likes", "hiking")]) == ("coexisting", ["f1"])


def test_duplicate_and_enrichment() -> None:
    assert decide(candidate("likes", "Hiking"), [stored("f1", "likes", "hiking")]) == ("duplicate", ["f1"])
    assert decide(candidate("likes", "hiking in the Alps"), [stored("f1", "likes", "hiking")]) == ("enrichment", ["f1"])


def test_other_peoples_facts_never_replace_the_users() -> None:
    action, _ = decide(candidate("lives_in", "Rome", entity="Anna", single=True), [stored("f1", "lives_in", "Berlin")])
    assert action == "new"


def test_high_similarity_alone_does_not_merge_opposites() -> None:
    # "always X" and "never X" embed close together; the negation decides, not the vector.
    action, _ = decide(candidate("likes", "sushi", negated=True), [stored("f1", "likes", "sushi", similarity=0.99)])
    assert action == "replacement"
