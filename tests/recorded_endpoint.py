"""A loopback HTTP server that replays recorded provider responses.

It is the test double for remote paid APIs (OpenAI, Anthropic): the real SDKs talk real HTTP
to it on 127.0.0.1, and it answers from a queue of (status, body, delay) the test sets up.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class RecordedEndpoint:
    def __init__(self) -> None:
        self.responses: list[tuple[int, Any, float]] = []
        self.requests: list[dict[str, Any]] = []
        self.default: tuple[int, Any, float] | None = None
        # Answers computed from the request (a model double that reads its prompt), once the queue is empty.
        self.respond: Callable[[dict[str, Any]], tuple[int, Any, float]] | None = None
        self.url = ""

    def queue(self, status: int, body: Any, delay: float = 0.0) -> None:
        self.responses.append((status, body, delay))


def openai_chat(content: str, finish_reason: str = "stop") -> dict[str, Any]:
    return {
        "id": "chatcmpl-recorded",
        "object": "chat.completion",
        "created": 0,
        "model": "recorded-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }


def anthropic_tool_use(arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "msg_recorded",
        "type": "message",
        "role": "assistant",
        "model": "recorded-model",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "answer", "input": arguments}],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 13, "output_tokens": 5},
    }


@contextmanager
def recorded_endpoint() -> Iterator[RecordedEndpoint]:
    endpoint = RecordedEndpoint()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", "0"))
            endpoint.requests.append({"path": self.path, "body": json.loads(self.rfile.read(length) or b"{}")})
            if endpoint.responses:
                status, body, delay = endpoint.responses.pop(0)
            elif endpoint.respond is not None:
                status, body, delay = endpoint.respond(endpoint.requests[-1]["body"])
            elif endpoint.default is not None:
                status, body, delay = endpoint.default
            else:
                status, body, delay = 500, {"error": {"message": "no recorded response left"}}, 0.0
            time.sleep(delay)
            payload = json.dumps(body).encode()
            try:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    endpoint.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield endpoint
    finally:
        server.shutdown()
        server.server_close()
