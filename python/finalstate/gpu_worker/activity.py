"""The gpu worker's Temporal activities: `policyUpdate` (PolicyUpdater behind Temporal's errors and heartbeats) and
`describeUpdate` (the ranks, their memory and the model's shape, for the memory preflight).

How long a failed rank takes to surface as GpuRankFailure (the update runs in a thread of its own; the activity's
thread watches it and heartbeats every HEARTBEAT_EVERY_S while rank 0 lives):
- a rank that exits (crash, OOM kill): seconds. Under gloo its connections close and the collective fails at once;
  under NCCL the collective would hang, but torchrun's agent sees the exit (every 0.1 s) and sends SIGTERM to the
  other ranks, and rank 0 then fails the update at once (`abandon`) instead of waiting in the collective;
- a rank that hangs, or a node that vanishes with its agent: the collective timeout (--collective-timeout-s), after
  which the collective fails on the ranks that waited;
- rank 0 itself dies: Temporal's heartbeat timeout (update.heartbeatTimeout), since nothing heartbeats any more.
"""

from __future__ import annotations

import concurrent.futures
import contextvars
import threading
import time
from collections.abc import Callable

from temporalio import activity
from temporalio.exceptions import ApplicationError

from ..failure_types import GPU_RANK_FAILURE, UNUSABLE_BATCH, UNUSABLE_POLICY_UPDATE_INPUT
from ..grpo import UnusableBatchError
from ..schemas import validate
from .policy_update import PolicyUpdater, UnusableInputError
from .process_group import GroupFailure

ACTIVITY_NAME = "policyUpdate"
DESCRIBE_ACTIVITY_NAME = "describeUpdate"
HEARTBEAT_EVERY_S = 5.0
_WATCH_EVERY_S = 0.2


class PolicyUpdateActivities:
    """One instance per worker process (rank 0), so the model and optimizer stay in memory between steps.

    `on_group_failure` runs when a rank failed: the process group is then unusable, so the worker must stop and its
    ranks restart together (torchrun --max-restarts) before the retried activity can run.
    """

    def __init__(self, updater: PolicyUpdater, on_group_failure: Callable[[], None] = lambda: None):
        self.updater = updater
        self.on_group_failure = on_group_failure
        self._abandoned: str | None = None
        self._abandon = threading.Event()
        self.busy = threading.Event()

    def abandon(self, reason: str) -> None:
        """From another thread: the ranks are being stopped, so the update in flight cannot finish; fail it now."""
        self._abandoned = reason
        self._abandon.set()

    @activity.defn(name=ACTIVITY_NAME)
    def policy_update(self, request: dict) -> dict:
        info = activity.info()
        activity.logger.info("policyUpdate %s step %s (attempt %d)", request.get("campaignId"), request.get("step"), info.attempt)
        context = contextvars.copy_context()
        latest: list[dict] = [{"phase": "starting"}]

        def heartbeat(details: dict) -> None:
            latest[0] = details
            context.copy().run(activity.heartbeat, details)

        outcome: concurrent.futures.Future = concurrent.futures.Future()

        def run() -> None:
            try:
                outcome.set_result(self.updater.run(request, heartbeat=heartbeat))
            except BaseException as err:  # handed to the activity's thread
                outcome.set_exception(err)

        self.busy.set()
        # A daemon thread: when a rank failed it may stay blocked in a collective; the process exits without it.
        threading.Thread(target=run, name="policy-update", daemon=True).start()
        try:
            return self._watch(outcome, latest)
        finally:
            self.busy.clear()

    def _watch(self, outcome: concurrent.futures.Future, latest: list[dict]) -> dict:
        beat_at = time.monotonic() + HEARTBEAT_EVERY_S
        while True:
            try:
                return outcome.result(timeout=_WATCH_EVERY_S)
            except concurrent.futures.TimeoutError:
                pass
            except UnusableBatchError as err:
                raise ApplicationError(f"unusable batch: {err}", type=UNUSABLE_BATCH, non_retryable=True) from err
            except UnusableInputError as err:
                raise ApplicationError(f"unusable policyUpdate input: {err}", type=UNUSABLE_POLICY_UPDATE_INPUT, non_retryable=True) from err
            except GroupFailure as err:
                raise self._rank_failure(str(err)) from None
            if self._abandon.is_set():
                raise self._rank_failure(f"{self.updater.groups}: {self._abandoned}") from None
            if time.monotonic() >= beat_at:
                activity.heartbeat(latest[0])
                beat_at = time.monotonic() + HEARTBEAT_EVERY_S

    def _rank_failure(self, message: str) -> ApplicationError:
        self.on_group_failure()
        # Without the cause chain: the gloo and FSDP stack traces under it would exceed Temporal's failure size limit,
        # which replaces the whole failure (type included) by "Failure exceeds size limit". The message names the cause.
        return ApplicationError(
            f"{message}; the gpu worker restarts its ranks and the retry resumes from the last complete checkpoint", type=GPU_RANK_FAILURE
        )

    @activity.defn(name=DESCRIBE_ACTIVITY_NAME)
    def describe_update(self, request: dict) -> dict:
        """The ranks, their memory and the shape of `baseModel` (UpdateDescription): what the memory preflight needs."""
        from .describe import describe_update

        payload = validate("DescribeUpdateInput", request, where="describeUpdate input")
        try:
            described = describe_update(self.updater.groups, payload["baseModel"])
        except (OSError, ValueError) as err:
            raise ApplicationError(f"describeUpdate: {err}", type=UNUSABLE_POLICY_UPDATE_INPUT, non_retryable=True) from err
        return validate("UpdateDescription", described, where="describeUpdate result")
