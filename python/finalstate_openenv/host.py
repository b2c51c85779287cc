"""The client of the episode host: the TypeScript process of `finalstate env serve --openenv`, which opens, plays and
tears down the episodes (runtime/openenv/host-server.ts), on 127.0.0.1 with a per-run secret."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx


class HostRefused(Exception):
    """The host refused a request (a malformed reset or action, an unknown episode or task): its message says why.
    Not a ValueError, so that OpenEnv's WebSocket loop answers with this text."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


class HostGone(Exception):
    """The episode host does not answer (its process ended): this server is stopping."""


def _answer(response: httpx.Response) -> Any:
    if response.status_code == 204:
        return None
    try:
        body = response.json()
    except ValueError:
        body = None
    if response.status_code >= 400:
        message = body.get("error") if isinstance(body, dict) else None
        raise HostRefused(message or f"the episode host answered {response.status_code}", response.status_code)
    return body


class EpisodeHostClient:
    """Both clients (sync for OpenEnv's close, async for reset and step), sharing the address and the secret."""

    def __init__(self, url: str, secret: str):
        headers = {"authorization": f"Bearer {secret}"}
        # a step waits on a tool call or the simulated user, each bounded on the host's side
        timeout = httpx.Timeout(connect=10.0, read=None, write=30.0, pool=None)
        limits = httpx.Limits(max_connections=None, max_keepalive_connections=64)
        self._sync = httpx.Client(base_url=url, headers=headers, timeout=timeout, trust_env=False)
        self._async: httpx.AsyncClient | None = None
        self._url, self._headers, self._timeout, self._limits = url, headers, timeout, limits

    def _client(self) -> httpx.AsyncClient:
        if self._async is None:  # created on the server's event loop
            self._async = httpx.AsyncClient(
                base_url=self._url, headers=self._headers, timeout=self._timeout, limits=self._limits, trust_env=False
            )
        return self._async

    async def _request(self, method: str, path: str, **kwargs) -> Any:
        try:
            return _answer(await self._client().request(method, path, **kwargs))
        except httpx.TransportError as err:
            raise HostGone(f"the episode host at {self._url} does not answer: {err}") from err

    def _request_sync(self, method: str, path: str, **kwargs) -> Any:
        try:
            return _answer(self._sync.request(method, path, **kwargs))
        except httpx.TransportError as err:
            raise HostGone(f"the episode host at {self._url} does not answer: {err}") from err

    def info(self) -> dict:
        return self._request_sync("GET", "/info")

    async def task_sets(self) -> dict:
        return await self._request("GET", "/tasks")

    async def task(self, task_id: str) -> dict:
        return await self._request("GET", f"/tasks/{quote(task_id, safe='')}")

    async def reset(self, params: dict) -> dict:
        return await self._request("POST", "/episodes", json=params)

    def reset_sync(self, params: dict) -> dict:
        return self._request_sync("POST", "/episodes", json=params)

    async def step(self, episode_id: str, action: dict) -> dict:
        return await self._request("POST", f"/episodes/{quote(episode_id, safe='')}/step", json={"action": action})

    def step_sync(self, episode_id: str, action: dict) -> dict:
        return self._request_sync("POST", f"/episodes/{quote(episode_id, safe='')}/step", json={"action": action})

    async def close_episode_async(self, episode_id: str, why: str = "closed") -> None:
        await self._request("DELETE", f"/episodes/{quote(episode_id, safe='')}", params={"why": why})

    def close_episode(self, episode_id: str, why: str = "closed") -> None:
        self._request_sync("DELETE", f"/episodes/{quote(episode_id, safe='')}", params={"why": why})
