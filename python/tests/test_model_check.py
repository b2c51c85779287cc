"""finalstate.model_check on the tiny model: directory problems, and the chat template against a rendering."""

from __future__ import annotations

import json
import shutil

import pytest
from transformers import AutoTokenizer

from finalstate.base_model.chat_template import QWEN3_CHAT_TEMPLATE
from finalstate.model_check import check

TOOLS = [{"type": "function", "function": {"name": "find_order", "description": "Look up «ORD-…».", "parameters": {"type": "object"}}}]
MESSAGES = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Where is ORD-7?"},
    {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {"name": "find_order", "arguments": {"order_id": "ORD-7"}}}]},
    {"role": "tool", "content": '{"status": "shipped"}'},
]
# What runtime/interpreter/qwen3.ts renders for MESSAGES, generation prompt included.
RENDERED = (
    "<|im_start|>system\nBe brief.\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
    '{"type": "function", "function": {"name": "find_order", "description": "Look up «ORD-…».", "parameters": {"type": "object"}}}'
    "\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n"
    '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n'
    "<|im_start|>user\nWhere is ORD-7?<|im_end|>\n"
    '<|im_start|>assistant\n<tool_call>\n{"name": "find_order", "arguments": {"order_id": "ORD-7"}}\n</tool_call><|im_end|>\n'
    '<|im_start|>user\n<tool_response>\n{"status": "shipped"}\n</tool_response><|im_end|>\n'
    "<|im_start|>assistant\n"
)


@pytest.fixture()
def model_dir(tiny_model_dir, tmp_path):
    copy = tmp_path / "model"
    shutil.copytree(tiny_model_dir, copy)
    return copy


# The same conversation as plain ChatML messages carrying the Hermes tool text (what a template without tools gets).
PLAIN = [
    {"role": role, "content": block.split("\n", 1)[1].removesuffix("<|im_end|>\n")}
    for block in RENDERED.removesuffix("<|im_start|>assistant\n").split("<|im_start|>")[1:]
    for role in [block.split("\n", 1)[0]]
]


def request(directory, rendered=RENDERED):
    probe = {"name": "probe", "messages": MESSAGES, "tools": TOOLS, "plainMessages": PLAIN, "rendered": rendered}
    return {"modelDir": str(directory), "candidates": [{"family": "qwen3", "probes": [probe]}]}


def comparison(report):
    assert report["chatTemplate"]["status"] == "checked"
    [qwen3] = report["chatTemplate"]["formats"]
    return qwen3["probes"][0]


def with_template(directory, template):
    tokenizer = AutoTokenizer.from_pretrained(directory)
    tokenizer.chat_template = template
    tokenizer.save_pretrained(directory)


def test_the_base_models_template_renders_as_the_interpreter_does(model_dir):
    with_template(model_dir, QWEN3_CHAT_TEMPLATE)
    report = check(request(model_dir))
    assert report["problems"] == [] and report["modelType"] == "qwen3"
    assert report["chatTemplate"]["toolsSection"] == "template"
    assert comparison(report)["status"] == "match" and comparison(report)["tokens"] > 50


def test_a_template_without_tools_is_checked_on_the_turns_around_the_interpreters_tool_text(model_dir):
    chatml = "{% for m in messages %}{{ '<|im_start|>' + m['role'] + '\\n' + m['content'] + '<|im_end|>\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
    with_template(model_dir, chatml)
    report = check(request(model_dir))
    assert report["chatTemplate"]["toolsSection"] == "interpreter"
    assert comparison(report)["status"] == "match"
    with_template(model_dir, chatml.replace("'<|im_end|>\\n'", "'<|im_end|>\\n\\n'"))
    found = comparison(check(request(model_dir)))
    assert found["status"] == "mismatch" and found["name"] == "probe"
    assert "</tool_call><|im_end|>\n<|im_start|>user" in found["ourText"]
    assert "</tool_call><|im_end|>\n\n<|im_start|>user" in found["templateText"]


def test_a_template_that_differs_is_reported_at_its_first_differing_token(model_dir):
    with_template(model_dir, QWEN3_CHAT_TEMPLATE.replace("{{- '<|im_start|>user' }}{%- endif %}", "{{- '<|im_start|>tool' }}{%- endif %}"))
    found = comparison(check(request(model_dir)))
    assert found["status"] == "mismatch"
    ours, theirs = found["ours"], found["template"]
    at = found["position"] - found["contextStart"]
    assert ours[:at] == theirs[:at] and ours[at] != theirs[at]
    assert RENDERED[found["textPosition"] :].startswith("user\n<tool_response>")
    assert "<|im_start|>user\n<tool_response>" in found["ourText"] and "<|im_start|>tool\n<tool_response>" in found["templateText"]


def test_no_template_is_nothing_to_check(model_dir):
    assert check(request(model_dir))["chatTemplate"] == {"status": "absent"}


def test_what_keeps_a_directory_from_loading_is_named(model_dir, tmp_path):
    assert check(request(tmp_path / "nowhere"))["problems"] == [f"{tmp_path / 'nowhere'} is not a directory"]
    (model_dir / "model.safetensors").unlink()
    assert check(request(model_dir))["problems"] == ["no *.safetensors weights (a .bin-only checkpoint must be converted to safetensors)"]
    (model_dir / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {"lm_head.weight": "model-00001-of-00002.safetensors"}}))
    assert "model-00001-of-00002.safetensors named by model.safetensors.index.json are missing" in check(request(model_dir))["problems"][0]
    config = json.loads((model_dir / "config.json").read_text())
    (model_dir / "config.json").write_text(json.dumps({**config, "model_type": "t5", "architectures": ["T5ForConditionalGeneration"]}))
    problems = check(request(model_dir))["problems"]
    assert any("model_type 't5' has no causal-LM class" in p for p in problems), problems
    (model_dir / "config.json").unlink()
    report = check(request(model_dir))
    assert report["problems"] == ["no config.json (not a Hugging Face model directory)"] and "chatTemplate" not in report
