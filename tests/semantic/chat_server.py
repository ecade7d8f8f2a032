"""A local OpenAI-compatible chat-completions server that plays a script of
answers (valid JSON, invalid JSON, 429, 5xx, a hang) and records requests."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    content: str | None = None  # the assistant message; None with a non-200 status
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


@dataclass
class ChatServer:
    url: str
    script: list[Reply]
    requests: list[dict[str, Any]]


def answer(
    verdict: str, ids: list[str], unsupported: list[str] | None = None, confidence: float = 0.9
) -> Reply:
    body = {"verdict": verdict, "evidence_citation_ids": ids, "unsupported_parts": unsupported or [],
            "confidence": confidence}  # fmt: skip
    return Reply(content=json.dumps(body))


@contextmanager
def chat_server(script: list[Reply]) -> Iterator[ChatServer]:
    state = ChatServer("", list(script), [])

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            request = json.loads(self.rfile.read(length))
            request["_path"] = self.path
            request["_auth"] = self.headers.get("Authorization")
            state.requests.append(request)
            reply = state.script.pop(0) if state.script else Reply(500)
            time.sleep(reply.delay_s)
            if reply.status == 200:
                payload = {"id": "x", "object": "chat.completion", "model": request["model"],
                           "choices": [{"index": 0, "finish_reason": "stop",
                                        "message": {"role": "assistant", "content": reply.content}}]}  # fmt: skip
            else:
                payload = {"error": {"message": "scripted", "code": reply.status}}
            data = json.dumps(payload).encode()
            try:
                self.send_response(reply.status)
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client timed out and left

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
