"""The TRL example's tests, in .venv-trl (test/run.sh's python tier): the tools TRL sees, an infrastructure failure
given no reward, and the whole example, CI-sized, on the shared stack's PostgreSQL."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from transformers.utils import get_json_schema

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

import train  # noqa: E402

REFUND = {
    "name": "create_refund",
    "description": "Refund money on an order.",
    "input_schema": {
        "type": "object",
        "properties": {
            "order_id": {"type": "string"},
            "amount": {"type": "number", "exclusiveMinimum": 0},
            "reason": {"type": "string", "enum": ["late_delivery_compensation", "goodwill"]},
            "note": {"type": "string", "description": "Shown to the customer."},
            "items": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["order_id", "amount", "reason"],
    },
}


def test_a_tool_becomes_a_method_whose_schema_is_the_tools():
    schema = get_json_schema(train.tool_method(REFUND))["function"]
    assert schema["name"] == "create_refund" and schema["description"] == "Refund money on an order."
    params = schema["parameters"]
    assert params["required"] == ["order_id", "amount", "reason"]
    assert {k: v["type"] for k, v in params["properties"].items()} == {
        "order_id": "string", "amount": "number", "reason": "string", "note": "string", "items": "array",
    }
    assert params["properties"]["reason"]["enum"] == ["late_delivery_compensation", "goodwill"]
    assert params["properties"]["items"]["items"] == {"type": "string"}
    assert params["properties"]["note"]["description"] == "Shown to the customer."


def test_a_call_passes_the_arguments_given_and_leaves_out_the_optional_ones_not_given():
    calls = []

    class Recorder:
        def _call_tool(self, name, arguments):
            calls.append((name, arguments))
            return "ok"

    method = train.tool_method(REFUND)
    assert method(Recorder(), order_id="ORD-1", amount=5.0, reason="goodwill", note=None) == "ok"
    assert calls == [("create_refund", {"order_id": "ORD-1", "amount": 5.0, "reason": "goodwill"})]


def test_a_tool_whose_name_is_no_python_identifier_is_refused():
    with pytest.raises(ValueError, match="Python identifiers"):
        train.tool_method({**REFUND, "name": "create-refund"})


def test_an_unreachable_server_is_an_infrastructure_failure_with_no_reward():
    class Unreachable(train.FinalstateEpisode):
        base_url = "http://finalstate:secret-token@127.0.0.1:9"
        token = "secret-token"

    episode = Unreachable()
    assert episode.reset(prompt=[], task_id="", seed=0) == ""
    before = len(train.EPISODES)
    assert train.final_state_reward([[{"role": "assistant", "content": "done"}]], [episode]) == [None]
    recorded = train.EPISODES[before]
    assert recorded["reward"] is None and recorded["infrastructure_error"].startswith("reset:")
    assert "secret-token" not in recorded["infrastructure_error"]


def test_a_refused_action_is_the_models_error_and_a_refused_reset_the_runs():
    class Refusing(train.FinalstateEpisode):
        def _connect(self):
            class Client:
                def reset(self, *_, **__):
                    raise RuntimeError("Server error: no task nope in the served set (code: VALIDATION_ERROR)")

                step = reset

            return Client()

    episode = Refusing()
    with pytest.raises(ValueError, match="no task nope"):
        episode.reset(task_id="nope")
    episode._episode = {"started": 0.0, "done": False, "tool_calls": 0, "tool_errors": 0, "messages": 0}
    with pytest.raises(ValueError, match="VALIDATION_ERROR"):
        episode._call_tool("get_order", {"order_id": 1})
    assert not episode._episode["done"] and "infrastructure_error" not in episode._episode


def test_trl_trains_the_tiny_model_on_a_domain_served_over_openenv(tmp_path):
    """CI-sized: a tiny model of 16 demonstrations and 40 SFT steps, 2 GRPO steps of 2 tasks x 4 rollouts. What it
    holds is the wiring (every rollout an episode graded by its final state, none lost), not the model's skill."""
    out = tmp_path / "figures.json"
    args = ["--demos", "16", "--sft-steps", "40", "--steps", "2", "--tasks-per-step", "2", "--generations", "4"]
    subprocess.run(["bash", "examples/trl-openenv/run.sh", *args, "--output", str(out)], cwd=ROOT, check=True, timeout=900)
    figures = json.loads(out.read_text())
    assert figures["steps"] == 2 and [s["step"] for s in figures["perStep"]] == [1, 2]
    assert figures["episodes"] == 2 * 2 * 4
    assert figures["graded"] == figures["episodes"] and figures["infrastructureFailures"] == 0
    for episode in figures["episodeList"]:
        assert episode["reward"] in (0, 1), episode
        assert episode["task_id"].startswith("retail.train.mini.") and episode["episode_id"]
        assert episode["finish_reason"], episode
    assert 0 <= figures["toolCallsServed"] <= figures["toolCallsParsed"]
    assert figures["rewardOnes"] == sum(episode["reward"] for episode in figures["episodeList"])
