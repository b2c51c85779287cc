"""Checkpoint retention: what stays after each step, and deletion that survives crashes, retries, resumes and replays."""

from __future__ import annotations

import json
import shutil

import pytest
from test_policy_update import make_batch_files, request

import finalstate.gpu_worker.checkpoints as checkpoints
from finalstate.config import RetentionConfig
from finalstate.gpu_worker.checkpoints import SHARDED_DIR, CheckpointStore
from finalstate.gpu_worker.policy_update import PolicyUpdater

from sharded import cpu_groups

KEEP_2 = RetentionConfig(keep_last=2, keep_exports="needed", export_every=None)


def fake_step(store: CheckpointStore, step: int, *, resumable: bool = True) -> None:
    """A complete step directory with the files a real one has (sizes aside); without sharded/ unless `resumable`."""
    path = store.path_for(step)
    path.mkdir(parents=True)
    if resumable:
        (path / SHARDED_DIR).mkdir()
        (path / SHARDED_DIR / ".metadata").write_text("m")
        (path / SHARDED_DIR / "__0_0.distcp").write_bytes(b"x" * 1000)
    (path / "model.safetensors").write_bytes(b"w" * 100)
    (path / "trainer_state.json").write_text(json.dumps({"campaignId": "c", "step": step, "metrics": {}}))
    (path / "COMPLETE").write_text("ok\n")


def layout(store: CheckpointStore) -> dict[str, str]:
    """Each entry of the checkpoint dir: 'whole', 'export' (no sharded state) or the name of anything else."""
    found = {}
    for path in sorted(store.root.iterdir()):
        if path.name.startswith("step-"):
            found[path.name] = "whole" if (path / SHARDED_DIR).is_dir() else "export"
        else:
            found[path.name] = "other"
    return found


def test_the_newest_steps_stay_whole_and_needed_exports_stay(tmp_path):
    store = CheckpointStore(tmp_path)
    for step in range(1, 8):
        fake_step(store, step)
        store.prune(step, KEEP_2, needed_exports=[step - 1, *(s for s in range(1, step) if s % 3 == 0)])
    # 7 and 6 whole (6 is also the served one), 3 evaluated; 1, 2, 4, 5 gone.
    assert layout(store) == {"step-000003": "export", "step-000006": "whole", "step-000007": "whole"}
    assert store.latest_complete() == 7

    every = RetentionConfig(keep_last=1, keep_exports="needed", export_every=2)
    store.prune(7, every, needed_exports=[])
    assert layout(store) == {"step-000006": "export", "step-000007": "whole"}
    keep_all = CheckpointStore(tmp_path / "all")
    for step in (1, 2, 3):
        fake_step(keep_all, step)
    keep_all.prune(3, RetentionConfig(keep_last=1, keep_exports="all", export_every=None), needed_exports=[])
    assert layout(keep_all) == {"step-000001": "export", "step-000002": "export", "step-000003": "whole"}
    unlimited = RetentionConfig(keep_last=None, keep_exports="needed", export_every=None)
    assert keep_all.prune(3, unlimited, needed_exports=[]) == []


def test_with_a_cadence_the_newest_resumable_state_and_the_steps_after_it_stay(tmp_path):
    """checkpoints.every 3: a restarted worker loads the newest resumable state and replays the steps after it, so
    retention keeps them whatever keepLast says; once a newer resumable state exists, the older ones go."""
    store = CheckpointStore(tmp_path)
    kept = {}
    for step in range(1, 8):
        fake_step(store, step, resumable=step % 3 == 0)
        store.prune(step, RetentionConfig(keep_last=1, keep_exports="needed", export_every=None), needed_exports=[])
        kept[step] = layout(store)
    assert kept[2] == {"step-000001": "export", "step-000002": "export"}, "no resumable state yet: replayed from the base model"
    assert kept[3] == {"step-000003": "whole"}
    assert kept[5] == {"step-000003": "whole", "step-000004": "export", "step-000005": "export"}
    assert kept[7] == {"step-000006": "whole", "step-000007": "export"}
    assert store.latest_resumable(7) == 6 and store.latest_resumable(5) is None


def test_a_crash_mid_deletion_leaves_whole_steps_or_trash_and_the_next_prune_finishes(tmp_path, monkeypatch):
    store = CheckpointStore(tmp_path)
    for step in (1, 2, 3, 4):
        fake_step(store, step)
    real_rmtree = shutil.rmtree
    calls = []

    def crash_after_one_file(path, *args, **kwargs):
        if not calls and "trash" in str(path):
            calls.append(path)
            next(p for p in path.rglob("*") if p.is_file()).unlink()  # part of it deleted, then the process dies
            raise OSError("killed mid-deletion")
        return real_rmtree(path, *args, **kwargs)

    monkeypatch.setattr(checkpoints.shutil, "rmtree", crash_after_one_file)
    with pytest.raises(OSError, match="killed mid-deletion"):
        store.prune(4, KEEP_2, needed_exports=[])
    # The step being deleted is out of the way whole (renamed first): every step directory left is intact.
    after_crash = layout(store)
    assert next(name for name, kind in after_crash.items() if kind == "other").startswith(".trash-step-000001")
    for name, kind in after_crash.items():
        if kind != "other":
            assert (tmp_path / name / "model.safetensors").stat().st_size == 100
            assert kind == "export" or (tmp_path / name / SHARDED_DIR / "__0_0.distcp").stat().st_size == 1000
    assert store.latest_complete() == 4

    # The retried prune (the retried update runs it again) removes the trash and finishes; once more is a no-op.
    assert store.prune(4, KEEP_2, needed_exports=[]) == ["step-000002"]
    assert layout(store) == {"step-000003": "whole", "step-000004": "whole"}
    assert store.prune(4, KEEP_2, needed_exports=[]) == []


@pytest.fixture(scope="module")
def batch_files(tiny_model_dir, tmp_path_factory):
    return make_batch_files(tiny_model_dir, tmp_path_factory)


def test_retried_replayed_and_resumed_updates_under_retention(tiny_model_dir, batch_files, tmp_path):
    """The real updater: steps 1-3 with keepLast 1 and step 1's export needed (it was evaluated); a retried step 3
    (its checkpoint exists) prunes what a crash before pruning left; a fresh worker resumes step 4 from step 3."""

    def update(updater, step, needed, keep_last=1):
        raw = {**request(tiny_model_dir, tmp_path, batch_files[step % 2], step), "retention": {"keepLast": keep_last}, "neededExports": needed}
        return updater.run(raw)

    updater = PolicyUpdater(cpu_groups())
    update(updater, 1, [])
    update(updater, 2, [1])
    assert layout(CheckpointStore(tmp_path)) == {"step-000001": "export", "step-000002": "whole"}
    # Step 3 completes with a retention that kept everything, as if the worker died before pruning.
    update(updater, 3, [1, 2], keep_last=None)
    assert layout(CheckpointStore(tmp_path)) == {"step-000001": "export", "step-000002": "whole", "step-000003": "whole"}
    retried = update(PolicyUpdater(cpu_groups()), 3, [1, 2])
    assert retried["reused"]
    assert layout(CheckpointStore(tmp_path)) == {"step-000001": "export", "step-000002": "export", "step-000003": "whole"}
    replayed = update(PolicyUpdater(cpu_groups()), 3, [1, 2])
    assert replayed["reused"] and replayed["metrics"] == retried["metrics"]

    resumed = update(PolicyUpdater(cpu_groups()), 4, [1, 3])
    assert not resumed["reused"] and resumed["step"] == 4
    assert layout(CheckpointStore(tmp_path)) == {"step-000001": "export", "step-000003": "export", "step-000004": "whole"}
    served = CheckpointStore(tmp_path).path_for(3)
    assert (served / "model.safetensors").is_file() and (served / "config.json").is_file()
