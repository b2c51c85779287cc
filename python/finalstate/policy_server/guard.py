"""Who may talk to the policy server, and about what.

Every route: the Host header must name the server's own bind address (or a name listed with --allowed-host), and an
Origin header, when a browser sends one, must be one of those hosts over http (or listed with --allowed-origin). That
stops a DNS-rebinding web page, which reaches a loopback server under its own name. Every POST must be
`application/json`: a cross-site form or `text/plain` fetch needs no CORS preflight, a JSON one does, and the server
answers no preflight. The admin routes (vLLM's dev-mode routes: pause, resume, collective_rpc, reset_prefix_cache,
is_paused) also need `Authorization: Bearer <token>`, the same header vLLM's `--api-key` checks. Without a token
configured they are refused altogether.

The token comes from `--admin-token-file F` (read when F exists, else generated and written there, mode 0600, so the
publisher and the server share it like the HTTP MCP token) or the environment variable FINALSTATE_POLICY_ADMIN_TOKEN.
Its format is the exported schema BearerToken (schemas/bearer-token.ts).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import re
import secrets
import socket
import stat
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path

from ..schemas import load_schema

TOKEN_ENV = "FINALSTATE_POLICY_ADMIN_TOKEN"
ADMIN_ROUTES = frozenset(
    {"/pause", "/resume", "/is_paused", "/collective_rpc", "/reset_prefix_cache", "/v1/load_lora_adapter", "/v1/unload_lora_adapter"}
)
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
WILDCARD = ("", "0.0.0.0", "::")

_TOKEN_SCHEMA = load_schema("BearerToken")
_TOKEN_PATTERN = re.compile(_TOKEN_SCHEMA["pattern"])


class GuardError(Exception):
    def __init__(self, message: str, status: HTTPStatus, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.headers = headers or {}


def check_token(token: str, where: str) -> str:
    if len(token) < _TOKEN_SCHEMA["minLength"] or not _TOKEN_PATTERN.match(token):
        raise ValueError(
            f"{where}: a bearer token is at least {_TOKEN_SCHEMA['minLength']} printable ASCII characters without spaces"
        )
    return token


def load_token_file(file: Path) -> str:
    """The token in `file`; made first (32 random bytes, base64url, mode 0600 in a 0700 folder) when there is none.

    Two processes racing to make it agree: each writes a temporary file and links it into place, and the loser reads
    the winner's. A file other users may read, a link or anything but a regular file is refused.
    """
    if not os.path.lexists(file):
        file.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = file.with_name(f".{file.name}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "w") as out:
                out.write(secrets.token_urlsafe(32) + "\n")
            with contextlib.suppress(FileExistsError):
                os.link(temporary, file)
        finally:
            temporary.unlink(missing_ok=True)
    info = os.lstat(file)
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(f"admin token file {file}: not a regular file (a link or a directory); refusing to use it")
    if info.st_mode & 0o077:
        raise ValueError(
            f"admin token file {file}: other users may read it (mode {stat.S_IMODE(info.st_mode):o}); "
            f"`chmod 600 {file}` or delete it to have a new one made"
        )
    return check_token(file.read_text().strip(), f"admin token file {file}")


def admin_token(file: str | None, environ: dict[str, str] | os._Environ = os.environ) -> str | None:
    """The admin token from --admin-token-file or FINALSTATE_POLICY_ADMIN_TOKEN (not both); None: admin routes off."""
    from_env = environ.get(TOKEN_ENV)
    if file and from_env:
        raise ValueError(f"give the admin token one way: --admin-token-file or {TOKEN_ENV}, not both")
    if from_env:
        return check_token(from_env.strip(), TOKEN_ENV)
    return load_token_file(Path(file)) if file else None


def own_hosts(bind_host: str, port: int) -> list[str]:
    """Host header values that name this server: its bind address, plus every name of the machine for a wildcard bind."""
    names = [bind_host]
    if bind_host in WILDCARD or bind_host in LOOPBACK or bind_host == "::1":
        names = list(LOOPBACK)
    if bind_host in WILDCARD:
        hostname = socket.gethostname()
        names += [hostname, socket.getfqdn()]
        with contextlib.suppress(OSError):
            names += [info[4][0] for info in socket.getaddrinfo(hostname, None, socket.AF_INET)]
    return sorted({f"{name.lower()}:{port}" for name in names})


@dataclass(frozen=True)
class Guard:
    """The checks every request passes before its route runs (see the module comment)."""

    hosts: frozenset[str]
    origins: frozenset[str]
    token: str | None

    @staticmethod
    def of(bind_host: str, port: int, token: str | None, allowed_hosts=(), allowed_origins=()) -> Guard:
        hosts = frozenset(own_hosts(bind_host, port) + [h.lower() for h in allowed_hosts])
        origins = frozenset([f"http://{h}" for h in hosts] + [o.lower().rstrip("/") for o in allowed_origins])
        return Guard(hosts, origins, token)

    def authorized(self, authorization: str | None) -> bool:
        scheme, _, given = (authorization or "").partition(" ")
        if self.token is None or scheme.lower() != "bearer" or not given:
            return False
        return hmac.compare_digest(hashlib.sha256(given.strip().encode()).digest(), hashlib.sha256(self.token.encode()).digest())

    def check(self, method: str, path: str, headers) -> None:
        """Raise GuardError (403 Host/Origin, 415 content type, 401/403 admin token) unless the request may proceed."""
        host = (headers.get("Host") or "").lower()
        if host not in self.hosts:
            raise GuardError(
                f"Invalid Host header: {host or '(none)'}; this server answers to its own address "
                "(start it with --allowed-host NAME:PORT for another name)",
                HTTPStatus.FORBIDDEN,
            )
        origin = headers.get("Origin")
        if origin is not None and origin.lower().rstrip("/") not in self.origins:
            raise GuardError(f"Invalid Origin header: {origin}", HTTPStatus.FORBIDDEN)
        if method == "POST":
            media_type = (headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
            if media_type != "application/json":
                raise GuardError(
                    f"a POST body must be sent as Content-Type: application/json (got {media_type or 'none'})",
                    HTTPStatus.UNSUPPORTED_MEDIA_TYPE,
                )
        if path in ADMIN_ROUTES:
            if self.token is None:
                raise GuardError(
                    f"the admin routes are off: this server was started without --admin-token-file or {TOKEN_ENV}",
                    HTTPStatus.FORBIDDEN,
                )
            if not self.authorized(headers.get("Authorization")):
                message = (
                    "unauthorized: wrong bearer token"
                    if headers.get("Authorization")
                    else "unauthorized: the admin routes need the header `Authorization: Bearer <token>` "
                    "(the token in the server's --admin-token-file)"
                )
                raise GuardError(message, HTTPStatus.UNAUTHORIZED, {"WWW-Authenticate": 'Bearer realm="finalstate-policy-server"'})
