"""A campaign's checkpoints: one directory per step, written atomically and marked complete last.

Layout of <checkpointDir>/step-000042/: a Hugging Face model dir (config.json, model.safetensors, tokenizer files)
plus optimizer.pt (AdamW state), trainer_state.json (campaign, step, metrics) and the COMPLETE marker.
A step directory only ever appears by renaming a finished temporary directory, so it is complete or absent.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import torch

from ..atomic import atomic_directory, is_complete

OPTIMIZER_FILE = "optimizer.pt"
STATE_FILE = "trainer_state.json"
_STEP_DIR = re.compile(r"^step-(\d{6,})$")


class CheckpointStore:
    def __init__(self, root: str | Path):
        self.root = Path(root)

    def path_for(self, step: int) -> Path:
        return self.root / f"step-{step:06d}"

    def complete(self, step: int) -> Path | None:
        path = self.path_for(step)
        return path if is_complete(path) else None

    def latest_complete(self) -> int | None:
        if not self.root.is_dir():
            return None
        steps = [int(m.group(1)) for p in self.root.iterdir() if (m := _STEP_DIR.match(p.name)) and is_complete(p)]
        return max(steps, default=None)

    def read_state(self, step: int) -> dict:
        return json.loads((self.path_for(step) / STATE_FILE).read_text())

    def remove_temporaries(self) -> None:
        """Drop what crashed writes left behind."""
        if self.root.is_dir():
            for path in self.root.iterdir():
                if _STEP_DIR.match(path.name.removeprefix(".tmp-").rsplit("-", 1)[0]) and path.name.startswith(".tmp-"):
                    shutil.rmtree(path, ignore_errors=True)

    def write(self, step: int, *, model, optimizer: torch.optim.Optimizer, tokenizer, state: dict) -> Path:
        final = self.path_for(step)
        with atomic_directory(final) as temporary:
            model.save_pretrained(temporary, safe_serialization=True)
            if tokenizer is not None:
                tokenizer.save_pretrained(temporary)
            torch.save(optimizer.state_dict(), temporary / OPTIMIZER_FILE)
            (temporary / STATE_FILE).write_text(json.dumps({**state, "step": step}, indent=2) + "\n")
        return final

    @staticmethod
    def load_optimizer_state(path: Path, optimizer: torch.optim.Optimizer) -> None:
        optimizer.load_state_dict(torch.load(path / OPTIMIZER_FILE, map_location="cpu", weights_only=True))
