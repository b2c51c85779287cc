"""The adapter's own rule, where only a stand-in host can place the event: OpenEnv's reaper closing a session while its
reset is still opening an episode (the served tests show reaping between messages on the real host)."""

from __future__ import annotations

import asyncio

import pytest
from openenv.core.env_server.types import EnvironmentMetadata

from finalstate_openenv.environment import FinalstateEnvironment


class ReapedDuringReset:
    """A stand-in episode host whose reset lets OpenEnv's reaper close the session before it answers."""

    def __init__(self):
        self.env: FinalstateEnvironment | None = None
        self.closed: list[tuple[str, str]] = []

    def _opened(self) -> dict:
        self.env.close()  # the reaper's _destroy_session, run while the reset is in flight
        return {"observation": {"task_id": "t", "episode_id": "e-1"}, "reward": None, "done": False}

    async def reset(self, params: dict) -> dict:
        return self._opened()

    def reset_sync(self, params: dict) -> dict:
        return self._opened()

    async def close_episode_async(self, episode_id: str, why: str = "closed") -> None:
        self.closed.append((episode_id, why))

    def close_episode(self, episode_id: str, why: str = "closed") -> None:
        self.closed.append((episode_id, why))


@pytest.mark.parametrize("sync", [False, True])
def test_an_episode_opened_by_a_reset_the_reaper_overtook_is_closed(sync):
    host = ReapedDuringReset()
    env = host.env = FinalstateEnvironment(host, EnvironmentMetadata(name="t", description="t"))
    with pytest.raises(RuntimeError, match="this session was closed"):
        env.reset(task_id="t") if sync else asyncio.run(env.reset_async(task_id="t"))
    assert host.closed == [("e-1", "session closed")]
    assert env.state.episode_id is None
