"""op apply_tool_overrides: the proxy's tools after a scenario's overrides, by ThinkingBox's update_tools_with_client_config.

Request: {"tools": [MCP tools/list entries {name, description, inputSchema} (or ToolDef dicts with input_schema)],
"overrides": [scenario `tools` entries {name, override_description?, override_arg_description?, direct_response?,
is_end_turn?}]}. Answer: {"tools": [ToolDef dicts {name, description, input_schema, direct_response, is_end_turn}]}.
"""

from thinkingbox.common.chat_types import ToolDef
from thinkingbox.common.config_types import ToolDefOverride, update_tools_with_client_config

from finalstate_thinkingbox.errors import OpError


def tool_def(tool: dict) -> ToolDef:
    """As MCPProxyClient.list_tools turns the proxy's listing into ToolDefs."""
    schema = tool["inputSchema"] if "inputSchema" in tool else tool["input_schema"]
    return ToolDef(name=tool["name"], description=tool.get("description") or "", input_schema=schema)


def handle(request: dict) -> dict:
    try:
        tools = [tool_def(tool) for tool in request["tools"]]
        overrides = [ToolDefOverride(**override) for override in request.get("overrides") or []]
    except (ValueError, TypeError) as e:
        raise OpError("bad_request", f"apply_tool_overrides: {e}") from e
    update_tools_with_client_config(tools, overrides)
    return {"tools": [tool.model_dump() for tool in tools]}
