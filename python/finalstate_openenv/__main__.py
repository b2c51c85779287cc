"""`python -m finalstate_openenv`: the OpenEnv server `finalstate env serve --openenv` starts (cli/commands/env.ts).

The secrets come in the environment, never on the command line: FINALSTATE_OPENENV_HOST_SECRET (the episode host's)
and FINALSTATE_OPENENV_TOKEN (the bearer token clients send). Prints one JSON line, {"url": ...}, once it listens.
Exits when its standard input closes: the finalstate process that started it has ended, and no server outlives it.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import threading

import h11
import uvicorn
from openenv.core.env_server.types import EnvironmentMetadata
from uvicorn.protocols.http.h11_impl import H11Protocol

from .app import build_app
from .host import EpisodeHostClient

LOOPBACK = ("127.0.0.1", "localhost")


def parse_args(argv=None):
    parser = argparse.ArgumentParser(prog="python -m finalstate_openenv")
    parser.add_argument("--host-url", required=True, help="the episode host (127.0.0.1)")
    parser.add_argument("--bind", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--max-sessions", type=int, default=8)
    parser.add_argument("--session-idle-seconds", type=float, default=300)
    parser.add_argument("--max-connections", type=int, default=64)
    parser.add_argument("--headers-timeout-seconds", type=float, default=10)
    parser.add_argument("--allowed-host", action="append", default=[])
    parser.add_argument("--allowed-origin", action="append", default=[])
    return parser.parse_args(argv)


def protocol_with_headers_timeout(seconds: float):
    """uvicorn's HTTP protocol, closing a connection that has not sent a whole request's headers within `seconds`."""

    class Protocol(H11Protocol):
        def connection_made(self, transport):
            super().connection_made(transport)
            self.loop.call_later(seconds, self._headers_late)

        def _headers_late(self):
            if self.cycle is None and self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.transport.close()

    return Protocol


def main(argv=None) -> None:
    args = parse_args(argv)
    token = os.environ.pop("FINALSTATE_OPENENV_TOKEN", "")
    secret = os.environ.pop("FINALSTATE_OPENENV_HOST_SECRET", "")
    if not token or not secret:
        sys.exit("finalstate_openenv: FINALSTATE_OPENENV_TOKEN and FINALSTATE_OPENENV_HOST_SECRET must be set")
    host = EpisodeHostClient(args.host_url, secret)
    info = host.info()
    metadata = EnvironmentMetadata(
        name=info["name"], description=info["description"], readme_content=info.get("readme"), version=info.get("version")
    )

    sock = socket.socket(socket.AF_INET6 if ":" in args.bind else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.bind, args.port))
    port = sock.getsockname()[1]
    names = {*LOOPBACK, args.bind} if args.bind in LOOPBACK else {args.bind}
    bracket = (lambda n: f"[{n}]") if ":" in args.bind else (lambda n: n)
    hosts = [f"{bracket(n)}:{port}" for n in names] + args.allowed_host
    origins = [f"http://{bracket(n)}:{port}" for n in names] + args.allowed_origin

    app = build_app(
        host,
        metadata,
        token=token,
        hosts=hosts,
        origins=origins,
        max_sessions=args.max_sessions,
        session_idle_seconds=args.session_idle_seconds,
    )
    config = uvicorn.Config(
        app,
        http=protocol_with_headers_timeout(args.headers_timeout_seconds),
        ws="websockets-sansio",
        limit_concurrency=args.max_connections,
        timeout_keep_alive=5,
        log_level="warning",
        lifespan="on",
    )

    class Server(uvicorn.Server):
        async def startup(self, sockets=None):
            await super().startup(sockets=sockets)
            url = f"http://{bracket(args.bind)}:{port}"
            print(json.dumps({"url": url}), flush=True)

    server = Server(config)

    def exit_with_parent():
        while sys.stdin.buffer.read(65536):
            pass
        server.should_exit = True

    threading.Thread(target=exit_with_parent, daemon=True, name="exit-with-parent").start()
    server.run(sockets=[sock])


if __name__ == "__main__":
    main()
