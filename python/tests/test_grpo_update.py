"""The micro-batched GRPO update on a tiny Qwen3 model (CPU, fp32)."""

import copy
import math
from dataclasses import replace

import pytest
import torch

from finalstate.grpo import PolicyTrainer, UnusableBatchError

from episodes import DEFAULT_LOSS, DEFAULT_OPTIMIZER, completion_logprob, on_policy_episode, toy_batch, weights


def grads(model):
    return {name: p.grad.detach().clone() for name, p in model.named_parameters()}


@pytest.mark.parametrize("aggregation", ["token-mean", "seq-mean-token-mean"])
def test_micro_batched_gradient_equals_full_batch(model, aggregation):
    episodes = toy_batch(model, model.config.vocab_size)
    loss = replace(DEFAULT_LOSS, loss_agg_mode=aggregation)
    results = {}
    for micro in (len(episodes), 2, 1):
        trainer = PolicyTrainer(copy.deepcopy(model), DEFAULT_OPTIMIZER)
        metrics = trainer.accumulate_gradients(episodes, loss_config=loss, micro_batch_size=micro)
        results[micro] = (grads(trainer.model), metrics)
    full_grads, full_metrics = results[len(episodes)]
    assert max(g.abs().max().item() for g in full_grads.values()) > 1e-3
    for micro in (2, 1):
        micro_grads, micro_metrics = results[micro]
        for name in full_grads:
            assert torch.allclose(micro_grads[name], full_grads[name], atol=1e-7, rtol=1e-5), name
        for key in ("loss", "clipFraction", "entropy", "approxKl"):
            assert micro_metrics[key] == pytest.approx(full_metrics[key], abs=1e-6), key
        assert micro_metrics["tokens"] == full_metrics["tokens"] == sum(sum(e["lossMask"]) for e in episodes)


def test_micro_batched_update_equals_full_batch(model):
    """The whole step, optimizer included. Adam's first step is sign(g) where |g| >> eps, which turns float
    rounding on near-zero gradients into +-lr; an eps of 1e-4 keeps the step continuous in g."""
    episodes = toy_batch(model, model.config.vocab_size, seed=1)
    optimizer = replace(DEFAULT_OPTIMIZER, eps=1e-4)
    before = weights(model)
    after = {}
    for micro in (len(episodes), 4):
        trainer = PolicyTrainer(copy.deepcopy(model), optimizer)
        trainer.train_step(episodes, loss_config=DEFAULT_LOSS, optimizer_config=optimizer, micro_batch_size=micro)
        after[micro] = weights(trainer.model)
    assert any(not torch.equal(after[4][n], before[n]) for n in before), "the update changed nothing"
    # Summing the micro-batches' gradients in another order moves a weight by an ulp or so (1.2e-7 at |w| ~ 1),
    # against an update of lr = 1e-3 per weight.
    for name in before:
        assert torch.allclose(after[4][name], after[len(episodes)][name], atol=2e-7, rtol=1e-6), name


def test_positive_advantage_raises_logprobs_and_negative_lowers(model):
    vocab = model.config.vocab_size
    prompt = [5, 17, 42, 8]
    good = on_policy_episode(model, [*prompt, 60, 61, 62], len(prompt), reward=1.0, group="g", name="good")
    bad = on_policy_episode(model, [*prompt, 90, 91, 92], len(prompt), reward=0.0, group="g", name="bad")
    assert max(good["tokenIds"] + bad["tokenIds"]) < vocab
    good_before, bad_before = completion_logprob(model, good), completion_logprob(model, bad)
    trainer = PolicyTrainer(model, replace(DEFAULT_OPTIMIZER, lr=1e-2))
    metrics = trainer.train_step([good, bad], loss_config=DEFAULT_LOSS, optimizer_config=replace(DEFAULT_OPTIMIZER, lr=1e-2), micro_batch_size=2)
    assert completion_logprob(trainer.model, good) > good_before + 0.1
    assert completion_logprob(trainer.model, bad) < bad_before - 0.1
    # On-policy: every ratio is 1, so nothing is clipped and the rollout/current KL is 0.
    assert metrics["clipFraction"] == 0.0
    assert metrics["approxKl"] == pytest.approx(0.0, abs=1e-6)
    assert metrics["entropy"] > 0 and metrics["gradNorm"] > 0 and metrics["tokensPerSecond"] > 0


def test_all_zero_advantages_leave_weights_unchanged(model):
    episodes = [{**e, "reward": 0.5} for e in toy_batch(model, model.config.vocab_size)]
    before = weights(model)
    trainer = PolicyTrainer(model, DEFAULT_OPTIMIZER)
    metrics = trainer.train_step(episodes, loss_config=DEFAULT_LOSS, optimizer_config=DEFAULT_OPTIMIZER, micro_batch_size=2)
    assert metrics["gradNorm"] == 0.0
    for name, value in weights(trainer.model).items():
        assert torch.equal(value, before[name]), name


def test_unusable_batches_are_rejected_before_any_update(model):
    episodes = toy_batch(model, model.config.vocab_size)
    before = weights(model)
    trainer = PolicyTrainer(model, DEFAULT_OPTIMIZER)
    empty = [{**e, "lossMask": [0] * len(e["tokenIds"]), "rolloutLogprobs": [0.0] * len(e["tokenIds"])} for e in episodes]
    with pytest.raises(UnusableBatchError, match="loss mask is empty"):
        trainer.train_step(empty, loss_config=DEFAULT_LOSS, optimizer_config=DEFAULT_OPTIMIZER, micro_batch_size=2)
    nan = [{**e, "rolloutLogprobs": [float("nan") if m else 0.0 for m in e["lossMask"]]} for e in episodes]
    with pytest.raises(UnusableBatchError, match="not finite"):
        trainer.train_step(nan, loss_config=DEFAULT_LOSS, optimizer_config=DEFAULT_OPTIMIZER, micro_batch_size=2)
    out_of_vocab = [{**episodes[0], "tokenIds": [model.config.vocab_size, *episodes[0]["tokenIds"][1:]]}]
    with pytest.raises(UnusableBatchError, match="outside the model's vocabulary"):
        trainer.train_step(out_of_vocab, loss_config=DEFAULT_LOSS, optimizer_config=DEFAULT_OPTIMIZER, micro_batch_size=2)
    assert trainer.step == 0
    for name, value in weights(trainer.model).items():
        assert torch.equal(value, before[name]), name


def test_kl_coefficient_adds_the_k3_term_to_the_loss(model):
    # Off-policy: the rollout policy gave every trained token a 0.3 lower log-prob than the current model does.
    episodes = [
        {**e, "rolloutLogprobs": [lp - 0.3 if m else 0.0 for lp, m in zip(e["rolloutLogprobs"], e["lossMask"])]}
        for e in toy_batch(model, model.config.vocab_size)
    ]
    plain = PolicyTrainer(copy.deepcopy(model), DEFAULT_OPTIMIZER).accumulate_gradients(episodes, loss_config=DEFAULT_LOSS, micro_batch_size=4)
    with_kl = PolicyTrainer(copy.deepcopy(model), DEFAULT_OPTIMIZER).accumulate_gradients(
        episodes, loss_config=replace(DEFAULT_LOSS, kl_loss_coef=0.5), micro_batch_size=4
    )
    k3 = math.exp(0.3) - 1 - 0.3  # r = exp(0.3) on every token
    assert plain["approxKl"] == pytest.approx(k3, rel=1e-4)
    assert with_kl["loss"] == pytest.approx(plain["loss"] + 0.5 * k3, rel=1e-4)
    assert plain["clipFraction"] > 0  # ratio 1.35 > 1.2: tokens with positive advantage are clipped


def test_the_entropy_bonus_subtracts_the_mean_entropy_and_raises_it(model):
    # Zero advantages: the policy loss is 0 and has no gradient, so whatever moves is the entropy bonus's.
    episodes = [{**e, "reward": 0.5} for e in toy_batch(model, model.config.vocab_size)]
    bonus = replace(DEFAULT_LOSS, entropy_coeff=0.1)
    measured = PolicyTrainer(copy.deepcopy(model), DEFAULT_OPTIMIZER).accumulate_gradients(episodes, loss_config=bonus, micro_batch_size=4)
    assert measured["loss"] == pytest.approx(-0.1 * measured["entropy"], rel=1e-5)
    # A small step: the tiny model's entropy is near its maximum, ln 300 = 5.70, where AdamW at 1e-2 overshoots.
    trainer = PolicyTrainer(copy.deepcopy(model), replace(DEFAULT_OPTIMIZER, lr=1e-3))
    first = trainer.train_step(episodes, loss_config=bonus, optimizer_config=replace(DEFAULT_OPTIMIZER, lr=1e-3), micro_batch_size=4)
    second = trainer.train_step(episodes, loss_config=bonus, optimizer_config=replace(DEFAULT_OPTIMIZER, lr=1e-3), micro_batch_size=4)
    assert first["gradNorm"] > 0
    assert second["entropy"] > first["entropy"], (first["entropy"], second["entropy"])
    plain = PolicyTrainer(copy.deepcopy(model), DEFAULT_OPTIMIZER).train_step(episodes, loss_config=DEFAULT_LOSS, optimizer_config=DEFAULT_OPTIMIZER, micro_batch_size=4)
    assert plain["gradNorm"] == 0.0, "without the bonus nothing moves"
