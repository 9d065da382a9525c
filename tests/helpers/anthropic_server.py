"""A small Anthropic Messages API on 127.0.0.1 for tests: the real ``anthropic`` client talks to it over HTTP.

``POST /v1/messages`` answers from a script of steps (``FakeAnthropic.script``), then by default "rewrites" the
request: it returns the title and description it was given as ``# title`` + description, which is what a
faithful model would keep. Steps: ``("status", code, error_type)`` for an API error, ``("sleep", seconds)`` to
outlast the client's timeout, ``("reply", text)`` for a fixed answer. Every request body is logged.
"""

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

API_KEY = "sk-ant-test-KEY-0123456789"


class FakeAnthropic:
    """Start with ``start()``; ``url`` goes into ``ANTHROPIC_BASE_URL``."""

    def __init__(self, input_tokens: int = 1200, output_tokens: int = 300):
        self.script: list[tuple] = []
        self.requests: list[dict] = []
        self.keys: list[str | None] = []
        self.usage = (input_tokens, output_tokens)
        self.lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> "FakeAnthropic":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def next_step(self) -> tuple | None:
        with self.lock:
            return self.script.pop(0) if self.script else None


def rewrite(request: dict) -> str:
    """The default answer: ``# <Title>`` and the description from the request's user message."""
    content = request["messages"][0]["content"]
    title = re.search(r"^Title: (.*)$", content, re.M).group(1)
    body = content.split("Description (references already removed):\n", 1)[1]
    body = body.split("\n\nPublic names the change touches:", 1)[0].strip()
    return f"# {title}\n\n{body}\n" if body != "(no description)" else f"# {title}\n"


def _handler(state: FakeAnthropic):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            request = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            auth = self.headers.get("Authorization", "")
            key = self.headers.get("x-api-key") or (auth[7:] if auth.startswith("Bearer ") else None)
            with state.lock:
                state.requests.append(request)
                state.keys.append(key)
            step = state.next_step()
            if step and step[0] == "sleep":
                time.sleep(step[1])
                step = None
            if step and step[0] == "status":
                _, code, kind = step
                return self._send(code, {"type": "error", "error": {"type": kind, "message": kind}},
                                  {"retry-after": "0"})
            if key != API_KEY:  # the SDK sends `x-api-key` or `Authorization: Bearer`, by version
                return self._send(401, {"type": "error", "error": {"type": "authentication_error",
                                                                   "message": "invalid x-api-key"}})
            text = step[1] if step and step[0] == "reply" else rewrite(request)
            self._send(200, {
                "id": f"msg_{len(state.requests)}", "type": "message", "role": "assistant",
                "model": request["model"], "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn", "stop_sequence": None,
                "usage": {"input_tokens": state.usage[0], "output_tokens": state.usage[1]}})

        def _send(self, code, body, headers=None):
            raw = json.dumps(body).encode()
            try:
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(raw)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout test)

    return Handler
