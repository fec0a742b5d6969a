"""Scripted model servers on 127.0.0.1 for driving the real Claude Code and Codex CLIs.

`AnthropicMock` speaks the Messages API (`/v1/messages` streaming SSE or JSON, and
`/v1/messages/count_tokens`); `ResponsesMock` speaks the OpenAI Responses API (`/v1/responses`,
streamed) the way Codex reads it. Each plays a script: a list of model turns (text, or tool
calls), one turn per agent request. Side requests a client makes on its own (titles, quota
probes, summaries) get a short text answer and do not consume the script. Every request is
logged, so a test can assert what the client sent back to the model (a tool result, a hook's
reason).

A mock can also answer by what the prompt says (`PromptAnswer`): a request whose messages hold a
marker phrase gets that answer, whatever its tools, and does not consume the script. That plays
the model behind heedful's own `claude-cli` / `codex-cli` providers, which send one structured
prompt per learner step (`learner_answers` scripts a whole correction).
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FALLBACK_TEXT = "Done."


@dataclass(frozen=True)
class ToolCall:
    name: str
    input: dict[str, Any]


@dataclass(frozen=True)
class Turn:
    """One model answer: optional text, then tool calls (none means the turn ends)."""

    text: str = ""
    calls: tuple[ToolCall, ...] = ()


def say(text: str) -> Turn:
    return Turn(text=text)


def call(name: str, **arguments: Any) -> Turn:
    return Turn(calls=(ToolCall(name, arguments),))


# A scripted answer, or a function that makes it from the request (to name a path the client chose).
ScriptTurn = Turn | Callable[[dict[str, Any]], Turn]


@dataclass(frozen=True)
class PromptAnswer:
    """Answer `text` to any request whose messages contain `marker`."""

    marker: str
    text: str


def prompt_answer(marker: str, payload: dict[str, Any]) -> PromptAnswer:
    return PromptAnswer(marker, json.dumps(payload))


@dataclass
class Logged:
    path: str
    body: dict[str, Any]
    scripted: bool
    turn: Turn | None = None
    answered: str | None = None  # the marker of the PromptAnswer that answered it


@dataclass
class ScriptedModel:
    """The script and the request log shared by both protocol front ends."""

    turns: list[ScriptTurn] = field(default_factory=list)
    log: list[Logged] = field(default_factory=list)
    overrun: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    answers: list[PromptAnswer] = field(default_factory=list)

    def play(self, path: str, body: dict[str, Any], scripted: bool) -> Turn:
        with self.lock:
            conversation = json.dumps(body.get("messages") or body.get("input") or [], ensure_ascii=False)
            for answer in self.answers:
                if answer.marker in conversation:
                    self.log.append(Logged(path, body, False, say(answer.text), answer.marker))
                    return say(answer.text)
            turn: Turn | None = None
            if scripted:
                if self.turns:
                    next_turn = self.turns.pop(0)
                    turn = next_turn(body) if callable(next_turn) else next_turn
                else:
                    self.overrun += 1
            self.log.append(Logged(path, body, scripted, turn))
            return turn or say(FALLBACK_TEXT)

    def answered(self, marker: str) -> list[dict[str, Any]]:
        """The requests a PromptAnswer with this marker answered."""
        return [entry.body for entry in self.log if entry.answered == marker]

    def agent_requests(self) -> list[dict[str, Any]]:
        return [entry.body for entry in self.log if entry.scripted]

    def sent_text(self, start: int = 0) -> str:
        """Everything the client sent in agent requests from index `start` on, as one JSON string."""
        return "\n".join(json.dumps(body, ensure_ascii=False) for body in self.agent_requests()[start:])


# Phrases of the learner steps' prompts (heedful.rules.steps), one per step.
ADMIT = "Decide whether one user message"
INTERPRET = "Split the user's correction"
RESOLVE = "Resolve a candidate rule"
COMPILE = "Propose programmatic checks"
REVIEW = "Review a proposed check"


def learner_answers(rule: str, quote: str, program: str, alternative: str) -> list[PromptAnswer]:
    """The model's side of learning one "never run PROGRAM, use ALTERNATIVE" correction.

    The reviewer's labels are those of the four validation cases `forbidden_command` generates
    (a direct call, one behind a prefix, the alternative, an edit).
    """
    candidate = {"text": rule, "polarity": "dont", "evidence": [quote]}
    check = {
        "kind": "forbidden_command",
        "stage": "pre_action",
        "params": {"program": program, "alternatives": [alternative]},
        "evidence": ["action.command"],
    }
    review = {
        "approved": True,
        "meaning_clear": True,
        "reason": f"forbids {program}, allows {alternative}",
        "labels": ["violated", "violated", "pass", "not_applicable"],
    }
    return [
        prompt_answer(ADMIT, {"decision": "persist", "scope": "project", "reasons": ["a standing rule"]}),
        prompt_answer(INTERPRET, {"candidates": [candidate]}),
        prompt_answer(RESOLVE, {"op": "new", "reason": "nothing like it yet"}),
        prompt_answer(COMPILE, {"proposals": [check]}),
        prompt_answer(REVIEW, review),
    ]


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


class _Server:
    """A threading HTTP server whose handler hands POST bodies to `answer(path, body)`."""

    def __init__(self, answer: Callable[[str, dict[str, Any]], tuple[str, Iterator[bytes] | bytes]]) -> None:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet: the log is kept in ScriptedModel
                pass

            def _reply(self, content_type: str, payload: Iterator[bytes] | bytes, status: int = 200) -> None:
                self.send_response(status)
                self.send_header("content-type", content_type)
                if isinstance(payload, bytes):
                    self.send_header("content-length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                self.send_header("cache-control", "no-cache")
                self.send_header("connection", "close")
                self.end_headers()
                for chunk in payload:
                    self.wfile.write(chunk)
                    self.wfile.flush()
                self.close_connection = True

            def do_GET(self) -> None:
                outer.unhandled.append(f"GET {self.path}")
                self._reply("application/json", json.dumps({"data": [], "models": []}).encode())

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                raw = self.rfile.read(length) if length else b"{}"
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"raw": raw.decode("utf-8", "replace")}
                content_type, payload = answer(self.path, body)
                self._reply(content_type, payload)

        self.unhandled: list[str] = []
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class AnthropicMock(ScriptedModel):
    """The Messages API. Agent requests are the ones that offer tools (the main loop always does)."""

    def __init__(
        self, turns: list[Turn | Callable[[dict[str, Any]], Turn]], answers: list[PromptAnswer] | None = None
    ) -> None:
        super().__init__(turns=list(turns), answers=list(answers or []))
        self.ids = itertools.count(1)
        self.server = _Server(self.answer)
        self.url = self.server.url

    def close(self) -> None:
        self.server.close()

    def answer(self, path: str, body: dict[str, Any]) -> tuple[str, Iterator[bytes] | bytes]:
        route = path.split("?")[0]
        if route.endswith("/count_tokens"):
            self.log.append(Logged(path, body, False))
            return "application/json", json.dumps({"input_tokens": 42}).encode()
        if not route.endswith("/messages"):
            self.server.unhandled.append(f"POST {path}")
            return "application/json", b"{}"
        turn = self.play(path, body, scripted=bool(body.get("tools")))
        blocks = self._blocks(turn)
        model = body.get("model", "mock-model")
        stop = "tool_use" if turn.calls else "end_turn"
        message_id = f"msg_mock{next(self.ids)}"
        if not body.get("stream"):
            message = {
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": blocks,
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 5},
            }
            return "application/json", json.dumps(message).encode()
        return "text/event-stream", self._stream(message_id, model, blocks, stop)

    def _blocks(self, turn: Turn) -> list[dict[str, Any]]:
        blocks: list[dict[str, Any]] = [{"type": "text", "text": turn.text}] if turn.text or not turn.calls else []
        for tool in turn.calls:
            blocks.append(
                {"type": "tool_use", "id": f"toolu_mock{next(self.ids)}", "name": tool.name, "input": tool.input}
            )
        return blocks

    @staticmethod
    def _stream(message_id: str, model: str, blocks: list[dict[str, Any]], stop: str) -> Iterator[bytes]:
        yield _sse(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": message_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 10, "output_tokens": 1},
                },
            },
        )
        for index, block in enumerate(blocks):
            if block["type"] == "text":
                yield _sse(
                    "content_block_start",
                    {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
                )
                delta = {"type": "text_delta", "text": block["text"]}
            else:
                start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
                yield _sse(
                    "content_block_start", {"type": "content_block_start", "index": index, "content_block": start}
                )
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            yield _sse("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
            yield _sse("content_block_stop", {"type": "content_block_stop", "index": index})
        yield _sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        )
        yield _sse("message_stop", {"type": "message_stop"})


class ResponsesMock(ScriptedModel):
    """The Responses API as Codex streams it. Agent requests are the ones that offer tools."""

    def __init__(
        self, turns: list[Turn | Callable[[dict[str, Any]], Turn]], answers: list[PromptAnswer] | None = None
    ) -> None:
        super().__init__(turns=list(turns), answers=list(answers or []))
        self.ids = itertools.count(1)
        self.server = _Server(self.answer)
        self.url = self.server.url

    def close(self) -> None:
        self.server.close()

    def answer(self, path: str, body: dict[str, Any]) -> tuple[str, Iterator[bytes] | bytes]:
        if not path.split("?")[0].endswith("/responses"):
            self.server.unhandled.append(f"POST {path}")
            return "application/json", b"{}"
        turn = self.play(path, body, scripted=bool(body.get("tools")))
        return "text/event-stream", self._stream(turn, body.get("model", "mock-model"))

    def _stream(self, turn: Turn, model: str) -> Iterator[bytes]:
        response_id = f"resp_mock{next(self.ids)}"
        shell = {"id": response_id, "object": "response", "model": model, "status": "in_progress", "output": []}
        yield _sse("response.created", {"type": "response.created", "response": shell})
        items: list[dict[str, Any]] = []
        if turn.text or not turn.calls:
            item_id = f"msg_mock{next(self.ids)}"
            message = {"type": "message", "id": item_id, "role": "assistant", "status": "in_progress", "content": []}
            yield _sse(
                "response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": message}
            )
            items.append(
                {
                    **message,
                    "status": "completed",
                    "content": [{"type": "output_text", "text": turn.text, "annotations": []}],
                }
            )
            yield _sse(
                "response.output_text.delta",
                {
                    "type": "response.output_text.delta",
                    "item_id": item_id,
                    "output_index": 0,
                    "content_index": 0,
                    "delta": turn.text,
                },
            )
        for tool in turn.calls:
            call_id = f"call_mock{next(self.ids)}"
            if tool.name == "apply_patch" and set(tool.input) == {"input"}:
                items.append(
                    {
                        "type": "custom_tool_call",
                        "id": f"ctc_{call_id}",
                        "call_id": call_id,
                        "name": tool.name,
                        "input": tool.input["input"],
                        "status": "completed",
                    }
                )
            else:
                items.append(
                    {
                        "type": "function_call",
                        "id": f"fc_{call_id}",
                        "call_id": call_id,
                        "name": tool.name,
                        "arguments": json.dumps(tool.input),
                        "status": "completed",
                    }
                )
        for index, item in enumerate(items):
            yield _sse(
                "response.output_item.done", {"type": "response.output_item.done", "output_index": index, "item": item}
            )
        usage = {
            "input_tokens": 10,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 15,
        }
        done = {**shell, "status": "completed", "output": items, "usage": usage}
        yield _sse("response.completed", {"type": "response.completed", "response": done})
