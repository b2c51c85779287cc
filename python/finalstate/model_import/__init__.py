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

IMPORT_FORMAT = 3
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


def _gguf_flag(gguf: Path, key: str) -> bool | None:
    from gguf import GGUFReader

    field = GGUFReader(gguf).fields.get(key)
    return None if field is None or not field.data else bool(field.parts[field.data[0]][0])


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
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    # transformers' GGUF conversion adds a BOS token whatever the file says, and cleans up spaces when decoding
    # ("a ." -> "a."), which would make decoded text differ from the text the tokens spell. Neither is the model's:
    # the GGUF states add_bos_token, and a byte-level BPE decodes exactly.
    add_bos = _gguf_flag(gguf, "tokenizer.ggml.add_bos_token")
    if add_bos is not None and hasattr(tokenizer, "add_bos_token"):
        tokenizer.add_bos_token = add_bos
    tokenizer.clean_up_tokenization_spaces = False
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
