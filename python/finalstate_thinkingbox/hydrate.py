"""op hydrate: ThinkingBox test cases as finalstate tasks, by ThinkingBox's own hydrator.

Request: {"dataset": DIR (scenario/, agent/, test_case/), "inputs"?: [test-case files or folders] (default
DIR/test_case), "testList"?: YAML list of "file.py:test_name" | null, "agent"?: "think", "dropSources"?: bool}.
Answer: {"tasks": [task]}, one task per test case (tests tagged skip left out, as `tb infer` does); the fields are
those of task() below. A file that cannot be read or parsed, or a test with an unknown scenario, answers
{"ok": false, "kind": "malformed"} naming the file (and the test when known).
"""

import copy
import sys
import traceback
from pathlib import Path

import yaml
from thinkingbox.common.config_types import HydratedTestCase, merge_bot_instructions, merge_init_config
from thinkingbox.common.hydrator import iter_cases_by_names, iter_cases_from_file_or_folder

from finalstate_thinkingbox.agent_session import system_messages
from finalstate_thinkingbox.errors import OpError


def handle(request: dict) -> dict:
    dataset = Path(request["dataset"]).expanduser().resolve()
    agent = request.get("agent") or "think"
    if not (dataset / "agent" / f"{agent}.yaml").is_file():
        raise OpError("bad_request", f"hydrate: {dataset} has no agent/{agent}.yaml (is it a ThinkingBox dataset folder?)")
    try:
        return {"tasks": [task(case, bool(request.get("dropSources"))) for case in cases(request, dataset, agent)]}
    except OpError:
        raise
    except Exception as e:
        raise OpError("malformed", malformed_message(e)) from e


def cases(request: dict, dataset: Path, agent: str):
    if request.get("testList"):
        with open(request["testList"], encoding="utf-8") as f:
            names = yaml.safe_load(f)
        if not isinstance(names, list):
            raise OpError("bad_request", f"testList {request['testList']}: a YAML list of 'file.py:test_name'")
        yield from iter_cases_by_names(names, base_dir=dataset, agent=agent, strict=True)
        return
    for path in request.get("inputs") or [dataset / "test_case"]:
        yield from iter_cases_from_file_or_folder(path, base_dir=dataset, agent=agent)


def task(case: HydratedTestCase, drop_sources: bool) -> dict:
    scenario = case.scenario
    server_config = copy.deepcopy(merge_init_config(scenario.world_state, case.init))
    dropped = []
    if drop_sources:
        # The servers index `sources` in Typesense, which is not available here: without them session_create works,
        # and only the agent's policy-search tool goes without results.
        for name, config in server_config.items():
            if isinstance(config, dict) and config.pop("sources", None):
                dropped.append(name)
    messages = system_messages(case.agent.system_instructions,
                               merge_bot_instructions(scenario.bot_instructions, case.bot_instructions))
    tags = case.tags.model_dump(mode="json")
    return {
        "uid": case.uid,
        "file": str(Path(case.metadata["test_case_file"]).resolve()),
        "testName": case.metadata["test_case_name"],
        "scenario": case.metadata["scenario"],
        "query": case.query,
        "userContext": case.user_context,
        "botInstructions": case.bot_instructions,
        # With formatQuery, ThinkingBox formats query, userContext and the test's bot instructions with the
        # session's init result (str.format(init=...)) before the conversation; these are the unformatted texts.
        "systemMessages": messages,
        "systemPrompt": messages[0] if len(messages) == 1 else None,
        "builtinTools": [tool.model_dump() for tool in case.agent.builtin_tools],
        "toolOverrides": [tool.model_dump() for tool in scenario.tools],
        "availableTools": [tool.name for tool in scenario.tools],
        "serverConfig": server_config,
        "droppedSources": dropped,
        "maxUserSimTurns": case.max_user_sim_turns,
        "maxAgentSimTurns": None if case.max_agent_sim_turns == sys.maxsize else case.max_agent_sim_turns,
        "formatQuery": case.format_query,
        "testCode": case.test_code,
        "golden": golden_tool_calls(server_config),
        "tags": tags,
        "hasHistory": case.history is not None,
        "history": None if case.history is None else [message.model_dump(mode="json") for message in case.history],
        "fixtures": {name: fixture.model_dump() for name, fixture in case.fixtures.items()},
    }


def golden_tool_calls(server_config: dict) -> list[dict]:
    """The business servers replay golden_test_case.tool_interactions ({tool, parameters}) to build the golden state
    their get_effects compares with. (ThinkingBox-Bench's release notes allow these for evaluation only.)"""
    calls = []
    for config in server_config.values():
        golden = config.get("golden_test_case") if isinstance(config, dict) else None
        for step in (golden or {}).get("tool_interactions") or []:
            calls.append({"tool": step["tool"], "arguments": step.get("parameters") or {}})
    return calls


def malformed_message(error: BaseException) -> str:
    """Names the file and test: ThinkingBox's hydrator names them in its own errors (ValueError "Failed hydrating
    test case FILE:TEST"), but a file that does not parse (SyntaxError, a bad YAML header) reaches us bare, so the
    file is read from the hydrator's frame that was reading it (its local `test_file`)."""
    where = ""
    frame_tb = error.__traceback__
    while frame_tb is not None:
        test_file = frame_tb.tb_frame.f_locals.get("test_file")
        if test_file is not None:
            where = str(test_file)
        frame_tb = frame_tb.tb_next
    causes = []
    cause: BaseException | None = error
    while cause is not None:
        causes.append("".join(traceback.format_exception_only(type(cause), cause)).strip())
        cause = cause.__cause__
    message = " <- ".join(causes)
    return message if where and where in message else f"{where}: {message}" if where else message
