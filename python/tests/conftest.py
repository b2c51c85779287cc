"""Fixtures: a tiny randomly initialised Qwen3 model and a byte-level BPE tokenizer, saved as a Hugging Face dir."""

from __future__ import annotations

import pytest
import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast, Qwen3Config, Qwen3ForCausalLM

SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
CORPUS = [
    "<|im_start|>user\nCancel order 1042 please.<|im_end|>",
    "<|im_start|>assistant\nThe order 1042 is processing, so I cancelled it.<|im_end|>",
    "refund 10% for delayed orders over 500; otherwise refuse.",
    "get_order cancel_order create_refund order_id amount status pending_payment",
] * 4


def build_tiny_tokenizer() -> PreTrainedTokenizerFast:
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300, special_tokens=SPECIAL_TOKENS, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tokenizer.train_from_iterator(CORPUS, trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tokenizer, eos_token="<|im_end|>", pad_token="<|endoftext|>")


def build_tiny_model(vocab_size: int, eos_token_id: int, pad_token_id: int, seed: int = 0) -> Qwen3ForCausalLM:
    config = Qwen3Config(
        vocab_size=vocab_size,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=16,
        max_position_embeddings=512,
        tie_word_embeddings=True,
        eos_token_id=eos_token_id,
        pad_token_id=pad_token_id,
    )
    torch.manual_seed(seed)
    return Qwen3ForCausalLM(config).eval()


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory):
    """A Hugging Face checkpoint dir (safetensors + tokenizer) of a ~50k-parameter random Qwen3 model."""
    directory = tmp_path_factory.mktemp("tiny-model")
    tokenizer = build_tiny_tokenizer()
    model = build_tiny_model(len(tokenizer), tokenizer.eos_token_id, tokenizer.pad_token_id)
    model.save_pretrained(directory, safe_serialization=True)
    tokenizer.save_pretrained(directory)
    return directory
