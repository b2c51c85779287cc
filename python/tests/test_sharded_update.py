"""The FSDP2-sharded update under torchrun (2 ranks, gloo, CPU) against one process, and its resume after a kill."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file
from transformers import AutoModelForCausalLM

from finalstate.gpu_worker.policy_update import PolicyUpdater

from sharded import STEPS, cpu_groups, training_state, write_inputs
from torchrun import kill_group, start_torchrun, torchrun_command, worker_env

# Float sums over 2 ranks run in another order than in one process; over three AdamW steps the weights then
# differ by a few ulps of the update. Adam's eps of 1e-4 keeps its step continuous in the gradient (see
# test_grpo_update.py), so those ulps stay ulps instead of flipping the sign of a near-zero step.
ATOL = 1e-6


def run_torchrun(nproc, files, timeout=240):
    done = subprocess.run(
        torchrun_command(nproc, "--run-updates", *map(str, files)), env=worker_env(), capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def weights(checkpoints, step):
    return load_file(str(checkpoints / f"step-{step:06d}" / "model.safetensors"))


@pytest.fixture(scope="module")
def runs(tiny_model_dir, tmp_path_factory):
    """Three steps in one process, and the same three steps on two ranks."""
    root = tmp_path_factory.mktemp("sharded")
    updater = PolicyUpdater(cpu_groups())
    single = [updater.run(json.loads(f.read_text())) for f in write_inputs(root / "a", tiny_model_dir, root / "a" / "ckpt").values()]
    files = write_inputs(root / "b", tiny_model_dir, root / "b" / "ckpt")
    sharded = run_torchrun(2, [files[s] for s in STEPS])
    return {"root": root, "single": single, "sharded": sharded}


def test_three_sharded_steps_end_with_the_single_process_parameters(runs):
    root = runs["root"]
    assert [r["step"] for r in runs["sharded"]] == list(STEPS) and not any(r["reused"] for r in runs["sharded"])
    base = load_file(str(root / "a" / "ckpt" / "step-000001" / "model.safetensors"))
    single, sharded = weights(root / "a" / "ckpt", 3), weights(root / "b" / "ckpt", 3)
    assert single.keys() == sharded.keys() == base.keys()
    moved = max((single[n] - base[n]).abs().max().item() for n in single)
    assert moved > 1e-3, "steps 2 and 3 changed the weights"
    worst = max((single[n] - sharded[n]).abs().max().item() for n in single)
    print(f"sharded vs single process: max weight difference {worst:.3g} after 3 steps (weights moved up to {moved:.3g})")
    assert worst <= ATOL, f"sharded vs single process differ by up to {worst}"
    for one, two in zip(runs["single"], runs["sharded"]):
        assert one["metrics"].keys() == two["metrics"].keys()
        assert one["metrics"]["tokens"] == two["metrics"]["tokens"]
        assert one["metrics"]["optimizerSteps"] == two["metrics"]["optimizerSteps"]
        assert one["stalenessHistogram"] == two["stalenessHistogram"]
        for key in set(one["metrics"]) - {"tokens", "optimizerSteps", "tokensPerSecond"}:
            assert one["metrics"][key] == pytest.approx(two["metrics"][key], rel=1e-4, abs=1e-6), key
    assert runs["sharded"][1]["metrics"]["optimizerSteps"] == 2
    # Step 3 recomputed π_old on each rank's share: importance weights away from 1 (its batch is two versions old).
    step3 = runs["sharded"][2]["metrics"]
    print(f"step 3 (tis) on 2 ranks: {({k: step3[k] for k in step3 if k.startswith(('isWeight', 'isTruncated', 'samplerDrift', 'staleness'))})}")
    assert step3["isWeightMean"] != pytest.approx(1.0, abs=1e-4) and step3["stalenessMax"] == 2


def test_optimizer_offload_and_clipping_give_the_same_update(runs, tiny_model_dir):
    """fsdp.optimizerOffload keeps the shards, their gradients and AdamW in host memory (FSDP2 CPUOffloadPolicy):
    two steps on 2 ranks (three AdamW steps, each gradient clipped from a norm above maxGradNorm 1.0) end with the
    weights and optimizer state of the run without offload."""
    root = runs["root"]
    files = write_inputs(root / "offload", tiny_model_dir, root / "offload" / "ckpt", fsdp={"optimizerOffload": True})
    offloaded = run_torchrun(2, [files[1], files[2]])
    assert all(r["metrics"]["gradNorm"] > 1.0 for r in offloaded), "clipping was active"
    for with_offload, without in zip(offloaded, runs["sharded"][:2]):
        for key in ("loss", "gradNorm", "clipFraction", "entropy", "approxKl"):
            assert with_offload["metrics"][key] == pytest.approx(without["metrics"][key], rel=1e-5, abs=1e-7), key
    plain, offload = weights(root / "b" / "ckpt", 2), weights(root / "offload" / "ckpt", 2)
    worst = max((plain[n] - offload[n]).abs().max().item() for n in plain)
    print(f"optimizer offload vs none: max weight difference {worst:.3g} after 2 steps")
    assert worst <= ATOL
    state_plain = training_state(root / "b" / "ckpt" / "step-000002")
    state_offload = training_state(root / "offload" / "ckpt" / "step-000002")
    assert state_plain.keys() == state_offload.keys()
    for name, value in state_plain.items():
        if isinstance(value, torch.Tensor):
            assert torch.allclose(value, state_offload[name], atol=ATOL, rtol=1e-5), name


def test_killed_after_a_step_without_resumable_state_a_new_torchrun_replays_it_exactly(runs, tiny_model_dir):
    """Step 1 writes its resumable state and step 2 (checkpoints.every 3) only its export and record; the ranks are
    killed after step 2. The new ranks load step 1's sharded state, replay step 2 from its recorded batch and input,
    train step 3 and write it (3 is a multiple of 3): the uninterrupted run's checkpoint, bitwise."""
    root = runs["root"]
    files = write_inputs(root / "c", tiny_model_dir, root / "c" / "ckpt", every={1: 1, 2: 3, 3: 3})
    # Steps 1 and 2, then step 3's input too: the group is SIGKILLed as soon as step 2's result is printed.
    worker = start_torchrun(2, "--run-updates", *(str(files[s]) for s in STEPS))
    results = []
    for line in worker.stdout:
        if line.startswith("{"):
            results.append(json.loads(line))
            if results[-1]["step"] == 2:
                kill_group(worker)
                break
    else:
        kill_group(worker)
    assert [r["step"] for r in results] == [1, 2]
    assert not (root / "c" / "ckpt" / "step-000003").exists()
    assert not (root / "c" / "ckpt" / "step-000002" / "sharded").exists() and (root / "c" / "ckpt" / "step-000001" / "sharded").is_dir()

    resumed = run_torchrun(2, [files[3]])
    assert resumed[0]["step"] == 3 and not resumed[0]["reused"] and resumed[0]["metrics"]["replayedSteps"] == 1
    uninterrupted, again = weights(root / "b" / "ckpt", 3), weights(root / "c" / "ckpt", 3)
    for name in uninterrupted:
        assert torch.equal(uninterrupted[name], again[name]), name
    state_b, state_c = training_state(root / "b" / "ckpt" / "step-000003"), training_state(root / "c" / "ckpt" / "step-000003")
    assert state_b.keys() == state_c.keys()
    for name, value in state_b.items():
        assert torch.equal(value, state_c[name]) if isinstance(value, torch.Tensor) else value == state_c[name], name
    assert resumed[0]["metrics"] == {**runs["sharded"][2]["metrics"], "tokensPerSecond": resumed[0]["metrics"]["tokensPerSecond"], "replayedSteps": 1}


def test_the_other_ranks_wait_for_a_slow_export_beyond_the_collective_timeout(tiny_model_dir, tmp_path):
    """Rank 0 writes the export for 8 s (slow storage) with a collective timeout of 3 s: the other rank waits on the
    storage group, sized to the checkpoint, not in a collective of the update, and the step completes."""
    files = write_inputs(tmp_path / "in", tiny_model_dir, tmp_path / "ckpt")
    command = torchrun_command(2, "--collective-timeout-s", "3", "--run-updates", str(files[1]))
    worker = command.index("-m", command.index("--max-restarts"))
    command[worker : worker + 2] = [str(Path(__file__).parent / "slow_export_worker.py")]
    done = subprocess.run(command, env={**worker_env(), "SLOW_EXPORT_S": "8"}, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    result = json.loads(next(line for line in done.stdout.splitlines() if line.startswith("{")))
    assert result["step"] == 1 and (tmp_path / "ckpt" / "step-000001" / "COMPLETE").is_file()


def test_the_sharded_export_serves_the_trainers_logprobs(runs, tiny_model_dir):
    """The consolidated HF export of the 2-rank run, loaded by the policy server's engine, samples with the
    logprobs that the trainer's own fp32 state (the sharded checkpoint) gives those tokens."""
    from finalstate.grpo.passes import pass_tensors
    from finalstate.grpo.trainer import token_log_probs
    from finalstate.policy_server.engine import Engine, SamplingParams, load_policy

    step_dir = runs["root"] / "b" / "ckpt" / "step-000003"
    state = training_state(step_dir)
    trained = AutoModelForCausalLM.from_pretrained(tiny_model_dir, dtype=torch.float32)
    trained.load_state_dict({k.removeprefix("model."): v for k, v in state.items() if k.startswith("model.")})
    cpu = torch.device("cpu")
    engine = Engine(load_policy(step_dir, 3, cpu), device=cpu, batch_wait_s=0)
    try:
        prompt = [5, 17, 42, 8]
        completion = engine.submit(prompt, SamplingParams(max_tokens=12, temperature=1.0, seed=7, ignore_eos=True, logprobs=0)).result(timeout=60)
    finally:
        engine.close()
    ids = prompt + completion.token_ids
    episode = {"tokenIds": ids, "lossMask": [0] * len(ids), "rolloutLogprobs": [0.0] * len(ids)}
    with torch.no_grad():
        log_prob, _ = token_log_probs(trained.eval(), pass_tensors([episode], torch.zeros(1), packed=False))
    expected = log_prob[0, len(prompt) - 1 : len(ids) - 1].tolist()
    assert len(completion.token_logprobs) == 12
    assert completion.token_logprobs == pytest.approx(expected, abs=1e-4)
    base = load_file(str(tiny_model_dir / "model.safetensors"))
    served = load_file(str(step_dir / "model.safetensors"))
    assert any(not torch.equal(base[n], served[n]) for n in base), "the export holds the trained weights"
    # The tied head is written under its own name too, so that vLLM's in-place reload repacks it (docs/publishing.md).
    assert "lm_head.weight" not in base
    assert torch.equal(served["lm_head.weight"], served["model.embed_tokens.weight"])
