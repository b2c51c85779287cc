"""Policy-update throughput and peak memory on a randomly initialised Qwen3-architecture model.

  .venv/bin/python python/benchmarks/policy_update.py --preset mid   # on a GPU
  .venv/bin/python python/benchmarks/policy_update.py --preset tiny  # CPU smoke
  .venv/bin/torchrun --nproc-per-node G python/benchmarks/policy_update.py --sharded --preset 4b   # FSDP2, G GPUs

Prints one JSON line per measured step and a summary: tokens/s, peak memory, and an MFU estimate
(6 x params x tokens + causal attention FLOPs, over the device's dense bf16 peak).
"""

from __future__ import annotations

import argparse
import json
import time

import torch
from transformers import Qwen3Config, Qwen3ForCausalLM

from finalstate.config import fsdp_config, loss_config, optimizer_config
from finalstate.grpo import PolicyTrainer

PRESETS = {
    # ~0.6B parameters, Qwen3-0.6B's shape.
    "mid": dict(hidden_size=1024, intermediate_size=3072, num_hidden_layers=28, num_attention_heads=16, num_key_value_heads=8, head_dim=128, vocab_size=151936),
    # ~4B parameters, Qwen3-4B's shape.
    "4b": dict(hidden_size=2560, intermediate_size=9728, num_hidden_layers=36, num_attention_heads=32, num_key_value_heads=8, head_dim=128, vocab_size=151936),
    # A CPU-sized model whose update is long enough to time (python/benchmarks/sharded_update.py).
    "cpu": dict(hidden_size=256, intermediate_size=768, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2, head_dim=64, vocab_size=1024),
    "tiny": dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=16, vocab_size=300),
}
PEAK_BF16_FLOPS = {"H200": 989e12, "H100": 989e12, "A100": 312e12}


def batch_of_lengths(lengths: list[int], prompt_share: float, vocab: int, generator: torch.Generator) -> list[dict]:
    """Random episodes of the given lengths, the first `prompt_share` of each a prompt (no loss), in groups of 8."""
    batch = []
    for i, length in enumerate(lengths):
        prompt = max(1, int(length * prompt_share))
        ids = torch.randint(0, vocab, (length,), generator=generator).tolist()
        mask = [0] * prompt + [1] * (length - prompt)
        logprobs = [0.0] * prompt + (-torch.rand(length - prompt, generator=generator) * 5 - 5).tolist()
        batch.append({"episodeId": f"e{i}", "taskId": "t", "groupId": f"g{i // 8}", "tokenIds": ids, "lossMask": mask, "rolloutLogprobs": logprobs, "reward": float(i % 2)})
    return batch


def random_batch(episodes: int, length: int, prompt: int, vocab: int, generator: torch.Generator) -> list[dict]:
    return batch_of_lengths([length] * episodes, prompt / length, vocab, generator)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", choices=sorted(PRESETS), default="mid")
    parser.add_argument("--episodes", type=int, default=64)
    parser.add_argument("--length", type=int, default=1024)
    parser.add_argument("--prompt", type=int, default=256)
    parser.add_argument("--micro-batch-size", type=int, default=8)
    parser.add_argument("--steps", type=int, default=3, help="measured steps, after one warm-up step")
    parser.add_argument("--gradient-checkpointing", action="store_true")
    parser.add_argument("--sharded", action="store_true", help="the gpu worker's path: a process group (torchrun's, or one of one) and FSDP2")
    parser.add_argument("--optimizer-offload", action="store_true", help="with --sharded: FSDP2 CPU offload (CUDA only)")
    parser.add_argument("--device", default=None)
    args = parser.parse_args()

    device = torch.device(args.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    config = Qwen3Config(max_position_embeddings=max(4096, args.length), tie_word_embeddings=True, **PRESETS[args.preset])
    torch.manual_seed(0)
    model = Qwen3ForCausalLM(config)
    params = sum(p.numel() for p in model.parameters())
    non_embedding = params - model.get_input_embeddings().weight.numel()
    optimizer = optimizer_config({"lr": 1e-6})
    loss = loss_config({"clipHigh": 0.28})
    rank, world, ranks = 0, 1, None
    if args.sharded:
        from finalstate.gpu_worker.process_group import start_process_groups
        from finalstate.gpu_worker.sharding import make_meshes, shard_model

        groups = start_process_groups(args.device)
        device, rank, world = groups.device, groups.rank, groups.world_size
        fsdp = fsdp_config({"activationCheckpointing": args.gradient_checkpointing, "optimizerOffload": args.optimizer_offload})
        meshes = make_meshes(device, world, groups.local_world_size, fsdp)
        shard_model(model, meshes, fsdp)
        ranks = meshes.ranks
    elif args.gradient_checkpointing:
        model.gradient_checkpointing_enable()
    trainer = PolicyTrainer(model, optimizer, device=device, ranks=ranks)
    generator = torch.Generator().manual_seed(0)
    batch = random_batch(args.episodes, args.length, args.prompt, config.vocab_size, generator)
    tokens = args.episodes * args.length
    # Forward + backward: 6 FLOPs per parameter per token (the tied LM head counts once, the lookup is free), plus
    # causal attention scores and values: 12 x layers x heads x head_dim x T / 2 per token.
    attention = 12 * config.num_hidden_layers * config.num_attention_heads * config.head_dim * args.length / 2
    flops_per_step = tokens * (6 * params + attention)

    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    peak = next((v for k, v in PEAK_BF16_FLOPS.items() if k in name), None)
    timings = []
    for step in range(args.steps + 1):
        if device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(device)
        started = time.perf_counter()
        metrics = trainer.train_step(batch, loss_config=loss, optimizer_config=optimizer, micro_batch_size=args.micro_batch_size)
        elapsed = time.perf_counter() - started
        if step > 0:
            timings.append(elapsed)
        memory = torch.cuda.max_memory_allocated(device) / 2**30 if device.type == "cuda" else None
        if rank != 0:
            continue
        print(json.dumps({"step": step, "warmup": step == 0, "seconds": round(elapsed, 3), "tokensPerSecond": round(tokens / elapsed), "peakMemoryGiB": memory, "loss": metrics["loss"], "gradNorm": metrics["gradNorm"]}), flush=True)
    mean = sum(timings) / len(timings)
    achieved = flops_per_step / mean
    if rank != 0:
        return
    print(json.dumps({
        "device": name,
        "worldSize": world,
        "sharded": args.sharded,
        "preset": args.preset,
        "params": params,
        "nonEmbeddingParams": non_embedding,
        "episodes": args.episodes,
        "length": args.length,
        "microBatchSize": args.micro_batch_size,
        "secondsPerStep": round(mean, 3),
        "tokensPerSecond": round(tokens / mean),
        "peakMemoryGiB": torch.cuda.max_memory_allocated(device) / 2**30 if device.type == "cuda" else None,
        "achievedTFLOPs": round(achieved / 1e12, 2),
        "mfu": round(achieved / (peak * world), 4) if peak else None,
    }), flush=True)


if __name__ == "__main__":
    main()
