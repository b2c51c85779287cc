"""The KL penalty to the base policy (loss klReference "base", grpo/reference.py): the base's log-probs are those of
a plain forward of the base weights, the penalty is 0 while the policy is the base and equals a plain k3 computation
after it moved, it holds the policy nearer the base than the same steps without it, and with LoRA the base is the
model with its adapter disabled."""

import copy
import json

import pytest
import torch
from peft import LoraConfig, get_peft_model

from finalstate.config import loss_config
from finalstate.gpu_worker.policy_update import PolicyUpdater
from finalstate.grpo import BasePolicy, PolicyTrainer
from finalstate.grpo.passes import pass_tensors
from finalstate.grpo.trainer import token_log_probs

from episodes import DEFAULT_OPTIMIZER, on_policy_episode, toy_batch
from sharded import cpu_groups, write_inputs

KL_TO_BASE = loss_config({"klCoef": 0.5, "klReference": "base"})
NO_KL = loss_config({"klCoef": 0.0})


def loss_token_log_probs(model, episodes) -> list[torch.Tensor]:
    """A plain forward: each episode's loss tokens' log-probs under `model` (the reference computation)."""
    out = []
    for e in episodes:
        fresh = on_policy_episode(model, e["tokenIds"], e["lossMask"].index(1), reward=0, group="x", name="x")
        out.append(torch.tensor([lp for lp, m in zip(fresh["rolloutLogprobs"], e["lossMask"]) if m]))
    return out


def k3_to_base(model, base, episodes) -> float:
    """Token-mean k3 estimate of KL(model || base) on the episodes' loss tokens, from plain forwards."""
    cur, ref = torch.cat(loss_token_log_probs(model, episodes)), torch.cat(loss_token_log_probs(base, episodes))
    log_ratio = ref - cur
    return float((log_ratio.exp() - 1 - log_ratio).mean())


def test_the_penalty_is_zero_at_the_base_and_equals_a_plain_k3_after_the_policy_moved(model):
    base = copy.deepcopy(model).eval()
    episodes = toy_batch(model, model.config.vocab_size)
    trainer = PolicyTrainer(model, DEFAULT_OPTIMIZER, base_policy=BasePolicy(frozen=copy.deepcopy(model)))
    first = trainer.train_step(episodes, loss_config=KL_TO_BASE, optimizer_config=DEFAULT_OPTIMIZER, micro_batch_size=2)
    assert first["approxKl"] == 0.0, "the policy is the base: the KL to it is exactly 0"
    expected = k3_to_base(trainer.model.eval(), base, episodes)
    second = trainer.train_step(episodes, loss_config=KL_TO_BASE, optimizer_config=DEFAULT_OPTIMIZER, micro_batch_size=2)
    assert expected > 1e-6
    assert second["approxKl"] == pytest.approx(expected, rel=1e-4)


def test_the_penalty_holds_the_policy_nearer_the_base(model):
    base = copy.deepcopy(model).eval()
    episodes = toy_batch(model, model.config.vocab_size)

    def drift_after(loss) -> float:
        trained = copy.deepcopy(base).train()
        trainer = PolicyTrainer(trained, DEFAULT_OPTIMIZER, base_policy=BasePolicy(frozen=copy.deepcopy(base)))
        for _ in range(6):
            trainer.train_step(episodes, loss_config=loss, optimizer_config=DEFAULT_OPTIMIZER, micro_batch_size=3)
        return k3_to_base(trainer.model.eval(), base, episodes)

    free, held = drift_after(NO_KL), drift_after(loss_config({"klCoef": 5.0, "klReference": "base"}))
    assert held < 0.7 * free, (held, free)


def test_a_trainer_without_a_base_policy_refuses_the_loss(model):
    trainer = PolicyTrainer(model, DEFAULT_OPTIMIZER)
    with pytest.raises(ValueError, match='klReference "base"'):
        trainer.train_step(toy_batch(model, model.config.vocab_size), loss_config=KL_TO_BASE, optimizer_config=DEFAULT_OPTIMIZER)


def test_with_lora_the_base_is_the_model_with_its_adapter_disabled(model):
    base = copy.deepcopy(model).eval()
    adapted = get_peft_model(model, LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"], init_lora_weights=False))
    adapted.train()
    episodes = toy_batch(base, base.config.vocab_size)
    batch = pass_tensors(episodes, torch.zeros(len(episodes)), packed=False)
    mask = batch.response_mask.bool()

    with torch.no_grad():
        with BasePolicy(adapters_of=adapted).model() as base_model:
            of_base = token_log_probs(base_model, batch)[0]
        plain_base = token_log_probs(base, batch)[0]
        with_adapter = token_log_probs(adapted, batch)[0]
    torch.testing.assert_close(of_base[mask], plain_base[mask], rtol=1e-5, atol=1e-5)
    assert (with_adapter[mask] - plain_base[mask]).abs().max() > 1e-3, "the adapter changes what the model computes"


@pytest.mark.parametrize("lora", [None, {"rank": 4, "alpha": 8}], ids=["full", "lora"])
def test_the_gpu_worker_builds_the_base_policy_and_a_restarted_one_rebuilds_it(tiny_model_dir, tmp_path, lora):
    """Through the gpu worker (world size 1 under FSDP2): the base policy is loaded from update.baseModel (full
    fine-tuning) or is the adapter model's own base (LoRA); at step 1 the policy is the base, so the KL is 0; a new
    process resumes step 3 from step 2's state with the base policy rebuilt, and its KL is a plain k3 to the base."""
    files = write_inputs(
        tmp_path / "inputs",
        tiny_model_dir,
        tmp_path / "ckpt",
        loss={"klCoef": 0.5, "klReference": "base"},
        **({"lora": lora} if lora else {}),
    )
    updater = PolicyUpdater(cpu_groups())
    first, second = (updater.run(json.loads(files[s].read_text())) for s in (1, 2))
    assert first["metrics"]["approxKl"] == 0.0
    assert second["metrics"]["approxKl"] > 0.0
    assert updater._session.trainer.base_policy is not None
    third = PolicyUpdater(cpu_groups()).run(json.loads(files[3].read_text()))
    assert third["metrics"]["approxKl"] > 0.0
