"""OpenEnv's Action and Observation classes of a finalstate environment, shaped by the exported JSON Schemas.

OpenEnv's server needs pydantic classes: FinalstateAction checks every action against OpenEnvAction.schema.json (the
branch its `type` names, so an error says which field is wrong) and FinalstateObservation declares the fields of
OpenEnvObservation.schema.json (tests/test_models.py holds the two to the export).
"""

from __future__ import annotations

import functools
from typing import Any

from openenv.core.env_server.types import Action, Observation
from pydantic import BaseModel, ValidationError, field_validator, model_validator
from pydantic_core import PydanticCustomError

from finalstate.schemas import load_schema


class MalformedAction(ValueError):
    """An action the schema refuses."""


def _refusal(why: str) -> PydanticCustomError:
    """What a validator raises to refuse: pydantic makes it a ValidationError, which OpenEnv's WebSocket loop answers
    with its error response VALIDATION_ERROR, `why` in `errors[0].msg`, and the session goes on. Not a ValueError:
    OpenEnv puts `errors()` in its response, and a ValueError's context (the exception itself) is not JSON."""
    return PydanticCustomError("finalstate_refused", "{why}", {"why": why})


class _Refusal(BaseModel):
    why: str

    @field_validator("why")
    @classmethod
    def _refuse(cls, why: str) -> str:
        raise _refusal(why)


def validation_error(message: str) -> ValidationError:
    """A pydantic ValidationError carrying `message`: how a refused reset reaches the client as OpenEnv's own
    VALIDATION_ERROR, as a malformed action does."""
    try:
        _Refusal(why=message)
    except ValidationError as err:
        return err
    raise AssertionError("unreachable")


@functools.cache
def _action_branches() -> dict[str, dict]:
    schema = load_schema("OpenEnvAction")
    return {branch["properties"]["type"]["const"]: branch for branch in schema["oneOf"]}


def check_action(data: Any) -> dict:
    """The action with its defaults filled in, or MalformedAction naming the field and the problem."""
    import jsonschema

    if not isinstance(data, dict):
        raise MalformedAction(f"malformed action: an action is a JSON object, got {type(data).__name__}")
    branches = _action_branches()
    kind = data.get("type")
    if kind not in branches:
        raise MalformedAction(
            f"malformed action: type {kind!r} is not an action; the actions are {', '.join(branches)}"
            if kind is not None
            else f"malformed action: no type; the actions are {', '.join(branches)}"
        )
    branch = branches[kind]
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(branch).iter_errors(data))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(action)"
        raise MalformedAction(f"malformed {kind} action at {where}: {error.message}")
    filled = dict(data)
    for key, sub in branch["properties"].items():
        if key not in filled and "default" in sub:
            filled[key] = sub["default"]
    filled.pop("metadata", None)
    return filled


class FinalstateAction(Action):
    """One step: list_tools, call_tool (OpenEnv's MCP actions), message (to the simulated user), finish."""

    type: str
    tool_name: str | None = None
    arguments: dict[str, Any] | None = None
    content: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _check(cls, data: Any) -> Any:
        try:
            checked = check_action(data)
        except MalformedAction as err:
            raise _refusal(str(err)) from None
        if isinstance(data, dict) and "metadata" in data:
            checked["metadata"] = data["metadata"]
        return checked

    @classmethod
    def model_json_schema(cls, *args, **kwargs) -> dict:  # what OpenEnv's /schema shows: the exported schema
        return load_schema("OpenEnvAction")

    def wire(self) -> dict:
        """The action as the episode host takes it (schemas/openenv.ts OpenEnvAction)."""
        return {k: v for k, v in self.model_dump(exclude={"metadata"}).items() if v is not None}


class FinalstateObservation(Observation):
    """OpenEnvObservation: a field that does not apply is left out of the wire, never sent as null (OpenEnv's
    MCPToolClient reads an observation with `tools` as a tool listing and one with `tool_name` as a call)."""

    task_id: str
    episode_id: str
    system_prompt: str | None = None
    user_message: str | None = None
    tools: list[dict[str, Any]] | None = None
    tool_name: str | None = None
    result: str | None = None
    error: dict[str, Any] | None = None
    finish_reason: str | None = None
    diff: list[dict[str, Any]] | None = None
    diff_truncated: int | None = None
    summary: str | None = None
    infrastructure_error: str | None = None

    def model_dump(self, **kwargs) -> dict[str, Any]:
        kwargs.setdefault("exclude_none", True)
        return super().model_dump(**kwargs)

    @classmethod
    def from_wire(cls, result: dict) -> FinalstateObservation:
        """From an OpenEnvStepResult: {observation, reward, done}."""
        return cls(**result["observation"], reward=result["reward"], done=result["done"])
