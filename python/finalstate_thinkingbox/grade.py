"""op grade: ThinkingBox's verdict on an episode, by its own TestScript and Judge.

Request: {"uid", "testCode" (as hydrated), "messages": [TB messages, system ones included or not], "toolCalls":
[{"tool_call", "tool_response"}], "effects": {server: get_effects}, "initResult": {server: init result}, "sessionId",
"judge": {"baseUrl", "model", "apiKey"?, "seed"?, "temperature"?, "timeoutSeconds"?, "judgeType"?: "legacy"} | null,
"fixtures"?: {name: FixtureConfig} (a task's hydrated fixtures)}.
Answer: {"result", "reward", "isSystemError", "errorType" (the exception's type, null when passed), "tb", "lineno",
"lineContent", "prints", "judged": [{"question", "answer"}], "unjudged": [question], "judgeUsage": {"calls",
"input_tokens", "output_tokens"} | null, "judgeMotivation"}.
A test body raising something other than AssertionError is ok with isSystemError true: the task's fault. A judge that
could not answer is not a verdict at all: {"ok": false, "kind": "judge_unreachable"} (connection, timeout, 5xx) or
"judge_error" (4xx, a body that is not a completion), even where the test body caught the Judge's exception.
With judge null every judge question is answered YES and listed under `unjudged` (UnjudgedSession).
"""

import asyncio
import numbers

from pydantic import TypeAdapter
from thinkingbox.common.config_types import FixtureConfig
from thinkingbox.common.fixtures import build_fixtures
from thinkingbox.common.testrunner import TestScript

from finalstate_thinkingbox.chat_completions_session import ChatCompletionsSession
from finalstate_thinkingbox.errors import EndpointUnreachable, OpError
from finalstate_thinkingbox.messages import parse_messages, parse_tool_calls
from finalstate_thinkingbox.recorded_session import test_context
from finalstate_thinkingbox.recording_judge import RecordingJudge
from finalstate_thinkingbox.unjudged_session import UnjudgedSession

_fixtures = TypeAdapter(dict[str, FixtureConfig])


def handle(request: dict) -> dict:
    judge_config = request.get("judge")
    llm = ChatCompletionsSession.from_config(judge_config) if judge_config else UnjudgedSession()
    judge = RecordingJudge(llm, judge_type=(judge_config or {}).get("judgeType") or "legacy")
    ctx = asyncio.run(test_context(parse_messages(request["messages"]), parse_tool_calls(request.get("toolCalls") or []),
                                   request.get("effects") or {}, request.get("initResult") or {}, request["sessionId"]))
    fixtures = build_fixtures(_fixtures.validate_python(request.get("fixtures") or {}))
    result = TestScript(request["testCode"], judge, fixtures=fixtures, test_uid=request["uid"]).evaluate_sync(ctx)

    failures = getattr(llm, "failures", [])
    if failures:
        kind = "judge_unreachable" if isinstance(failures[0], EndpointUnreachable) else "judge_error"
        raise OpError(kind, f"{request['uid']}: the judge could not answer: {failures[0]}")

    answer = {
        "result": result.result,
        "reward": result.reward,
        "isSystemError": result.is_system_error,
        "errorType": error_type(result.tb),
        "tb": result.tb,
        "lineno": result.lineno,
        "lineContent": result.line_content,
        "prints": result.prints,
        "judged": [] if judge_config is None else judge.asked,
        "unjudged": [asked["question"] for asked in judge.asked] if judge_config is None else [],
        "judgeUsage": llm.usage_total if judge_config else None,
        "judgeMotivation": result.metadata.get("judge_motivation"),
    }
    if isinstance(result.reward, bool) or not isinstance(result.reward, numbers.Real) or not 0 <= result.reward <= 1:
        # ThinkingBox takes a test function's return value as the reward, unchecked
        answer.update(result=False, reward=0.0, isSystemError=True, errorType="InvalidReward",
                      tb=f"the test returned {result.reward!r}, not a reward between 0 and 1")
    else:
        answer["reward"] = float(result.reward)
    return answer


def error_type(tb: str) -> str | None:
    """The exception's type from the traceback's last line ("NameError: name 'x' is not defined")."""
    lines = [line for line in tb.strip().splitlines() if line and not line.startswith(" ")]
    return lines[-1].split(":", 1)[0].strip() if lines else None
