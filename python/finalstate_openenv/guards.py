"""The guards of `finalstate tasks serve-mcp --transport http`, as ASGI middleware in front of OpenEnv's app.

Every route but /health needs the bearer token: `Authorization: Bearer <token>`, or HTTP Basic with the token as the
password, which is what OpenEnv's own client sends for a base URL `http://finalstate:<token>@host:port` (it has no
other way to send a header on its WebSocket). The Host header must name this server (127.0.0.1:<port>,
localhost:<port>, the bound host) or an --allowed-host; an Origin header, when sent, must be this server's or an
--allowed-origin: that is what stops a DNS-rebinding web page. Sessions are bounded by OpenEnv's max_concurrent_envs
and its idle reaper, connections by uvicorn's limit_concurrency and the timeouts in __main__.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Iterable

from starlette.websockets import WebSocketDisconnect


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()


class Guards:
    def __init__(self, app, *, token: str, hosts: Iterable[str], origins: Iterable[str], open_paths=("/health",)):
        self.app = app
        self._token = _digest(token)
        self.hosts = {h.lower() for h in hosts}
        self.origins = {o.lower() for o in origins}
        self._open = set(open_paths)

    def _authorized(self, header: str) -> bool:
        scheme, _, value = header.partition(" ")
        scheme = scheme.lower()
        if scheme == "bearer":
            given = value.strip()
        elif scheme == "basic":
            try:
                given = base64.b64decode(value.strip(), validate=True).decode().partition(":")[2]
            except (ValueError, UnicodeDecodeError):
                return False
        else:
            return False
        return hmac.compare_digest(_digest(given), self._token)

    def refusal(self, scope) -> tuple[int, str] | None:
        """(status, why) when the request must be refused, else None."""
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        host = headers.get("host", "").lower()
        if host not in self.hosts:
            return 403, f"Host {host or '(none)'} is not this server's; pass --allowed-host to accept it"
        origin = headers.get("origin")
        if origin is not None and origin.lower() not in self.origins:
            return 403, f"Origin {origin} is not allowed; pass --allowed-origin to accept it"
        if scope.get("path") in self._open:
            return None
        authorization = headers.get("authorization")
        if authorization is None:
            return 401, (
                "unauthorized: send `Authorization: Bearer <token>` (the token in the --token-file of "
                "`finalstate env serve --openenv`), or use the base URL http://finalstate:<token>@host:port"
            )
        if not self._authorized(authorization):
            return 401, "unauthorized: wrong token"
        return None

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        refused = self.refusal(scope)
        if refused is None:
            try:
                return await self.app(scope, receive, send)
            except WebSocketDisconnect:
                # OpenEnv's /ws closes a socket its client already closed; starlette says so with this exception
                if scope["type"] != "websocket":
                    raise
                return None
        status, why = refused
        body = json.dumps({"error": why}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        if status == 401:
            headers.append((b"www-authenticate", b'Bearer realm="finalstate-openenv"'))
        if scope["type"] == "http":
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body})
        elif "websocket.http.response" in scope.get("extensions", {}):
            await send({"type": "websocket.http.response.start", "status": status, "headers": headers})
            await send({"type": "websocket.http.response.body", "body": body})
        else:
            await send({"type": "websocket.close", "code": 1008})
