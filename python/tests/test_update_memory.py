"""The memory the update's arithmetic (infra/update-memory.ts) counts, measured on the CPU.

The coefficients come from schemas/json/UpdateMemoryModel.schema.json, the constants the TypeScript arithmetic uses:
- a decoder layer's activations: the bytes autograd saves per token for a Qwen3 layer in bf16, measured with saved
  tensor hooks (parameters excluded), against the fitted coefficients; with activation checkpointing, the layer input;
- the log-prob head: the peak resident memory of its forward and backward on bf16 logits, against the gradient of
  the logits plus the chunk scratch, and against the full-vocabulary fp32 log-softmax it replaced;
- LoRA's mode: a layer with adapters on every linear layer saves at most what the coefficients say plus r values a
  token per adapter (about 11% less: the full mode's figure is the preflight's upper bound), and after an AdamW step the adapter holds 16 bytes a parameter (weight, gradient, two moments) and the
  frozen base its weights alone, the adapter counted as r (in + out) per target layer (infra/update-memory.ts
  loraParameters).
"""

from __future__ import annotations

import gc

import pytest
import torch
from peft import LoraConfig, get_peft_model
from transformers import Qwen3Config, Qwen3ForCausalLM

from finalstate.grpo.core_algos import compute_policy_loss
from finalstate.grpo.log_probs import CHUNK_BYTES, next_token_log_probs
from finalstate.schemas import load_schema
from finalstate.testing.tiny_adapter import ALL_LINEAR

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


def _peak_bytes(run) -> int:
    """Peak resident memory `run` adds (VmHWM after resetting it). Large tensors are mmapped by glibc and returned
    to the system when freed, so the peak is what was live at once."""
    gc.collect()

    def status(key: str) -> int:
        with open("/proc/self/status") as handle:
            return next(int(line.split()[1]) * 1024 for line in handle if line.startswith(key))

    with open("/proc/self/clear_refs", "w") as handle:
        handle.write("5")
    base = status("VmRSS:")
    run()
    return status("VmHWM:") - base


def _head(logits, ids, *, chunked: bool):
    tokens = ids.shape[1] - 1
    mask = torch.ones(1, tokens)
    old = torch.full((1, tokens), -5.0)
    advantages = torch.ones(1, tokens)
    if chunked:
        log_prob, entropy = next_token_log_probs(logits, ids)
    else:  # the full-vocabulary fp32 log-softmax, kept for the entropy metric
        log_probs_all = torch.log_softmax(logits[:, :-1].float(), dim=-1)
        log_prob = log_probs_all.gather(-1, ids[:, 1:, None]).squeeze(-1)
    loss, _, _ = compute_policy_loss(old, log_prob, advantages, mask)
    loss.backward()
    with torch.no_grad():
        if chunked:
            float(entropy[mask.bool()].sum())
        else:
            float((-(log_probs_all[mask.bool()].exp() * log_probs_all[mask.bool()]).sum(-1)).sum())


def test_the_log_prob_head_keeps_the_logit_gradient_and_one_chunk_of_scratch():
    tokens, vocabulary = 1024, 65536
    cells = tokens * vocabulary
    measured = {}
    for chunked in (True, False):
        torch.manual_seed(0)
        logits = torch.randn(1, tokens, vocabulary, dtype=torch.bfloat16).requires_grad_()
        ids = torch.randint(0, vocabulary, (1, tokens))
        measured[chunked] = _peak_bytes(lambda logits=logits, ids=ids, chunked=chunked: _head(logits, ids, chunked=chunked))
        del logits
    print(f"bytes per token per vocabulary entry beside the bf16 logits: chunked {measured[True] / cells:.2f}, full fp32 log-softmax {measured[False] / cells:.2f}")
    # The logits' bf16 gradient (2 bytes a cell) and at most four chunks of fp32 scratch (infra/update-memory.ts).
    assert measured[True] <= 2 * cells + 4 * CHUNK_BYTES + 16 * 2**20
    assert measured[False] >= 12 * cells, "the old head kept fp32 copies of every logit"


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
