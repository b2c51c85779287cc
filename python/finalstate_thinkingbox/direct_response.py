"""op direct_response: a tool's answer under a scenario's `direct_response` override, by ThinkingBox's own
try_pop_direct_response (the template formatted with the tool's JSON answer; an answer that does not fit it becomes
ThinkingBox's error text and no direct response).

Request: {"tool": name, "result": the tool's text answer, "template": the override}. Answer: {"content": what the
agent reads as the tool's answer, "directResponse": the assistant message to forward, or null}.
"""

from thinkingbox.common.agent_session import try_pop_direct_response
from thinkingbox.common.chat_types import ToolCall

from finalstate_thinkingbox.errors import OpError

# the error text AgentSession._handle_tool passes to try_pop_direct_response
ERROR_MESSAGE = "Error in function execution"


def handle(request: dict) -> dict:
    try:
        tool, result, template = request["tool"], request["result"], request["template"]
    except KeyError as e:
        raise OpError("bad_request", f"direct_response: missing {e}") from e
    response = try_pop_direct_response(ToolCall(name=tool, arguments={}), result, template, ERROR_MESSAGE)
    return {"content": response.content, "directResponse": response.metadata.get("direct_response")}
