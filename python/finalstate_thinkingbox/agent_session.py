"""ThinkingBox's own AgentSession over its OpenAI-style AOAISession, with the HTTP call captured instead of sent:
the system messages it builds and the exact chat-completions body it would post."""

import contextlib
import copy

import httpx
from thinkingbox.common.agent_session import AgentSession
from thinkingbox.common.aoai_session import AOAISession
from thinkingbox.common.chat_types import ToolDef
from thinkingbox.common.config_types import AgentConfig

CAPTURE_URL = "http://capture.invalid/v1/chat/completions"


class _CapturingClient:
    def __init__(self, sink: list[dict]):
        self.sink = sink

    async def post(self, url: str, json: dict) -> httpx.Response:
        self.sink.append(copy.deepcopy(json))  # AOAISession posts its live message list, then appends the reply
        return httpx.Response(200, json={"choices": [{"message": {"role": "assistant", "content": ""}}]},
                              request=httpx.Request("POST", url))


class CapturingAOAISession(AOAISession):
    """AOAISession in its OpenAI mode (endpoint_url set: the body names the model), keeping each body it posts."""

    def __init__(self, model: str = "agent"):
        super().__init__(deployment=model, endpoint_url=CAPTURE_URL)
        self.bodies: list[dict] = []

    @contextlib.asynccontextmanager
    async def get_client(self):
        yield _CapturingClient(self.bodies)


def agent_session(system_instructions: str, bot_instructions: str | None, tools: list[ToolDef],
                  model: str = "agent") -> tuple[AgentSession, CapturingAOAISession]:
    """As ThinkingBox's AgentSession.from_config builds it, with `tools` already builtin + proxy tools in order."""
    llm = CapturingAOAISession(model)
    agent = AgentSession(config=AgentConfig(system_instructions=system_instructions, builtin_tools=[]), mcp_proxy=None,
                         mcp_tools=tools, bot_instructions=bot_instructions, scenario_metadata={}, agent_model=llm,
                         system_instructions=system_instructions)
    return agent, llm


def system_messages(system_instructions: str, bot_instructions: str | None) -> list[str]:
    """The system messages AgentSession starts every conversation with: the agent's instructions, then the merged
    bot instructions (scenario + test) when there are any."""
    agent, _ = agent_session(system_instructions, bot_instructions, tools=[])
    return [message.content for message in agent.prefix_conversation.messages]
