"""An episode that finalstate ran, standing in for ThinkingBox's agent session so that ThinkingBox's own
AgentSessionBase.make_test_context builds the TestContext from it (last visible assistant text, direct responses,
tool calls, effects, session id, init result)."""

from typing import Any

from thinkingbox.common.agent_session_base import AgentSessionBase
from thinkingbox.common.chat_types import Conversation, Message, TestContext, ToolCallResponse
from thinkingbox.common.config_types import AgentConfig
from thinkingbox.common.mcp_proxy_client import MCPProxyContext


class _RecordedProxyClient:
    """What MCPProxyContext reads of its client: the session id, and get_effects (taken at the episode's end)."""

    def __init__(self, session_id: str, effects: dict[str, Any]):
        self.session_id = session_id
        self._effects = effects

    async def get_effects(self) -> dict[str, Any]:
        return self._effects


class RecordedSession(AgentSessionBase):
    def __init__(self, messages: list[Message], tool_calls: list[ToolCallResponse], effects: dict[str, Any],
                 init_result: dict[str, Any], session_id: str):
        proxy = MCPProxyContext(client=_RecordedProxyClient(session_id, effects), init_result=init_result)
        super().__init__(config=AgentConfig(system_instructions="", builtin_tools=[]), mcp_proxy=proxy, mcp_tools=[],
                         bot_instructions=None, scenario_metadata={})
        self.conversation = Conversation(messages=messages, metadata={"usage": [], "tool_calls": tool_calls})

    def add_messages(self, messages: list[Message], add_to_llm: bool = True):
        self.conversation.messages.extend(messages)

    async def decode_turn_iter(self, user_message):
        raise NotImplementedError("a recorded episode is not decoded again")
        yield

    def can_end_conversation(self) -> bool:
        return True


async def test_context(messages, tool_calls, effects, init_result, session_id) -> TestContext:
    return await RecordedSession(messages, tool_calls, effects, init_result, session_id).make_test_context()
