"""`python -m finalstate.gpu_worker`: serve `policyUpdate` on the GPU task queue until SIGINT/SIGTERM."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

from temporalio.client import Client
from temporalio.worker import Worker

from ..tracking import MetricsLogger
from ..tracking.activity import TrackingActivities
from ..worker_exit import exit_after_clean_shutdown
from .activity import PolicyUpdateActivities
from .policy_update import PolicyUpdater


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m finalstate.gpu_worker", description=__doc__)
    parser.add_argument("--task-queue", default="gpu", help="Temporal task queue (default: gpu)")
    parser.add_argument("--address", default="127.0.0.1:7233", help="Temporal frontend host:port")
    parser.add_argument("--namespace", default="default")
    parser.add_argument("--device", default=None, help="torch device (default: cuda when available, else cpu)")
    parser.add_argument("--graceful-shutdown-s", type=float, default=30.0, help="time a running update gets to finish on shutdown")
    return parser.parse_args(argv)


async def serve(args: argparse.Namespace) -> None:
    import torch

    device = torch.device(args.device) if args.device else None
    activities = PolicyUpdateActivities(PolicyUpdater(device))
    # logMetrics shares the worker: its payloads are a few scalars, and it runs right after each update.
    tracking = TrackingActivities(MetricsLogger())
    client = await Client.connect(args.address, namespace=args.namespace)
    # One update at a time: the model, optimizer and accelerator are shared by every call.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="policy-update") as executor:
        worker = Worker(
            client,
            task_queue=args.task_queue,
            activities=[activities.policy_update, tracking.log_metrics],
            activity_executor=executor,
            max_concurrent_activities=1,
            graceful_shutdown_timeout=timedelta(seconds=args.graceful_shutdown_s),
        )
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        logging.info("gpu worker polling task queue %s on %s (namespace %s)", args.task_queue, args.address, args.namespace)
        async with worker:
            print(f"gpu worker ready on task queue {args.task_queue}", flush=True)
            await stop.wait()
            logging.info("shutting down: finishing the running update (up to %.0f s)", args.graceful_shutdown_s)
    tracking.logger.close()
    logging.info("gpu worker stopped")


def main(argv: list[str] | None = None) -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    asyncio.run(serve(parse_args(argv)))
    exit_after_clean_shutdown()


if __name__ == "__main__":
    main()
