"""The `policyUpdate` Temporal activity: PolicyUpdater behind Temporal's errors and heartbeats."""

from __future__ import annotations

import contextvars
from collections.abc import Callable

from temporalio import activity
from temporalio.exceptions import ApplicationError

from ..failure_types import GPU_RANK_FAILURE, UNUSABLE_BATCH, UNUSABLE_POLICY_UPDATE_INPUT
from ..grpo import UnusableBatchError
from .policy_update import PolicyUpdater, UnusableInputError
from .process_group import GroupFailure

ACTIVITY_NAME = "policyUpdate"


class PolicyUpdateActivities:
    """One instance per worker process (rank 0), so the model and optimizer stay in memory between steps.

    `on_group_failure` runs when a rank failed: the process group is then unusable, so the worker must stop and its
    ranks restart together (torchrun --max-restarts) before the retried activity can run.
    """

    def __init__(self, updater: PolicyUpdater, on_group_failure: Callable[[], None] = lambda: None):
        self.updater = updater
        self.on_group_failure = on_group_failure

    @activity.defn(name=ACTIVITY_NAME)
    def policy_update(self, request: dict) -> dict:
        info = activity.info()
        activity.logger.info("policyUpdate %s step %s (attempt %d)", request.get("campaignId"), request.get("step"), info.attempt)
        # Heartbeats also come from a ticker thread during long loads and saves; it needs this activity's context.
        context = contextvars.copy_context()
        try:
            return self.updater.run(request, heartbeat=lambda details: context.copy().run(activity.heartbeat, details))
        except UnusableBatchError as err:
            raise ApplicationError(f"unusable batch: {err}", type=UNUSABLE_BATCH, non_retryable=True) from err
        except UnusableInputError as err:
            raise ApplicationError(f"unusable policyUpdate input: {err}", type=UNUSABLE_POLICY_UPDATE_INPUT, non_retryable=True) from err
        except GroupFailure as err:
            self.on_group_failure()
            # Without the cause chain: the gloo and FSDP stack traces under it would exceed Temporal's failure size limit,
            # which replaces the whole failure (type included) by "Failure exceeds size limit". The message names the cause.
            message = f"{err}; the gpu worker restarts its ranks and the retry resumes from the last complete checkpoint"
            raise ApplicationError(message, type=GPU_RANK_FAILURE) from None
