"""Micro-batches cut by tokens and gradient clipping of the update (CPU, fp32); the log-prob head: test_log_prob_head.py."""

import copy
from dataclasses import replace

import pytest
import torch

from finalstate.grpo import PolicyTrainer
from finalstate.grpo.clipping import clip_grad_norm
from finalstate.grpo.mini_batches import pass_count, plan_micro_batches
from finalstate.grpo.ranks import Ranks

from episodes import DEFAULT_LOSS, DEFAULT_OPTIMIZER, toy_batch


def grads(model):
    return {name: p.grad.detach().clone() for name, p in model.named_parameters()}


def test_the_plan_holds_every_episode_once_within_the_token_limit():
    lengths = [7, 30, 12, 12, 5, 41, 9, 3, 18, 25]
    for ranks in (1, 2, 3):
        for max_tokens, max_episodes in ((None, None), (40, None), (24, 2), (10, None)):
            plan = plan_micro_batches(lengths, ranks, max_tokens=max_tokens, max_episodes=max_episodes)
            assert len(plan) == ranks
            seen = sorted(i for share in plan for passes in share for i in passes)
            assert seen == list(range(len(lengths)))
            for share in plan:
                for members in share:
                    padded = len(members) * max(lengths[i] for i in members)
                    if max_tokens is not None and len(members) > 1:
                        assert padded <= max_tokens, (members, padded)
                    if max_episodes is not None:
                        assert len(members) <= max_episodes
    # Longest first, each to the lightest rank: the two ranks' tokens differ by at most the shortest episode dealt last.
    loads = [sum(lengths[i] for passes in share for i in passes) for share in plan_micro_batches(lengths, 2, max_tokens=None, max_episodes=None)]
    assert abs(loads[0] - loads[1]) <= max(lengths) and sum(loads) == sum(lengths)
    # An episode longer than the limit is a pass of its own; a rank with nothing still makes the common passes.
    plan = plan_micro_batches([50, 3], 3, max_tokens=10, max_episodes=None)
    assert plan == [[[0]], [[1]], []] and pass_count(plan) == 1
    with pytest.raises(ValueError, match="at least 1"):
        plan_micro_batches(lengths, 1, max_tokens=0, max_episodes=None)


@pytest.mark.parametrize("aggregation", ["token-mean", "seq-mean-token-mean"])
def test_token_budgets_give_the_gradient_and_loss_of_one_pass(model, aggregation):
    episodes = toy_batch(model, model.config.vocab_size)
    loss = replace(DEFAULT_LOSS, loss_agg_mode=aggregation)
    results = {}
    budgets = (None, 24, 12, 1)  # one pass; two or three episodes a pass; one episode a pass
    passes = {}
    for budget in budgets:
        trainer = PolicyTrainer(copy.deepcopy(model), DEFAULT_OPTIMIZER)
        seen: list[int] = []
        metrics = trainer.accumulate_gradients(episodes, loss_config=loss, micro_batch_tokens=budget, progress=lambda _done, total, seen=seen: seen.append(total))
        results[budget] = (grads(trainer.model), metrics)
        passes[budget] = seen[-1]
    assert passes[None] == 1 and passes[1] == len(episodes) and 1 < passes[24] < len(episodes)
    full_grads, full_metrics = results[None]
    for budget in budgets[1:]:
        budget_grads, budget_metrics = results[budget]
        for name in full_grads:
            assert torch.allclose(budget_grads[name], full_grads[name], atol=1e-7, rtol=1e-5), (budget, name)
        for key in ("loss", "clipFraction", "entropy", "approxKl"):
            assert budget_metrics[key] == pytest.approx(full_metrics[key], abs=1e-6), (budget, key)
        assert budget_metrics["tokens"] == full_metrics["tokens"]


def test_clipping_matches_torch_and_leaves_small_gradients_alone(model):
    episodes = toy_batch(model, model.config.vocab_size)
    trainer = PolicyTrainer(copy.deepcopy(model), DEFAULT_OPTIMIZER)
    trainer.accumulate_gradients(episodes, loss_config=DEFAULT_LOSS, micro_batch_size=2)
    computed = grads(trainer.model)
    ranks = Ranks.current(torch.device("cpu"))

    def with_grads(values):
        copied = copy.deepcopy(trainer.model)
        for name, p in copied.named_parameters():
            p.grad = values[name].clone()
        return copied

    for max_norm in (0.1, 1e6):
        ours, reference = with_grads(computed), with_grads(computed)
        norm = clip_grad_norm(ours.parameters(), max_norm, ranks)
        expected = torch.nn.utils.clip_grad_norm_(reference.parameters(), max_norm)
        assert norm == pytest.approx(float(expected), rel=1e-6)
        for (name, p), q in zip(ours.named_parameters(), reference.parameters()):
            assert torch.allclose(p.grad, q.grad, atol=1e-9, rtol=1e-6), (max_norm, name)
        if max_norm > norm:
            assert all(torch.equal(p.grad, computed[n]) for n, p in ours.named_parameters()), "below the bound: untouched"
    poisoned = dict(computed)
    poisoned[next(iter(computed))] = computed[next(iter(computed))].clone().fill_(float("nan"))
    victim = with_grads(poisoned)
    assert clip_grad_norm(victim.parameters(), 0.1, ranks) != clip_grad_norm(victim.parameters(), 0.1, ranks)  # nan
    for name, p in victim.named_parameters():
        assert torch.equal(p.grad.nan_to_num(), poisoned[name].nan_to_num()), "a non-finite norm scales nothing"
