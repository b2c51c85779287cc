"""`python -m finalstate.gpu_worker`: serve `policyUpdate` on the GPU task queue until SIGINT/SIGTERM.

Alone it is one rank (world size 1). Under `torchrun --nnodes N --nproc-per-node G -m finalstate.gpu_worker ...`
rank 0 is the Temporal worker and the other ranks follow it, update by update. `--run-updates FILE...` runs the
PolicyUpdateInput JSON files in order without Temporal (offline replays, tests, benchmarks) and prints one
PolicyUpdateResult JSON line per file.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import signal
import sys
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path

from ..worker_exit import exit_after_clean_shutdown
from .process_group import GroupFailure, start_process_groups

log = logging.getLogger("finalstate.gpu_worker")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m finalstate.gpu_worker", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task-queue", default="gpu", help="Temporal task queue (default: gpu)")
    parser.add_argument("--address", default="127.0.0.1:7233", help="Temporal frontend host:port")
    parser.add_argument("--namespace", default="default")
    parser.add_argument("--device", default=None, help="torch device type (default: cuda when available, else cpu); each rank takes cuda:LOCAL_RANK")
    parser.add_argument("--graceful-shutdown-s", type=float, default=30.0, help="time a running update gets to finish on shutdown")
    parser.add_argument(
        "--collective-timeout-s",
        type=float,
        default=600.0,
        help="a collective of the update that waits longer than this fails (a dead or stuck rank); default 600",
    )
    parser.add_argument("--run-updates", nargs="+", type=Path, metavar="FILE", help="run these PolicyUpdateInput files, then exit")
    return parser.parse_args(argv)


async def serve(args: argparse.Namespace, updater) -> bool:
    """Rank 0: the Temporal worker. Returns False when it stopped because the process group broke."""
    from temporalio.client import Client
    from temporalio.worker import Worker

    from ..tracking import MetricsLogger
    from ..tracking.activity import TrackingActivities
    from .activity import PolicyUpdateActivities

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    broken = False

    def group_failed() -> None:
        nonlocal broken
        broken = True
        loop.call_soon_threadsafe(stop.set)

    activities = PolicyUpdateActivities(updater, on_group_failure=group_failed)

    def stop_signal(name: str) -> None:
        # Under torchrun a SIGTERM stops every rank together (a rank exited, or the job is stopping): an update in
        # flight cannot finish on the others, so it fails now with GpuRankFailure rather than when its collective times out.
        if updater.groups.world_size > 1 and activities.busy.is_set():
            activities.abandon(f"{name}: torchrun is stopping the ranks (a rank exited, or the job is stopping)")
        else:
            stop.set()

    # logMetrics shares rank 0's worker: its payloads are a few scalars, and it runs right after each update.
    tracking = TrackingActivities(MetricsLogger())
    client = await Client.connect(args.address, namespace=args.namespace)
    # One update at a time: the model, optimizer and accelerator are shared by every call.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="policy-update") as executor:
        worker = Worker(
            client,
            task_queue=args.task_queue,
            activities=[activities.policy_update, activities.describe_update, tracking.log_metrics],
            activity_executor=executor,
            max_concurrent_activities=1,
            graceful_shutdown_timeout=timedelta(seconds=args.graceful_shutdown_s),
        )
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop_signal, sig.name)
        log.info("gpu worker polling task queue %s on %s (namespace %s)", args.task_queue, args.address, args.namespace)
        async with worker:
            print(f"gpu worker ready on task queue {args.task_queue} ({updater.groups})", flush=True)
            await stop.wait()
            if broken:
                log.error("a rank failed: stopping so that torchrun restarts every rank")
            else:
                log.info("shutting down: finishing the running update (up to %.0f s)", args.graceful_shutdown_s)
    tracking.logger.close()
    return not broken


def run_updates(files: list[Path], updater) -> None:
    for file in files:
        print(json.dumps(updater.run(json.loads(file.read_text()))), flush=True)


def main(argv: list[str] | None = None) -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    args = parse_args(argv)
    from .policy_update import PolicyUpdater

    groups = start_process_groups(args.device, timeout=timedelta(seconds=args.collective_timeout_s))
    updater = PolicyUpdater(groups)
    healthy = True
    try:
        if not groups.is_rank0:
            updater.follow()
        elif args.run_updates:
            run_updates(args.run_updates, updater)
        else:
            healthy = asyncio.run(serve(args, updater))
        if groups.is_rank0 and healthy:
            updater.stop_followers()
    except GroupFailure as err:
        log.error("%s", err)
        healthy = False
    except RuntimeError as err:  # a collective of an idle rank failed: its peer is gone
        log.error("%s: %s", groups, err)
        healthy = False
    log.info("gpu worker %s stopped%s", groups, "" if healthy else " (process group broken)")
    if healthy:
        exit_after_clean_shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(1)  # a broken process group cannot be torn down cleanly; torchrun restarts the ranks


if __name__ == "__main__":
    main()
