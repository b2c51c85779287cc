"""The tiny base-model build on synthetic demonstrations (the real ones come from the TypeScript interpreter)."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest
import torch
from safetensors.torch import load_file
from transformers import AutoModelForCausalLM, AutoTokenizer

from finalstate.base_model.build import BuildConfig, ModelShape, build, content_hash
from finalstate.base_model.demonstrations import DemonstrationError, assistant_token_mask, load_demonstrations, utf16_to_python_index
from finalstate.base_model.sft import SftConfig, sft_loss
from finalstate.base_model.tokenizer import MARKUP_TOKENS, SPECIAL_TOKENS, train_tokenizer

SMALL = BuildConfig(
    vocab_size=400,
    max_length=256,
    model=ModelShape(hidden_size=32, num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=1, head_dim=16, intermediate_size=64, max_position_embeddings=256),
    sft=SftConfig(steps=40, batch_size=4, lr=3e-3, warmup_steps=4),
    seed=0,
)


def render(order_id: int, status: str) -> dict:
    """One Hermes-format conversation; the assistant spans include each closing <|im_end|>."""
    parts: list[tuple[str, bool]] = [
        ("<|im_start|>system\nCancel only processing orders.<|im_end|>\n", False),
        (f"<|im_start|>user\nPlease cancel order {order_id}.<|im_end|>\n<|im_start|>assistant\n", False),
        (f'<tool_call>{{"name": "get_order", "arguments": {{"order_id": {order_id}}}}}</tool_call><|im_end|>', True),
        (f'\n<|im_start|>tool\n<tool_response>\n{{"status": "{status}"}}\n</tool_response><|im_end|>\n<|im_start|>assistant\n', False),
        ("I cancelled it." if status == "processing" else "I cannot cancel it.", True),
        ("<|im_end|>", True),
    ]
    text, spans = "", []
    for chunk, assistant in parts:
        if assistant:
            spans.append([len(text), len(text) + len(chunk)])
        text += chunk
    merged = [spans[0]]
    for start, end in spans[1:]:
        if start == merged[-1][1]:
            merged[-1][1] = end
        else:
            merged.append([start, end])
    return {"text": text, "assistantSpans": merged}


@pytest.fixture(scope="module")
def demos_file(tmp_path_factory):
    rng = random.Random(0)
    path = tmp_path_factory.mktemp("demos") / "demos.jsonl"
    rows = [render(rng.randint(1000, 9999), rng.choice(["processing", "shipped"])) for _ in range(48)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_tokenizer_splits_digits_and_keeps_chat_tokens_whole(demos_file):
    tokenizer = train_tokenizer((d.text for d in load_demonstrations(demos_file)), vocab_size=400)
    for token in SPECIAL_TOKENS + MARKUP_TOKENS:
        assert len(tokenizer(token, add_special_tokens=False)["input_ids"]) == 1, token
    ids = tokenizer("order 4821", add_special_tokens=False)["input_ids"]
    assert [tokenizer.decode([i]) for i in ids][-4:] == ["4", "8", "2", "1"]
    text = '<|im_start|>assistant\n<tool_call>{"order_id": 77}</tool_call><|im_end|>'
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    assert tokenizer.decode(ids) == text
    assert tokenizer.decode(ids, skip_special_tokens=True) == 'assistant\n<tool_call>{"order_id": 77}</tool_call>'
    assert len(tokenizer) <= 400


def test_tokenizer_merges_never_cross_a_line_end(demos_file):
    """A prompt ending at the generation prompt tokenizes the same alone as inside the demonstration it starts."""
    tokenizer = train_tokenizer((d.text for d in load_demonstrations(demos_file)), vocab_size=400)
    encode = lambda text: tokenizer(text, add_special_tokens=False)["input_ids"]  # noqa: E731
    for demo in load_demonstrations(demos_file)[:8]:
        for start, _ in demo.assistant_spans:
            assert encode(demo.text[:start]) + encode(demo.text[start:]) == encode(demo.text)
    # ...while merges inside a line span words: the repeated boilerplate packs into few tokens.
    line = "Cancel only processing orders."
    assert len(encode(line)) < len(line.split()) + 1


def test_assistant_mask_follows_spans_in_javascript_indices(tmp_path):
    assert assistant_token_mask([(0, 2), (2, 5), (5, 7), (7, 9)], ((2, 7),)) == [0, 1, 1, 0]
    text = "🙂 hi"  # the emoji is 2 UTF-16 units, 1 Python character
    assert utf16_to_python_index(text) == [0, 0, 1, 2, 3, 4]
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"text": text, "assistantSpans": [[3, 5]]}) + "\n")
    (demo,) = load_demonstrations(path)
    assert text[slice(*demo.assistant_spans[0])] == "hi"
    path.write_text('{"text": "x", "assistantSpans": [[0, 1]]}\n{"text": "abc", "assistantSpans": [[2, 1]]}\n')
    with pytest.raises(DemonstrationError, match=r"d.jsonl:2: .*\[2, 1\)"):
        load_demonstrations(path)
    path.write_text('{"text": "abc"}\n')
    with pytest.raises(DemonstrationError, match=r"d.jsonl:1: .*'assistantSpans' is a required property"):
        load_demonstrations(path)


def test_build_trains_reports_caches_and_is_deterministic(demos_file, tmp_path):
    first = build(demos_file, tmp_path / "a", SMALL)
    report = first.report
    assert not first.cached and first.directory.name == f"base-{first.content_hash[:16]}"
    assert report["paramCount"] == sum(p.numel() for p in AutoModelForCausalLM.from_pretrained(first.directory).parameters())
    assert report["sftSteps"] == 40 and report["buildSeconds"] > 0 and report["trainedExamples"] == 48
    curve = [point["loss"] for point in report["lossCurve"]]
    assert len(curve) == 40 and sum(curve[-5:]) / 5 < 0.7 * sum(curve[:5]) / 5, curve

    tokenizer = AutoTokenizer.from_pretrained(first.directory)
    rendered = tokenizer.apply_chat_template(
        [{"role": "user", "content": "hi"}, {"role": "tool", "content": "{}"}], tokenize=False, add_generation_prompt=True
    )
    # The Qwen3 format the interpreter renders (finalstate.model_check holds the two to each other token for token).
    assert rendered == "<|im_start|>user\nhi<|im_end|>\n<|im_start|>user\n<tool_response>\n{}\n</tool_response><|im_end|>\n<|im_start|>assistant\n"

    again = build(demos_file, tmp_path / "a", SMALL)
    assert again.cached and again.directory == first.directory and again.report == report

    twin = build(demos_file, tmp_path / "b", SMALL)  # same inputs, fresh cache: the same bytes
    assert not twin.cached and twin.content_hash == first.content_hash
    weights_a, weights_b = load_file(first.directory / "model.safetensors"), load_file(twin.directory / "model.safetensors")
    assert all(torch.equal(weights_a[k], weights_b[k]) for k in weights_a)
    assert (first.directory / "tokenizer.json").read_bytes() == (twin.directory / "tokenizer.json").read_bytes()

    assert content_hash(demos_file, dataclasses.replace(SMALL, seed=1)) != first.content_hash
    changed = tmp_path / "changed.jsonl"
    changed.write_text(demos_file.read_text() + json.dumps(render(1234, "shipped")) + "\n")
    assert content_hash(changed, SMALL) != first.content_hash


def test_sft_loss_weights_context_tokens_and_never_pads():
    torch.manual_seed(0)
    ids = torch.tensor([[5, 6, 7, 8, 0, 0], [5, 9, 9, 7, 6, 8]])
    attention = torch.tensor([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1]])
    mask = torch.tensor([[0, 0, 1, 1, 0, 0], [0, 0, 0, 1, 1, 0]], dtype=torch.float32)
    logits = torch.randn(2, 6, 12)
    per_token = torch.nn.functional.cross_entropy(logits[:, :-1].transpose(1, 2), ids[:, 1:], reduction="none")
    assistant = torch.stack([per_token[0, 1], per_token[0, 2], per_token[1, 2], per_token[1, 3]]).mean()
    real = torch.cat([per_token[0, :3], per_token[1]])  # every target that is a real token, pads excluded

    loss, reported = sft_loss(logits, ids, attention, mask, 0.0)
    assert torch.allclose(loss, assistant) and torch.allclose(reported, assistant)
    loss, reported = sft_loss(logits, ids, attention, mask, 1.0)
    assert torch.allclose(loss, real.mean()) and torch.allclose(reported, assistant)
    loss, _ = sft_loss(logits, ids, attention, mask, 0.25)
    weights = torch.tensor([0.25, 1, 1, 0.25, 0.25, 1, 1, 0.25])
    assert torch.allclose(loss, (real * weights).sum() / weights.sum())


def test_context_weight_changes_the_build_and_its_hash(demos_file, tmp_path):
    weighted = dataclasses.replace(SMALL, sft=dataclasses.replace(SMALL.sft, steps=10, context_weight=0.5))
    plain = dataclasses.replace(SMALL, sft=dataclasses.replace(SMALL.sft, steps=10))
    a, b = build(demos_file, tmp_path, weighted), build(demos_file, tmp_path, plain)
    assert a.directory != b.directory
    assert a.report["config"]["sft"]["context_weight"] == 0.5
    assert a.report["lossCurve"] != b.report["lossCurve"]
