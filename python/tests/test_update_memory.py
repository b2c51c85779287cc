"""The memory the update's arithmetic (infra/update-memory.ts) counts, measured on the CPU.

The coefficients come from schemas/json/UpdateMemoryModel.schema.json, the constants the TypeScript arithmetic uses:
- a decoder layer's activations: the bytes autograd saves per token for a Qwen3 layer in bf16 with the trainer's
  attention (grpo/attention.py), measured with saved tensor hooks (parameters excluded), against the fitted
  coefficients; with activation checkpointing, the layer input;
- the log-prob head (grpo/log_probs.py): the peak resident memory of its forward and backward, against what it keeps
  per token (the hidden states and their gradient) and two chunks of scratch, and against the logits it no longer
  keeps;
- a whole pass of the trainer: python/benchmarks/update_memory.py's small rows, measured against the prediction
  memory_check_plan.json carries (infra/memory-check-plan.ts: the same arithmetic as the preflight);
- LoRA's mode: a layer with adapters on every linear layer saves at most what the coefficients say plus r values a
  token per adapter (about 11% less: the full mode's figure is the preflight's upper bound), and after an AdamW step
  the adapter holds 16 bytes a parameter (weight, gradient, two moments) and the frozen base its weights alone, the adapter counted as r (in + out) per target layer (infra/update-memory.ts
  loraParameters).
"""

from __future__ import annotations

import sys

import pytest
import torch
from peft import LoraConfig, get_peft_model
from transformers import Qwen3Config, Qwen3ForCausalLM

from finalstate.grpo.attention import use_trainer_attention
from finalstate.grpo.log_probs import CHUNK_BYTES, linear_log_probs
from finalstate.schemas import load_schema
from finalstate.testing.tiny_adapter import ALL_LINEAR

from torchrun import PACKAGE_ROOT

sys.path.insert(0, str(PACKAGE_ROOT / "benchmarks"))
from update_memory import peak_added_bytes, run  # the benchmarks are not a package: on the path above

MODEL = {k: v.get("const", v.get("properties")) for k, v in load_schema("UpdateMemoryModel")["properties"].items()}
ACTIVATION = {k: v["const"] for k, v in MODEL["activationBytesPerToken"].items()}


def layer_formula(hidden, intermediate, heads, kv_heads, head_dim) -> float:
    a = ACTIVATION
    return a["hidden"] * hidden + a["intermediate"] * intermediate + a["query"] * heads * head_dim + a["keyValue"] * kv_heads * head_dim + a["heads"] * heads


def saved_bytes_per_token_per_layer(
    hidden, intermediate, heads, kv_heads, head_dim, *, checkpointing: bool, tokens=64, layers=2, lora_rank: int | None = None
) -> float:
    config = Qwen3Config(
        hidden_size=hidden, intermediate_size=intermediate, num_attention_heads=heads, num_key_value_heads=kv_heads,
        head_dim=head_dim, num_hidden_layers=layers, vocab_size=256, max_position_embeddings=1024, attn_implementation="sdpa",
    )  # fmt: skip
    torch.manual_seed(0)
    model = Qwen3ForCausalLM(config).to(torch.bfloat16).train()
    if lora_rank is not None:
        model = get_peft_model(model, LoraConfig(r=lora_rank, target_modules=ALL_LINEAR)).to(torch.bfloat16).base_model.model
    use_trainer_attention(model)
    if checkpointing:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    parameters = {p.untyped_storage().data_ptr() for p in model.parameters()}
    saved: dict[int, int] = {}

    def pack(tensor):
        storage = tensor.untyped_storage()
        if storage.data_ptr() not in parameters:
            saved[storage.data_ptr()] = storage.nbytes()
        return tensor

    ids = torch.randint(0, 256, (1, tokens))
    positions = torch.arange(tokens)[None]
    hidden_states = model.model.embed_tokens(ids).detach().requires_grad_()
    rotary = model.model.rotary_emb(hidden_states, positions)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        for layer in model.model.layers:
            out = layer(hidden_states, position_embeddings=rotary, attention_mask=None, position_ids=positions)
            hidden_states = out[0] if isinstance(out, tuple) else out
    return sum(saved.values()) / (tokens * layers)


# Widths in the proportions of real Qwen3 models (query width = hidden size), scaled down for the CPU.
SHAPES = [(256, 768, 4, 2, 64), (512, 1536, 8, 2, 64), (384, 1024, 6, 2, 64), (512, 2048, 4, 4, 128)]


@pytest.mark.parametrize("shape", SHAPES)
def test_a_decoder_layer_saves_what_the_activation_coefficients_say(shape):
    measured = saved_bytes_per_token_per_layer(*shape, checkpointing=False)
    predicted = layer_formula(*shape)
    print(f"{shape}: measured {measured:.0f} bytes per token per layer, predicted {predicted:.0f}")
    assert 0.97 * measured <= predicted <= 1.05 * measured
    # With checkpointing a layer keeps its input only: the hidden state in bf16.
    assert saved_bytes_per_token_per_layer(*shape, checkpointing=True) == 2 * shape[0]


def test_the_log_prob_head_keeps_hidden_states_not_logits():
    """At a 65,536-token vocabulary in bf16, 4,096 and then 8,192 positions (four and eight chunks of rows): the head
    keeps the hidden states, makes their gradient and sums the output layer's gradient in fp32, and its scratch is
    two chunks, so the 4,096 more positions add their per-token bytes only, where the logits and their gradient
    would add 1.07 GB."""
    hidden, vocabulary = 64, 65536
    generator = torch.Generator().manual_seed(0)
    weight = (torch.randn(vocabulary, hidden, generator=generator) * 0.05).to(torch.bfloat16).requires_grad_()
    per_token = 2 * 2 * hidden + 12
    peaks = {}
    for tokens in (4096, 8192):
        states = torch.randn(tokens, hidden, generator=generator).to(torch.bfloat16).requires_grad_()
        targets = torch.randint(0, vocabulary, (tokens,), generator=generator)

        def run(states=states, targets=targets):
            log_prob, entropy = linear_log_probs(states, weight, targets)
            log_prob.sum().backward()
            float(entropy.sum())

        peaks[tokens] = peak_added_bytes(run)
        weight.grad = None
        print(f"{tokens} positions: the head's peak {peaks[tokens] / 1e6:.0f} MB (two chunks {2 * CHUNK_BYTES / 1e6:.0f} MB, per token {tokens * per_token / 1e6:.1f} MB)")
        assert peaks[tokens] <= tokens * per_token + 4 * vocabulary * hidden + 2 * CHUNK_BYTES + 16 * 2**20
    logits_and_gradient = 2 * 2 * 4096 * vocabulary
    assert peaks[8192] - peaks[4096] <= 4096 * per_token + 8 * 2**20, f"4,096 more positions added {peaks[8192] - peaks[4096]} bytes, the logits would add {logits_and_gradient}"


def test_the_memory_model_predicts_the_peak_of_a_pass_on_the_cpu():
    """python/benchmarks/update_memory.py --rows test: one pass at 1k and 4k tokens, packed and padded, through
    the chunked head and, to compare, through the logits as the trainer kept them before (with the arithmetic it
    had then). Stated tolerance: the prediction is an upper bound, and through the chunked head within 20% of the
    measured peak; the old arithmetic, within 2x."""
    results = run("test")
    for r in results:
        ratio = r["measured"] / r["predicted"]
        print(f"{r['label']}: predicted {r['predicted'] / 1e6:.0f} MB, measured {r['measured'] / 1e6:.0f} MB ({ratio:.2f})")
    assert len(results) == 6
    for r in results:
        loosest = 0.8 if "chunked head" in r["label"] else 0.5
        assert loosest * r["predicted"] <= r["measured"] <= r["predicted"], r
    by_label = {r["label"]: r["measured"] for r in results}
    # Packing computes the pass's 4k tokens where padding computes 8k; the logits add 8k rows of 8,192 entries.
    assert by_label["4k tokens, packed, chunked head"] < 0.6 * by_label["4k tokens, padded, chunked head"]
    assert by_label["4k tokens, padded, chunked head"] < by_label["4k tokens, padded, logits"]


@pytest.mark.parametrize("shape", SHAPES[:2])
def test_with_lora_a_layer_saves_what_the_coefficients_say_and_r_values_per_adapter(shape):
    rank = 16
    measured = saved_bytes_per_token_per_layer(*shape, checkpointing=False, lora_rank=rank)
    predicted = layer_formula(*shape)
    print(f"{shape} LoRA r{rank}: measured {measured:.0f} bytes per token per layer, full-mode coefficients {predicted:.0f}")
    # The full mode's coefficients bound it: a frozen weight needs no saved input of its own (the adapter beside it
    # saves the same tensor), and the seven adapters' r-wide intermediates (bf16) are small. Measured 11% below.
    assert 0.85 * (predicted + 7 * 2 * rank) <= measured <= predicted + 7 * 2 * rank


def test_with_lora_only_the_adapter_holds_gradients_and_adam_state():
    hidden, intermediate, heads, kv_heads, head_dim, layers, rank = 256, 768, 4, 2, 64, 2, 8
    config = Qwen3Config(
        hidden_size=hidden, intermediate_size=intermediate, num_attention_heads=heads, num_key_value_heads=kv_heads,
        head_dim=head_dim, num_hidden_layers=layers, vocab_size=256, max_position_embeddings=1024,
    )  # fmt: skip
    base = Qwen3ForCausalLM(config)
    base_parameters = sum(p.numel() for p in base.parameters())
    model = get_peft_model(base, LoraConfig(r=rank, target_modules=ALL_LINEAR))
    q, kv = heads * head_dim, kv_heads * head_dim
    adapter = layers * rank * ((hidden + q) + 2 * (hidden + kv) + (q + hidden) + 2 * (hidden + intermediate) + (intermediate + hidden))
    trainable = [p for p in model.parameters() if p.requires_grad]
    assert sum(p.numel() for p in trainable) == adapter
    optimizer = torch.optim.AdamW(trainable, lr=1e-3)
    model(input_ids=torch.randint(0, 256, (1, 32))).logits.float().mean().backward()
    optimizer.step()
    state = sum(t.nbytes for s in optimizer.state.values() for t in s.values() if torch.is_tensor(t) and t.dim() > 0)
    gradients = sum(p.grad.nbytes for p in model.parameters() if p.grad is not None)
    weights = sum(p.nbytes for p in trainable)
    frozen = sum(p.nbytes for p in model.parameters() if not p.requires_grad)
    assert weights + gradients + state == 16 * adapter
    assert frozen == 4 * base_parameters and all(p.grad is None for p in model.parameters() if not p.requires_grad)
