"""A Python Temporal worker serving one activity by name, for the cross-language smoke test.

It proves the path the GPU policy update takes: a TypeScript workflow calls an activity by name on a task queue
that only a Python worker polls.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import platform
import signal
import socket
from dataclasses import dataclass

from temporalio import activity
from temporalio.client import Client
from temporalio.worker import Worker

from .worker_exit import exit_after_clean_shutdown


@dataclass
class EchoInput:
    text: str


@activity.defn(name="smokeEcho")
async def smoke_echo(payload: EchoInput) -> dict:
    return {
        "text": payload.text,
        "sha256": hashlib.sha256(payload.text.encode()).hexdigest(),
        "python": platform.python_version(),
        "worker": f"python@{socket.gethostname()}",
    }


async def serve(address: str, namespace: str, task_queue: str) -> None:
    client = await Client.connect(address, namespace=namespace)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    async with Worker(client, task_queue=task_queue, activities=[smoke_echo]):
        print(f"ready: polling {task_queue}", flush=True)
        await stop.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--address", default="127.0.0.1:7233")
    parser.add_argument("--namespace", default="default")
    parser.add_argument("--task-queue", required=True)
    args = parser.parse_args()
    asyncio.run(serve(args.address, args.namespace, args.task_queue))
    exit_after_clean_shutdown()


if __name__ == "__main__":
    main()
