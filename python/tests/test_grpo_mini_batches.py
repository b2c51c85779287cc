"""Several AdamW steps per GRPO step: mini-batches of whole groups, shuffled reproducibly."""

import copy
from dataclasses import replace

import pytest
import torch

from finalstate.grpo import PolicyTrainer, UnusableBatchError
from finalstate.grpo.mini_batches import split_mini_batches

from episodes import DEFAULT_LOSS, DEFAULT_OPTIMIZER, toy_batch, weights

OPTIMIZER = replace(DEFAULT_OPTIMIZER, eps=1e-4)  # keeps Adam's first step continuous in g (see test_grpo_update.py)


def four_groups(model):
    first, second = toy_batch(model, model.config.vocab_size, seed=1), toy_batch(model, model.config.vocab_size, seed=2)
    return first + [{**e, "groupId": e["groupId"] + "b", "episodeId": e["episodeId"] + "b"} for e in second]


def test_groups_are_never_split_and_the_order_follows_the_seed():
    episodes = [{"groupId": f"g{i // 3}", "lossMask": [0, 1]} for i in range(12)]
    assert split_mini_batches(episodes, None, "0") == [list(range(12))]
    cuts = split_mini_batches(episodes, 1, "7:3")
    assert len(cuts) == 4 and sorted(i for cut in cuts for i in cut) == list(range(12))
    assert all(len({episodes[i]["groupId"] for i in cut}) == 1 and len(cut) == 3 for cut in cuts)
    assert split_mini_batches(episodes, 1, "7:3") == cuts
    orders = {tuple(cut[0] for cut in split_mini_batches(episodes, 1, f"7:{step}")) for step in range(1, 9)}
    assert len(orders) > 1, "every step drew the same group order"
    pairs = split_mini_batches(episodes, 3, "0:1")
    assert [len(cut) for cut in pairs] == [9, 3]
    with pytest.raises(ValueError, match="at least 1"):
        split_mini_batches(episodes, 0, "0")


def test_one_mini_batch_holding_every_group_is_the_plain_update(model):
    episodes = four_groups(model)
    plain = PolicyTrainer(copy.deepcopy(model), OPTIMIZER)
    plain_metrics = plain.train_step(episodes, loss_config=DEFAULT_LOSS, optimizer_config=OPTIMIZER, micro_batch_size=4)
    whole = PolicyTrainer(copy.deepcopy(model), OPTIMIZER)
    whole_metrics = whole.train_step(
        episodes, loss_config=DEFAULT_LOSS, optimizer_config=OPTIMIZER, micro_batch_size=4, mini_batch_groups=4, shuffle_seed="3:1"
    )
    assert plain_metrics["optimizerSteps"] == whole_metrics["optimizerSteps"] == 1
    for name, value in weights(plain.model).items():
        assert torch.allclose(weights(whole.model)[name], value, atol=1e-7, rtol=1e-5), name
    assert whole_metrics["loss"] == pytest.approx(plain_metrics["loss"], abs=1e-6)


def test_each_mini_batch_is_one_adamw_step_in_the_seeded_order(model):
    episodes = four_groups(model)
    trainer = PolicyTrainer(copy.deepcopy(model), OPTIMIZER)
    metrics = trainer.train_step(
        episodes, loss_config=DEFAULT_LOSS, optimizer_config=OPTIMIZER, micro_batch_size=2, mini_batch_groups=1, shuffle_seed="5:2"
    )
    assert metrics["optimizerSteps"] == 4 and trainer.step == 1
    assert trainer.optimizer.state[next(iter(trainer.model.parameters()))]["step"].item() == 4

    # The same four steps taken by hand, one group each, in the order the seed gives.
    by_hand = PolicyTrainer(copy.deepcopy(model), OPTIMIZER)
    for cut in split_mini_batches(episodes, 1, "5:2"):
        by_hand.train_step([episodes[i] for i in cut], loss_config=DEFAULT_LOSS, optimizer_config=OPTIMIZER, micro_batch_size=2)
    for name, value in weights(by_hand.model).items():
        assert torch.allclose(weights(trainer.model)[name], value, atol=1e-7, rtol=1e-5), name

    # Another order gives another update: the order is part of the step, which is why it is seeded.
    other_seed = next(s for s in ("5:3", "5:4", "5:5") if split_mini_batches(episodes, 1, s) != split_mini_batches(episodes, 1, "5:2"))
    other = PolicyTrainer(copy.deepcopy(model), OPTIMIZER)
    other.train_step(episodes, loss_config=DEFAULT_LOSS, optimizer_config=OPTIMIZER, micro_batch_size=2, mini_batch_groups=1, shuffle_seed=other_seed)
    assert any(not torch.allclose(weights(other.model)[n], v, atol=1e-7) for n, v in weights(trainer.model).items())


def test_later_mini_batches_are_off_policy_and_the_ratio_sees_it(model):
    episodes = four_groups(model)  # on-policy for `model`
    one_step = PolicyTrainer(copy.deepcopy(model), replace(OPTIMIZER, lr=1e-2))
    on_policy = one_step.train_step(episodes, loss_config=DEFAULT_LOSS, optimizer_config=replace(OPTIMIZER, lr=1e-2), micro_batch_size=4)
    assert on_policy["approxKl"] == pytest.approx(0.0, abs=1e-6) and on_policy["clipFraction"] == 0.0
    several = PolicyTrainer(copy.deepcopy(model), replace(OPTIMIZER, lr=1e-2))
    stepped = several.train_step(
        episodes, loss_config=DEFAULT_LOSS, optimizer_config=replace(OPTIMIZER, lr=1e-2), micro_batch_size=4, mini_batch_groups=1, shuffle_seed="0:1"
    )
    assert stepped["approxKl"] > 1e-4, "mini-batches after the first were scored against the rollout policy"


def test_a_failure_after_an_applied_mini_batch_says_the_weights_changed(model):
    episodes = four_groups(model)
    seed = next(f"1:{s}" for s in range(1, 50) if episodes[split_mini_batches(episodes, 1, f"1:{s}")[0][0]]["groupId"] != "g0")
    poisoned = [
        {**e, "rolloutLogprobs": [float("nan") if m else 0.0 for m in e["lossMask"]]} if e["groupId"] == "g0" else e for e in episodes
    ]
    trainer = PolicyTrainer(copy.deepcopy(model), OPTIMIZER)
    with pytest.raises(UnusableBatchError, match="not finite") as raised:
        trainer.train_step(poisoned, loss_config=DEFAULT_LOSS, optimizer_config=OPTIMIZER, micro_batch_size=4, mini_batch_groups=1, shuffle_seed=seed)
    assert raised.value.weights_changed is True
    assert trainer.step == 0

    first = PolicyTrainer(copy.deepcopy(model), OPTIMIZER)
    before = weights(first.model)
    with pytest.raises(UnusableBatchError) as raised:
        first.train_step(poisoned, loss_config=DEFAULT_LOSS, optimizer_config=OPTIMIZER, micro_batch_size=4)
    assert raised.value.weights_changed is False
    assert all(torch.equal(v, before[n]) for n, v in weights(first.model).items())
