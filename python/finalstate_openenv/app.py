"""OpenEnv's own app (create_app: /ws, /mcp, /reset, /step, /state, /health, /metadata, /schema, sessions and the idle
reaper) for a finalstate task set, plus the task API (OpenEnv 0.3.0 has none) and the guards in front."""

from __future__ import annotations

import functools
from collections.abc import Iterable

from fastapi import HTTPException
from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.types import ConcurrencyConfig, EnvironmentMetadata

from .environment import FinalstateEnvironment
from .guards import Guards
from .host import EpisodeHostClient, HostRefused
from .models import FinalstateAction, FinalstateObservation


def build_app(
    host: EpisodeHostClient,
    metadata: EnvironmentMetadata,
    *,
    token: str,
    hosts: Iterable[str],
    origins: Iterable[str],
    max_sessions: int,
    session_idle_seconds: float,
):
    app = create_app(
        functools.partial(FinalstateEnvironment, host, metadata),
        FinalstateAction,
        FinalstateObservation,
        env_name="finalstate",
        concurrency_config=ConcurrencyConfig(max_concurrent_envs=max_sessions, session_timeout=session_idle_seconds),
    )

    @app.get("/tasks", tags=["Environment Info"], summary="The served task sets and their task ids")
    async def task_sets() -> dict:
        return await host.task_sets()

    @app.get("/tasks/{task_id}", tags=["Environment Info"], summary="One task: its set, domain, split, profile, tags")
    async def task(task_id: str) -> dict:
        try:
            return await host.task(task_id)
        except HostRefused as err:
            raise HTTPException(status_code=err.status, detail=str(err)) from err

    return Guards(app, token=token, hosts=hosts, origins=origins)
