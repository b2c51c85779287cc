"""`finalstate env serve --openenv` started as a user starts it, on the shared stack's PostgreSQL (`finalstate dev up`),
and PostgreSQL asked directly what is left of an episode. Waits are keyed on what the server logs, never on a delay."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
TASKS = ROOT / "tasks" / "retail" / "retail-train-mini.jsonl"
SERVE = ["env", "serve", "--openenv", "--domain", "retail", "--split", "train", "--profile", "mini"]


def golden_task(index: int = 0, **want) -> dict:
    """A task of the served set without rubrics (its golden calls alone make reward 1), the index-th such one."""
    tasks = [json.loads(line) for line in TASKS.read_text().splitlines()]
    fit = [t for t in tasks if not t.get("rubrics") and all(t.get(k) == v for k, v in want.items())]
    return fit[index]


class Served:
    """One `finalstate env serve --openenv` process: its URL, token, and the lines it writes to stderr."""

    def __init__(self, *extra: str, serve: list[str] = SERVE):
        self.dir = tempfile.mkdtemp(prefix="finalstate-openenv-test-")
        token_file = os.path.join(self.dir, "token")
        self.process = subprocess.Popen(
            ["node", "bin/finalstate.js", *serve, "--token-file", token_file, *extra],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: list[str] = []
        self._eof = False
        self._changed = threading.Condition()
        threading.Thread(target=self._read_stderr, daemon=True).start()
        ready = self.process.stdout.readline()
        if not ready:
            self.process.wait(timeout=30)
            raise RuntimeError(f"env serve exited ({self.process.returncode}):\n" + "\n".join(self.lines[-40:]))
        info = json.loads(ready)
        self.url = info["url"]
        self.token = Path(info["tokenFile"]).read_text().strip()
        self.authed_url = self.url.replace("http://", f"http://finalstate:{self.token}@")

    def _read_stderr(self):
        for line in self.process.stderr:
            with self._changed:
                self.lines.append(line.rstrip("\n"))
                self._changed.notify_all()
        with self._changed:
            self._eof = True
            self._changed.notify_all()

    def wait_for_line(self, pattern: str, timeout: float = 60) -> re.Match:
        """The first stderr line matching `pattern`, once the server has written it."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for line in self.lines:
                    if found := regex.search(line):
                        return found
                left = deadline - time.monotonic()
                if left <= 0 or self._eof:
                    raise AssertionError(f"no line /{pattern}/ in {timeout} s:\n" + "\n".join(self.lines[-40:]))
                self._changed.wait(left)

    def python_pid(self) -> int:
        """The pid of its OpenEnv server (python -m finalstate_openenv), its child."""
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children").read_text().split()
        for pid in children:
            if "finalstate_openenv" in Path(f"/proc/{pid}/cmdline").read_text():
                return int(pid)
        raise AssertionError("env serve has no finalstate_openenv child")

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture(scope="module")
def served():
    server = Served("--max-sessions", "4")
    yield server
    server.stop()


def postgres(sql: str, *params) -> list[dict]:
    """Rows of one statement on the stack's PostgreSQL, as its admin (through the project's own connection code)."""
    script = """
      import { loadConfig } from './dist/workers/config.js';
      import { openAdminPool } from './dist/environment/admin-pool.js';
      const [sql, params] = JSON.parse(process.argv[1]);
      const pool = openAdminPool(loadConfig(), 1);
      try { console.log(JSON.stringify((await pool.query(sql, params)).rows)); } finally { await pool.end(); }
    """
    out = subprocess.run(
        ["node", "--input-type=module", "-e", script, json.dumps([sql, list(params)])],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)
