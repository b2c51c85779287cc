"""LoRA updates (update.lora): PEFT adapters on the frozen base, sharded by FSDP2 like the full model. One process,
resumed from disk, and 2 gloo ranks under torchrun give the same adapter; only the adapter trains and is saved."""

from __future__ import annotations

import json

import pytest
import torch
from safetensors.torch import load_file
from test_sharded_update import ATOL, STEPS, run_torchrun, write_inputs

from finalstate.gpu_worker.lora import ADAPTER_CONFIG, ADAPTER_WEIGHTS
from finalstate.gpu_worker.policy_update import PolicyUpdater, UnusableInputError

from sharded import cpu_groups, training_state

LORA = {"rank": 4, "alpha": 8}


def adapter(checkpoints, step):
    return load_file(str(checkpoints / f"step-{step:06d}" / ADAPTER_WEIGHTS))


@pytest.fixture(scope="module")
def runs(tiny_model_dir, tmp_path_factory):
    """Steps 1-2 in one process, then step 3 in a fresh one (resumed from step 2's adapter state); the same three
    steps on two ranks."""
    root = tmp_path_factory.mktemp("lora")
    files = write_inputs(root / "a", tiny_model_dir, root / "a" / "ckpt", lora=LORA)
    updater = PolicyUpdater(cpu_groups())
    single = [updater.run(json.loads(files[s].read_text())) for s in (1, 2)]
    session = updater._session
    resumed = PolicyUpdater(cpu_groups())
    single.append(resumed.run(json.loads(files[3].read_text())))
    sharded_files = write_inputs(root / "b", tiny_model_dir, root / "b" / "ckpt", lora=LORA)
    sharded = run_torchrun(2, [sharded_files[s] for s in STEPS])
    return {"root": root, "single": single, "sharded": sharded, "session": session, "resumed": resumed._session}


def test_only_the_adapter_trains_and_is_saved(runs, tiny_model_dir):
    trainer = runs["session"].trainer
    trained = {n for n, p in trainer.model.named_parameters() if p.requires_grad}
    assert trained and all(".lora_A." in n or ".lora_B." in n for n in trained)
    # AdamW holds state for the adapter's parameters only, and the frozen base has no gradient.
    assert len(trainer.optimizer.state) == len(trained)
    assert all(p.grad is None for n, p in trainer.model.named_parameters() if n not in trained)
    base = load_file(str(tiny_model_dir / "model.safetensors"))
    state = trainer.model.state_dict()
    for name, value in base.items():
        wrapped = f"base_model.model.{name}".replace(".weight", ".base_layer.weight") if "_proj." in name else f"base_model.model.{name}"
        assert torch.equal(state[wrapped].full_tensor(), value), f"{name} moved"
    step = runs["root"] / "a" / "ckpt" / "step-000002"
    assert {p.name for p in step.iterdir()} == {ADAPTER_CONFIG, ADAPTER_WEIGHTS, "sharded", "trainer_state.json", "COMPLETE"}
    weights = adapter(runs["root"] / "a" / "ckpt", 2)
    assert weights and all(k.startswith("base_model.model.model.layers.") and k.endswith((".lora_A.weight", ".lora_B.weight")) for k in weights)
    assert any(k.endswith(".lora_B.weight") and v.abs().max() > 0 for k, v in weights.items()), "lora_B moved from 0"
    assert all(".lora_" in k for k in training_state(step) if k.startswith("model."))
    assert json.loads((step / ADAPTER_CONFIG).read_text())["r"] == LORA["rank"]


def test_two_ranks_and_a_resumed_process_give_the_same_adapter(runs):
    root = runs["root"]
    assert [r["step"] for r in runs["sharded"]] == list(STEPS) and runs["single"][2]["step"] == 3
    start, single, sharded = adapter(root / "a" / "ckpt", 1), adapter(root / "a" / "ckpt", 3), adapter(root / "b" / "ckpt", 3)
    assert single.keys() == sharded.keys()
    moved = max((single[n] - start[n]).abs().max().item() for n in single)
    worst = max((single[n] - sharded[n]).abs().max().item() for n in single)
    print(f"LoRA, 2 ranks vs one process (resumed before step 3): max adapter difference {worst:.3g} (moved up to {moved:.3g})")
    assert moved > 1e-3 and worst <= ATOL
    for one, two in zip(runs["single"], runs["sharded"]):
        for key in set(one["metrics"]) - {"tokens", "optimizerSteps", "tokensPerSecond"}:
            assert one["metrics"][key] == pytest.approx(two["metrics"][key], rel=1e-4, abs=1e-6), key


def test_a_campaign_cannot_switch_between_lora_and_full_fine_tuning(runs):
    root = runs["root"]
    step = json.loads((root / "a" / "update-3.json").read_text())
    full = {k: v for k, v in step.items() if k != "lora"} | {"checkpointDir": str(root / "a" / "ckpt"), "step": 4}
    with pytest.raises(UnusableInputError, match="holds a LoRA adapter"):
        PolicyUpdater(cpu_groups()).run(full)


def test_target_modules_the_model_lacks_are_refused_before_training(tiny_model_dir, tmp_path):
    files = write_inputs(tmp_path / "in", tiny_model_dir, tmp_path / "ckpt", lora={"targetModules": ["c_attn"]})
    with pytest.raises(UnusableInputError, match=r"lora.targetModules \['c_attn'\]"):
        PolicyUpdater(cpu_groups()).run(json.loads(files[1].read_text()))
    assert not (tmp_path / "ckpt" / "step-000001").exists()


def test_the_served_adapter_gives_the_trainers_logprobs(runs, tiny_model_dir):
    """Step 3's adapter, loaded by the policy server's engine beside the base model, samples with the log-probs the
    trainer's model (the resumed process's, which wrote it) gives those tokens."""
    from finalstate.grpo.passes import pass_tensors
    from finalstate.grpo.trainer import token_log_probs
    from finalstate.policy_server.engine import Engine, SamplingParams, load_policy

    cpu = torch.device("cpu")
    engine = Engine(load_policy(tiny_model_dir, 0, cpu), device=cpu, batch_wait_s=0)
    try:
        adapter = engine.load_adapter("sharded-v3", runs["root"] / "a" / "ckpt" / "step-000003", 3)
        prompt = [5, 17, 42, 8]
        params = SamplingParams(max_tokens=12, temperature=1.0, seed=7, ignore_eos=True, logprobs=0)
        served = engine.submit(prompt, params, adapter).result(timeout=60)
        plain = engine.submit(prompt, params).result(timeout=60)
    finally:
        engine.close()
    ids = prompt + served.token_ids
    episode = {"tokenIds": ids, "lossMask": [0] * len(ids), "rolloutLogprobs": [0.0] * len(ids)}
    model = runs["resumed"].trainer.model
    with torch.no_grad():
        log_prob, _ = token_log_probs(model.eval(), pass_tensors([episode], torch.zeros(1), packed=False))
    expected = log_prob[0, len(prompt) - 1 : len(ids) - 1].tolist()
    assert served.policy_version == 3 and plain.policy_version == 0
    assert served.token_logprobs == pytest.approx(expected, abs=1e-4)
    assert plain.token_logprobs != pytest.approx(served.token_logprobs, abs=1e-4)
