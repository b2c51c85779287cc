"""`finalstate model merge-lora`: a LoRA checkpoint merged into a plain Hugging Face checkpoint serves the adapter's
log-probs (1e-4 on CPU), for servers without LoRA."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import torch

from finalstate.merge_lora import MergeInputError, merge_lora
from finalstate.policy_server.engine import Engine, SamplingParams, load_policy
from finalstate.testing.tiny_adapter import write_adapter

CPU = torch.device("cpu")


def test_the_merged_checkpoint_serves_the_adapters_logprobs(tiny_model_dir, tmp_path):
    write_adapter(str(tiny_model_dir), str(tmp_path / "adapter"), rank=8, seed=1)
    done = subprocess.run(
        [sys.executable, "-m", "finalstate.merge_lora", str(tmp_path / "adapter"), "--out", str(tmp_path / "merged")],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["dir"] == str(tmp_path / "merged") and result["rank"] == 8 and (tmp_path / "merged" / "COMPLETE").is_file()

    params = SamplingParams(max_tokens=16, temperature=1.0, seed=3, ignore_eos=True, logprobs=0)
    prompt = [5, 17, 42, 8, 99]
    with_adapter = Engine(load_policy(tiny_model_dir, 0, CPU), device=CPU, batch_wait_s=0)
    merged = Engine(load_policy(tmp_path / "merged", 1, CPU), device=CPU, batch_wait_s=0)
    try:
        adapter = with_adapter.load_adapter("a-v1", tmp_path / "adapter", 1)
        served = with_adapter.submit(prompt, params, adapter).result(timeout=60)
        base = with_adapter.submit(prompt, params).result(timeout=60)
        replayed = merged.submit(prompt, params).result(timeout=60)
    finally:
        with_adapter.close()
        merged.close()
    worst = max(abs(a - b) for a, b in zip(served.token_logprobs, replayed.token_logprobs))
    print(f"merged vs adapter: max |log-prob diff| {worst:.2e} over {len(served.token_ids)} tokens")
    assert replayed.token_ids == served.token_ids and worst <= 1e-4
    assert base.token_ids != served.token_ids or base.token_logprobs != pytest.approx(served.token_logprobs, abs=1e-3)


def test_a_checkpoint_that_is_no_adapter_is_refused(tiny_model_dir, tmp_path):
    with pytest.raises(MergeInputError, match="is not a LoRA checkpoint"):
        merge_lora(tiny_model_dir, tmp_path / "out")
    write_adapter(str(tiny_model_dir), str(tmp_path / "adapter"), rank=4)
    with pytest.raises(MergeInputError, match="give it with --base"):
        merge_lora(tmp_path / "adapter", tmp_path / "out", base_model=tmp_path / "nowhere")
