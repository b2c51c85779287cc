"""Peak memory of one update pass on the CPU against what infra/update-memory.ts predicts for it.

  .venv/bin/python python/benchmarks/update_memory.py             # 4k, 16k and 32k tokens a pass (a few minutes)
  .venv/bin/python python/benchmarks/update_memory.py --rows test # the small rows python/tests/test_update_memory.py checks

Each row is one forward/backward pass of PolicyTrainer.accumulate_gradients on a small random Qwen3 (fp32, activation
checkpointing on): four episodes of a half, a quarter and two eighths of the row's tokens, packed into one sequence
or padded to the longest, through the chunked log-prob head (grpo/log_probs.py) or through the logits as the
trainer computed them before issue 36 (kept here to compare). The measure is the peak resident memory the pass adds
(VmHWM after a reset, less the resident memory before it), in a child process whose glibc returns every block of
64 KiB or more to the system when it is freed (MALLOC_MMAP_THRESHOLD_), so that the peak is what was live at once.
Rows, model and predictions come from memory_check_plan.json (infra/memory-check-plan.ts).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PLAN = HERE / "memory_check_plan.json"


def _status(key: str) -> int:
    with open("/proc/self/status") as handle:
        return next(int(line.split()[1]) * 1024 for line in handle if line.startswith(key))


def peak_added_bytes(run) -> int:
    """The peak resident memory `run` adds: VmHWM after resetting it, less VmRSS before."""
    gc.collect()
    with open("/proc/self/clear_refs", "w") as handle:
        handle.write("5")
    base = _status("VmRSS:")
    run()
    return _status("VmHWM:") - base


def _logits_head():
    """The trainer's head before issue 36: the model's logits, kept with their gradient, normalised in fp32 chunks
    of 64 MiB (git show b81331c:python/finalstate/grpo/log_probs.py)."""
    import torch

    class TargetLogProbs(torch.autograd.Function):
        @staticmethod
        def forward(ctx, logits, targets, rows):
            log_prob = torch.empty(logits.shape[0], dtype=torch.float32)
            entropy = torch.empty_like(log_prob)
            for start in range(0, logits.shape[0], rows):
                z = logits[start : start + rows].float()
                z = z - torch.logsumexp(z, dim=-1, keepdim=True)
                log_prob[start : start + rows] = z.gather(-1, targets[start : start + rows, None]).squeeze(-1)
                entropy[start : start + rows] = -(z.exp() * z).sum(dim=-1)
            ctx.save_for_backward(logits, targets)
            ctx.rows = rows
            ctx.mark_non_differentiable(entropy)
            return log_prob, entropy

        @staticmethod
        def backward(ctx, grad_log_prob, _grad_entropy):
            logits, targets = ctx.saved_tensors
            grad = torch.empty_like(logits)
            for start in range(0, logits.shape[0], ctx.rows):
                g = grad_log_prob[start : start + ctx.rows, None].float()
                chunk = torch.softmax(logits[start : start + ctx.rows].float(), dim=-1).mul_(-g)
                chunk.scatter_add_(-1, targets[start : start + ctx.rows, None], g)
                grad[start : start + ctx.rows] = chunk
            return grad, None, None

    def token_log_probs(model, batch, ranks=None):
        from finalstate.grpo.attention import AttentionLayout, use_trainer_attention

        use_trainer_attention(model)
        layout = AttentionLayout(segments=batch.segments)
        logits = model(input_ids=batch.input_ids, position_ids=batch.position_ids, use_cache=False, attention_layout=layout).logits
        flat = logits.reshape(-1, logits.shape[-1])
        rows = max(1, 64 * 2**20 // (4 * flat.shape[-1]))
        log_prob, entropy = TargetLogProbs.apply(flat, batch.targets.reshape(-1), rows)
        return log_prob.view(batch.targets.shape), entropy.view(batch.targets.shape)

    return token_log_probs


def measure(plan: dict, rows: list[dict]) -> None:
    """In this process (the child): each row's pass, one JSON line each."""
    import torch
    from policy_update import batch_of_lengths
    from transformers import Qwen3Config, Qwen3ForCausalLM

    import finalstate.grpo.trainer as trainer_module
    from finalstate.config import loss_config, optimizer_config
    from finalstate.grpo import PolicyTrainer

    torch.manual_seed(0)
    config = Qwen3Config(max_position_embeddings=max(r["tokens"] for r in rows), **plan["config"])
    model = Qwen3ForCausalLM(config)
    if plan["activationCheckpointing"]:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    trainer = PolicyTrainer(model, optimizer_config())
    loss = loss_config()
    chunked = trainer_module.token_log_probs
    heads = {"chunked": chunked, "logits": _logits_head()}
    warm_up = batch_of_lengths([64, 32], 0.25, config.vocab_size, torch.Generator().manual_seed(1))
    trainer.accumulate_gradients(warm_up, loss_config=loss)
    for row in rows:
        episodes = batch_of_lengths(row["lengths"], 0.25, config.vocab_size, torch.Generator().manual_seed(0))
        trainer_module.token_log_probs = heads[row["head"]]
        try:
            measured = peak_added_bytes(lambda episodes=episodes, row=row: trainer.accumulate_gradients(episodes, loss_config=loss, packed=row["packing"]))
        finally:
            trainer_module.token_log_probs = chunked
        print(json.dumps({"label": row["label"], "measured": measured, "predicted": row["predicted"]["total"]}), flush=True)


def run(which: str) -> list[dict]:
    """The rows of `which` ("benchmark" or "test") measured in a child process: {label, measured, predicted} each."""
    env = {
        **os.environ,
        "MALLOC_MMAP_THRESHOLD_": "65536",
        "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1"),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), str(HERE.parent), os.environ.get("PYTHONPATH")])),
    }
    done = subprocess.run([sys.executable, __file__, "--rows", which, "--child"], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"update_memory.py: the measuring process failed:\n{done.stderr[-3000:]}")
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def table(results: list[dict], plan: dict) -> str:
    lines = ["| pass | predicted | measured | measured / predicted |", "|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r['label']} | {r['predicted'] / 1e6:.0f} MB | {r['measured'] / 1e6:.0f} MB | {r['measured'] / r['predicted']:.2f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", choices=("benchmark", "test"), default="benchmark")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    plan = json.loads(PLAN.read_text())
    if args.child:
        measure(plan, plan[args.rows])
        return
    results = run(args.rows)
    config = plan["config"]
    print(
        f"one pass on the CPU, fp32, activation checkpointing: Qwen3 of {plan['parameters'] / 1e6:.2f}M parameters (hidden "
        f"{config['hidden_size']}, {config['num_hidden_layers']} layers, vocabulary {config['vocab_size']})"
    )
    print(table(results, plan))


if __name__ == "__main__":
    main()
