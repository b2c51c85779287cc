"""A LoRA adapter of a model, with random lora_B (so that it changes what the model computes), as PEFT saves it.

`python -m finalstate.testing.tiny_adapter MODEL_DIR OUT_DIR:RANK:SEED ...` writes each (one process: the torch
import is most of the cost) and prints {"dirs": [...]}; the TypeScript tests load them into vLLM and the project's
policy server (test/runtime/lora-adapters.test.ts).
"""

from __future__ import annotations

import argparse
import json

import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

ALL_LINEAR = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


def write_adapter(model_dir: str, out_dir: str, rank: int = 8, seed: int = 1, scale: float = 0.3) -> None:
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
    peft = get_peft_model(model, LoraConfig(r=rank, lora_alpha=2 * rank, target_modules=ALL_LINEAR))
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, parameter in peft.named_parameters():
            if ".lora_B." in name:
                parameter.copy_(torch.randn(parameter.shape, generator=generator) * scale)
    peft.save_pretrained(out_dir)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("model_dir")
    parser.add_argument("adapters", nargs="+", metavar="OUT_DIR:RANK:SEED")
    args = parser.parse_args()
    dirs = []
    for spec in args.adapters:
        out_dir, rank, seed = spec.rsplit(":", 2)
        write_adapter(args.model_dir, out_dir, int(rank), int(seed))
        dirs.append(out_dir)
    print(json.dumps({"dirs": dirs}))


if __name__ == "__main__":
    main()
