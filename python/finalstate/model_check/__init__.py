"""Is a directory a Hugging Face causal LM the stack can load, and does its chat template render as the interpreter does?

`check(request)` takes a ModelCheckRequest (schemas/model-check.ts) and returns a ModelCheckReport:
- problems: what keeps the directory from loading (no config.json, a model type without a causal-LM class, no
  safetensors weights or a missing shard, no tokenizer);
- chatTemplate: `absent` when the tokenizer carries no chat template; else, for each candidate chat format (an
  interpreter renderer) and each of its probe conversations, the conversation rendered by the template
  (`apply_chat_template(…, add_generation_prompt=True)`, tokenized) against the interpreter's rendering tokenized by
  the same tokenizer: `match`, or `mismatch` with the first differing token and the text around it. A candidate's
  probes stop at its first mismatch.

Where the template has a tools section (its rendering changes when tools are passed), it gets the structured
conversation: messages with `tool_calls`, `tool` messages and the tools. Where it has none (SmolLM2's ChatML
template), the tools part is the interpreter's: the template gets the probe's plain messages, whose content already
carries the format's tool list, calls and results as the interpreter writes them, and must render the turns around
them exactly as the interpreter does (`toolsSection: "interpreter"`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import transformers
from transformers import AutoConfig, AutoTokenizer
from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

CONTEXT_TOKENS = 8
CONTEXT_CHARS = 60


def _weight_problems(directory: Path) -> list[str]:
    index = directory / "model.safetensors.index.json"
    if index.is_file():
        shards = sorted(set(json.loads(index.read_text())["weight_map"].values()))
        missing = [s for s in shards if not (directory / s).is_file()]
        return [f"shard(s) {', '.join(missing)} named by model.safetensors.index.json are missing"] if missing else []
    if not any(directory.glob("*.safetensors")):
        return ["no *.safetensors weights (a .bin-only checkpoint must be converted to safetensors)"]
    return []


def _load(directory: Path) -> tuple[list[str], Any, Any]:
    if not directory.is_dir():
        return [f"{directory} is not a directory"], None, None
    if not (directory / "config.json").is_file():
        return ["no config.json (not a Hugging Face model directory)"], None, None
    problems: list[str] = []
    config = None
    try:
        config = AutoConfig.from_pretrained(directory)
    except Exception as err:
        problems.append(f"config.json does not load: {err}")
    if config is not None and config.model_type not in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES:
        problems.append(f"model_type {config.model_type!r} has no causal-LM class in transformers {transformers.__version__}")
    problems += _weight_problems(directory)
    tokenizer = None
    try:
        tokenizer = AutoTokenizer.from_pretrained(directory)
    except Exception as err:
        problems.append(f"the tokenizer does not load: {err}")
    return problems, config, tokenizer


def _first_difference(a: list, b: list) -> int | None:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def compare_template(tokenizer, messages: list[dict], tools: list[dict], rendered: str) -> dict:
    if not getattr(tokenizer, "chat_template", None):
        return {"status": "absent"}
    kwargs = {"tools": tools or None, "add_generation_prompt": True}
    template_text = tokenizer.apply_chat_template(messages, tokenize=False, **kwargs)
    template_ids = list(tokenizer.apply_chat_template(messages, tokenize=True, **kwargs))
    our_ids = tokenizer(rendered, add_special_tokens=False)["input_ids"]
    position = _first_difference(our_ids, template_ids)
    if position is None:
        return {"status": "match", "tokens": len(our_ids)}
    start = max(0, position - CONTEXT_TOKENS)
    window = slice(start, position + CONTEXT_TOKENS)
    text_position = _first_difference(list(rendered), list(template_text))
    text_position = 0 if text_position is None else text_position
    text_window = slice(max(0, text_position - CONTEXT_CHARS), text_position + CONTEXT_CHARS)
    return {
        "status": "mismatch",
        "position": position,
        "ourTokens": len(our_ids),
        "templateTokens": len(template_ids),
        "contextStart": start,
        "ours": [tokenizer.decode([t]) for t in our_ids[window]],
        "template": [tokenizer.decode([t]) for t in template_ids[window]],
        "textPosition": text_position,
        "ourText": rendered[text_window],
        "templateText": template_text[text_window],
    }


def template_has_tools(tokenizer, probe: dict) -> bool:
    """Whether the template writes tools at all: its rendering of a probe changes when the tools are passed."""
    render = lambda tools: tokenizer.apply_chat_template(probe["messages"], tools=tools, tokenize=False, add_generation_prompt=True)  # noqa: E731
    return render(probe["tools"]) != render(None)


def compare_candidates(tokenizer, candidates: list[dict]) -> dict:
    if not getattr(tokenizer, "chat_template", None):
        return {"status": "absent"}
    first = next((p for c in candidates for p in c["probes"]), None)
    own_tools = first is not None and template_has_tools(tokenizer, first)
    formats = []
    for candidate in candidates:
        probes = []
        for probe in candidate["probes"]:
            if own_tools:
                comparison = compare_template(tokenizer, probe["messages"], probe["tools"], probe["rendered"])
            else:
                comparison = compare_template(tokenizer, probe["plainMessages"], [], probe["rendered"])
            probes.append({"name": probe["name"], **comparison})
            if comparison["status"] != "match":
                break
        formats.append({"family": candidate["family"], "probes": probes})
    return {"status": "checked", "toolsSection": "template" if own_tools else "interpreter", "formats": formats}


def check(request: dict) -> dict:
    directory = Path(request["modelDir"])
    problems, config, tokenizer = _load(directory)
    report: dict[str, Any] = {"modelDir": str(directory), "problems": problems}
    if config is not None:
        report["modelType"] = config.model_type
    if tokenizer is not None:
        report["addedTokens"] = [token.content for _, token in sorted(tokenizer.added_tokens_decoder.items())]
    if tokenizer is not None and not problems:
        report["chatTemplate"] = compare_candidates(tokenizer, request["candidates"])
    return report
