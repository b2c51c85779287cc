"""The pydantic classes OpenEnv's server needs, held to the JSON Schemas exported from schemas/openenv.ts."""

from __future__ import annotations

import pytest
from openenv.core.env_server.serialization import deserialize_action, serialize_observation
from openenv.core.env_server.types import Observation
from pydantic import ValidationError

from finalstate.schemas import load_schema
from finalstate_openenv.models import FinalstateAction, FinalstateObservation


def test_the_observation_class_declares_the_exported_fields():
    schema = load_schema("OpenEnvObservation")
    own = set(FinalstateObservation.model_fields) - set(Observation.model_fields)
    assert own == set(schema["properties"])
    required = {name for name, field in FinalstateObservation.model_fields.items() if field.is_required()}
    assert required == set(schema["required"])


def test_an_observation_leaves_out_what_does_not_apply():
    observation = FinalstateObservation(task_id="t", episode_id="e", tool_name="get_order", result="{}")
    wire = serialize_observation(observation)
    assert wire == {
        "observation": {"task_id": "t", "episode_id": "e", "tool_name": "get_order", "result": "{}"},
        "reward": None,
        "done": False,
    }


def test_actions_are_checked_against_the_exported_schema():
    assert FinalstateAction.model_json_schema() == load_schema("OpenEnvAction")
    branches = {b["properties"]["type"]["const"] for b in load_schema("OpenEnvAction")["oneOf"]}
    assert branches == {"list_tools", "call_tool", "message", "finish"}
    call = deserialize_action({"type": "call_tool", "tool_name": "get_order"}, FinalstateAction)
    assert call.wire() == {"type": "call_tool", "tool_name": "get_order", "arguments": {}}
    assert deserialize_action({"type": "finish", "metadata": {"x": 1}}, FinalstateAction).wire() == {"type": "finish"}
    for action, names in [
        ({"type": "call_tool", "tool_name": ""}, "tool_name"),
        ({"type": "message"}, "content"),
        ({"kind": "finish"}, "no type"),
    ]:
        with pytest.raises(ValidationError) as refused:
            deserialize_action(action, FinalstateAction)
        assert names in refused.value.errors()[0]["msg"]
