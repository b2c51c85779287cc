"""Import a pretrained checkpoint shipped as GGUF into a plain Hugging Face directory the stack trains and serves.

`import_gguf(gguf, models_dir)` dequantizes the GGUF file through transformers (`from_pretrained(gguf_file=…)`, fp32)
and writes config.json, model.safetensors, the tokenizer files (with the chat template) and generation_config.json
into `<models_dir>/<stem>-<sha256 of the GGUF, 16 hex>`, once: the directory is written under a temporary name and
renamed when complete (finalstate.atomic), so a half-written import never counts, and a file lock lets concurrent
importers of the same file wait for one another. The result is a ModelImportResult (schemas/model-import.ts).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..atomic import atomic_directory, is_complete, remove_temporaries

IMPORT_FORMAT = 4
"""Bumped when what an import writes changes, so an older import of the same file is not reused."""
IMPORT_FILE = "import.json"
"""What the import wrote down about itself: its source, the transformers version, the parameter count."""


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def import_directory(gguf: Path, models_dir: Path, sha256: str) -> Path:
    stem = gguf.name.removesuffix(".gguf").lower()
    key = hashlib.sha256(f"import-{IMPORT_FORMAT}:{sha256}".encode()).hexdigest()
    return models_dir / f"{stem}-{key[:16]}"


SPECIAL_TOKEN_IDS = {"bos_token": "bos_token_id", "eos_token": "eos_token_id", "unk_token": "unknown_token_id", "pad_token": "padding_token_id"}
"""The GGUF's special tokens (tokenizer.ggml.<key>), by the name transformers gives them."""


def _gguf_tokenizer_numbers(gguf: Path) -> dict[str, int]:
    """The GGUF's add_bos_token flag and special token ids (tokenizer.ggml.<key>) that it states."""
    from gguf import GGUFReader

    fields = GGUFReader(gguf).fields
    numbers = {}
    for key in ("add_bos_token", *SPECIAL_TOKEN_IDS.values()):
        field = fields.get(f"tokenizer.ggml.{key}")
        if field is not None and field.data:
            numbers[key] = int(field.parts[field.data[0]][0])
    return numbers


def _plain_tokenizer(gguf: Path) -> Any:
    """The GGUF's tokenizer as a PreTrainedTokenizerFast: tokenizer.json as written is the whole tokenizer.

    transformers' GGUF conversion returns a LlamaTokenizerFast, saved as `"tokenizer_class": "LlamaTokenizer"`.
    transformers 4 loads that class from tokenizer.json as written; transformers 5 (vLLM's) builds a Llama tokenizer
    of its own from the vocabulary and merges (Metaspace pre-tokenizer and decoder), so a byte-level BPE's spaces and
    newlines (Ġ, Ċ) are lost both ways: "system\\nYou are" becomes "systemYouare". PreTrainedTokenizerFast means
    "tokenizer.json as written" to both. The conversion also gets the GGUF's BOS flag, its EOS (it names the BOS
    token) and its decoding wrong: each is set here as the GGUF states it, and decoding never "cleans up" spaces
    ("a ." -> "a."), which would make decoded text differ from the text the tokens spell.
    """
    from transformers import AutoTokenizer, PreTrainedTokenizerFast

    converted = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    stated = _gguf_tokenizer_numbers(gguf)
    if "add_bos_token" in stated and hasattr(converted, "add_bos_token"):
        converted.add_bos_token = bool(stated["add_bos_token"])  # rewrites the post-processor the plain one keeps
    vocabulary = converted.backend_tokenizer
    special = {name: vocabulary.id_to_token(stated[key]) for name, key in SPECIAL_TOKEN_IDS.items() if key in stated}
    return PreTrainedTokenizerFast(
        tokenizer_object=vocabulary, chat_template=converted.chat_template, clean_up_tokenization_spaces=False, **special
    )


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _write_checkpoint(gguf: Path, out: Path) -> dict[str, Any]:
    import torch
    import transformers
    from safetensors.torch import save_file
    from transformers import AutoModelForCausalLM

    tokenizer = _plain_tokenizer(gguf)
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
    # save_pretrained refuses a model loaded from GGUF ("not serializable"); the weights are plain fp32 tensors by
    # now, so they are written directly, under transformers' names. Tied output weights are the embedding: only
    # the embedding is written, as save_pretrained does (a file with lm_head.weight alone would leave the
    # embedding unloaded).
    state = model.state_dict()
    if model.config.tie_word_embeddings:
        state.pop("lm_head.weight", None)
    save_file({name: tensor.contiguous() for name, tensor in state.items()}, str(out / "model.safetensors"), metadata={"format": "pt"})
    config = model.config
    for attribute in ("quantization_config", "_pre_quantization_dtype"):
        if hasattr(config, attribute):
            delattr(config, attribute)
    config.dtype = torch.float32
    config.save_pretrained(out)
    model.generation_config.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return {
        "modelType": config.model_type,
        "architecture": type(model).__name__,
        "parameters": sum(p.numel() for p in model.parameters()),
        "vocabSize": len(tokenizer),
        "hasChatTemplate": bool(tokenizer.chat_template),
        "addsBosToken": bool(tokenizer("x")["input_ids"][0] == tokenizer.bos_token_id) if tokenizer.bos_token_id is not None else False,
        "transformers": transformers.__version__,
    }


def import_gguf(gguf: str | Path, models_dir: str | Path) -> dict[str, Any]:
    """The plain HF directory of `gguf` under `models_dir`, written now or found complete from an earlier import."""
    gguf = Path(gguf).resolve()
    if not gguf.is_file():
        raise FileNotFoundError(f"{gguf}: no such GGUF file")
    started = time.perf_counter()
    sha256 = file_sha256(gguf)
    final = import_directory(gguf, Path(models_dir), sha256)
    with _locked(final.parent / f".{final.name}.lock"):
        cached = is_complete(final)
        if not cached:
            remove_temporaries(final)  # what an interrupted import of the same file left
            with atomic_directory(final) as temporary:
                written = _write_checkpoint(gguf, temporary)
                record = {"source": {"file": str(gguf), "sha256": sha256, "bytes": gguf.stat().st_size}, **written}
                (temporary / IMPORT_FILE).write_text(json.dumps(record, indent=2) + "\n")
    record = json.loads((final / IMPORT_FILE).read_text())
    size = sum(f.stat().st_size for f in final.iterdir() if f.is_file())
    return {
        "modelDir": str(final),
        "cached": cached,
        "seconds": round(time.perf_counter() - started, 3),
        "bytes": size,
        **{k: record[k] for k in ("source", "modelType", "architecture", "parameters", "vocabSize", "hasChatTemplate", "transformers")},
    }
