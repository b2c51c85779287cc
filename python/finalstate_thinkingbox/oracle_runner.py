"""op run_oracle_thinkingbox: one oracle episode of a task through ThinkingBox's own runner, timed (bench/thinkingbox.ts
compares finalstate's episode with it).

ThinkingBox's runner here is what `tb infer` does for one test case: a session on the proxy by its own MCPProxyClient
(session_create with the task's merged server configuration and tools), its `run_agent_user_loop` on an
MCPProxyContext of that session (no user model: the conversation is the query and the agent's turn), the TestContext
from its AgentSessionBase.make_test_context (get_effects included), the test body in its TestScript (in process, as
`grade` runs it; `tb infer` runs it in a subprocess) with its Judge on UnjudgedSession (every question YES), then
session_destroy. The agent is OracleAgentSession: the task's golden calls, one ParallelToolCall per call, each sent
through the MCPProxyContext, then a visible message ending in <DONE>.

Request: {"proxyUrl", "task": {"query", "userContext"?, "golden": [{"tool", "arguments"}], "thinkingbox": the task's
ThinkingBox part (uid, systemMessages, builtinTools, toolOverrides, availableTools, serverConfig, maxUserSimTurns,
maxAgentSimTurns, testCode)}, "fixtures"?: {name: FixtureConfig} (the hydrated task's), "timeoutSeconds"?: the proxy client's timeout (ThinkingBox's default 120)}.
Answer: {"result", "reward", "isSystemError", "errorType", "finishReason", "toolCalls" (calls sent), "unjudged":
[question], "seconds" (the whole run), "phases": {"create", "loop", "effects", "grade", "destroy"} (seconds)}.
A loop that failed (ThinkingBox's runner returns a DecodeResult with is_system_error) answers
{"ok": false, "kind": "runner_error"} with its error.
"""

import asyncio
import time
from typing import Any

from thinkingbox.common.agent_session_base import AgentSessionBase
from thinkingbox.common.agent_user_loop import run_agent_user_loop
from thinkingbox.common.chat_types import ParallelToolCall, Text, ToolCall, ToolCallResponse, ToolDef, ToolResponse
from thinkingbox.common.config_types import AgentConfig, FixtureConfig, HydratedTestCase, ScenarioConfig, ToolDefOverride
from thinkingbox.common.fixtures import build_fixtures
from thinkingbox.common.mcp_proxy_client import MCPProxyClient, MCPProxyContext
from thinkingbox.common.testrunner import TestScript

from finalstate_thinkingbox.errors import OpError
from finalstate_thinkingbox.grade import error_type
from finalstate_thinkingbox.recording_judge import RecordingJudge
from finalstate_thinkingbox.unjudged_session import UnjudgedSession

CLOSING = "Done: your request is handled. <DONE>"


class OracleAgentSession(AgentSessionBase):
    """The golden calls through ThinkingBox's agent loop: each a ParallelToolCall of one call, answered by the proxy
    (recorded as AgentSession records them: the ToolResponse message and a ToolCallResponse in
    conversation.metadata["tool_calls"]), then the closing message, which ends the conversation ("done")."""

    def __init__(self, golden: list[dict], *, config: AgentConfig, mcp_proxy: MCPProxyContext, mcp_tools: list[ToolDef],
                 bot_instructions: str | None, scenario_metadata: dict[str, Any]):
        super().__init__(config=config, mcp_proxy=mcp_proxy, mcp_tools=config.builtin_tools + mcp_tools,
                         bot_instructions=bot_instructions, scenario_metadata=scenario_metadata)
        self.golden = golden
        self.conversation.metadata["tool_calls"] = []

    def add_messages(self, messages, add_to_llm: bool = True):
        self.conversation.messages.extend(messages)

    async def decode_turn_iter(self, user_message):
        if user_message is not None:
            self.add_messages([user_message.model_copy(deep=True)])
        for step in self.golden:
            call = ToolCall(name=step["tool"], arguments=dict(step.get("arguments") or {}))
            message = ParallelToolCall(tool_calls=[call])
            self.add_messages([message])
            yield message
            with self.timers.measure("time_tool"):
                content = await self.mcp.call_tool(call.name, **call.arguments)
            response = ToolResponse(name=call.name, content=content, id=call.id)
            self.conversation.metadata["tool_calls"].append(ToolCallResponse(tool_call=call, tool_response=response))
            self.add_messages([response])
            yield response
        closing = Text(role="assistant", content=CLOSING, metadata={"is_done": True})
        self.add_messages([closing])
        yield closing

    def can_end_conversation(self) -> bool:
        return True


def test_case(task: dict) -> HydratedTestCase:
    """The task's ThinkingBox part as the HydratedTestCase it was imported from: its server configuration is already
    the scenario's world_state merged with the test's init (so init is empty), and its second system message is the
    scenario's and test's bot instructions already merged (so it stands as the scenario's)."""
    part = task["thinkingbox"]
    system = part["systemMessages"]
    max_agent = part.get("maxAgentSimTurns")
    return HydratedTestCase(
        uid=part["uid"],
        agent=AgentConfig(system_instructions=system[0], builtin_tools=[ToolDef(**t) for t in part.get("builtinTools") or []]),
        scenario=ScenarioConfig(world_state=part["serverConfig"],
                                tools=[ToolDefOverride(**o) for o in part.get("toolOverrides") or []],
                                bot_instructions=system[1] if len(system) > 1 else None),
        query=task["query"],
        test_code=part["testCode"],
        user_context=task.get("userContext") or None,
        max_user_sim_turns=part["maxUserSimTurns"],
        **({} if max_agent is None else {"max_agent_sim_turns": max_agent}),
    )


async def run(request: dict) -> dict:
    task = request["task"]
    part = task["thinkingbox"]
    tc = test_case(task)
    golden = task.get("golden") or []
    phases: dict[str, float] = {}
    started = time.perf_counter()

    mark = time.perf_counter()
    client = MCPProxyClient(request["proxyUrl"].rstrip("/"), timeout=float(request.get("timeoutSeconds") or 120.0))
    init_result = await client.session_create(part["serverConfig"], part["availableTools"])
    proxy = MCPProxyContext(client=client, init_result=init_result)
    phases["create"] = time.perf_counter() - mark
    try:
        agents: list[OracleAgentSession] = []

        def factory(**kwargs) -> OracleAgentSession:
            agents.append(OracleAgentSession(golden, **kwargs))
            return agents[-1]

        mark = time.perf_counter()
        decoded = await run_agent_user_loop(tc, agent_session_factory=factory, mcp_proxy=proxy)
        phases["loop"] = time.perf_counter() - mark
        if decoded.is_system_error:
            error = decoded.metadata.get("error") or {}
            raise OpError("runner_error", f"{tc.uid}: ThinkingBox's loop failed: {error.get('type')}: {error.get('message')}")

        mark = time.perf_counter()
        ctx = await agents[-1].make_test_context()
        phases["effects"] = time.perf_counter() - mark

        mark = time.perf_counter()
        judge = RecordingJudge(UnjudgedSession())
        fixtures = build_fixtures({name: FixtureConfig(**f) for name, f in (request.get("fixtures") or {}).items()})
        result = await TestScript(tc.test_code, judge, fixtures=fixtures, test_uid=tc.uid).evaluate(ctx)
        phases["grade"] = time.perf_counter() - mark
    finally:
        mark = time.perf_counter()
        await client.session_destroy()
        phases["destroy"] = time.perf_counter() - mark

    return {
        "result": result.result,
        "reward": float(result.reward),
        "isSystemError": result.is_system_error,
        "errorType": error_type(result.tb),
        "finishReason": decoded.finish_reason,
        "toolCalls": len(ctx.tool_calls),
        "unjudged": [asked["question"] for asked in judge.asked],
        "seconds": time.perf_counter() - started,
        "phases": phases,
    }


def handle(request: dict) -> dict:
    return asyncio.run(run(request))
