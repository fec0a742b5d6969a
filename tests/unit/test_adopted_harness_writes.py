"""An adopted harness version decides how the product writes memory, not only how the evaluator does."""

from __future__ import annotations

from heedful.api import Heedful
from heedful.harness.params import HarnessParams
from heedful.harness.versions import adopt, save_version


def cities(hf: Heedful, user: str) -> list[tuple[str, bool]]:
    rows = hf.store.memory.list_facts(user, kinds=["fact"], current_only=False)
    return sorted((r.statement, r.valid_to is None) for r in rows if "lives in" in r.statement)


def test_without_an_adopted_version_a_move_retires_the_old_city(hf: Heedful) -> None:
    hf.memory.add("ana", "I live in Leeds.", flush=True)
    hf.memory.add("ana", "I moved to Ghent last week.", flush=True)
    assert cities(hf, "ana") == [("The user lives in Ghent", True), ("The user lives in Leeds", False)]


def test_an_adopted_versions_retraction_rules_apply_to_new_writes(home, hf: Heedful) -> None:  # type: ignore[no-untyped-def]
    kept = HarnessParams.model_validate({"retraction": {"single_valued_retracts": False}})
    version = save_version(kept, base="v1", note="keep every city", home=home)
    adopt(version.name, home=home)
    with Heedful.open(home, embedder="hashing") as reopened:
        reopened.memory.add("bo", "I live in Leeds.", flush=True)
        reopened.memory.add("bo", "I moved to Ghent last week.", flush=True)
        assert cities(reopened, "bo") == [("The user lives in Ghent", True), ("The user lives in Leeds", True)]
