"""The model, its tokenizer and a scheduler thread that generates for several requests at once.

Requests wait in a queue; the scheduler takes every waiting request (up to `max_batch_size`, after a short
collection window), left-pads their prompts into one batch and decodes them together step by step with a shared
KV cache, each sequence stopping on its own. Requests that arrive meanwhile form the next batch.
Reloading swaps the model between batches; every result carries the policy version that produced it.
"""

from __future__ import annotations

import logging
import queue
import secrets
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, DynamicCache

from .sampling import choose_token

log = logging.getLogger(__name__)


@dataclass
class SamplingParams:
    max_tokens: int = 16
    temperature: float = 1.0
    top_p: float = 1.0
    seed: int | None = None
    stop: list[str] = field(default_factory=list)
    stop_token_ids: list[int] = field(default_factory=list)
    ignore_eos: bool = False
    logprobs: int | None = None  # None: no logprobs; k >= 0: the chosen token's plus the top k
    skip_special_tokens: bool = True


@dataclass
class Completion:
    token_ids: list[int]
    token_logprobs: list[float]
    top_logprobs: list[dict[int, float]]
    text: str
    finish_reason: str
    policy_version: int
    batch_size: int


@dataclass
class _Sequence:
    prompt_ids: list[int]
    params: SamplingParams
    future: Future
    generator: torch.Generator
    token_ids: list[int] = field(default_factory=list)
    token_logprobs: list[float] = field(default_factory=list)
    top_logprobs: list[dict[int, float]] = field(default_factory=list)
    text: str = ""
    finish_reason: str | None = None


@dataclass
class LoadedPolicy:
    model: torch.nn.Module
    tokenizer: object
    path: Path
    version: int

    @property
    def max_model_len(self) -> int:
        return int(getattr(self.model.config, "max_position_embeddings", 2048))


def load_policy(path: str | Path, version: int, device: torch.device) -> LoadedPolicy:
    path = Path(path)
    if not (path / "config.json").is_file():
        raise FileNotFoundError(f"{path} is not a Hugging Face model directory (no config.json)")
    dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    model = AutoModelForCausalLM.from_pretrained(path, dtype=dtype).to(device).eval()
    tokenizer = AutoTokenizer.from_pretrained(path)
    return LoadedPolicy(model, tokenizer, path, version)


class Engine:
    def __init__(self, policy: LoadedPolicy, *, device: torch.device, max_batch_size: int = 32, batch_wait_s: float = 0.005):
        self.device = device
        self.max_batch_size = max_batch_size
        self.batch_wait_s = batch_wait_s
        self._policy = policy
        self._pending: queue.Queue[_Sequence | None] = queue.Queue()
        self._swap_lock = threading.Lock()  # held while a batch runs; reload swaps only between batches
        self._tokenizer_lock = threading.Lock()  # fast tokenizers are not safe under concurrent use
        self.batch_sizes: list[int] = []
        self._thread = threading.Thread(target=self._loop, name="policy-scheduler", daemon=True)
        self._thread.start()

    # --- what the HTTP layer uses -------------------------------------------------------------------------------
    @property
    def policy(self) -> LoadedPolicy:
        return self._policy

    def encode(self, text: str, add_special_tokens: bool = True) -> list[int]:
        with self._tokenizer_lock:
            return list(self._policy.tokenizer(text, add_special_tokens=add_special_tokens)["input_ids"])

    def decode(self, ids: list[int], skip_special_tokens: bool = False) -> str:
        with self._tokenizer_lock:
            return self._policy.tokenizer.decode(ids, skip_special_tokens=skip_special_tokens)

    @property
    def vocab_size(self) -> int:
        return int(self._policy.model.get_input_embeddings().weight.shape[0])

    def submit(self, prompt_ids: list[int], params: SamplingParams) -> Future:
        seed = params.seed if params.seed is not None else secrets.randbits(63)
        future: Future = Future()
        generator = torch.Generator().manual_seed(seed)
        self._pending.put(_Sequence(list(prompt_ids), params, future, generator))
        return future

    def reload(self, path: str | Path, version: int | None = None) -> LoadedPolicy:
        """Load a checkpoint beside the serving one, then swap it in at the next batch boundary."""
        new_version = version if version is not None else self._policy.version + 1
        fresh = load_policy(path, new_version, self.device)
        with self._swap_lock:
            old, self._policy = self._policy, fresh
        del old
        log.info("serving %s as policy version %d", path, new_version)
        return fresh

    def close(self) -> None:
        self._pending.put(None)
        self._thread.join(timeout=10)

    # --- the scheduler --------------------------------------------------------------------------------------------
    def _loop(self) -> None:
        while True:
            first = self._pending.get()
            if first is None:
                return
            batch = [first]
            deadline = time.monotonic() + self.batch_wait_s
            while len(batch) < self.max_batch_size:
                try:
                    item = self._pending.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    break
                if item is None:
                    self._pending.put(None)
                    break
                batch.append(item)
            with self._swap_lock:
                policy = self._policy
                try:
                    self._generate(policy, batch)
                except BaseException as err:  # a failed batch fails its requests, not the server
                    log.exception("generation failed for a batch of %d", len(batch))
                    for seq in batch:
                        if not seq.future.done():
                            seq.future.set_exception(err)

    @torch.no_grad()
    def _generate(self, policy: LoadedPolicy, batch: list[_Sequence]) -> None:
        self.batch_sizes.append(len(batch))
        model, tokenizer = policy.model, policy.tokenizer
        pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        eos_ids = set(_eos_ids(model, tokenizer))
        width = max(len(s.prompt_ids) for s in batch)
        input_ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
        attention = torch.zeros((len(batch), width), dtype=torch.long)
        for row, seq in enumerate(batch):
            input_ids[row, width - len(seq.prompt_ids) :] = torch.tensor(seq.prompt_ids)
            attention[row, width - len(seq.prompt_ids) :] = 1
        input_ids, attention = input_ids.to(self.device), attention.to(self.device)
        positions = (attention.cumsum(-1) - 1).clamp(min=0)
        cache = DynamicCache()
        logits = model(input_ids=input_ids, attention_mask=attention, position_ids=positions, past_key_values=cache, use_cache=True).logits[:, -1]
        for _ in range(max(s.params.max_tokens for s in batch)):
            log_probs = torch.log_softmax(logits.float(), dim=-1).cpu()
            next_ids = []
            for row, seq in enumerate(batch):
                if seq.finish_reason is None:
                    self._advance(seq, log_probs[row], logits[row], eos_ids)
                next_ids.append(seq.token_ids[-1] if seq.finish_reason is None else pad_id)
            if all(s.finish_reason is not None for s in batch):
                break
            attention = torch.cat([attention, torch.ones((len(batch), 1), dtype=torch.long, device=self.device)], dim=1)
            positions = positions[:, -1:] + 1
            step_ids = torch.tensor(next_ids, dtype=torch.long, device=self.device)[:, None]
            logits = model(input_ids=step_ids, attention_mask=attention, position_ids=positions, past_key_values=cache, use_cache=True).logits[:, -1]
        for seq in batch:
            seq.future.set_result(
                Completion(seq.token_ids, seq.token_logprobs, seq.top_logprobs, seq.text, seq.finish_reason or "length", policy.version, len(batch))
            )

    def _advance(self, seq: _Sequence, log_probs: torch.Tensor, logits: torch.Tensor, eos_ids: set[int]) -> None:
        params = seq.params
        token = choose_token(logits, temperature=params.temperature, top_p=params.top_p, generator=seq.generator)
        seq.token_ids.append(token)
        seq.token_logprobs.append(float(log_probs[token]))
        if params.logprobs:
            top = torch.topk(log_probs, k=min(params.logprobs, log_probs.shape[0]))
            seq.top_logprobs.append({int(i): float(v) for v, i in zip(top.values, top.indices)})
        if token in params.stop_token_ids or (not params.ignore_eos and token in eos_ids):
            seq.finish_reason = "stop"
            seq.text = self.decode(seq.token_ids[:-1], params.skip_special_tokens)
            return
        # Decoding the text so far is only needed to look for stop strings; without them, decode once at the end.
        if params.stop:
            seq.text = self.decode(seq.token_ids, params.skip_special_tokens)
            cut = min((i for i in (seq.text.find(s) for s in params.stop if s) if i >= 0), default=-1)
            if cut >= 0:
                seq.text = seq.text[:cut]
                seq.finish_reason = "stop"
                return
        if len(seq.token_ids) >= params.max_tokens:
            seq.finish_reason = "length"
            if not params.stop:
                seq.text = self.decode(seq.token_ids, params.skip_special_tokens)


def _eos_ids(model, tokenizer) -> list[int]:
    found = model.generation_config.eos_token_id if model.generation_config is not None else None
    if found is None:
        found = tokenizer.eos_token_id
    if found is None:
        return []
    return list(found) if isinstance(found, (list, tuple)) else [found]
