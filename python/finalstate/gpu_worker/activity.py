"""The `policyUpdate` Temporal activity: PolicyUpdater behind Temporal's errors and heartbeats."""

from __future__ import annotations

from temporalio import activity
from temporalio.exceptions import ApplicationError

from ..grpo import UnusableBatchError
from .policy_update import PolicyUpdater, UnusableInputError

ACTIVITY_NAME = "policyUpdate"


class PolicyUpdateActivities:
    """One instance per worker process, so the model and optimizer stay in memory between steps."""

    def __init__(self, updater: PolicyUpdater):
        self.updater = updater

    @activity.defn(name=ACTIVITY_NAME)
    def policy_update(self, request: dict) -> dict:
        info = activity.info()
        activity.logger.info("policyUpdate %s step %s (attempt %d)", request.get("campaignId"), request.get("step"), info.attempt)
        try:
            return self.updater.run(request, heartbeat=lambda details: activity.heartbeat(details))
        except UnusableBatchError as err:
            raise ApplicationError(f"unusable batch: {err}", type="UnusableBatch", non_retryable=True) from err
        except UnusableInputError as err:
            raise ApplicationError(f"unusable policyUpdate input: {err}", type="UnusablePolicyUpdateInput", non_retryable=True) from err
