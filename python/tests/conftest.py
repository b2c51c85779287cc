"""Fixtures: a tiny randomly initialised Qwen3 model with a byte-level BPE tokenizer, saved as a Hugging Face dir."""

from __future__ import annotations

import pytest
import torch
from transformers import AutoModelForCausalLM

from finalstate.testing.tiny_model import save_tiny_model


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory):
    return save_tiny_model(tmp_path_factory.mktemp("tiny-model"))


@pytest.fixture()
def model(tiny_model_dir):
    """A fresh fp32 copy of the tiny model for each test."""
    return AutoModelForCausalLM.from_pretrained(tiny_model_dir, dtype=torch.float32)
