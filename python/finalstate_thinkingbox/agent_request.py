"""op agent_request: the chat-completions body ThinkingBox's AgentSession + AOAISession would post for a conversation.

Request: {"systemMessages": [agent instructions, bot instructions?] | "systemPrompt": str, "messages": [TB messages
after the system ones], "tools": [ToolDef dicts, builtin tools first, as the agent sees them], "model"?: str}.
Answer: {"body": the whole body, "messages": body.messages, "tools": body.tools ([] without tools)}.
The messages are encoded by AOAISession._encode_message, as ThinkingBox sends an injected history. In a live
ThinkingBox run an assistant turn is instead kept as the endpoint returned it (one message holding both content and
tool_calls, say), so compare assistant turns with that in mind.
"""

import asyncio

from pydantic import TypeAdapter
from thinkingbox.common.chat_types import ToolDef

from finalstate_thinkingbox.agent_session import agent_session
from finalstate_thinkingbox.errors import OpError
from finalstate_thinkingbox.messages import parse_messages

_tools = TypeAdapter(list[ToolDef])


def handle(request: dict) -> dict:
    system = request.get("systemMessages")
    if system is None:
        system = [request["systemPrompt"]]
    if not 1 <= len(system) <= 2:
        raise OpError("bad_request", "systemMessages: the agent's instructions, then at most one message of bot instructions")
    try:
        tools = _tools.validate_python(request.get("tools") or [])
    except ValueError as e:
        raise OpError("bad_request", f"tools: {e}") from e
    agent, llm = agent_session(system[0], system[1] if len(system) > 1 else None, tools, request.get("model") or "agent")
    agent.add_messages(parse_messages(request.get("messages") or []))
    asyncio.run(llm.get_completion())
    body = llm.bodies[-1]
    return {"body": body, "messages": body["messages"], "tools": body.get("tools", [])}
