"""The policy losses and KL terms are looked up by the config values that select them (verl's registries): every value
the payload schema allows has its entry, and an unknown name fails naming the known ones."""

import pytest

from finalstate.grpo.advantages import ADV_ESTIMATORS, get_adv_estimator_fn
from finalstate.grpo.core_algos import KL_LOSSES, POLICY_LOSSES, get_kl_loss_fn, get_policy_loss_fn
from finalstate.schemas import load_schema

LOSS = load_schema("PolicyUpdateInput")["properties"]["loss"]["properties"]


def test_every_value_the_schema_allows_is_registered():
    assert set(POLICY_LOSSES.names()) == set(LOSS["offPolicyCorrection"]["enum"])
    assert set(KL_LOSSES.names()) == set(LOSS["klReference"]["enum"])
    assert set(ADV_ESTIMATORS.names()) == {"grpo", "pass_at_k"}
    for registry in (POLICY_LOSSES, KL_LOSSES, ADV_ESTIMATORS):
        for name in registry.names():
            assert registry.get(name).__doc__, f"{registry.kind} {name!r} names no reference"


@pytest.mark.parametrize(
    "lookup, name, known",
    [(get_policy_loss_fn, "vanilla", "'none', 'tis'"), (get_kl_loss_fn, "k1", "'ratio', 'base'"), (get_adv_estimator_fn, "rloo", "'grpo', 'pass_at_k'")],
)
def test_an_unknown_name_fails_naming_the_known_ones(lookup, name, known):
    with pytest.raises(ValueError, match=f"unknown .*'{name}'; known: {known}"):
        lookup(name)
