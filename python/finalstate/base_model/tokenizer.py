"""A byte-level BPE tokenizer for the Qwen3/Hermes chat format, trained on the demonstrations themselves."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast

from .chat_template import QWEN3_CHAT_TEMPLATE

# Control tokens: skipped when decoding with skip_special_tokens.
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
# Markup the model writes and the runtime parses: single tokens, but kept in decoded text (as in Qwen3).
MARKUP_TOKENS = ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<think>", "</think>"]
_ANY_CHAT_TOKEN = re.compile("|".join(re.escape(t) for t in SPECIAL_TOKENS + MARKUP_TOKENS))

def _segments(texts: Iterable[str]) -> Iterator[str]:
    """The text between chat tokens, so that no merge is learned across or inside them."""
    for text in texts:
        yield from (part for part in _ANY_CHAT_TOKEN.split(text) if part)


def train_tokenizer(texts: Iterable[str], *, vocab_size: int, min_frequency: int = 2) -> PreTrainedTokenizerFast:
    """Byte-level BPE whose merges may span words (not digits, not line ends).

    Every digit is its own pre-token (numbers are copied digit by digit). Merges never cross a line end, so the text of
    a prompt ending in a newline (the generation prompt `<|im_start|>assistant\n`) tokenizes the same alone as at the
    start of a longer text, and sampled turns re-tokenize as they were sampled. Merging across words packs the
    boilerplate that every mini conversation repeats (tool list, JSON keys) into few tokens: the sequences get about
    4x shorter than with word-level pre-tokenization, which is what makes SFT fit the CPU budget.
    """
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split("\n", behavior="merged_with_previous"),
            pre_tokenizers.Digits(individual_digits=True),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size - len(MARKUP_TOKENS),
        min_frequency=min_frequency,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(_segments(texts), trainer)
    tokenizer.add_tokens([AddedToken(t, special=False, normalized=False) for t in MARKUP_TOKENS])
    wrapped = PreTrainedTokenizerFast(tokenizer_object=tokenizer, eos_token="<|im_end|>", pad_token="<|endoftext|>")
    wrapped.chat_template = QWEN3_CHAT_TEMPLATE
    return wrapped
