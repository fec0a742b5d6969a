"""A scripted Gemini API (`generateContent`, `streamGenerateContent?alt=sse`) on 127.0.0.1 for the real
Gemini CLI, which reads `GOOGLE_GEMINI_BASE_URL`.

Agent requests are the streamed ones that offer tools (the main loop always does); each plays the
next scripted turn. Side requests (the CLI's own JSON classifiers and summaries) are not streamed:
they get a small JSON text answer and do not consume the script. Every request is logged.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from mock_models import Logged, ScriptedModel, Turn, _Server

SIDE_ANSWER = {"complexity_reasoning": "A simple task.", "complexity_score": 10}


class GeminiMock(ScriptedModel):
    def __init__(self, turns: list[Turn]) -> None:
        super().__init__(turns=list(turns))
        self.server = _Server(self.answer)
        self.url = self.server.url

    def close(self) -> None:
        self.server.close()

    def answer(self, path: str, body: dict[str, Any]) -> tuple[str, Iterator[bytes] | bytes]:
        route = path.split("?")[0]
        if route.endswith(":countTokens"):
            self.log.append(Logged(path, body, False))
            return "application/json", json.dumps({"totalTokens": 42}).encode()
        if not route.endswith((":streamGenerateContent", ":generateContent")):
            self.server.unhandled.append(f"POST {path}")
            return "application/json", b"{}"
        streamed = route.endswith(":streamGenerateContent")
        if not (streamed and body.get("tools")):
            self.log.append(Logged(path, body, False))
            return "application/json", json.dumps(self._response(Turn(text=json.dumps(SIDE_ANSWER)))).encode()
        turn = self.play(path, body, scripted=True)
        return "text/event-stream", iter([f"data: {json.dumps(self._response(turn))}\r\n\r\n".encode()])

    @staticmethod
    def _response(turn: Turn) -> dict[str, Any]:
        parts: list[dict[str, Any]] = [{"text": turn.text}] if turn.text or not turn.calls else []
        parts += [{"functionCall": {"name": c.name, "args": c.input}} for c in turn.calls]
        return {
            "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
            "modelVersion": "gemini-2.5-flash",
        }


def function_responses(request: dict[str, Any]) -> list[str]:
    """The tool results the CLI sent back in this request (its last user content), as JSON strings."""
    contents = request.get("contents") or []
    last = contents[-1] if contents else {}
    parts = [p for p in last.get("parts", []) if isinstance(p, dict) and "functionResponse" in p]
    return [json.dumps(p["functionResponse"], ensure_ascii=False) for p in parts]


def last_user_text(request: dict[str, Any]) -> str:
    contents = request.get("contents") or []
    users = [c for c in contents if c.get("role") == "user"]
    return "\n".join(p.get("text", "") for p in (users[-1]["parts"] if users else []) if isinstance(p, dict))
