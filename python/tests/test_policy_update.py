"""policyUpdate without Temporal: checkpoints, restart and resume, idempotency, unusable input."""

import json
import re

import numpy as np
import pytest
import torch
from safetensors.torch import load_file
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment
from transformers import AutoModelForCausalLM

from finalstate.gpu_worker.activity import PolicyUpdateActivities
from finalstate.gpu_worker.checkpoints import CheckpointStore
from finalstate.gpu_worker.policy_update import PolicyUpdater, UnusableInputError
from finalstate.grpo import UnusableBatchError
from finalstate.grpo.batch import write_batch

from episodes import DEFAULT_LOSS, toy_batch
from sharded import cpu_groups, training_state


def make_batch_files(tiny_model_dir, tmp_path_factory):
    """Two toy batches of the tiny model, as TrainingBatch files."""
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    directory = tmp_path_factory.mktemp("batches")
    files = []
    for seed in (0, 1):
        path = directory / f"batch-{seed}.json"
        write_batch(path, toy_batch(model, model.config.vocab_size, seed=seed))
        files.append(path)
    return files


@pytest.fixture(scope="module")
def batch_files(tiny_model_dir, tmp_path_factory):
    return make_batch_files(tiny_model_dir, tmp_path_factory)


def request(tiny_model_dir, checkpoint_dir, batch, step, campaign="camp-1"):
    return {
        "campaignId": campaign,
        "step": step,
        "batchUri": batch.as_uri() if step % 2 else str(batch),  # both URI forms
        "checkpointDir": str(checkpoint_dir),
        "baseModel": str(tiny_model_dir),
        "optimizer": {"lr": 1e-3},
        "loss": {"clipHigh": 0.28, "aggregation": DEFAULT_LOSS.loss_agg_mode},
        "microBatchSize": 4,
    }


def checkpoint_tensors(result):
    directory = result["checkpointUri"].removeprefix("file://")
    return load_file(f"{directory}/model.safetensors"), training_state(directory)


def assert_same_optimizer_state(a, b):
    assert a.keys() == b.keys()
    for name, value in a.items():
        if isinstance(value, torch.Tensor):
            assert torch.equal(value, b[name]), name
        else:
            assert value == b[name], name


def test_restart_resumes_from_the_latest_checkpoint_with_identical_state(tiny_model_dir, batch_files, tmp_path):
    continuous = PolicyUpdater(cpu_groups())
    first = continuous.run(request(tiny_model_dir, tmp_path / "a", batch_files[0], 1))
    second = continuous.run(request(tiny_model_dir, tmp_path / "a", batch_files[1], 2))

    PolicyUpdater(cpu_groups()).run(request(tiny_model_dir, tmp_path / "b", batch_files[0], 1))
    restarted = PolicyUpdater(cpu_groups())  # a new process: nothing in memory
    resumed = restarted.run(request(tiny_model_dir, tmp_path / "b", batch_files[1], 2))

    assert not first["reused"] and not second["reused"] and not resumed["reused"]
    weights_a, optimizer_a = checkpoint_tensors(second)
    weights_b, optimizer_b = checkpoint_tensors(resumed)
    assert weights_a.keys() == weights_b.keys()
    for name in weights_a:
        assert torch.equal(weights_a[name], weights_b[name]), name
    assert_same_optimizer_state(optimizer_a, optimizer_b)
    assert int(optimizer_a["optim.state.model.norm.weight.step"]) == 2
    assert second["metrics"] == pytest.approx({**resumed["metrics"], "tokensPerSecond": second["metrics"]["tokensPerSecond"]})
    # The checkpoint is a loadable Hugging Face dir, tokenizer included, different from the base model.
    reloaded = AutoModelForCausalLM.from_pretrained(second["checkpointUri"].removeprefix("file://"))
    base = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    assert not torch.equal(reloaded.model.norm.weight, base.model.norm.weight)
    assert (tmp_path / "a" / "step-000002" / "tokenizer.json").is_file()


def test_a_worker_lost_between_resumable_states_replays_the_steps_since_to_the_same_weights(tiny_model_dir, batch_files, tmp_path):
    """checkpoints.every 2: steps 2 and 4 write the resumable state; 1 and 3 only their export and record. A worker
    lost after step 3 (a new process) resumes step 4 from step 2's state, replays step 3 from its recorded batch and
    input (with its own loss setting, the correction's recompute included), and writes the uninterrupted run's
    checkpoint, bitwise. Retention (keepLast 1) kept step 2's state and step 3 for that, and drops them after step 4."""

    def update(updater, directory, step):
        raw = {**request(tiny_model_dir, directory, batch_files[step % 2], step), "checkpoints": {"every": 2}, "retention": {"keepLast": 1}}
        if step == 3:
            raw["loss"] = {**raw["loss"], "offPolicyCorrection": "tis"}
        return updater.run(raw)

    continuous = PolicyUpdater(cpu_groups())
    uninterrupted = [update(continuous, tmp_path / "a", step) for step in (1, 2, 3, 4)]
    lost = PolicyUpdater(cpu_groups())
    for step in (1, 2, 3):
        update(lost, tmp_path / "b", step)
    store = CheckpointStore(tmp_path / "b")
    assert store.complete_steps() == [2, 3] and [store.has_training_state(s) for s in (2, 3)] == [True, False]
    recorded = store.read_state(3)["input"]
    assert recorded["batchUri"] == batch_files[1].as_uri() and recorded["loss"]["offPolicyCorrection"] == "tis"

    resumed = update(PolicyUpdater(cpu_groups()), tmp_path / "b", 4)
    assert resumed["metrics"]["replayedSteps"] == 1 and "replayedSteps" not in uninterrupted[3]["metrics"]
    assert {**resumed["metrics"], "tokensPerSecond": 0, "replayedSteps": 0} == {**uninterrupted[3]["metrics"], "tokensPerSecond": 0, "replayedSteps": 0}
    weights_a, optimizer_a = checkpoint_tensors(uninterrupted[3])
    weights_b, optimizer_b = checkpoint_tensors(resumed)
    for name in weights_a:
        assert torch.equal(weights_a[name], weights_b[name]), name
    assert_same_optimizer_state(optimizer_a, optimizer_b)
    assert int(optimizer_a["optim.state.model.norm.weight.step"]) == 4
    assert store.complete_steps() == [4], "step 4 is resumable: nothing before it is needed any more"


def test_repeated_step_returns_the_stored_checkpoint_without_training(tiny_model_dir, batch_files, tmp_path):
    updater = PolicyUpdater(cpu_groups())
    first = updater.run(request(tiny_model_dir, tmp_path, batch_files[0], 1))
    weights_file = tmp_path / "step-000001" / "model.safetensors"
    stamp = weights_file.stat().st_mtime_ns
    for retry in (updater, PolicyUpdater(cpu_groups())):  # the same worker, and a restarted one
        again = retry.run(request(tiny_model_dir, tmp_path, batch_files[1], 1))
        assert again["reused"] is True
        assert again["checkpointUri"] == first["checkpointUri"]
        assert again["metrics"] == first["metrics"]
    assert weights_file.stat().st_mtime_ns == stamp
    assert updater._session.trainer.step == 1  # the retry trained nothing


def test_incomplete_and_temporary_directories_are_ignored(tiny_model_dir, batch_files, tmp_path):
    PolicyUpdater(cpu_groups()).run(request(tiny_model_dir, tmp_path, batch_files[0], 1))
    (tmp_path / "step-000002").mkdir()  # no COMPLETE marker: a foreign or half-made directory
    (tmp_path / ".tmp-step-000002-dead").mkdir()
    store = CheckpointStore(tmp_path)
    assert store.latest_complete() == 1
    result = PolicyUpdater(cpu_groups()).run(request(tiny_model_dir, tmp_path, batch_files[1], 2))
    assert result["step"] == 2 and store.latest_complete() == 2
    assert not list(tmp_path.glob(".tmp-step-*"))


def test_unusable_input_fails_with_a_clear_message(tiny_model_dir, batch_files, tmp_path):
    updater = PolicyUpdater(cpu_groups())
    with pytest.raises(UnusableInputError, match=r"step 3 needs the checkpoint of step 2.*no checkpoint"):
        updater.run(request(tiny_model_dir, tmp_path, batch_files[0], 3))
    with pytest.raises(UnusableInputError, match="at microBatchSize: 0 is less than the minimum"):
        updater.run({**request(tiny_model_dir, tmp_path, batch_files[0], 1), "microBatchSize": 0})
    bad = tmp_path / "bad.json"
    long = {"episodeId": "e", "taskId": "t", "groupId": "g", "tokenIds": [1] * 50, "lossMask": [0] + [1] * 49, "rolloutLogprobs": [0.0] + [-1.0] * 49, "reward": 1}
    write_batch(bad, [long])
    manifest = json.loads(bad.read_text())
    del manifest["arrays"]["rolloutLogprobs"]
    bad.write_text(json.dumps(manifest))
    with pytest.raises(UnusableBatchError, match=r"bad.json .*at arrays: 'rolloutLogprobs' is a required property"):
        updater.run(request(tiny_model_dir, tmp_path, bad, 1))
    for field, index, value, message in (
        ("rolloutLogprobs", 30, 0.5, "rolloutLogprobs/30: 0.5 is greater than the maximum of 0"),
        ("lossMask", 10, 2, "lossMask/10: 2 is greater than the maximum of 1"),
    ):
        write_batch(bad, [{**long, field: [*long[field][:index], value, *long[field][index + 1 :]]}])
        with pytest.raises(UnusableBatchError, match=re.escape(message)):
            updater.run(request(tiny_model_dir, tmp_path, bad, 1))
    write_batch(bad, [long])
    np.save(tmp_path / "bad.token-ids.npy", np.asarray(long["tokenIds"], dtype=np.float32))  # not integers
    with pytest.raises(UnusableBatchError, match=r"bad.token-ids.npy holds a float32 array of shape \(50,\); the manifest says int32"):
        updater.run(request(tiny_model_dir, tmp_path, bad, 1))
    write_batch(bad, [long])
    manifest = json.loads(bad.read_text())
    manifest["episodes"][0]["offset"] = 10
    bad.write_text(json.dumps(manifest))
    with pytest.raises(UnusableBatchError, match=r"episode 0 \(e\) ends at token 60, past the 50 tokens of the arrays"):
        updater.run(request(tiny_model_dir, tmp_path, bad, 1))
    (tmp_path / "bad.loss-mask.npy").unlink()
    with pytest.raises(UnusableBatchError, match=r"array file .*bad.loss-mask.npy of lossMask does not exist"):
        updater.run(request(tiny_model_dir, tmp_path, bad, 1))
    with pytest.raises(UnusableBatchError, match="does not exist"):
        updater.run(request(tiny_model_dir, tmp_path, tmp_path / "missing.json", 1))


def test_a_checkpoint_without_sharded_state_is_refused_with_a_way_out(tiny_model_dir, batch_files, tmp_path):
    import shutil

    PolicyUpdater(cpu_groups()).run(request(tiny_model_dir, tmp_path, batch_files[0], 1))
    # As an older worker wrote it (optimizer.pt): no sharded state, and no recorded input to replay the step from.
    shutil.rmtree(tmp_path / "step-000001" / "sharded")
    state_file = tmp_path / "step-000001" / "trainer_state.json"
    state_file.write_text(json.dumps({k: v for k, v in json.loads(state_file.read_text()).items() if k != "input"}))
    with pytest.raises(UnusableInputError, match=r"step-000001 has no sharded training state .*fresh campaign"):
        PolicyUpdater(cpu_groups()).run(request(tiny_model_dir, tmp_path, batch_files[1], 2))


def test_activity_turns_unusable_batches_into_non_retryable_errors(tiny_model_dir, tmp_path):
    episode = {"episodeId": "e", "taskId": "t", "groupId": "g", "tokenIds": [1, 2, 3], "lossMask": [0, 0, 0], "rolloutLogprobs": [0, 0, 0], "reward": 1}
    empty = write_batch(tmp_path / "empty.json", [episode])
    activities = PolicyUpdateActivities(PolicyUpdater(cpu_groups()))
    with pytest.raises(ApplicationError) as caught:
        ActivityEnvironment().run(activities.policy_update, request(tiny_model_dir, tmp_path, empty, 1))
    assert caught.value.non_retryable and caught.value.type == "UnusableBatch"
    assert "loss mask is empty" in caught.value.message


def test_activity_heartbeats_progress(tiny_model_dir, batch_files, tmp_path):
    environment = ActivityEnvironment()
    beats = []
    environment.on_heartbeat = lambda *details: beats.append(details[0])
    activities = PolicyUpdateActivities(PolicyUpdater(cpu_groups()))
    result = environment.run(activities.policy_update, request(tiny_model_dir, tmp_path, batch_files[0], 1))
    assert result["step"] == 1 and not result["reused"]
    phases = [beat["phase"] for beat in beats]
    assert phases[0] == "loading batch" and phases.index("writing checkpoint") < phases.index("pruning checkpoints")
    assert {"phase": "training", "microBatches": 2, "of": 2} in beats  # 6 episodes in micro-batches of 4


def test_a_half_applied_update_is_dropped_and_the_step_retrains_from_its_checkpoint(tiny_model_dir, batch_files, tmp_path, monkeypatch):
    """With mini-batches, a non-finite loss can come after some AdamW steps were taken: the in-memory model is then
    ahead of every checkpoint, so the updater must drop it and reload the previous step. The failure is injected
    (a fault stand-in): valid batches are rejected before training if they hold non-finite numbers."""
    from finalstate.grpo.trainer import PolicyTrainer

    def step(updater, directory, number, batch):
        return updater.run({**request(tiny_model_dir, directory, batch, number), "miniBatchGroups": 1})

    updater = PolicyUpdater(cpu_groups())
    step(updater, tmp_path / "a", 1, batch_files[0])
    real = PolicyTrainer._accumulate
    calls = []

    def second_mini_batch_overflows(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise UnusableBatchError("the loss of micro-batch 0 is inf (not finite); no update applied")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(PolicyTrainer, "_accumulate", second_mini_batch_overflows)
    with pytest.raises(UnusableBatchError, match="not finite") as raised:
        step(updater, tmp_path / "a", 2, batch_files[1])
    assert raised.value.weights_changed and len(calls) == 2
    monkeypatch.setattr(PolicyTrainer, "_accumulate", real)

    retried = step(updater, tmp_path / "a", 2, batch_files[1])
    step(PolicyUpdater(cpu_groups()), tmp_path / "b", 1, batch_files[0])
    fresh = step(PolicyUpdater(cpu_groups()), tmp_path / "b", 2, batch_files[1])
    assert retried["metrics"]["optimizerSteps"] == fresh["metrics"]["optimizerSteps"] == 2
    weights_a, optimizer_a = checkpoint_tensors(retried)
    weights_b, optimizer_b = checkpoint_tensors(fresh)
    for name in weights_a:
        assert torch.equal(weights_a[name], weights_b[name]), name
    assert_same_optimizer_state(optimizer_a, optimizer_b)
    assert int(optimizer_a["optim.state.model.norm.weight.step"]) == 4


def test_heartbeats_continue_while_a_checkpoint_is_written(tiny_model_dir, batch_files, tmp_path, monkeypatch):
    """A big model's save takes minutes with no progress point: the activity's thread keeps heartbeating the phase
    while the update's thread works. The save is held until three heartbeats of that phase arrived (or 60 s passed),
    so the test depends on the beats, not on how fast a loaded machine schedules threads."""
    import threading

    import finalstate.gpu_worker.activity as policy_update

    real_write = CheckpointStore.write
    saving: list[dict] = []
    three_beats = threading.Event()

    def on_heartbeat(*details):
        if details[0]["phase"] == "writing checkpoint":
            saving.append(details[0])
            if len(saving) >= 3:
                three_beats.set()

    def held_write(self, *args, **kwargs):
        three_beats.wait(timeout=60)
        return real_write(self, *args, **kwargs)

    monkeypatch.setattr(policy_update, "HEARTBEAT_EVERY_S", 0.05)
    monkeypatch.setattr(CheckpointStore, "write", held_write)
    environment = ActivityEnvironment()
    environment.on_heartbeat = on_heartbeat
    result = environment.run(PolicyUpdateActivities(PolicyUpdater(cpu_groups())).policy_update, request(tiny_model_dir, tmp_path, batch_files[0], 1))
    assert not result["reused"]
    assert three_beats.is_set(), f"only {len(saving)} heartbeats while the checkpoint was written"
