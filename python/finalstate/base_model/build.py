"""`build`: demonstrations JSONL -> tokenizer + Qwen3 model + SFT -> a Hugging Face checkpoint dir, cached by hash.

The output directory is <cache_dir>/base-<hash16>, where the hash covers the demonstrations file, the whole build
configuration, the seed and BUILD_FORMAT; an existing complete directory is returned without building again.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

import torch
from transformers import Qwen3Config, Qwen3ForCausalLM

from ..atomic import atomic_directory, is_complete, remove_temporaries
from .demonstrations import assistant_token_mask, load_demonstrations
from .sft import SftConfig, TokenizedExample, train_sft
from .tokenizer import train_tokenizer

log = logging.getLogger(__name__)
BUILD_FORMAT = "finalstate-base-model/3"  # bump when the build's code changes what it produces
REPORT_FILE = "build_report.json"


@dataclass(frozen=True)
class ModelShape:
    """Defaults: about 1M parameters at a ~2,000-token vocabulary, enough for mini-profile tasks on 2 CPU cores."""

    hidden_size: int = 128
    num_hidden_layers: int = 4
    num_attention_heads: int = 4
    num_key_value_heads: int = 2
    head_dim: int = 32
    intermediate_size: int = 384
    max_position_embeddings: int = 2048


@dataclass(frozen=True)
class BuildConfig:
    vocab_size: int = 2048
    max_length: int = 1024  # longer demonstrations are truncated
    model: ModelShape = field(default_factory=ModelShape)
    sft: SftConfig = field(default_factory=SftConfig)
    seed: int = 0


@dataclass
class BuildResult:
    directory: Path
    content_hash: str
    cached: bool
    report: dict


def content_hash(demonstrations: Path, config: BuildConfig) -> str:
    digest = hashlib.sha256()
    digest.update(BUILD_FORMAT.encode())
    digest.update(json.dumps(dataclasses.asdict(config), sort_keys=True).encode())
    digest.update(demonstrations.read_bytes())
    return digest.hexdigest()


def build(demonstrations: str | Path, cache_dir: str | Path, config: BuildConfig = BuildConfig()) -> BuildResult:
    demonstrations = Path(demonstrations)
    demos = load_demonstrations(demonstrations)  # validates before any work
    key = content_hash(demonstrations, config)
    directory = Path(cache_dir) / f"base-{key[:16]}"
    if is_complete(directory):
        return BuildResult(directory, key, True, json.loads((directory / REPORT_FILE).read_text()))

    remove_temporaries(directory)  # what an interrupted build of the same inputs left
    started = time.perf_counter()
    torch.manual_seed(config.seed)
    tokenizer = train_tokenizer((d.text for d in demos), vocab_size=config.vocab_size)
    examples = []
    for demo in demos:
        encoded = tokenizer(demo.text, add_special_tokens=False, return_offsets_mapping=True, truncation=True, max_length=config.max_length)
        mask = assistant_token_mask(encoded["offset_mapping"], demo.assistant_spans)
        if any(mask[1:]):
            examples.append(TokenizedExample(encoded["input_ids"], mask))
    if not examples:
        raise ValueError(f"{demonstrations}: no demonstration has an assistant token within the first {config.max_length} tokens")

    shape = config.model
    model_config = Qwen3Config(
        vocab_size=len(tokenizer),
        tie_word_embeddings=True,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=None,
        **dataclasses.asdict(shape),
    )
    model = Qwen3ForCausalLM(model_config)
    params = sum(p.numel() for p in model.parameters())
    log.info("base model: %d parameters, vocabulary %d, %d demonstrations, %d SFT steps", params, len(tokenizer), len(examples), config.sft.steps)
    every = max(1, config.sft.steps // 20)
    losses = train_sft(
        model, examples, config.sft, pad_id=tokenizer.pad_token_id, seed=config.seed,
        on_step=lambda step, loss: log.info("sft step %d/%d loss %.4f", step + 1, config.sft.steps, loss) if (step + 1) % every == 0 else None,
    )
    window = max(1, config.sft.steps // 100)
    report = {
        "contentHash": key,
        "buildFormat": BUILD_FORMAT,
        "paramCount": params,
        "vocabSize": len(tokenizer),
        "demonstrations": len(demos),
        "trainedExamples": len(examples),
        "meanTokensPerExample": sum(len(e.input_ids) for e in examples) / len(examples),
        "assistantTokens": sum(sum(e.loss_mask) for e in examples),
        "sftSteps": config.sft.steps,
        "lossCurve": [
            {"step": start + 1, "loss": sum(losses[start : start + window]) / len(losses[start : start + window])}
            for start in range(0, len(losses), window)
        ],
        "finalLoss": sum(losses[-window:]) / len(losses[-window:]),
        "buildSeconds": round(time.perf_counter() - started, 2),
        "seed": config.seed,
        "config": dataclasses.asdict(config),
        "torchThreads": torch.get_num_threads(),
    }
    with atomic_directory(directory) as temporary:
        model.save_pretrained(temporary, safe_serialization=True)
        tokenizer.save_pretrained(temporary)
        (temporary / REPORT_FILE).write_text(json.dumps(report, indent=2) + "\n")
    return BuildResult(directory, key, False, report)
