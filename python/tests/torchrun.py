"""Test helper: the gpu worker under torchrun (gloo, CPU), as a child process of the test."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import finalstate

PACKAGE_ROOT = Path(finalstate.__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def torchrun_command(nproc: int, *worker_args: str, max_restarts: int = 0) -> list[str]:
    return [
        sys.executable, "-m", "torch.distributed.run",
        "--nproc-per-node", str(nproc), "--master-addr", "127.0.0.1", "--master-port", str(free_port()),
        "--max-restarts", str(max_restarts),
        "-m", "finalstate.gpu_worker", "--device", "cpu", *worker_args,
    ]  # fmt: skip


def worker_env() -> dict:
    """The environment of the child: this test's finalstate package, one thread per rank."""
    return {**os.environ, "PYTHONPATH": str(PACKAGE_ROOT), "OMP_NUM_THREADS": "1"}


def start_torchrun(nproc: int, *worker_args: str, max_restarts: int = 0) -> subprocess.Popen:
    """torchrun in its own process group, so that the test can kill it with every rank."""
    return subprocess.Popen(
        torchrun_command(nproc, *worker_args, max_restarts=max_restarts),
        env=worker_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (torchrun starts its ranks in sessions of their own)."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children = [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
        for child in children:
            found += [child, *descendants(child)]
    return found


def rank_pids(process: subprocess.Popen) -> list[int]:
    return [pid for pid in descendants(process.pid) if "finalstate.gpu_worker" in _cmdline(pid)]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def kill_group(process: subprocess.Popen) -> None:
    """SIGKILL torchrun and every rank at once, as a machine failure would."""
    for pid in [process.pid, *descendants(process.pid)]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    process.wait()


def node_commands(nodes: int, nproc: int, *worker_args: str) -> list[list[str]]:
    """One torchrun agent per simulated node, all on this machine (static rendezvous on one port): each agent's
    ranks see LOCAL_WORLD_SIZE `nproc`, as on `nodes` machines."""
    port = str(free_port())

    def agent(node: int) -> list[str]:
        return [
            sys.executable, "-m", "torch.distributed.run", "--nnodes", str(nodes), "--node-rank", str(node),
            "--nproc-per-node", str(nproc), "--master-addr", "127.0.0.1", "--master-port", port, "--max-restarts", "0",
            "-m", "finalstate.gpu_worker", "--device", "cpu", *worker_args,
        ]  # fmt: skip

    return [agent(node) for node in range(nodes)]
