"""The GPU proof of the sharded update (infra/gpu-check.sh): one table of what the preflight predicts and what the
GPU measures, for
  (a) the FSDP2 update, bf16, of a randomly initialised Qwen3-1.7B-shaped model at 4,096 tokens an episode: peak
      memory against infra/update-memory.ts's prediction, tokens/s and MFU;
  (b) the same with optimizer offload, every step clipped (the clipping path for shards in host memory);
  (c) LoRA (update.lora: PEFT, rank 16 on every linear layer, the base frozen in bf16) under FSDP2: peak memory
      against the preflight's LoRA mode, tokens/s; its adapter is written as a LoRA step writes it;
  (d) the update of episodes whose lengths spread as real ones do, packed into passes (grpo/passes.py), attention
      per episode (grpo/attention.py) and the chunked log-prob head (grpo/log_probs.py) on CUDA, sequence
      parallelism 1 (the CPU rehearsal: 2, its two ranks sharing each pass): peak memory, tokens/s and MFU;
  (e) the sharded load (gpu_worker/loading.py) of that model from a bf16 safetensors file: peak device memory
      against the prediction, and the shards equal to the file's weights; beside it the load before (every rank the
      whole fp32 model), for the host memory;
  (f) the adapter of (c) loaded into vLLM beside the model of (e) and sampled, when the image has vLLM.

  python3 python/benchmarks/gpu_check.py          # one CUDA GPU: under 8 minutes on an H100/H200
  python3 python/benchmarks/gpu_check.py --cpu    # the rehearsal: a tiny Qwen3, gloo, 2 ranks (CI)

Models, sizes and predictions come from gpu_check_plan.json (written by infra/gpu-check-plan.ts from the same
arithmetic as the preflight). Nothing is downloaded; PyTorch, transformers and PEFT are needed, as a GPU image has
them (transformers 4.57 and 5.x, torch 2.9 and later; jsonschema is not: nothing here validates). Each part runs
under torchrun with a timeout of its own; the exit status is non-zero when a part failed or a check did not hold.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PLAN = HERE / "gpu_check_plan.json"
PART_TIMEOUT_S = {"cuda": 150, "cpu": 240}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def torchrun(world: int, script: Path, *args: str, timeout: float) -> tuple[list[dict], str]:
    command = [
        sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", str(world), "--master-addr", "127.0.0.1",
        "--master-port", str(free_port()), str(script), *args,
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE.parent), os.environ.get("PYTHONPATH")]))}
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return [], f"timed out after {timeout:.0f} s"
    reports = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    error = "" if done.returncode == 0 else f"exit {done.returncode}: {(done.stderr or done.stdout)[-1500:]}"
    return reports, error


# ---- a part, run by every rank under torchrun -------------------------------------------------------------------


def run_update(plan: dict, name: str, device: str, adapter_dir: str | None = None) -> None:
    import torch
    from policy_update import PEAK_BF16_FLOPS, batch_of_lengths
    from transformers import Qwen3Config, Qwen3ForCausalLM

    from finalstate.config import fsdp_config, lora_config, loss_config, optimizer_config
    from finalstate.gpu_worker import lora as lora_adapters
    from finalstate.gpu_worker.checkpoints import gather_export, write_adapter
    from finalstate.gpu_worker.process_group import start_process_groups
    from finalstate.gpu_worker.sharding import make_meshes, shard_model
    from finalstate.grpo import PolicyTrainer

    part = next(p for p in plan["update"] if p["name"] == name)
    groups = start_process_groups(device)
    config = Qwen3Config(max_position_embeddings=max(4096, part["tokensPerEpisode"]), **plan["config"])
    torch.manual_seed(0)
    model = Qwen3ForCausalLM(config)
    parameters = sum(p.numel() for p in model.parameters())
    if parameters != plan["parameters"]:
        raise SystemExit(f"the model has {parameters} parameters, the plan {plan['parameters']}: regenerate gpu_check_plan.json")
    fsdp = fsdp_config({"optimizerOffload": part["optimizerOffload"], "sequenceParallel": part["sequenceParallel"]})
    cuda = groups.device.type == "cuda"
    if part.get("lora"):
        lora = lora_config({"rank": part["lora"]["rank"], "targetModules": part["lora"]["targetModules"]})
        model = lora_adapters.wrap(model, lora, base_model=adapter_dir or "random", frozen_dtype=torch.bfloat16 if cuda else torch.float32)
    meshes = make_meshes(groups.device, groups.world_size, groups.local_world_size, fsdp)
    shard_model(model, meshes, fsdp, parameters=parameters)
    optimizer = optimizer_config({"lr": 1e-6, "maxGradNorm": part["maxGradNorm"]})
    loss = loss_config({"clipHigh": 0.28})
    trainer = PolicyTrainer(model, optimizer, device=groups.device, ranks=meshes.ranks)
    batch = batch_of_lengths(part["lengths"], 0.25, config.vocab_size, torch.Generator().manual_seed(0))
    timings, norms = [], []
    for step in range(part["steps"] + 1):  # one warm-up step: AdamW's state exists from its end on
        if cuda:
            torch.cuda.synchronize()
            if step == 1:
                torch.cuda.reset_peak_memory_stats(groups.device)
        started = time.perf_counter()
        metrics = trainer.train_step(
            batch, loss_config=loss, optimizer_config=optimizer, micro_batch_tokens=part["microBatchTokens"], packed=part["packing"]
        )
        if step > 0:
            timings.append(time.perf_counter() - started)
            norms.append(metrics["gradNorm"])
    if part.get("lora") and adapter_dir:  # collective: every rank gathers its shards of the adapter
        adapter = gather_export(model, torch.bfloat16 if cuda else torch.float32, keep=groups.rank == 0, trainable_only=True)
        if groups.rank == 0:
            Path(adapter_dir).mkdir(parents=True, exist_ok=True)
            write_adapter(Path(adapter_dir), model, adapter)
    if groups.rank != 0:
        return
    tokens = sum(part["lengths"])
    seconds = sum(timings) / len(timings)
    # Causal attention within each episode: 12 x layers x heads x head_dim x its length / 2 per token.
    attention = sum(12 * config.num_hidden_layers * config.num_attention_heads * config.head_dim * n * n / 2 for n in part["lengths"])
    # A frozen weight gets no weight gradient: its backward is one matmul instead of two (4 P flops a token, not 6).
    achieved = (tokens * (4 if part.get("lora") else 6) * parameters + attention) / seconds
    name_of_device = torch.cuda.get_device_name(groups.device) if cuda else "cpu"
    peak_flops = next((v for k, v in PEAK_BF16_FLOPS.items() if k in name_of_device), None)
    print(json.dumps({
        "part": name,
        "device": name_of_device,
        "peakBytes": torch.cuda.max_memory_allocated(groups.device) if cuda else None,
        "tokensPerSecond": tokens / seconds,
        "mfu": achieved / (peak_flops * groups.world_size) if peak_flops and cuda else None,
        "secondsPerStep": seconds,
        "gradNorms": norms,
        "clipped": all(n > part["maxGradNorm"] for n in norms),
        "finite": all(math.isfinite(n) for n in norms) and math.isfinite(metrics["loss"]),
    }), flush=True)  # fmt: skip


# ---- the driver ---------------------------------------------------------------------------------------------------


def save_model(plan: dict, directory: Path) -> None:
    import torch
    from transformers import Qwen3Config, Qwen3ForCausalLM

    torch.manual_seed(0)
    model = Qwen3ForCausalLM(Qwen3Config(max_position_embeddings=4096, **plan["config"])).to(torch.bfloat16)
    model.save_pretrained(directory)  # safetensors, transformers 4 and 5 alike (5 dropped safe_serialization)


def gb(value) -> str:
    return "n/a" if value is None else f"{value / 1e9:.1f} GB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cpu", action="store_true", help="the rehearsal on the CPU (gloo): a tiny model, 2 ranks")
    parser.add_argument("--part", help=argparse.SUPPRESS)  # run by torchrun: one update part
    parser.add_argument("--adapter-dir", help=argparse.SUPPRESS)  # where the LoRA part writes its adapter
    args = parser.parse_args()
    device = "cpu" if args.cpu else "cuda"
    plan = json.loads(PLAN.read_text())[device]
    if args.part:
        run_update(plan, args.part, device, args.adapter_dir)
        return

    if device == "cuda":
        import torch

        if not torch.cuda.is_available():
            raise SystemExit("gpu_check: no CUDA device (use --cpu for the rehearsal)")
    timeout = PART_TIMEOUT_S[device]
    world = plan["worldSize"]
    rows, failures = [], []
    started = time.perf_counter()
    scratch_dir = tempfile.TemporaryDirectory(prefix="gpu-check-")
    scratch = Path(scratch_dir.name)
    for part in plan["update"]:
        t0 = time.perf_counter()
        extra = (["--cpu"] if args.cpu else []) + (["--adapter-dir", str(scratch / "adapter")] if part.get("lora") else [])
        reports, error = torchrun(world, Path(__file__), "--part", part["name"], *extra, timeout=timeout)
        report = next((r for r in reports if r.get("part") == part["name"]), None)
        checks = []
        if report is None:
            failures.append(f"{part['label']}: {error or 'no report'}")
        else:
            if not report["finite"]:
                checks.append("non-finite loss or gradient norm")
            if part["maxGradNorm"] < 1 and not report["clipped"]:
                checks.append("did not clip")
            failures += [f"{part['label']}: {c}" for c in checks]
        rows.append(row(part["label"], part["predictedPeakBytes"], report and report["peakBytes"], report, time.perf_counter() - t0, error or ", ".join(checks)))

    with scratch_dir:
        t0 = time.perf_counter()
        model_dir = scratch / "model"
        save_model(plan, model_dir)
        loads = {"full": ([], "not run on the CPU")}
        for loader in ("sharded", "full") if device == "cuda" else ("sharded",):
            reports, error = torchrun(world, HERE / "sharded_load.py", "--model", str(model_dir), "--loader", loader, "--device", device, timeout=timeout)
            loads[loader] = (sorted(reports, key=lambda r: r["rank"]), error)
        sharded, error = loads["sharded"]
        full, full_error = loads["full"]
        checks = []
        if not sharded:
            failures.append(f"{plan['load']['label']}: {error or 'no report'}")
        elif sharded[0]["maxAbsDiff"] != 0.0 or sharded[0]["missing"]:
            checks.append(f"shards differ from the file by {sharded[0]['maxAbsDiff']}")
        failures += [f"{plan['load']['label']}: {c}" for c in checks]
        peak = sharded[0]["peakDeviceBytes"] if sharded else None
        host = ", ".join(f"rank {r['rank']} +{r['addedRssBytes'] / 1e9:.2f}" for r in sharded) if sharded else "n/a"
        host_before = ", ".join(f"rank {r['rank']} +{r['addedRssBytes'] / 1e9:.2f}" for r in full) if full else full_error[:60]
        device_before = f", device peak before {gb(full[0]['peakDeviceBytes'])}" if full and device == "cuda" else ""
        note = f"host GB added: {host} (before: {host_before}{device_before})"
        rows.append(row(plan["load"]["label"], plan["load"]["predictedPeakBytes"], peak, None, time.perf_counter() - t0, error or ", ".join(checks), note))
        t0 = time.perf_counter()
        problem, note = adapter_in_vllm(model_dir, scratch / "adapter", device, timeout)
        if problem:
            failures.append(f"(f) adapter in vLLM: {problem}")
        rows.append(row("(f) the adapter of (c) in vLLM", None, None, None, time.perf_counter() - t0, problem, note))

    print(f"\ngpu check on {device} ({world} rank(s)), Qwen3 of {plan['parameters'] / 1e9:.2f}B parameters, {time.perf_counter() - started:.0f} s")
    header = ("part", "predicted peak", "measured peak", "measured/predicted", "tokens/s", "MFU", "seconds", "result")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for r in rows:
        print("| " + " | ".join(r) + " |")
    for failure in failures:
        print(f"FAILED {failure}", file=sys.stderr)
    sys.exit(1 if failures else 0)


VLLM_CHECK = """
import json, sys
from vllm import LLM, SamplingParams
from vllm.lora.request import LoRARequest
model, adapter = sys.argv[1], sys.argv[2]
llm = LLM(model=model, enable_lora=True, max_lora_rank=16, max_model_len=256, gpu_memory_utilization=0.3, enforce_eager=True, dtype="bfloat16")
params = SamplingParams(max_tokens=8, temperature=0, logprobs=0)
prompt = {"prompt_token_ids": [1, 2, 3, 4, 5]}
base = llm.generate([prompt], params)[0].outputs[0]
tuned = llm.generate([prompt], params, lora_request=LoRARequest("check", 1, adapter))[0].outputs[0]
print(json.dumps({"base": base.cumulative_logprob, "adapter": tuned.cumulative_logprob}))
"""


def adapter_in_vllm(model_dir: Path, adapter_dir: Path, device: str, timeout: float) -> tuple[str, str]:
    """(problem, note): the LoRA part's adapter served by vLLM beside its base model, when this Python has vLLM."""
    import importlib.util

    if device != "cuda" or importlib.util.find_spec("vllm") is None:
        return "", "skipped: no vLLM here" if device == "cuda" else "skipped on the CPU"
    if not (adapter_dir / "adapter_config.json").is_file():
        return "the LoRA part wrote no adapter", ""
    try:
        done = subprocess.run([sys.executable, "-c", VLLM_CHECK, str(model_dir), str(adapter_dir)], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout:.0f} s", ""
    if done.returncode != 0:
        return f"exit {done.returncode}: {done.stderr[-800:]}", ""
    served = json.loads(done.stdout.strip().splitlines()[-1])
    return "", f"greedy log-prob of 8 tokens: base {served['base']:.3f}, adapter {served['adapter']:.3f}"


def row(label, predicted, measured, report, seconds, problem, note="") -> tuple:
    ratio = f"{measured / predicted:.2f}" if measured and predicted else "n/a"
    tokens = f"{report['tokensPerSecond']:.0f}" if report else "n/a"
    mfu = f"{report['mfu']:.1%}" if report and report.get("mfu") is not None else "n/a"
    result = f"FAILED: {problem}" if problem else "ok"
    return (label, gb(predicted), gb(measured), ratio, tokens, mfu, f"{seconds:.0f}", f"{result}{'; ' + note if note else ''}")


if __name__ == "__main__":
    main()
