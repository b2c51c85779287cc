"""A campaign's checkpoints: one directory per step, written atomically and marked complete last.

Layout of <checkpointDir>/step-000042/: a Hugging Face model dir (config.json, model.safetensors, tokenizer files)
plus optimizer.pt (AdamW state), trainer_state.json (campaign, step, metrics) and the COMPLETE marker.
A step directory only ever appears by renaming a finished temporary directory, so it is complete or absent.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import uuid
from pathlib import Path

import torch

COMPLETE_MARKER = "COMPLETE"
OPTIMIZER_FILE = "optimizer.pt"
STATE_FILE = "trainer_state.json"
_STEP_DIR = re.compile(r"^step-(\d{6,})$")


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class CheckpointStore:
    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)

    def path_for(self, step: int) -> Path:
        return self.root / f"step-{step:06d}"

    def complete(self, step: int) -> Path | None:
        path = self.path_for(step)
        return path if (path / COMPLETE_MARKER).is_file() else None

    def latest_complete(self) -> int | None:
        if not self.root.is_dir():
            return None
        steps = [int(m.group(1)) for p in self.root.iterdir() if (m := _STEP_DIR.match(p.name)) and (p / COMPLETE_MARKER).is_file()]
        return max(steps, default=None)

    def read_state(self, step: int) -> dict:
        return json.loads((self.path_for(step) / STATE_FILE).read_text())

    def remove_temporaries(self) -> None:
        """Drop what a crashed write left behind."""
        if self.root.is_dir():
            for path in self.root.glob(".tmp-step-*"):
                shutil.rmtree(path, ignore_errors=True)

    def write(self, step: int, *, model, optimizer: torch.optim.Optimizer, tokenizer, state: dict) -> Path:
        self.root.mkdir(parents=True, exist_ok=True)
        temporary = self.root / f".tmp-step-{step:06d}-{uuid.uuid4().hex}"
        try:
            temporary.mkdir()
            model.save_pretrained(temporary, safe_serialization=True)
            if tokenizer is not None:
                tokenizer.save_pretrained(temporary)
            torch.save(optimizer.state_dict(), temporary / OPTIMIZER_FILE)
            (temporary / STATE_FILE).write_text(json.dumps({**state, "step": step}, indent=2) + "\n")
            for file in temporary.iterdir():
                with open(file, "rb") as handle:
                    os.fsync(handle.fileno())
            (temporary / COMPLETE_MARKER).write_text("ok\n")
            _fsync_dir(temporary)
            final = self.path_for(step)
            if final.exists():  # only a hand-made or foreign directory can be here without its marker
                shutil.rmtree(final)
            os.rename(temporary, final)
            _fsync_dir(self.root)
            return final
        except BaseException:
            shutil.rmtree(temporary, ignore_errors=True)
            raise

    @staticmethod
    def load_optimizer_state(path: Path, optimizer: torch.optim.Optimizer) -> None:
        optimizer.load_state_dict(torch.load(path / OPTIMIZER_FILE, map_location="cpu", weights_only=True))
