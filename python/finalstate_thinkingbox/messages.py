"""ThinkingBox chat messages (chat_types.MessageT) from the JSON the caller sends."""

from pydantic import TypeAdapter
from thinkingbox.common.chat_types import MessageT, ToolCallResponse

from finalstate_thinkingbox.errors import OpError

_MESSAGE_KINDS = {"Text", "ToolCall", "ParallelToolCall", "ToolResponse"}
_messages = TypeAdapter(list[MessageT])
_tool_calls = TypeAdapter(list[ToolCallResponse])


def parse_messages(raw: list[dict]) -> list[MessageT]:
    """Each message carries ThinkingBox's discriminator `T` (a `type` naming one of the kinds is taken for it)."""
    tagged = []
    for i, message in enumerate(raw):
        if "T" not in message and message.get("type") in _MESSAGE_KINDS:
            message = {**message, "T": message["type"]}
        if message.get("T") not in _MESSAGE_KINDS:
            raise OpError("bad_request", f"messages[{i}]: T must be one of {sorted(_MESSAGE_KINDS)}, got {message.get('T')!r}")
        tagged.append(message)
    try:
        return _messages.validate_python(tagged)
    except ValueError as e:
        raise OpError("bad_request", f"messages: {e}") from e


def parse_tool_calls(raw: list[dict]) -> list[ToolCallResponse]:
    """[{"tool_call": ToolCall, "tool_response": ToolResponse}], ThinkingBox's conversation.metadata["tool_calls"]."""
    try:
        return _tool_calls.validate_python(raw)
    except ValueError as e:
        raise OpError("bad_request", f"toolCalls: {e}") from e
