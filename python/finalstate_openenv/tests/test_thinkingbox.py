"""A ThinkingBox task set served over OpenEnv: the episode plays on ThinkingBox's own servers through the same
EpisodeEnvironment seam, graded by ThinkingBox's test runner. Needs ThinkingBox (THINKINGBOX_HOME, or
../shared/thinkingbox, and npm run setup): skipped without it, except where FINALSTATE_THINKINGBOX=required (CI)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import tempfile
from pathlib import Path

import pytest
from openenv.core.generic_client import GenericEnvClient

from .conftest import ROOT, Served

RETAIL = ROOT / "tasks" / "thinkingbox" / "test_case" / "finalstate_sandbox_external_retail.py"


@pytest.fixture(scope="module")
def thinkingbox_set() -> Path:
    out = Path(tempfile.mkdtemp(prefix="finalstate-openenv-tb-")) / "thinkingbox-train.jsonl"
    imported = subprocess.run(
        ["node", "bin/finalstate.js", "tasks", "import-thinkingbox", "--tests", str(RETAIL), "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if imported.returncode != 0:
        why = f"ThinkingBox tasks could not be imported: {imported.stderr.strip()[-600:]}"
        if os.environ.get("FINALSTATE_THINKINGBOX") == "required" or "THINKINGBOX_HOME" not in imported.stderr:
            pytest.fail(why)
        pytest.skip(why)
    return out


def test_a_thinkingbox_episode_is_graded_by_thinkingbox(thinkingbox_set):
    task = json.loads(thinkingbox_set.read_text().splitlines()[0])
    served = Served(serve=["env", "serve", "--openenv", "--dir", str(thinkingbox_set.parent)])

    async def episode():
        async with GenericEnvClient(base_url=served.authed_url, message_timeout_s=300) as env:
            first = await env.reset(task_id=task["id"])
            for call in task["golden"]:
                step = await env.step({"type": "call_tool", "tool_name": call["tool"], "arguments": call["arguments"]})
                assert "error" not in step.observation, step.observation
            return first, await env.step({"type": "finish"})

    try:
        first, graded = asyncio.run(episode())
    finally:
        served.stop()
    assert first.observation["user_message"] == task["query"]
    assert {c["tool"] for c in task["golden"]} <= {t["name"] for t in first.observation["tools"]}
    assert graded.done is True and graded.reward == 1, graded.observation
    assert graded.observation["finish_reason"] == "agent_done"
