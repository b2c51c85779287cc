"""`python -m finalstate_openenv.client_bridge`: finalstate's episodes on OpenEnv servers, through OpenEnv's own client.

A long-lived process of an episode worker (environment/openenv/bridge.ts). It reads one JSON request a line on stdin
and answers each with one JSON line on stdout carrying the request's `id`, in any order: every request runs as its
own task, so a session that hangs holds up no other. Each session is one OpenEnv client (openenv.core's
GenericEnvClient: its WebSocket `/ws`, reset, step, close), held here between requests; requests on one session run
one at a time.

  {"id", "op": "open", "url", "token"?, "reset": {...}, "connectTimeoutS", "stepTimeoutS"}
      → {"id", "ok": true, "session", "result": {"observation", "reward", "done"}}   (connect, then reset)
  {"id", "op": "step", "session", "action": {...}} → {"id", "ok": true, "result": {...}}
  {"id", "op": "close", "session"} → {"id", "ok": true}
  a failure → {"id", "ok": false, "kind", "message"}

Failure kinds: unreachable (no connection: refused, a name that does not resolve, a 5xx handshake, a connect
timeout), refused (a 4xx handshake: a wrong token or path), lost (the connection closed mid-session: the server died),
timeout (no answer within stepTimeoutS; the session is closed), server (the server's error response about itself:
EXECUTION_ERROR, CAPACITY_REACHED, FACTORY_ERROR, SESSION_ERROR), rejected (its error response about the message:
VALIDATION_ERROR, INVALID_JSON, UNKNOWN_TYPE), no_session (a session this process does not hold), bad_request.
A session whose request failed with anything but rejected is closed: an OpenEnv session dies with its WebSocket.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import re
import sys
from typing import Any

from openenv.core.generic_client import GenericEnvClient
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

REJECTED_CODES = {"VALIDATION_ERROR", "INVALID_JSON", "UNKNOWN_TYPE"}
SERVER_ERROR = re.compile(r"^Server error: (?P<message>.*) \(code: (?P<code>[A-Z_]+)\)$", re.S)


class BridgeFailure(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class BearerClient(GenericEnvClient):
    """OpenEnv's GenericEnvClient; with a token, its WebSocket handshake carries `Authorization: Bearer <token>`."""

    def __init__(self, base_url: str, token: str | None, **kwargs: Any) -> None:
        super().__init__(base_url, **kwargs)
        self._token = token
        self._connected_once = False

    async def _ensure_connected(self) -> None:
        # OpenEnv's client reconnects on a send after its connection is gone: that would be a fresh server session,
        # never reset, standing in for the one that died
        if self._ws is None and self._connected_once:
            raise BridgeFailure("lost", "the session's connection is closed")
        await super()._ensure_connected()

    async def connect(self) -> BearerClient:
        self._connected_once = True
        if self._token is None:
            await super().connect()
            return self
        if self._ws is None:
            try:
                self._ws = await ws_connect(
                    self._ws_url,
                    open_timeout=self._connect_timeout,
                    max_size=self._max_message_size,
                    additional_headers={"Authorization": f"Bearer {self._token}"},
                    # as OpenEnv's own connect does: no proxy for the loopback
                    **({"proxy": None} if re.search(r"//(localhost|127\.0\.0\.1)[:/]", self._ws_url) else {}),
                )
            except Exception as e:
                raise ConnectionError(f"Failed to connect to {self._ws_url}: {e}") from e
        return self


def classify(err: BaseException, where: str) -> BridgeFailure:
    """What a failure of OpenEnv's client is, for the episode: see the module's failure kinds."""
    if isinstance(err, BridgeFailure):
        return err
    cause = err.__cause__ if isinstance(err, ConnectionError) and err.__cause__ is not None else err
    if isinstance(err, ConnectionError) and isinstance(cause, InvalidStatus):
        status = cause.response.status_code
        kind = "refused" if 400 <= status < 500 else "unreachable"
        return BridgeFailure(kind, f"{where}: the WebSocket handshake was answered HTTP {status} {cause.response.reason_phrase}")
    if isinstance(err, ConnectionError) and not isinstance(err, ConnectionResetError):
        return BridgeFailure("unreachable", f"{where}: {type(cause).__name__}: {cause}")
    if isinstance(err, ConnectionClosed):
        return BridgeFailure("lost", f"{where}: the connection closed ({err})")
    if isinstance(err, (TimeoutError, asyncio.TimeoutError)):
        return BridgeFailure("timeout", f"{where}: no answer in time")
    if isinstance(err, OSError):
        return BridgeFailure("lost", f"{where}: {type(err).__name__}: {err}")
    if isinstance(err, RuntimeError) and (m := SERVER_ERROR.match(str(err))):
        kind = "rejected" if m["code"] in REJECTED_CODES else "server"
        return BridgeFailure(kind, f"{where}: the server answered {m['code']}: {m['message']}")
    return BridgeFailure("server", f"{where}: {type(err).__name__}: {err}")


class Session:
    def __init__(self, client: BearerClient, url: str, step_timeout: float) -> None:
        self.client = client
        self.url = url
        self.step_timeout = step_timeout
        self.lock = asyncio.Lock()


class Bridge:
    def __init__(self) -> None:
        self.sessions: dict[str, Session] = {}
        self.ids = itertools.count(1)

    async def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        op = request.get("op")
        if op == "open":
            return await self.open(request)
        if op in ("step", "close"):
            session = self.sessions.get(str(request.get("session")))
            if session is None:
                raise BridgeFailure(
                    "no_session", f"no OpenEnv session {request.get('session')} here (it was closed, or this bridge restarted)"
                )
            if op == "close":
                await self.close(str(request["session"]))
                return {}
            action = request.get("action")
            if not isinstance(action, dict):
                raise BridgeFailure("bad_request", "a step needs an action object")
            return {
                "result": await self.exchange(
                    str(request["session"]), session, lambda: session.client.step(action), f"step {action.get('type')}"
                )
            }
        raise BridgeFailure("bad_request", f"unknown op {op!r}")

    async def open(self, request: dict[str, Any]) -> dict[str, Any]:
        url = request.get("url")
        reset = request.get("reset") or {}
        if not isinstance(url, str) or not isinstance(reset, dict):
            raise BridgeFailure("bad_request", "open needs a url and reset kwargs")
        step_timeout = float(request.get("stepTimeoutS") or 120)
        client = BearerClient(
            url,
            request.get("token"),
            connect_timeout_s=float(request.get("connectTimeoutS") or 10),
            message_timeout_s=step_timeout,
        )
        sid = f"s{next(self.ids)}"
        session = Session(client, url, step_timeout)
        self.sessions[sid] = session
        try:
            await asyncio.wait_for(client.connect(), timeout=float(request.get("connectTimeoutS") or 10) + 5)
        except BaseException as err:
            await self.close(sid)
            raise classify(err, f"connecting to {url}") from err
        result = await self.exchange(sid, session, lambda: client.reset(**reset), "reset")
        return {"session": sid, "result": result}

    async def exchange(self, sid: str, session: Session, call: Any, what: str) -> dict[str, Any]:
        async with session.lock:
            try:
                # OpenEnv's client times each receive itself; this bounds the send as well
                result = await asyncio.wait_for(call(), timeout=session.step_timeout + 5)
            except BaseException as err:
                failure = classify(err, f"{what} on {session.url}")
                if failure.kind != "rejected":
                    await self.close(sid)
                raise failure from err
        return {"observation": result.observation, "reward": result.reward, "done": result.done}

    async def close(self, sid: str) -> None:
        session = self.sessions.pop(sid, None)
        if session is None:
            return
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(session.client.close(), timeout=5)

    async def close_all(self) -> None:
        await asyncio.gather(*(self.close(sid) for sid in list(self.sessions)))


def answer(line: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(line, default=str) + "\n")
    sys.stdout.flush()


async def serve(bridge: Bridge, raw: bytes) -> None:
    try:
        request = json.loads(raw)
        if not isinstance(request, dict):
            raise ValueError("not an object")
    except ValueError as err:
        answer({"id": None, "ok": False, "kind": "bad_request", "message": f"a request that is not a JSON object: {err}"})
        return
    rid = request.get("id")
    try:
        answer({"id": rid, "ok": True, **(await bridge.handle(request))})
    except BridgeFailure as err:
        answer({"id": rid, "ok": False, "kind": err.kind, "message": str(err)})
    except Exception as err:
        answer({"id": rid, "ok": False, "kind": "server", "message": f"{type(err).__name__}: {err}"})


async def main() -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=64 * 1024 * 1024)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    bridge = Bridge()
    tasks: set[asyncio.Task[None]] = set()
    while raw := await reader.readline():
        task = asyncio.create_task(serve(bridge, raw))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    # stdin closed: the worker is gone; no session outlives it
    for task in tasks:
        task.cancel()
    await bridge.close_all()


if __name__ == "__main__":
    asyncio.run(main())
