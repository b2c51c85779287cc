"""Peak memory per rank of loading a policy into the FSDP2-sharded model, and whether the shards hold its weights.

  .venv/bin/python python/benchmarks/sharded_load.py --make-model DIR [--preset cpu-large] [--dtype bfloat16]
  torchrun --nproc-per-node 2 python/benchmarks/sharded_load.py --model DIR --loader sharded [--device cpu]
  torchrun --nproc-per-node 2 python/benchmarks/sharded_load.py --model DIR --loader full     # the path before

--loader sharded is the gpu worker's (gpu_worker/loading.py): the model on the meta device, sharded, each rank
allocating its shards; rank 0 maps the safetensors file and broadcasts one tensor at a time. --loader full is what
the worker did before: every rank loads the whole fp32 model, moves it to the device, then shards it.

Each rank prints one JSON line: its peak resident memory (VmHWM) and how much the load added to it, its peak device
memory (CUDA), and on rank 0 the largest difference between the sharded weights and the file's (cast to fp32).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch

PRESETS = {
    # ~60M parameters: big enough that the model, not the interpreter, dominates a CPU rank's memory.
    "cpu-large": dict(hidden_size=512, intermediate_size=1536, num_hidden_layers=8, num_attention_heads=8, num_key_value_heads=4, head_dim=64, vocab_size=32000, tie_word_embeddings=False),
    # Qwen3-1.7B's shape (2.0B parameters with its untied 152k output layer).
    "1.7b": dict(hidden_size=2048, intermediate_size=6144, num_hidden_layers=28, num_attention_heads=16, num_key_value_heads=8, head_dim=128, vocab_size=151936, tie_word_embeddings=True),
    "tiny": dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=16, vocab_size=300, tie_word_embeddings=True),
}


def status_bytes(key: str) -> int:
    with open("/proc/self/status") as handle:
        return next(int(line.split()[1]) * 1024 for line in handle if line.startswith(key))


def make_model(directory: Path, preset: str, dtype: str) -> None:
    from transformers import Qwen3Config, Qwen3ForCausalLM

    config = Qwen3Config(max_position_embeddings=4096, **PRESETS[preset])
    torch.manual_seed(0)
    model = Qwen3ForCausalLM(config).to(getattr(torch, dtype))
    model.save_pretrained(directory, safe_serialization=True)
    print(json.dumps({"dir": str(directory), "parameters": sum(p.numel() for p in model.parameters())}))


def load_full(directory: Path, groups, fsdp):
    """The path before: every rank holds the whole fp32 model, on the device, before sharding it."""
    from torch.distributed.fsdp import fully_shard
    from transformers import AutoModelForCausalLM

    from finalstate.gpu_worker.sharding import decoder_layers, make_meshes, mixed_precision

    model = AutoModelForCausalLM.from_pretrained(directory, dtype=torch.float32)
    model.to(groups.device)
    meshes = make_meshes(groups.device, groups.world_size, groups.local_world_size, fsdp)
    options = dict(mesh=meshes.fsdp, mp_policy=mixed_precision(groups.device))
    for layer in decoder_layers(model):
        fully_shard(layer, **options)
    fully_shard(model, **options)
    return model


def load_sharded(directory: Path, groups, fsdp):
    from finalstate.gpu_worker.loading import load_full_weights, sharded_meta_model
    from finalstate.gpu_worker.sharding import make_meshes

    model = sharded_meta_model(directory, make_meshes(groups.device, groups.world_size, groups.local_world_size, fsdp), fsdp)
    load_full_weights(model, directory, groups)
    return model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--make-model", type=Path, metavar="DIR", help="write a randomly initialised Qwen3 model and exit")
    parser.add_argument("--preset", choices=sorted(PRESETS), default="cpu-large")
    parser.add_argument("--dtype", choices=("bfloat16", "float32"), default="bfloat16", help="of the written model")
    parser.add_argument("--model", type=Path)
    parser.add_argument("--loader", choices=("sharded", "full"), default="sharded")
    parser.add_argument("--device", default=None)
    parser.add_argument("--offload", action="store_true", help="optimizer offload (the shards in host memory)")
    args = parser.parse_args()
    if args.make_model:
        make_model(args.make_model, args.preset, args.dtype)
        return

    from finalstate.config import fsdp_config
    from finalstate.gpu_worker.checkpoints import gather_export
    from finalstate.gpu_worker.loading import mapped_safetensors
    from finalstate.gpu_worker.process_group import start_process_groups

    groups = start_process_groups(args.device)
    fsdp = fsdp_config({"activationCheckpointing": False, "optimizerOffload": args.offload, "exportDtype": "float32"})
    cuda = groups.device.type == "cuda"
    torch.distributed.barrier()
    before = status_bytes("VmRSS:")
    with open("/proc/self/clear_refs", "w") as handle:
        handle.write("5")  # VmHWM from here
    model = (load_sharded if args.loader == "sharded" else load_full)(args.model, groups, fsdp)
    torch.distributed.barrier()
    peak = status_bytes("VmHWM:")
    report = {
        "rank": groups.rank,
        "worldSize": groups.world_size,
        "loader": args.loader,
        "parameters": sum(p.numel() for p in model.parameters()),
        "rssBeforeBytes": before,
        "peakRssBytes": peak,
        "addedRssBytes": peak - before,
        "peakDeviceBytes": torch.cuda.max_memory_allocated(groups.device) if cuda else None,
        "tied": bool(getattr(model.config, "tie_word_embeddings", False)) and model.get_output_embeddings().weight is model.get_input_embeddings().weight,
    }
    weights = gather_export(model, torch.float32, keep=groups.is_rank0)
    if groups.is_rank0:
        expected = mapped_safetensors(args.model)
        names = [n for n in weights if n in expected]
        report["checkedTensors"] = len(names)
        report["maxAbsDiff"] = max((weights[n] - expected[n].float()).abs().max().item() for n in names)
        report["missing"] = sorted(set(expected) - set(weights))
    # Every rank reports on torchrun's shared stdout: the line and its newline in one write, so that two ranks' lines
    # never run together (print writes them apart when Python's output is unbuffered).
    sys.stdout.write(json.dumps(report) + "\n")
    sys.stdout.flush()
    torch.distributed.barrier()
    sys.stdout.flush()


if __name__ == "__main__":
    main()
