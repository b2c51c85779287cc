"""The `logMetrics` Temporal activity, served by the gpu worker next to `policyUpdate`."""

from __future__ import annotations

from temporalio import activity
from temporalio.exceptions import ApplicationError

from ..schemas import SchemaError
from .metrics_logger import MetricsLogger

ACTIVITY_NAME = "logMetrics"


class TrackingActivities:
    def __init__(self, logger: MetricsLogger):
        self.logger = logger

    @activity.defn(name=ACTIVITY_NAME)
    def log_metrics(self, request: dict) -> dict:
        try:
            return self.logger.log(request)
        except (SchemaError, ValueError) as err:
            raise ApplicationError(str(err), type="UnusableLogMetricsInput", non_retryable=True) from err
