"""TRL's GRPOTrainer trains a model on a finalstate domain served over OpenEnv (`finalstate env serve --openenv`).

Runs in .venv-trl (infra/setup-trl.sh); `bash examples/trl-openenv/run.sh` starts the server and calls it. TRL is the
trainer, finalstate only the environment: each rollout is one OpenEnv session (OpenEnv's own GenericEnvClient on the
server's WebSocket), that is one finalstate episode with a fresh PostgreSQL database, and the reward is its 0/1
final-state grade. TRL's `environment_factory` makes one instance of the class below per rollout: `reset(**row)`
opens the episode and returns the user's first message, each public method is a tool the model may call (the
domain's tools as the server lists them, plus `send_message`), and the reward function grades what the rollout left.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import json
import keyword
import logging
import math
import os
import sys
import time
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

log = logging.getLogger("trl-openenv")

# The tools in the prompt: with --tool-schemas server, the tools as the server lists them (their MCP
# input schemas, in the server's order), then any other tool of TRL's (send_message), in place of the schemas that
# transformers derives from the methods' signatures and docstrings. finalstate's tiny model learned its tools in that
# form, rendered by its own chat template; a model of the field does with TRL's rendering (--tool-schemas trl, the
# default).
TOOLS_LOOP = "{%- for tool in tools %}{{- '\\n' + (tool | tojson) }}{%- endfor %}"
SERVER_TOOLS_LOOP = (
    "{%- for tool in tool_schemas.values() %}{{- '\\n' + (tool | tojson) }}{%- endfor %}"
    "{%- for tool in tools if tool.function.name not in tool_schemas %}{{- '\\n' + (tool | tojson) }}{%- endfor %}"
)
JSON_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool, "array": list, "object": dict}
ENDED = "The conversation has ended."
# Every episode the run played, as `_grade` left it: the run's figures.
EPISODES: list[dict] = []


class InfrastructureFailure(Exception):
    """The episode failed for a reason that is not the model's (server gone, session dropped): it gets no reward."""


def refused(err: Exception) -> bool:
    """The server answered and refused the request as malformed (OpenEnv's VALIDATION_ERROR): the session lives on."""
    return isinstance(err, RuntimeError) and "(code: VALIDATION_ERROR)" in str(err)


def python_type(schema: dict) -> Any:
    """The type hint that transformers' get_json_schema turns back into this JSON Schema (an enum as a Literal)."""
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return Literal[tuple(schema["enum"])]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if kind == "array" and isinstance(schema.get("items"), dict):
        return list[python_type(schema["items"])]
    return JSON_TYPES.get(kind, Any)


def tool_method(tool: dict):
    """A method calling one of the episode's tools, with the signature and docstring that TRL renders into the prompt
    (transformers' get_json_schema: type hints, and a Google-style docstring describing every argument)."""
    name = tool["name"]
    schema = tool.get("input_schema") or {}
    properties: dict[str, dict] = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    if any(not n.isidentifier() or keyword.iskeyword(n) for n in [name, *properties]):
        raise ValueError(f"tool {name}: its name and argument names must be Python identifiers to be a TRL tool")

    def method(self, **arguments):
        return self._call_tool(name, {k: v for k, v in arguments.items() if v is not None})

    # Keyword-only parameters in the tool's own order; an optional one is `T | None = None`, left out of the call.
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {}
    for arg, spec in properties.items():
        hint = python_type(spec) if arg in required else python_type(spec) | None
        default = inspect.Parameter.empty if arg in required else None
        params.append(inspect.Parameter(arg, inspect.Parameter.KEYWORD_ONLY, annotation=hint, default=default))
        annotations[arg] = hint
    method.__name__ = method.__qualname__ = name
    method.__signature__ = inspect.Signature(params)
    method.__annotations__ = annotations
    described = "".join(f"\n    {arg}: {(spec.get('description') or arg.replace('_', ' ')).strip()}" for arg, spec in properties.items())
    method.__doc__ = (tool.get("description") or name).strip() + (f"\n\nArgs:{described}" if properties else "")
    return method


class FinalstateEpisode:
    """One rollout's finalstate episode over OpenEnv; `episode_class` subclasses it with the served domain's tools."""

    base_url = ""  # with the token as its userinfo: OpenEnv's client sends it as HTTP Basic on the WebSocket handshake
    token = ""
    server_tools: tuple[dict, ...] = ()  # the tools as the server listed them (OpenEnvTool: name, description, input_schema)
    system_prompt = ""  # the system message of every rollout's prompt: a reset that gives another is recorded

    def __init__(self):
        self._client = None
        self._episode: dict = {"done": True}

    def _connect(self):
        if self._client is None:
            from openenv.core import GenericEnvClient

            self._client = GenericEnvClient(base_url=self.base_url, message_timeout_s=120.0).sync()
            self._client.connect()
        return self._client

    def _redact(self, text: str) -> str:
        return text.replace(self.token, "<token>") if self.token else text

    def _close(self):
        client, self._client = self._client, None
        if client is not None:
            with contextlib.suppress(Exception):
                client.close()

    def _fail(self, what: str, err: Exception) -> InfrastructureFailure:
        """A dead session or server: the episode cannot be graded. Closes the client; the next reset reconnects."""
        self._close()
        failure = InfrastructureFailure(self._redact(f"{what}: {err}"))  # OpenEnv's errors name the URL
        self._episode.update(done=True, reward=None, infrastructure_error=str(failure))
        return failure

    def _step(self, action: dict) -> tuple[dict, Any, bool]:
        try:
            result = self._connect().step(action)
        except Exception as err:
            if refused(err):
                raise ValueError(self._redact(str(err))) from err  # TRL shows the model the error; the episode goes on
            raise self._fail(action["type"], err) from err
        return result.observation, result.reward, result.done

    def reset(self, **row) -> str:
        """Opens a fresh episode (a reset tears the session's previous one down) and returns the user's first message."""
        request = {"task_id": row["task_id"]} if row.get("task_id") else {"seed": int(row["seed"])}
        self._episode = {"reset": request, "started": time.perf_counter(), "tool_calls": 0, "tool_errors": 0, "messages": 0}
        try:
            try:
                result = self._connect().reset(**request)
            except Exception as err:
                if refused(err):
                    raise
                self._close()  # the server may have closed this session between steps (idle): once more, on a new one
                result = self._connect().reset(**request)
        except Exception as err:
            if refused(err):  # a task id the set lacks, say: the run's mistake, not the infrastructure's
                raise ValueError(f"reset {request}: {self._redact(str(err))}") from err
            self._fail("reset", err)
            return ""
        observation = result.observation
        self._episode.update(task_id=observation.get("task_id"), episode_id=observation.get("episode_id"), done=result.done)
        if observation.get("system_prompt", self.system_prompt) != self.system_prompt:
            self._episode["other_system_prompt"] = True  # the set has several policies: this rollout saw another one
        return observation.get("user_message") or ""

    def _call_tool(self, name: str, arguments: dict) -> str:
        episode = self._episode
        if episode.get("done"):
            return ENDED
        episode["tool_calls"] += 1
        call = {"name": name, "arguments": arguments}
        episode.setdefault("calls", []).append(call)
        observation, reward, done = self._step({"type": "call_tool", "tool_name": name, "arguments": arguments})
        if done:
            self._ended(observation, reward)
            return ENDED
        if observation.get("error"):
            episode["tool_errors"] += 1
            call["error"] = observation["error"].get("message", "tool error")
            raise RuntimeError(call["error"])  # TRL counts it as a failed call
        return observation.get("result") or ""

    def send_message(self, content: str) -> str:
        """Send a message to the user and return their reply.

        Args:
            content: What to tell or ask the user.
        """
        episode = self._episode
        if episode.get("done"):
            return ENDED
        if not content.strip():
            raise ValueError("a message to the user needs some text")
        episode["messages"] += 1
        observation, reward, done = self._step({"type": "message", "content": content})
        if done:
            self._ended(observation, reward)
        return observation.get("user_message") or (ENDED if done else "")

    def _ended(self, observation: dict, reward: Any):
        infrastructure_error = observation.get("infrastructure_error")
        self._episode.update(
            done=True,
            reward=None if infrastructure_error else reward,
            finish_reason=observation.get("finish_reason"),
            infrastructure_error=infrastructure_error,
            diff_entries=len(observation.get("diff") or []),
            summary=observation.get("summary"),
        )

    def _grade(self, completion: list[dict]) -> float | None:
        """The episode's reward once the rollout is over: its last words go to the user, then `finish` grades it."""
        episode = self._episode
        if "started" not in episode:
            return None
        last = completion[-1] if completion else {}
        text = (last.get("content") or "").strip() if last.get("role") == "assistant" and not last.get("tool_calls") else ""
        with contextlib.suppress(InfrastructureFailure):  # _fail recorded it: no reward
            if not episode.get("done") and text:
                episode["messages"] += 1
                observation, reward, done = self._step({"type": "message", "content": text})
                if done:
                    self._ended(observation, reward)
            if not episode.get("done"):
                observation, reward, done = self._step({"type": "finish"})
                if not done:
                    raise self._fail("finish", RuntimeError("the episode did not end"))
                self._ended(observation, reward)
        episode["seconds"] = round(time.perf_counter() - episode.pop("started"), 3)
        EPISODES.append(dict(episode))
        return None if episode.get("reward") is None else float(episode["reward"])


def final_state_reward(completions, environments, **_):
    """Each rollout's final-state grade, 0 or 1; None (no reward: TRL leaves it out of the group) after an
    infrastructure failure."""
    return [environment._grade(completion) for environment, completion in zip(environments, completions)]


def episode_class(url: str, token: str, send_message: bool = True) -> type[FinalstateEpisode]:
    """FinalstateEpisode with the served domain's tools as methods and its system prompt (the domain's policy, which
    env serve --openenv gives at reset), from a reset on a session of its own."""
    from openenv.core import GenericEnvClient

    parts = urlsplit(url.rstrip("/"))
    base_url = urlunsplit(parts._replace(netloc=f"finalstate:{token}@{parts.netloc}")) if token else url.rstrip("/")
    client = GenericEnvClient(base_url=base_url).sync()
    try:
        client.connect()
        observation = client.reset(seed=0).observation
    finally:
        client.close()
    methods = {tool["name"]: tool_method(tool) for tool in observation.get("tools") or []}
    clashes = sorted(name for name in methods if name in vars(FinalstateEpisode) or name.startswith("_"))
    if clashes:
        raise ValueError(f"tools named like the episode class's own methods: {clashes}")
    listed = tuple(observation.get("tools") or [])
    members = {**methods, "base_url": base_url, "token": token, "server_tools": listed, "system_prompt": observation.get("system_prompt", "")}
    if not send_message:
        members["send_message"] = None  # not a function: TRL leaves it out of the tools
    return type("FinalstateEpisodeTools", (FinalstateEpisode,), members)


def finite(value: Any) -> Any:
    """The value with each NaN (TRL logs one for a step with no reward) as null, which JSON can say."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [finite(v) for v in value]
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", required=True, help="the OpenEnv server, e.g. http://127.0.0.1:8000")
    parser.add_argument("--token-file", default="", help="the server's bearer token (env serve --token-file)")
    parser.add_argument("--model", required=True, help="a Hugging Face causal-LM directory (the tiny base model)")
    parser.add_argument("--steps", type=int, default=3, help="GRPO steps (default 3)")
    parser.add_argument("--generations", type=int, default=4, help="rollouts per task: the GRPO group (default 4)")
    parser.add_argument("--tasks-per-step", type=int, default=4, help="groups per step, each on a task of its own (default 4)")
    parser.add_argument("--task-ids", default="", help="comma-separated task ids to train on (default: drawn by seed)")
    parser.add_argument("--max-completion-length", type=int, default=384, help="tokens a rollout may take, tool results included")
    parser.add_argument("--max-tool-calls", type=int, default=6, help="tool-calling turns a rollout may take")
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--system-prompt", default=None, help="the system message (default: the one the server gives at reset)")
    parser.add_argument(
        "--tool-schemas", choices=["trl", "server"], default="trl",
        help="the tools' JSON in the prompt: TRL's, from the methods (default), or the server's, as finalstate's tiny model learned them",
    )
    parser.add_argument("--no-send-message", action="store_true", help="no send_message tool: the rollout's final text is its only message to the user")
    parser.add_argument("--log-completions", action="store_true", help="TRL prints each step's completions")
    parser.add_argument("--output", default="", help="write the run's figures here as JSON")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s", stream=sys.stderr)
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")

    started = time.perf_counter()
    import torch
    import transformers
    import trl
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer
    from trl.chat_template_utils import add_response_schema, qwen3_template

    token = Path(args.token_file).read_text().strip() if args.token_file else ""
    env_cls = episode_class(args.url, token, send_message=not args.no_send_message)
    tools = [name for name, _ in inspect.getmembers(env_cls, inspect.isfunction) if not name.startswith("_") and name != "reset"]
    log.info("TRL %s, transformers %s, torch %s; tools: %s", trl.__version__, transformers.__version__, torch.__version__, tools)

    tokenizer = AutoTokenizer.from_pretrained(args.model)
    if getattr(tokenizer, "response_template", None) is None and getattr(tokenizer, "response_schema", None) is None:
        try:
            add_response_schema(tokenizer)  # TRL's tool-call parser for a chat template it knows (Qwen, Llama, ...)
        except ValueError:
            # finalstate's tiny model speaks the Qwen3 / Hermes format (<tool_call>{"name", "arguments"}</tool_call>)
            # with a chat template of its own, which TRL does not know by its text: TRL's parser for that format.
            tokenizer.response_template = qwen3_template
    chat_template_kwargs = {}
    if args.tool_schemas == "server":
        if tokenizer.chat_template.count(TOOLS_LOOP) != 1:
            raise SystemExit(f"--tool-schemas server: the chat template of {args.model} has no {TOOLS_LOOP}: use --tool-schemas trl")
        tokenizer.chat_template = tokenizer.chat_template.replace(TOOLS_LOOP, SERVER_TOOLS_LOOP)
        chat_template_kwargs["tool_schemas"] = {
            t["name"]: {"type": "function", "function": {"name": t["name"], "description": t["description"], "parameters": t["input_schema"]}}
            for t in env_cls.server_tools
        }
    model = AutoModelForCausalLM.from_pretrained(args.model, dtype=torch.float32)

    ids = [t for t in args.task_ids.split(",") if t]
    # TRL's prompt is the dataset row's, and a reset's string only extends its last message: the system message is
    # the one the server gave the first reset, and each rollout checks that its own reset gave the same.
    if args.system_prompt is not None:
        env_cls.system_prompt = args.system_prompt
    system = env_cls.system_prompt
    prompt = [*([{"role": "system", "content": system}] if system else []), {"role": "user", "content": ""}]
    rows = [
        {"prompt": prompt, "task_id": ids[i % len(ids)] if ids else "", "seed": args.seed * 1000 + i}
        for i in range(args.steps * args.tasks_per_step)
    ]
    config = GRPOConfig(
        output_dir=str(Path(args.output or "trl-openenv.json").resolve().parent / "trl-openenv-checkpoints"),
        use_cpu=True,
        max_steps=args.steps,
        num_generations=args.generations,
        per_device_train_batch_size=args.generations * args.tasks_per_step,
        gradient_accumulation_steps=1,
        max_completion_length=args.max_completion_length,
        max_tool_calling_iterations=args.max_tool_calls,
        learning_rate=args.lr,
        beta=0.0,
        temperature=1.0,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=args.seed,
        shuffle_dataset=False,
        dataloader_num_workers=0,
        disable_tqdm=True,
        chat_template_kwargs=chat_template_kwargs,
        log_completions=args.log_completions,
        num_completions_to_print=args.generations * args.tasks_per_step,
    )
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        reward_funcs=[final_state_reward],
        args=config,
        train_dataset=Dataset.from_list(rows),
        environment_factory=env_cls,
    )
    setup_seconds = time.perf_counter() - started
    trainer.train()
    total_seconds = time.perf_counter() - started

    logged = [entry for entry in trainer.state.log_history if "reward" in entry]
    graded = [e["reward"] for e in EPISODES if e.get("reward") is not None]
    per_step = [
        {
            "step": i + 1,
            "reward": entry.get("reward"),
            "rewardStd": entry.get("reward_std"),
            "toolCallsPerRollout": entry.get("tools/call_frequency"),
            "toolFailureRate": entry.get("tools/failure_frequency"),
            "completionTokensMean": entry.get("completions/mean_length"),
            "loss": entry.get("loss"),
            "gradNorm": entry.get("grad_norm"),
            "seconds": entry.get("step_time"),
        }
        for i, entry in enumerate(logged)
    ]
    figures = {
        "trl": trl.__version__,
        "transformers": transformers.__version__,
        "torch": torch.__version__,
        "model": str(Path(args.model).resolve()),
        "modelParameters": sum(p.numel() for p in model.parameters()),
        "tools": tools,
        "toolSchemas": args.tool_schemas,
        "systemPrompt": system,
        "otherSystemPrompts": sum(1 for e in EPISODES if e.get("other_system_prompt")),
        "steps": len(logged),
        "perStep": per_step,
        # TRL's count: the tool calls it parsed from the completions (a call to an unknown tool included)
        "toolCallsParsed": round(sum((s["toolCallsPerRollout"] or 0) * args.generations * args.tasks_per_step for s in per_step)),
        "episodes": len(EPISODES),
        "graded": len(graded),
        "rewardOnes": sum(1 for r in graded if r == 1),
        "infrastructureFailures": sum(1 for e in EPISODES if e.get("infrastructure_error")),
        "toolCallsServed": sum(e["tool_calls"] for e in EPISODES),
        "toolErrors": sum(e["tool_errors"] for e in EPISODES),
        "messages": sum(e["messages"] for e in EPISODES),
        "finishReasons": {r: sum(1 for e in EPISODES if str(e.get("finish_reason")) == r) for r in sorted({str(e.get("finish_reason")) for e in EPISODES})},
        "tasks": sorted({e["task_id"] for e in EPISODES if e.get("task_id")}),
        "setupSeconds": round(setup_seconds, 1),
        "trainSeconds": round(total_seconds - setup_seconds, 1),
        "totalSeconds": round(total_seconds, 1),
    }
    clean = finite({**figures, "episodeList": EPISODES})
    if args.output:
        Path(args.output).write_text(json.dumps(clean, indent=2) + "\n")
    print(json.dumps({k: v for k, v in clean.items() if k != "episodeList"}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
