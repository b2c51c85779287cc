"""op simulate_user: the next user message, by ThinkingBox's UserSimulator (as its agent/user loop calls it).

Request: {"userContext": str | null, "messages": [TB messages of the conversation so far], "endpoint": {"baseUrl",
"model", "apiKey"?, "seed"?, "temperature"?, "timeoutSeconds"?}, "canEndConversation": bool}.
Answer: {"message": TB Text (role user, metadata.is_user_llm, metadata.is_done when it ended the conversation),
"isDone": bool, "usage": ThinkingBox Usage | null}. An endpoint that cannot be reached: kind "user_unreachable"
(a 4xx or a body that is not a completion: "user_error").
"""

import asyncio

from thinkingbox.common.agent_user_loop import _simulate_user

from finalstate_thinkingbox.chat_completions_session import ChatCompletionsSession
from finalstate_thinkingbox.errors import EndpointRejected, EndpointUnreachable, OpError
from finalstate_thinkingbox.messages import parse_messages


def handle(request: dict) -> dict:
    llm = ChatCompletionsSession.from_config(request["endpoint"])
    history = parse_messages(request.get("messages") or [])
    try:
        message = asyncio.run(_simulate_user(llm, user_context=request.get("userContext") or "", chat_history=history,
                                             can_end_conversation=bool(request.get("canEndConversation"))))
    except EndpointUnreachable as e:
        raise OpError("user_unreachable", str(e)) from e
    except EndpointRejected as e:
        raise OpError("user_error", str(e)) from e
    return {
        "message": message.model_dump(mode="json"),
        "isDone": bool(message.metadata.get("is_done", False)),
        "usage": llm.last_usage.model_dump() if llm.last_usage else None,
    }
