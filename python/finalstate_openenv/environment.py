"""The OpenEnv Environment of a finalstate task set: a thin adapter that forwards reset, step and close to the
episode host, which plays them on finalstate's own episode environments (runtime/openenv/episode-host.ts)."""

from __future__ import annotations

import contextlib
from typing import Any

from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import EnvironmentMetadata, State

from .host import EpisodeHostClient, HostRefused
from .models import FinalstateAction, FinalstateObservation, validation_error


class FinalstateEnvironment(Environment[FinalstateAction, FinalstateObservation, State]):
    """One OpenEnv session: at most one episode open at a time; a reset closes the one before; close tears it down."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, host: EpisodeHostClient, metadata: EnvironmentMetadata):
        super().__init__()
        self._host = host
        self._metadata = metadata
        self._episode: str | None = None
        self._steps = 0
        self._closed = False

    @staticmethod
    def _reset_params(seed, episode_id, task_id, kwargs) -> dict:
        given = {"seed": seed, "episode_id": episode_id, "task_id": task_id, **kwargs}
        return {k: v for k, v in given.items() if v is not None}

    @staticmethod
    @contextlib.contextmanager
    def _bad_input_refused():
        """The host's 400 (a reset or an action it refuses) as OpenEnv's VALIDATION_ERROR; the session goes on."""
        try:
            yield
        except HostRefused as err:
            if err.status == 400:
                raise validation_error(str(err)) from None
            raise

    def _opened(self, result: dict) -> FinalstateObservation:
        observation = FinalstateObservation.from_wire(result)
        self._episode, self._steps = observation.episode_id, 0
        return observation

    def _reaped_while_opening(self) -> bool:
        # OpenEnv counts a session active from the end of its last message, so a reset slower than the idle limit can
        # be reaped while it runs: the episode it opened is then closed here, not left to outlive its session
        return self._closed and self._episode is not None

    def _open_or_refuse(self) -> None:
        # OpenEnv's reaper closes an idle session's environment but leaves its WebSocket open: nothing more may
        # open there, or the episode would outlive the session that OpenEnv counts and closes
        if self._closed:
            raise RuntimeError("this session was closed (idle past the server's --session-idle-seconds): connect again")

    def _episode_or_refuse(self) -> str:
        self._open_or_refuse()
        if self._episode is None:
            raise RuntimeError("no episode is open in this session: reset first")
        return self._episode

    async def reset_async(
        self, seed: int | None = None, episode_id: str | None = None, task_id: str | None = None, **kwargs: Any
    ) -> FinalstateObservation:
        self._open_or_refuse()
        episode, self._episode = self._episode, None
        if episode is not None:
            await self._host.close_episode_async(episode, "reset")
        with self._bad_input_refused():
            observation = self._opened(await self._host.reset(self._reset_params(seed, episode_id, task_id, kwargs)))
        if self._reaped_while_opening():
            episode, self._episode = self._episode, None
            await self._host.close_episode_async(episode, "session closed")
            self._open_or_refuse()
        return observation

    def reset(
        self, seed: int | None = None, episode_id: str | None = None, task_id: str | None = None, **kwargs: Any
    ) -> FinalstateObservation:
        self._open_or_refuse()
        self._close_episode("reset")
        with self._bad_input_refused():
            observation = self._opened(self._host.reset_sync(self._reset_params(seed, episode_id, task_id, kwargs)))
        if self._reaped_while_opening():
            self._close_episode("session closed")
            self._open_or_refuse()
        return observation

    async def step_async(self, action: FinalstateAction, timeout_s: float | None = None, **kwargs: Any) -> FinalstateObservation:
        with self._bad_input_refused():
            result = await self._host.step(self._episode_or_refuse(), action.wire())
        self._steps += 1
        return FinalstateObservation.from_wire(result)

    def step(self, action: FinalstateAction, timeout_s: float | None = None, **kwargs: Any) -> FinalstateObservation:
        with self._bad_input_refused():
            result = self._host.step_sync(self._episode_or_refuse(), action.wire())
        self._steps += 1
        return FinalstateObservation.from_wire(result)

    @property
    def state(self) -> State:
        return State(episode_id=self._episode, step_count=self._steps)

    def get_metadata(self) -> EnvironmentMetadata:
        return self._metadata

    def _close_episode(self, why: str) -> None:
        episode, self._episode = self._episode, None
        if episode is not None:
            self._host.close_episode(episode, why)

    def close(self) -> None:
        self._closed = True
        self._close_episode("session closed")
