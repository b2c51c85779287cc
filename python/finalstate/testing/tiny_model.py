"""A tiny randomly initialised Qwen3 model and byte-level BPE tokenizer, saved as a Hugging Face dir.

`python -m finalstate.testing.tiny_model OUT_DIR` writes one (used by the TypeScript policy tests).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast, Qwen3Config, Qwen3ForCausalLM

from finalstate.base_model.chat_template import QWEN3_CHAT_TEMPLATE

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
        head_dim=32,  # the smallest head size vLLM's CPU attention supports
        max_position_embeddings=512,
        tie_word_embeddings=True,
        eos_token_id=eos_token_id,
        pad_token_id=pad_token_id,
    )
    torch.manual_seed(seed)
    return Qwen3ForCausalLM(config).eval()


def save_tiny_model(directory: str | Path, seed: int = 0, chat_template: str | None = None) -> Path:
    """Write a ~110k-parameter model with its tokenizer (and `chat_template`, if given) to `directory`."""
    directory = Path(directory)
    tokenizer = build_tiny_tokenizer()
    tokenizer.chat_template = chat_template
    model = build_tiny_model(len(tokenizer), tokenizer.eos_token_id, tokenizer.pad_token_id, seed)
    model.save_pretrained(directory, safe_serialization=True)
    tokenizer.save_pretrained(directory)
    return directory


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m finalstate.testing.tiny_model", description=__doc__)
    parser.add_argument("out_dir")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--qwen3-chat-template", action="store_true", help="ship the base model's Qwen3-format chat template")
    args = parser.parse_args()
    directory = save_tiny_model(args.out_dir, args.seed, QWEN3_CHAT_TEMPLATE if args.qwen3_chat_template else None)
    config = json.loads((directory / "config.json").read_text())
    print(json.dumps({"dir": str(directory.resolve()), "vocabSize": config["vocab_size"], "eosTokenId": config["eos_token_id"]}))


if __name__ == "__main__":
    main()
