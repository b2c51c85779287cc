"""Update tokens/s on the CPU with padded passes against packed ones (update.packing), and their ratio, in one run.

  .venv/bin/python python/benchmarks/packing.py [--preset cpu] [--micro-batch-tokens 8192] [--steps 2] [--repeat 1]

The batch has the length spread of real demo episodes: one episode per entry of bench/data/turn-profile.json (each
turn's prompt and completion tokens; the completions are trained on), random token ids. The same batch is trained
padded and packed, alternately, one warm-up step each and then `--steps` measured steps; the figure is the batch's
own tokens (no padding) over the mean step time. One thread (OMP_NUM_THREADS=1), so that the two layouts meet the
same machine.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import torch
from transformers import Qwen3Config, Qwen3ForCausalLM

from finalstate.config import loss_config, optimizer_config
from finalstate.grpo import PolicyTrainer
from finalstate.grpo.mini_batches import plan_micro_batches

PROFILE = Path(__file__).resolve().parents[2] / "bench" / "data" / "turn-profile.json"
PRESETS = {
    # The shape python/benchmarks/policy_update.py times on the CPU.
    "cpu": dict(hidden_size=256, intermediate_size=768, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2, head_dim=64, vocab_size=1024),
    "tiny": dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=16, vocab_size=300),
}


def profile_episodes(vocab: int, repeat: int) -> list[dict]:
    """One episode per profiled one (`repeat` times over): each turn's prompt tokens untrained, its completion trained."""
    profile = json.loads(PROFILE.read_text())["episodes"]
    generator = torch.Generator().manual_seed(0)
    episodes = []
    for copy in range(repeat):
        for index, profiled in enumerate(profile):
            mask = [m for prompt, completion in profiled["turns"] for m in [0] * prompt + [1] * completion]
            mask += [0] * profiled["trailingTokens"]
            mask[0] = 0
            n = len(mask)
            ids = torch.randint(0, vocab, (n,), generator=generator).tolist()
            logprobs = [(-float(torch.rand(1, generator=generator)) * 5 - 0.1) if m else 0.0 for m in mask]
            number = copy * len(profile) + index
            episodes.append({"episodeId": f"e{number}", "taskId": profiled["taskId"], "groupId": f"g{number // 8}",
                             "tokenIds": ids, "lossMask": mask, "rolloutLogprobs": logprobs, "reward": float(number % 3 == 0)})  # fmt: skip
    return episodes


def computed_tokens(lengths: list[int], budget: int, packed: bool) -> int:
    """Tokens the passes compute: padding included."""
    passes = plan_micro_batches(lengths, 1, max_tokens=budget, max_episodes=None, packed=packed)[0]
    return sum(sum(lengths[i] for i in p) if packed else len(p) * max(lengths[i] for i in p) for p in passes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", choices=sorted(PRESETS), default="cpu")
    parser.add_argument("--micro-batch-tokens", type=int, default=8192)
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1, help="the profile's episodes this many times over")
    args = parser.parse_args()
    config = Qwen3Config(max_position_embeddings=4096, tie_word_embeddings=True, **PRESETS[args.preset])
    torch.manual_seed(0)
    episodes = profile_episodes(config.vocab_size, args.repeat)
    lengths = [len(e["tokenIds"]) for e in episodes]
    tokens = sum(lengths)
    trainers = {packed: PolicyTrainer(Qwen3ForCausalLM(config), optimizer_config({"lr": 1e-6})) for packed in (False, True)}
    loss = loss_config({"clipHigh": 0.28})
    timings: dict[bool, list[float]] = {False: [], True: []}
    for step in range(args.steps + 1):
        for packed in (False, True):
            started = time.perf_counter()
            trainers[packed].train_step(
                episodes, loss_config=loss, optimizer_config=optimizer_config({"lr": 1e-6}), micro_batch_tokens=args.micro_batch_tokens, packed=packed
            )
            if step > 0:
                timings[packed].append(time.perf_counter() - started)
    summary = {}
    for packed, name in ((False, "padded"), (True, "packed")):
        seconds = sum(timings[packed]) / len(timings[packed])
        passes = len(plan_micro_batches(lengths, 1, max_tokens=args.micro_batch_tokens, max_episodes=None, packed=packed)[0])
        summary[name] = {"passes": passes, "computedTokens": computed_tokens(lengths, args.micro_batch_tokens, packed), "secondsPerStep": round(seconds, 3), "tokensPerSecond": round(tokens / seconds)}
        print(json.dumps({"layout": name, **summary[name]}))
    print(json.dumps({
        "preset": args.preset, "episodes": len(episodes), "tokens": tokens, "shortest": min(lengths), "longest": max(lengths),
        "microBatchTokens": args.micro_batch_tokens, "threads": torch.get_num_threads(),
        "tokensPerSecondRatioPackedToPadded": round(summary["packed"]["tokensPerSecond"] / summary["padded"]["tokensPerSecond"], 3),
    }))  # fmt: skip


if __name__ == "__main__":
    main()
