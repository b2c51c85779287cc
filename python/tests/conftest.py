"""Fixtures: a tiny randomly initialised Qwen3 model with a byte-level BPE tokenizer, saved as a Hugging Face dir."""

from __future__ import annotations

import pytest

from finalstate.testing.tiny_model import save_tiny_model


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory):
    return save_tiny_model(tmp_path_factory.mktemp("tiny-model"))
