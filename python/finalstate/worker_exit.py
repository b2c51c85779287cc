"""Leaving a Temporal worker process once it has shut down cleanly."""

from __future__ import annotations

import logging
import os
import sys


def exit_after_clean_shutdown() -> None:
    """Flush every stream and exit with 0 without interpreter finalization.

    The Temporal SDK's Rust core keeps native threads that can touch Python while CPython finalizes, which aborts
    the process ("PyGILState_Release: thread state ... must be current", temporalio/sdk-python#300); it happened here
    to the gpu worker in one CI run out of several, after "gpu worker stopped". Call this only after the worker has
    drained: checkpoints are already fsynced and renamed into place, so finalization has nothing left to do.
    """
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
