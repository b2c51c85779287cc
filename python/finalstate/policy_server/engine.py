"""The model, its tokenizer and a scheduler thread that generates for several requests at once.

Continuous batching: requests wait in a queue; at every decode step the scheduler admits waiting requests (up to
`max_batch_size` sequences in flight), prefills their prompts together and merges them, left-padded, into the
running batch's KV cache, decodes one token for every sequence in flight, and returns each sequence as soon as it
stops. A request never waits for a longer one to finish (with static batches, every request of a batch waited for
the longest, and requests arriving meanwhile waited for the whole batch).
Reloading swaps the model once the sequences in flight have finished (new ones are held back meanwhile); every result
carries the policy version that produced it. Versions only move forward: a reload of a version older than the one served
or being loaded is refused (VersionConflict) unless it says `rollback`. LoRA adapters (adapters.py) load beside the
model without a pause: the scheduler wraps the model with PEFT between two decode steps, and each sequence names the
adapter it samples with.
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
from peft import PeftModel
from transformers import AutoModelForCausalLM, AutoTokenizer, DynamicCache

from .adapters import BASE_ROWS, Adapter, AdapterError, check_adapter
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
    batch_size: int = 1  # sequences in flight when it was admitted
    adapter: Adapter | None = None  # the LoRA adapter it samples with (None: the base model)


# Put in the queue to wake the scheduler (a reload waits for it); never a request.
_WAKE = object()


def _left_pad(tensor: torch.Tensor, width: int, dim: int) -> torch.Tensor:
    missing = width - tensor.shape[dim]
    if missing == 0:
        return tensor
    shape = list(tensor.shape)
    shape[dim] = missing
    return torch.cat([torch.zeros(shape, dtype=tensor.dtype, device=tensor.device), tensor], dim=dim)


@dataclass
class _Batch:
    """The sequences in flight: one KV cache for all of them, left-padded to a common width."""

    seqs: list[_Sequence]
    cache: DynamicCache
    attention: torch.Tensor  # [rows, width]: 1 where a real token is cached
    last_positions: torch.Tensor  # [rows]: position of each row's last cached token
    logits: torch.Tensor  # [rows, vocab]: the next-token logits of each row
    eos_ids: set[int]
    pad_id: int

    def merge(self, other: "_Batch") -> "_Batch":
        width = max(self.attention.shape[1], other.attention.shape[1])
        for mine, theirs in zip(self.cache.layers, other.cache.layers):
            mine.keys = torch.cat([_left_pad(mine.keys, width, 2), _left_pad(theirs.keys, width, 2)], dim=0)
            mine.values = torch.cat([_left_pad(mine.values, width, 2), _left_pad(theirs.values, width, 2)], dim=0)
        self.attention = torch.cat([_left_pad(self.attention, width, 1), _left_pad(other.attention, width, 1)], dim=0)
        self.last_positions = torch.cat([self.last_positions, other.last_positions])
        self.logits = torch.cat([self.logits, other.logits])
        self.seqs = self.seqs + other.seqs
        for seq in other.seqs:
            seq.batch_size = len(self.seqs)
        return self

    def select(self, rows: list[int]) -> "_Batch":
        """Keep these rows, then drop leading columns that are padding in every row left."""
        index = torch.tensor(rows, dtype=torch.long, device=self.attention.device)
        self.cache.batch_select_indices(index)
        self.attention = self.attention[index]
        self.last_positions = self.last_positions[index]
        self.logits = self.logits[index]
        self.seqs = [self.seqs[row] for row in rows]
        first = int(torch.nonzero(self.attention.sum(dim=0))[0])
        if first > 0:
            self.attention = self.attention[:, first:]
            for layer in self.cache.layers:
                layer.keys = layer.keys[:, :, first:, :]
                layer.values = layer.values[:, :, first:, :]
        return self


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


class VersionConflict(Exception):
    """A reload of a policy version older than the one the server serves or is loading, without `rollback`."""


@dataclass
class _Reload:
    """A reloaded policy waiting to be swapped in, and how its reload ends (set by the scheduler, or by a newer reload)."""

    policy: LoadedPolicy
    done: threading.Event = field(default_factory=threading.Event)
    superseded_by: int | None = None


class Engine:
    def __init__(
        self, policy: LoadedPolicy, *, device: torch.device, max_batch_size: int = 32, batch_wait_s: float = 0.005, max_lora_rank: int = 64
    ):
        self.device = device
        self.max_batch_size = max_batch_size
        self.batch_wait_s = batch_wait_s
        self.max_lora_rank = max_lora_rank
        self._policy = policy
        self._adapters: dict[str, Adapter] = {}  # what requests may name; guarded by _swap_lock
        self._tasks: queue.Queue[tuple[object, Future]] = queue.Queue()  # model changes, run by the scheduler between steps
        self._unloads: set[str] = set()  # adapters unloaded while a sequence in flight still samples with them
        self._pending: queue.Queue[_Sequence | None] = queue.Queue()
        self._swap_lock = threading.Lock()  # guards the reloaded policy waiting to be swapped in
        self._next_policy: _Reload | None = None
        self._loading: list[int] = []  # versions whose reload is reading its checkpoint; guarded by _swap_lock
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

    def submit(self, prompt_ids: list[int], params: SamplingParams, adapter: Adapter | None = None) -> Future:
        seed = params.seed if params.seed is not None else secrets.randbits(63)
        future: Future = Future()
        generator = torch.Generator().manual_seed(seed)
        self._pending.put(_Sequence(list(prompt_ids), params, future, generator, adapter=adapter))
        return future

    # --- LoRA adapters ------------------------------------------------------------------------------------------
    def adapters(self) -> list[Adapter]:
        with self._swap_lock:
            return list(self._adapters.values())

    def adapter(self, name: str) -> Adapter | None:
        with self._swap_lock:
            return self._adapters.get(name)

    def load_adapter(self, name: str, path: str | Path, version: int) -> Adapter:
        """Check the adapter (adapters.check_adapter: FileNotFoundError or AdapterError, nothing changed), then have
        the scheduler load it between two decode steps; from then on requests may name it."""
        path = Path(path)
        if self.adapter(name) is not None:
            raise AdapterError(f"the adapter {name!r} is already loaded")
        rank = check_adapter(self._policy.model, path, self.max_lora_rank)
        self._on_scheduler(lambda: self._inject(name, path))
        adapter = Adapter(name, path, rank, version)
        with self._swap_lock:
            self._adapters[name] = adapter
        log.info("serving adapter %s (rank %d, policy version %d) from %s", name, rank, version, path)
        return adapter

    def unload_adapter(self, name: str) -> None:
        """Requests may no longer name it (KeyError: not loaded); its weights go once no sequence in flight uses them."""
        with self._swap_lock:
            del self._adapters[name]
        self._on_scheduler(lambda: self._unloads.add(name))

    def _on_scheduler(self, change) -> None:
        done: Future = Future()
        self._tasks.put((change, done))
        self._pending.put(_WAKE)
        done.result()

    def _inject(self, name: str, path: Path) -> None:
        policy = self._policy
        if isinstance(policy.model, PeftModel):
            policy.model.load_adapter(str(path), adapter_name=name)
        else:
            policy.model = PeftModel.from_pretrained(policy.model, str(path), adapter_name=name).eval()

    def reload(self, path: str | Path, version: int | None = None, rollback: bool = False) -> LoadedPolicy:
        """Load a checkpoint beside the serving one; the scheduler swaps it in once the sequences in flight finish.
        `version` defaults to the newest served or being loaded, plus one. Without `rollback`, a version older than the
        one served or being loaded raises VersionConflict before anything is read, and so does one that a newer reload
        overtakes while it reads its checkpoint (the newer one is served, never set back)."""
        with self._swap_lock:
            new_version = version if version is not None else self._newest()[0] + 1
            if not rollback:
                self._refuse_older(new_version)
            self._loading.append(new_version)
        try:
            fresh = load_policy(path, new_version, self.device)
        finally:
            with self._swap_lock:
                self._loading.remove(new_version)
        pending = _Reload(fresh)
        with self._swap_lock:
            if not rollback:
                self._refuse_older(new_version)
            if self._next_policy is not None:  # an older one (or one a rollback replaces), not swapped in yet
                self._next_policy.superseded_by = new_version
                self._next_policy.done.set()
            self._next_policy = pending
        self._pending.put(_WAKE)
        pending.done.wait()
        if pending.superseded_by is not None:
            raise VersionConflict(
                f"policy version {new_version} ({path}) was not served: version {pending.superseded_by} was reloaded "
                "while it waited for the sequences in flight to finish"
            )
        log.info("serving %s as policy version %d", path, new_version)
        return fresh

    def _newest(self) -> tuple[int, str]:
        """The newest version served, waiting to be swapped in, or being loaded, and which; the caller holds _swap_lock."""
        newest = (self._policy.version, "serves")
        if self._next_policy is not None and self._next_policy.policy.version > newest[0]:
            newest = (self._next_policy.policy.version, "is about to serve")
        if self._loading and max(self._loading) > newest[0]:
            newest = (max(self._loading), "is loading")
        return newest

    def _refuse_older(self, version: int) -> None:
        newest, state = self._newest()
        if version < newest:
            raise VersionConflict(
                f"policy version {version} is older than version {newest}, which this server {state}: not loaded "
                '(versions only move forward; a reload that means to go back says "rollback": true)'
            )

    def close(self) -> None:
        self._pending.put(None)
        self._thread.join(timeout=10)

    # --- the scheduler --------------------------------------------------------------------------------------------
    def _swap_if_due(self, running: "_Batch | None") -> bool:
        """Swap in a reloaded policy when nothing is in flight; True while a swap is still waiting."""
        with self._swap_lock:
            if self._next_policy is None:
                return False
            if running is not None:
                return True
            swapped, self._next_policy = self._next_policy, None
            old, self._policy = self._policy, swapped.policy
            self._adapters.clear()  # adapters of the old weights; a publish loads the new ones' again
            self._unloads.clear()
        del old
        swapped.done.set()
        return False

    def _take(self, limit: int, block: bool) -> list[_Sequence] | None:
        """Up to `limit` waiting requests (None: the engine is closing). Blocking waits for one, then `batch_wait_s` more."""
        taken: list[_Sequence] = []
        deadline = None
        while len(taken) < limit:
            try:
                if block and not taken:
                    item = self._pending.get()
                elif block:
                    deadline = deadline or time.monotonic() + self.batch_wait_s
                    item = self._pending.get(timeout=max(0.0, deadline - time.monotonic()))
                else:
                    item = self._pending.get_nowait()
            except queue.Empty:
                break
            if item is None:
                self._pending.put(None)
                return None if not taken else taken
            if item is _WAKE:
                if block and not taken:
                    return []
                continue
            taken.append(item)
        return taken

    def _run_tasks(self, running: "_Batch | None") -> None:
        """Model changes asked for by load_adapter / unload_adapter, between two decode steps."""
        while True:
            try:
                change, done = self._tasks.get_nowait()
            except queue.Empty:
                break
            try:
                done.set_result(change())
            except BaseException as err:
                done.set_exception(err)
        model = self._policy.model
        in_use = {seq.adapter.name for seq in (running.seqs if running else []) if seq.adapter is not None}
        for name in sorted(self._unloads - in_use):
            self._unloads.discard(name)
            if not (isinstance(model, PeftModel) and name in model.peft_config):
                continue
            if len(model.peft_config) == 1:
                # PEFT leaves a model whose last adapter was deleted pointing at it: unwrap to the plain model instead.
                self._policy.model = model = model.unload()
            else:
                model.delete_adapter(name)

    def _loop(self) -> None:
        running: _Batch | None = None
        while True:
            self._run_tasks(running)
            holding = self._swap_if_due(running)
            room = 0 if holding else self.max_batch_size - (len(running.seqs) if running else 0)
            new = self._take(room, block=running is None) if room > 0 or running is None else []
            if new is None:
                if running is not None:
                    self._fail(running.seqs, RuntimeError("policy server is shutting down"))
                return
            policy = self._policy
            try:
                with torch.no_grad():
                    if new:
                        running = self._admit(policy, running, new)
                        if running is not None:
                            self.batch_sizes.append(len(running.seqs))
                    if running is not None:
                        running = self._step(policy, running)
            except BaseException as err:  # a failed step fails the requests in flight, not the server
                log.exception("generation failed for %d sequences", len(running.seqs) if running else len(new))
                self._fail((running.seqs if running else []) + [s for s in new if running is None or s not in running.seqs], err)
                running = None

    @staticmethod
    def _fail(seqs: list[_Sequence], err: BaseException) -> None:
        for seq in seqs:
            if not seq.future.done():
                seq.future.set_exception(err)

    def _admit(self, policy: LoadedPolicy, running: "_Batch | None", new: list[_Sequence]) -> "_Batch | None":
        """Prefill the new prompts together, left-padded, and merge them into the running batch."""
        model, tokenizer = policy.model, policy.tokenizer
        # Accepted while its adapter was loaded, admitted after its weights went (a reload of the base model).
        gone = [seq for seq in new if not _serves(model, seq.adapter)]
        self._fail(gone, AdapterError("the adapter it names was unloaded with its base model's reload before it started"))
        new = [seq for seq in new if seq not in gone]
        if not new:
            return running
        pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        width = max(len(s.prompt_ids) for s in new)
        input_ids = torch.full((len(new), width), pad_id, dtype=torch.long)
        attention = torch.zeros((len(new), width), dtype=torch.long)
        for row, seq in enumerate(new):
            input_ids[row, width - len(seq.prompt_ids) :] = torch.tensor(seq.prompt_ids)
            attention[row, width - len(seq.prompt_ids) :] = 1
        input_ids, attention = input_ids.to(self.device), attention.to(self.device)
        positions = (attention.cumsum(-1) - 1).clamp(min=0)
        cache = DynamicCache()
        logits = model(
            input_ids=input_ids, attention_mask=attention, position_ids=positions, past_key_values=cache, use_cache=True, **_adapter_rows(model, new)
        ).logits[:, -1]
        admitted = _Batch(list(new), cache, attention, positions[:, -1].clone(), logits, set(_eos_ids(model, tokenizer)), pad_id)
        if running is None:
            for seq in new:
                seq.batch_size = len(new)
            return admitted
        return running.merge(admitted)

    def _step(self, policy: LoadedPolicy, batch: "_Batch") -> "_Batch | None":
        """Sample one token for every sequence in flight, return the finished ones, decode the rest one step."""
        log_probs = torch.log_softmax(batch.logits.float(), dim=-1).cpu()
        for row, seq in enumerate(batch.seqs):
            self._advance(seq, log_probs[row], batch.logits[row], batch.eos_ids)
        keep = [row for row, seq in enumerate(batch.seqs) if seq.finish_reason is None]
        for seq in batch.seqs:
            if seq.finish_reason is not None:
                seq.future.set_result(
                    Completion(
                        seq.token_ids,
                        seq.token_logprobs,
                        seq.top_logprobs,
                        seq.text,
                        seq.finish_reason,
                        seq.adapter.version if seq.adapter is not None else policy.version,
                        seq.batch_size,
                    )
                )
        if not keep:
            return None
        batch = batch.select(keep)
        step_ids = torch.tensor([seq.token_ids[-1] for seq in batch.seqs], dtype=torch.long, device=self.device)[:, None]
        batch.attention = torch.cat([batch.attention, torch.ones((len(batch.seqs), 1), dtype=torch.long, device=self.device)], dim=1)
        batch.last_positions = batch.last_positions + 1
        batch.logits = policy.model(
            input_ids=step_ids,
            attention_mask=batch.attention,
            position_ids=batch.last_positions[:, None],
            past_key_values=batch.cache,
            use_cache=True,
            **_adapter_rows(policy.model, batch.seqs),
        ).logits[:, -1]
        return batch

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


def _serves(model, adapter: Adapter | None) -> bool:
    return adapter is None or (isinstance(model, PeftModel) and adapter.name in model.peft_config)


def _adapter_rows(model, seqs: list[_Sequence]) -> dict:
    """PEFT's mixed batch: each row's adapter (the base model's rows by BASE_ROWS); nothing for a model without any."""
    if not isinstance(model, PeftModel):
        return {}
    return {"adapter_names": [seq.adapter.name if seq.adapter is not None else BASE_ROWS for seq in seqs]}
