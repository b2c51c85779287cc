import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import thinkingbox

from finalstate_thinkingbox.sidecar import answer


@pytest.fixture(scope="session")
def dataset() -> Path:
    """The shared sample dataset, in the copy infra/setup-thinkingbox.sh installed ThinkingBox from."""
    return Path(thinkingbox.__file__).resolve().parents[2] / "thinkingbox-data" / "dataset"


def ask(request: dict) -> dict:
    """One request through the sidecar's own dispatch, JSON both ways as on the pipe."""
    return json.loads(json.dumps(answer(json.dumps(request))))


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class FakeChatServer:
    """An OpenAI-compatible /v1/chat/completions answering reply(request body) -> content (or an int: that status)."""

    def __init__(self, reply):
        self.reply = reply
        self.requests: list[dict] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append({"path": self.path, "body": body, "authorization": self.headers.get("Authorization")})
                content = fake.reply(body)
                if isinstance(content, int):
                    self.send_response(content)
                    self.end_headers()
                    return
                data = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}],
                                   "usage": {"prompt_tokens": 11, "completion_tokens": 1, "total_tokens": 12}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def endpoint(self, **extra) -> dict:
        return {"baseUrl": self.base_url, "model": "judge-model", **extra}


@pytest.fixture
def chat_server():
    servers = []

    def start(reply):
        servers.append(FakeChatServer(reply))
        return servers[-1]

    yield start
    for server in servers:
        server.server.shutdown()
        server.server.server_close()
