"""The execution layer: turns, evidence per stage, judgments, interventions and the session log."""
