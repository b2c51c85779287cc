"""A LoRA adapter of a model, with random lora_B (so that it changes what the model computes), as PEFT saves it.

`python -m finalstate.testing.tiny_adapter MODEL_DIR OUT_DIR [--rank 8] [--seed 1]` prints {"dir": OUT_DIR}; the
TypeScript tests load it into vLLM and the project's policy server (test/runtime/lora-adapters.test.ts).
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
    parser.add_argument("out_dir")
    parser.add_argument("--rank", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    write_adapter(args.model_dir, args.out_dir, args.rank, args.seed)
    print(json.dumps({"dir": args.out_dir}))


if __name__ == "__main__":
    main()
