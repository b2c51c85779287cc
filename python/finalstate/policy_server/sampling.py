"""Next-token choice for one sequence: greedy at temperature 0, otherwise seeded nucleus sampling."""

from __future__ import annotations

import torch


def choose_token(logits: torch.Tensor, *, temperature: float, top_p: float, generator: torch.Generator) -> int:
    """Pick a token from one row of logits. The generator is the sequence's own, so a seed reproduces it."""
    if temperature <= 0:
        return int(torch.argmax(logits))
    probs = torch.softmax(logits.double().cpu() / temperature, dim=-1)
    if top_p < 1.0:
        sorted_probs, order = torch.sort(probs, descending=True)
        before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
        sorted_probs[before >= top_p] = 0.0  # keep the smallest prefix whose mass reaches top_p
        probs = torch.zeros_like(probs).scatter(0, order, sorted_probs)
    return int(torch.multinomial(probs, 1, generator=generator))
