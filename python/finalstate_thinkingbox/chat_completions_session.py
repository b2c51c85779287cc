"""ThinkingBox's LLMSessionBase over an OpenAI-compatible chat-completions endpoint, for its Judge and UserSimulator."""

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import Collection
from typing import Any

from thinkingbox.common.chat_types import Message, Text, ToolDef
from thinkingbox.common.llm_session_base import LLMSessionBase
from thinkingbox.common.usage_types import InputTokensDetails, OutputTokensDetails, Usage

from finalstate_thinkingbox.errors import EndpointRejected, EndpointUnreachable


def completions_url(base_url: str) -> str:
    """finalstate's base URLs end with /v1 (the OpenAI SDK's convention); a bare host gets it added."""
    base = base_url.rstrip("/")
    return f"{base}/chat/completions" if base.endswith("/v1") else f"{base}/v1/chat/completions"


class ChatCompletionsSession(LLMSessionBase):
    """Text-only completions (what the Judge and the user simulator ask for), without retries: one failed call is
    reported at once, as EndpointUnreachable (connection, timeout, 5xx) or EndpointRejected (4xx, a body that is
    not a completion). Each failure is also kept in `failures`, because ThinkingBox's TestScript catches whatever
    the judge raises and records it as the test's system error."""

    def __init__(self, base_url: str, model: str, api_key: str | None = None, seed: int | None = None,
                 temperature: float | None = None, timeout_s: float = 120.0, max_tokens: int | None = None):
        self.url = completions_url(base_url)
        self.model = model
        self.api_key = api_key
        self.seed = seed
        self.temperature = temperature
        self.timeout_s = timeout_s
        self.max_tokens = max_tokens
        self.failures: list[Exception] = []
        self.usage_total = {"calls": 0, "input_tokens": 0, "output_tokens": 0}
        self._tools: dict[str, ToolDef] = {}
        self._messages: list[Message] = []

    @classmethod
    def from_config(cls, config: dict) -> "ChatCompletionsSession":
        """config: the sidecar's endpoint object (schemas/thinkingbox.ts ThinkingBoxLlmEndpoint)."""
        return cls(base_url=config["baseUrl"], model=config["model"], api_key=config.get("apiKey"), seed=config.get("seed"),
                   temperature=config.get("temperature"), timeout_s=float(config.get("timeoutSeconds") or 120.0),
                   max_tokens=config.get("maxTokens"))

    @property
    def tool_names(self) -> Collection[str]:
        return self._tools.keys()

    def add_tools(self, tools: list[ToolDef]) -> None:
        self._tools.update({tool.name: tool for tool in tools})

    def reset_tools(self) -> None:
        self._tools.clear()

    def add_messages(self, messages: list[Message]) -> None:
        self._messages.extend(messages)

    def reset_messages(self) -> None:
        self._messages.clear()

    def get_internal_conversation(self) -> Any:
        return list(self._messages)

    async def get_completion(self, conversation: list[Message] | None = None, update_conversation: bool = True,
                             response_schema: dict | None = None) -> list[Message]:
        return await asyncio.to_thread(self.get_completion_sync, conversation, update_conversation, response_schema)

    def get_completion_sync(self, conversation: list[Message] | None = None, update_conversation: bool = True,
                            response_schema: dict | None = None) -> list[Message]:
        messages = conversation if conversation is not None else self._messages
        try:
            reply = self._post(self._body(messages))
        except (EndpointUnreachable, EndpointRejected) as e:
            self.failures.append(e)
            raise
        if update_conversation and conversation is None:
            self._messages.extend(reply)
        return reply

    def _body(self, messages: list[Message]) -> dict:
        encoded = []
        for msg in messages:
            if not isinstance(msg, Text):
                raise TypeError(f"ChatCompletionsSession sends text messages only, not {type(msg).__name__}")
            encoded.append({"role": msg.role, "content": msg.content})
        body: dict[str, Any] = {"model": self.model, "messages": encoded}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.seed is not None:
            body["seed"] = self.seed
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        return body

    def _post(self, body: dict) -> list[Message]:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(self.url, data=json.dumps(body).encode(), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                raw = response.read()
        except urllib.error.HTTPError as e:
            detail = e.read()[:300].decode(errors="replace")
            error = EndpointUnreachable if e.code >= 500 else EndpointRejected
            raise error(f"{self.url}: HTTP {e.code}: {detail}") from e
        except (urllib.error.URLError, TimeoutError, ConnectionError) as e:
            raise EndpointUnreachable(f"{self.url}: {getattr(e, 'reason', e)}") from e
        try:
            completion = json.loads(raw)
            message = completion["choices"][0]["message"]
        except (ValueError, KeyError, IndexError, TypeError) as e:
            raise EndpointRejected(f"{self.url}: not a chat completion: {raw[:300]!r}") from e
        self._count_usage(completion.get("usage") or {})
        return [Text(role="assistant", content=message.get("content") or "")]

    def _count_usage(self, usage: dict) -> None:
        self.last_usage = Usage(
            input_tokens=usage.get("prompt_tokens") or 0,
            output_tokens=usage.get("completion_tokens") or 0,
            total_tokens=usage.get("total_tokens"),
            input_tokens_details=InputTokensDetails(cached_tokens=(usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0),
            output_tokens_details=OutputTokensDetails(
                reasoning_tokens=(usage.get("completion_tokens_details") or {}).get("reasoning_tokens") or 0),
        )
        self.usage_total["calls"] += 1
        self.usage_total["input_tokens"] += self.last_usage.input_tokens
        self.usage_total["output_tokens"] += self.last_usage.output_tokens
