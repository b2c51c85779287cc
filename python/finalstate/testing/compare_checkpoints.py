"""Compare two step checkpoints tensor by tensor: the exported weights (model.safetensors) and the sharded fp32 model
and AdamW state (sharded/, read whole in one process), every tensor bitwise, every other value (param_groups) by ==.

`python -m finalstate.testing.compare_checkpoints A1 B1 [A2 B2 ...]` prints one JSON line, a list with one entry per
pair: what was compared and what differed (used by the TypeScript tests that check a resumed campaign against an uninterrupted one).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import load_file
from torch.distributed.checkpoint.state_dict_loader import _load_state_dict_from_keys

EXPORT_FILE = "model.safetensors"
SHARDED_DIR = "sharded"


def flatten(value: Any, prefix: str, out: dict[str, Any]) -> dict[str, Any]:
    if isinstance(value, dict):
        for key, item in value.items():
            flatten(item, f"{prefix}.{key}" if prefix else str(key), out)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            flatten(item, f"{prefix}.{index}", out)
    else:
        out[prefix] = value
    return out


def checkpoint_entries(directory: Path) -> dict[str, Any]:
    """Every tensor and value of a step checkpoint, keyed `export.<name>` and `sharded.<path>`."""
    entries = {f"export.{name}": tensor for name, tensor in load_file(directory / EXPORT_FILE).items()}
    sharded = _load_state_dict_from_keys(checkpoint_id=str(directory / SHARDED_DIR))
    entries.update(flatten(sharded, SHARDED_DIR, {}))
    return entries


def bitwise_equal(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    return torch.equal(a.detach().reshape(-1).view(torch.uint8), b.detach().reshape(-1).view(torch.uint8))


def compare(a_dir: Path, b_dir: Path) -> dict:
    a, b = checkpoint_entries(a_dir), checkpoint_entries(b_dir)
    tensors = elements = values = 0
    differing: list[str] = []
    for key in sorted(a.keys() & b.keys()):
        left, right = a[key], b[key]
        if isinstance(left, torch.Tensor) and isinstance(right, torch.Tensor):
            tensors += 1
            elements += left.numel()
            same = bitwise_equal(left, right)
        else:
            values += 1
            same = type(left) is type(right) and left == right
        if not same:
            differing.append(key)
    return {
        "tensors": tensors,
        "elements": elements,
        "values": values,
        "optimizerTensors": sum(1 for k in a.keys() & b.keys() if k.startswith(f"{SHARDED_DIR}.optim.state.")),
        "differing": differing,
        "onlyInA": sorted(a.keys() - b.keys()),
        "onlyInB": sorted(b.keys() - a.keys()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m finalstate.testing.compare_checkpoints", description=__doc__)
    parser.add_argument("dirs", type=Path, nargs="+", help="pairs of step directories: A1 B1 A2 B2 ...")
    args = parser.parse_args()
    if len(args.dirs) % 2:
        parser.error(f"give step directories in pairs; got {len(args.dirs)}")
    pairs = zip(args.dirs[::2], args.dirs[1::2], strict=True)
    print(json.dumps([compare(a, b) for a, b in pairs]))


if __name__ == "__main__":
    main()
