"""Models: the `Model` protocol, the offline model, and steps that run either way."""

from __future__ import annotations

from heedful.llm.protocol import ChatMessage, Model, OfflineModel, Step, load_model, run_step

__all__ = ["ChatMessage", "Model", "OfflineModel", "Step", "load_model", "run_step"]
