"""The judge's LLM session when a grade request has no judge endpoint."""

import asyncio
from collections.abc import Collection
from typing import Any

from thinkingbox.common.chat_types import Message, Text, ToolDef
from thinkingbox.common.llm_session_base import LLMSessionBase


class UnjudgedSession(LLMSessionBase):
    """Answers YES to every question, so that the rest of a test body (its assertions on effects and tool calls)
    still runs without a judge. Each question it answered is reported by `grade` under `unjudged`, and the caller
    must report those, never count them as passed: a result graded this way says only that the deterministic
    checks passed (or which one failed). `prompts` keeps what the Judge sent, in order."""

    def __init__(self):
        self.prompts: list[list[dict]] = []

    @property
    def tool_names(self) -> Collection[str]:
        return ()

    def add_tools(self, tools: list[ToolDef]) -> None:
        pass

    def reset_tools(self) -> None:
        pass

    def add_messages(self, messages: list[Message]) -> None:
        pass

    def reset_messages(self) -> None:
        pass

    def get_internal_conversation(self) -> Any:
        return self.prompts

    async def get_completion(self, conversation: list[Message] | None = None, update_conversation: bool = True,
                             response_schema: dict | None = None) -> list[Message]:
        return await asyncio.to_thread(self.get_completion_sync, conversation, update_conversation, response_schema)

    def get_completion_sync(self, conversation: list[Message] | None = None, update_conversation: bool = True,
                            response_schema: dict | None = None) -> list[Message]:
        self.prompts.append([message.model_dump() for message in conversation or []])
        return [Text(role="assistant", content="YES")]

    @classmethod
    def from_config(cls, config: Any) -> "UnjudgedSession":
        return cls()
