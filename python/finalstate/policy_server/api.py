"""The HTTP surface: a subset of vLLM's OpenAI-compatible API, including the admin routes vLLM serves with
VLLM_SERVER_DEV_MODE=1 that the orchestrator publishes checkpoints through (one publish path for both servers):
  POST /pause[?mode=...]    new completions wait until /resume; those in flight finish (vLLM's mode=wait; the mode
                            is accepted and treated as wait, since nothing here can abort a sequence mid-batch)
  POST /resume, GET /is_paused
  POST /collective_rpc      only {"method": "reload_weights", "kwargs": {"weights_path": DIR, "policy_version": N}};
                            `policy_version` is this server's extension (default: the newest version + 1); a version
                            older than the one served or being loaded is refused with 409 Conflict unless the kwargs
                            say `"rollback": true` (versions only move forward: docs/publishing.md)
  POST /reset_prefix_cache  an empty 200, as in vLLM (this server keeps no prefix cache)
  POST /v1/load_lora_adapter {"lora_name", "lora_path"}, /v1/unload_lora_adapter {"lora_name"}: LoRA adapters, as vLLM
                            serves them with --enable-lora and VLLM_ALLOW_RUNTIME_LORA_UPDATING (adapters.py); a
                            completion names one as its `model`. An adapter's policy version is its name's `-v<step>`
                            (`policy_version` in the load request sets another). No pause: sequences in flight go on.

Every route checks Host and Origin, every POST must be application/json, and the admin routes need the bearer
token (guard.py). /v1/models shows the checkpoint path (`root`) only to a caller with the token.

Every JSON response has `policy_version` and every response the header X-Policy-Version.
/v1/completions fields beyond OpenAI's, as in vLLM:
  request  `prompt` may be a list of token ids; `return_token_ids` (bool) adds per-choice `prompt_token_ids` and
           `token_ids`; `seed`, `stop_token_ids`, `ignore_eos`, `skip_special_tokens` as in vLLM's sampling params.
  response `choices[i].logprobs` (when `logprobs` is a number k >= 0) is the legacy completions shape:
           tokens, token_logprobs, top_logprobs (k entries per token, or null for k = 0), text_offset.
           token_logprobs[j] is log p(token_ids[j]) under the raw model distribution (before temperature and
           top_p), aligned with token_ids, which include a final EOS/stop token when one ended the choice
           (its text is not in `text`). With n > 1, choice i samples with seed + i.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlparse

from .adapters import AdapterError, version_of
from .engine import Engine, SamplingParams, VersionConflict
from .guard import Guard, GuardError

log = logging.getLogger(__name__)
VERSION_HEADER = "X-Policy-Version"


class RequestError(Exception):
    def __init__(self, message: str, status: HTTPStatus = HTTPStatus.BAD_REQUEST, param: str | None = None):
        super().__init__(message)
        self.status = status
        self.param = param


def _field(body: dict, name: str, kind, default, check=None, message=""):
    value = body.get(name, default)
    if value is None and default is None:
        return None
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)) or (check and not check(value)):
        raise RequestError(f"`{name}` {message or 'has the wrong type'} (got {value!r})", param=name)
    return value


def _token_list(value: Any, name: str, vocab_size: int) -> list[int]:
    if not isinstance(value, list) or not all(isinstance(t, int) and not isinstance(t, bool) for t in value):
        raise RequestError(f"`{name}` must be a string or a list of token ids", param=name)
    bad = [t for t in value if not 0 <= t < vocab_size]
    if bad:
        raise RequestError(f"`{name}` has token id {bad[0]} outside the vocabulary (0..{vocab_size - 1})", param=name)
    return value


class PolicyServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(
        self,
        address: tuple[str, int],
        engine: Engine,
        model_name: str,
        *,
        admin_token: str | None = None,
        allowed_hosts: tuple[str, ...] = (),
        allowed_origins: tuple[str, ...] = (),
    ):
        super().__init__(address, _Handler)
        self.engine = engine
        self.model_name = model_name
        self.guard = Guard.of(address[0], self.server_address[1], admin_token, allowed_hosts, allowed_origins)
        self.serving = threading.Event()  # cleared by /pause: new completions wait for /resume
        self.serving.set()


class _Handler(BaseHTTPRequestHandler):
    server: PolicyServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (the base class's name)
        log.debug("%s %s", self.address_string(), format % args)

    # --- plumbing ---------------------------------------------------------------------------------------------
    def _send(self, status: HTTPStatus, payload: dict, version: int | None = None, headers: dict[str, str] | None = None) -> None:
        version = self.server.engine.policy.version if version is None else version
        body = json.dumps({**payload, "policy_version": version}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header(VERSION_HEADER, str(version))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _send_empty(self) -> None:
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Length", "0")
        self.send_header(VERSION_HEADER, str(self.server.engine.policy.version))
        self.end_headers()

    def _error(self, err: RequestError) -> None:
        kind = {HTTPStatus.NOT_FOUND: "NotFoundError", HTTPStatus.CONFLICT: "ConflictError"}.get(err.status, "BadRequestError")
        self._send(err.status, {"error": {"message": str(err), "type": kind, "param": err.param, "code": int(err.status)}})

    def _body(self) -> dict:
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError as err:
            raise RequestError(f"the request body is not valid JSON: {err}") from err
        if not isinstance(body, dict):
            raise RequestError("the request body must be a JSON object")
        return body

    def _refuse(self, err: GuardError) -> None:
        # The body was not read: close the connection rather than parse it as the next request.
        self.close_connection = True
        kind = {HTTPStatus.UNAUTHORIZED: "AuthenticationError", HTTPStatus.UNSUPPORTED_MEDIA_TYPE: "BadRequestError"}.get(err.status, "PermissionDeniedError")
        error = {"message": str(err), "type": kind, "param": None, "code": int(err.status)}
        self._send(err.status, {"error": error}, headers={**err.headers, "Connection": "close"})

    def _dispatch(self, routes: dict) -> None:
        path = self.path.split("?", 1)[0]
        handler = routes.get(path)
        try:
            self.server.guard.check(self.command, path, self.headers)
        except GuardError as err:
            return self._refuse(err)
        try:
            if handler is None:
                raise RequestError(f"no route {self.command} {path}", HTTPStatus.NOT_FOUND)
            handler()
        except RequestError as err:
            self._error(err)
        except Exception as err:  # noqa: BLE001 (report, keep serving)
            log.exception("%s %s failed", self.command, path)
            self._send(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": {"message": str(err), "type": "InternalServerError", "param": None, "code": 500}})

    def do_GET(self) -> None:  # noqa: N802
        self._dispatch({"/health": self._health, "/v1/models": self._models, "/stats": self._stats, "/is_paused": self._is_paused})

    def do_POST(self) -> None:  # noqa: N802
        self._dispatch({
            "/v1/completions": self._completions,
            "/tokenize": self._tokenize,
            "/detokenize": self._detokenize,
            "/pause": self._pause,
            "/resume": self._resume,
            "/collective_rpc": self._collective_rpc,
            "/reset_prefix_cache": self._reset_prefix_cache,
            "/v1/load_lora_adapter": self._load_lora_adapter,
            "/v1/unload_lora_adapter": self._unload_lora_adapter,
        })

    # --- routes -----------------------------------------------------------------------------------------------
    def _health(self) -> None:
        self._send(HTTPStatus.OK, {"status": "ok"})

    def _stats(self) -> None:
        sizes = list(self.server.engine.batch_sizes)
        self._send(HTTPStatus.OK, {"batches": len(sizes), "batch_sizes": sizes[-1000:]})

    def _models(self) -> None:
        policy = self.server.engine.policy
        card = {
            "id": self.server.model_name,
            "object": "model",
            "created": int(time.time()),
            "owned_by": "finalstate",
            "max_model_len": policy.max_model_len,
            "max_lora_rank": self.server.engine.max_lora_rank,
            "policy_version": policy.version,
        }
        admin = self.server.guard.authorized(self.headers.get("Authorization"))
        if admin:
            card["root"] = str(policy.path)
        cards = [card]
        for adapter in self.server.engine.adapters():
            lora = {"id": adapter.name, "object": "model", "created": card["created"], "owned_by": "finalstate", "parent": self.server.model_name}
            lora |= {"max_model_len": policy.max_model_len, "policy_version": adapter.version}
            cards.append(lora | ({"root": str(adapter.path)} if admin else {}))
        self._send(HTTPStatus.OK, {"object": "list", "data": cards})

    def _load_lora_adapter(self) -> None:
        body = self._body()
        name = _field(body, "lora_name", str, "", check=bool, message="must name the adapter")
        path = _field(body, "lora_path", str, "", check=bool, message="must name an adapter directory")
        if path.startswith("file://"):
            path = unquote(urlparse(path).path)
        version = _field(body, "policy_version", int, None, check=lambda v: v >= 0, message="must be a non-negative integer")
        if name == self.server.model_name:
            raise RequestError(f"the adapter name {name!r} is the base model's", param="lora_name")
        try:
            adapter = self.server.engine.load_adapter(name, path, version if version is not None else version_of(name, self.server.engine.policy.version))
        except FileNotFoundError as err:
            raise RequestError(f"No adapter found for {name!r}: {err}", HTTPStatus.NOT_FOUND, "lora_path") from err
        except AdapterError as err:
            raise RequestError(f"cannot load adapter {name!r}: {err}", param="lora_path") from err
        self._send(HTTPStatus.OK, {"status": "loaded", "lora_name": name, "rank": adapter.rank}, version=adapter.version)

    def _unload_lora_adapter(self) -> None:
        body = self._body()
        name = _field(body, "lora_name", str, "", check=bool, message="must name the adapter")
        try:
            self.server.engine.unload_adapter(name)
        except KeyError:
            raise RequestError(f"The lora adapter '{name}' cannot be found.", HTTPStatus.NOT_FOUND, "lora_name") from None
        self._send(HTTPStatus.OK, {"status": "unloaded", "lora_name": name})

    def _tokenize(self) -> None:
        body = self._body()
        prompt = _field(body, "prompt", str, "", message="must be a string")
        add_special = _field(body, "add_special_tokens", bool, True)
        tokens = self.server.engine.encode(prompt, add_special)
        self._send(HTTPStatus.OK, {"count": len(tokens), "max_model_len": self.server.engine.policy.max_model_len, "tokens": tokens, "token_strs": None})

    def _detokenize(self) -> None:
        body = self._body()
        tokens = _token_list(body.get("tokens"), "tokens", self.server.engine.vocab_size)
        self._send(HTTPStatus.OK, {"prompt": self.server.engine.decode(tokens)})

    def _pause(self) -> None:
        self._body()
        self.server.serving.clear()
        self._send(HTTPStatus.OK, {"status": "paused"})

    def _resume(self) -> None:
        self._body()
        self.server.serving.set()
        self._send(HTTPStatus.OK, {"status": "resumed"})

    def _reset_prefix_cache(self) -> None:
        self._body()
        self._send_empty()

    def _is_paused(self) -> None:
        self._send(HTTPStatus.OK, {"is_paused": not self.server.serving.is_set()})

    def _collective_rpc(self) -> None:
        body = self._body()
        method = body.get("method")
        if method != "reload_weights":
            raise RequestError(f"method {method!r} is not supported here (only 'reload_weights')", param="method")
        kwargs = body.get("kwargs") or {}
        if not isinstance(kwargs, dict):
            raise RequestError("`kwargs` must be an object", param="kwargs")
        unknown = sorted(set(kwargs) - {"weights_path", "policy_version", "rollback", "is_checkpoint_format"})
        if unknown:
            raise RequestError(f"reload_weights got unexpected keyword argument(s) {', '.join(unknown)}", param="kwargs")
        path = _field(kwargs, "weights_path", str, "", check=bool, message="must name a checkpoint directory")
        if path.startswith("file://"):
            path = unquote(urlparse(path).path)
        version = _field(kwargs, "policy_version", int, None, check=lambda v: v >= 0, message="must be a non-negative integer")
        rollback = _field(kwargs, "rollback", bool, False)
        try:
            policy = self.server.engine.reload(path, version, rollback=rollback)
        except VersionConflict as err:
            raise RequestError(str(err), HTTPStatus.CONFLICT, "policy_version") from err
        except (FileNotFoundError, OSError, ValueError) as err:
            raise RequestError(f"cannot load checkpoint {path}: {err}", param="weights_path") from err
        self._send(HTTPStatus.OK, {"results": [None]}, version=policy.version)

    def _completions(self) -> None:
        body = self._body()
        self.server.serving.wait()
        engine = self.server.engine
        model = body.get("model")
        adapter = engine.adapter(model) if isinstance(model, str) else None
        if model is not None and model != self.server.model_name and adapter is None:
            raise RequestError(f"The model `{model}` does not exist.", HTTPStatus.NOT_FOUND, "model")
        prompt = body.get("prompt")
        if isinstance(prompt, str):
            prompt_ids = engine.encode(prompt, _field(body, "add_special_tokens", bool, True))
        else:
            prompt_ids = _token_list(prompt, "prompt", engine.vocab_size)
        if not prompt_ids:
            raise RequestError("`prompt` is empty", param="prompt")
        logprobs = _field(body, "logprobs", int, None, check=lambda v: 0 <= v <= 20, message="must be an integer 0..20")
        stop = body.get("stop") or []
        stop = [stop] if isinstance(stop, str) else stop
        if not isinstance(stop, list) or not all(isinstance(s, str) for s in stop):
            raise RequestError("`stop` must be a string or a list of strings", param="stop")
        n = _field(body, "n", int, 1, check=lambda v: 1 <= v <= 64, message="must be an integer 1..64")
        seed = _field(body, "seed", int, None)
        params = dict(
            max_tokens=_field(body, "max_tokens", int, 16, check=lambda v: v >= 1, message="must be a positive integer"),
            temperature=_field(body, "temperature", float, 1.0, check=lambda v: v >= 0, message="must be >= 0"),
            top_p=_field(body, "top_p", float, 1.0, check=lambda v: 0 < v <= 1, message="must be in (0, 1]"),
            stop=stop,
            stop_token_ids=_token_list(body.get("stop_token_ids") or [], "stop_token_ids", engine.vocab_size),
            ignore_eos=_field(body, "ignore_eos", bool, False),
            logprobs=logprobs,
            skip_special_tokens=_field(body, "skip_special_tokens", bool, True),
        )
        limit = engine.policy.max_model_len
        if len(prompt_ids) + params["max_tokens"] > limit:
            # vLLM's wording, so clients recognise a context overflow the same way on both servers.
            raise RequestError(
                f"This model's maximum context length is {limit} tokens. However, you requested "
                f"{len(prompt_ids) + params['max_tokens']} tokens ({len(prompt_ids)} in the messages, "
                f"{params['max_tokens']} in the completion).",
                param="max_tokens",
            )
        futures = [engine.submit(prompt_ids, SamplingParams(seed=None if seed is None else seed + i, **params), adapter) for i in range(n)]
        completions = [f.result() for f in futures]
        return_ids = _field(body, "return_token_ids", bool, False)
        choices = []
        for index, done in enumerate(completions):
            choice: dict[str, Any] = {"index": index, "text": done.text, "finish_reason": done.finish_reason, "logprobs": None}
            if logprobs is not None:
                choice["logprobs"] = self._logprobs_block(done, logprobs)
            if return_ids:
                choice["prompt_token_ids"] = prompt_ids
                choice["token_ids"] = done.token_ids
            choices.append(choice)
        generated = sum(len(c.token_ids) for c in completions)
        version = completions[0].policy_version
        self._send(
            HTTPStatus.OK,
            {
                "id": f"cmpl-{uuid.uuid4().hex}",
                "object": "text_completion",
                "created": int(time.time()),
                "model": adapter.name if adapter is not None else self.server.model_name,
                "choices": choices,
                "usage": {"prompt_tokens": len(prompt_ids), "completion_tokens": generated, "total_tokens": len(prompt_ids) + generated},
            },
            version=version,
        )

    def _logprobs_block(self, done, k: int) -> dict:
        engine = self.server.engine
        tokens = [engine.decode([t]) for t in done.token_ids]
        offsets, position = [], 0
        for token in tokens:
            offsets.append(position)
            position += len(token)
        top = None
        if k > 0:
            top = []
            for entry in done.top_logprobs:
                by_text: dict[str, float] = {}
                for token, logprob in entry.items():  # highest first; tokens decoding to the same text keep the highest
                    by_text.setdefault(engine.decode([token]), logprob)
                top.append(by_text)
        return {"tokens": tokens, "token_logprobs": done.token_logprobs, "top_logprobs": top, "text_offset": offsets}
