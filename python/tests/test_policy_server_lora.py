"""LoRA adapters on the project's policy server: loaded beside the base model through vLLM's routes, named as the
completion's model (which pins the version), refused with the reason when unusable while the server keeps serving,
and unloaded."""
# ruff: noqa: F811 (the tests' parameter make_server is the fixture imported from test_policy_server)

from __future__ import annotations

import concurrent.futures

import pytest
import torch
from peft import PeftModel
from test_policy_server import PROMPT, call, complete, make_server  # noqa: F401 (a fixture: the tests take it as a parameter)
from transformers import AutoModelForCausalLM

from finalstate.testing import tiny_adapter


def write_adapter(tiny_model_dir, directory, *, rank=4, seed=1):
    """A PEFT adapter of the tiny model with random lora_B, and the PEFT model that computes with it."""
    tiny_adapter.write_adapter(str(tiny_model_dir), str(directory), rank=rank, seed=seed)
    return PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(tiny_model_dir), str(directory)).eval()


@torch.no_grad()
def peft_logprobs(peft, prompt, completion):
    ids = torch.tensor([prompt + completion])
    log_probs = torch.log_softmax(peft(input_ids=ids).logits[0].float(), dim=-1)
    return [float(log_probs[len(prompt) - 1 + j, token]) for j, token in enumerate(completion)]


def load(base, name, path, **extra):
    return call(base, "/v1/load_lora_adapter", {"lora_name": name, "lora_path": str(path), **extra})


def test_an_adapter_serves_by_name_beside_the_base_model(make_server, tiny_model_dir, tmp_path):
    base = make_server()
    peft = write_adapter(tiny_model_dir, tmp_path / "c-v3")
    status, _, answer = load(base, "c-v3", tmp_path / "c-v3")
    assert status == 200 and answer["rank"] == 4 and answer["policy_version"] == 3
    _, _, models = call(base, "/v1/models")
    assert [(m["id"], m["policy_version"]) for m in models["data"]] == [("tiny", 0), ("c-v3", 3)]
    assert models["data"][1]["root"] == str(tmp_path / "c-v3") and models["data"][1]["parent"] == "tiny"

    # Base and adapter requests in one batch: each row gets its own weights (PEFT's mixed batch).
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda model: complete(base, model=model, temperature=0), ["tiny", "c-v3", "tiny", "c-v3"]))
    plain, adapted = answers[0], answers[1]
    assert adapted["model"] == "c-v3" and adapted["policy_version"] == 3 and plain["policy_version"] == 0
    assert answers[2]["choices"][0]["token_ids"] == plain["choices"][0]["token_ids"]
    assert answers[3]["choices"][0]["token_ids"] == adapted["choices"][0]["token_ids"]
    served = complete(base, model="c-v3", temperature=0, logprobs=0)["choices"][0]
    expected = peft_logprobs(peft, PROMPT, served["token_ids"])
    assert served["logprobs"]["token_logprobs"] == pytest.approx(expected, abs=1e-5)
    base_served = complete(base, model="tiny", temperature=0, logprobs=0)["choices"][0]
    assert base_served["token_ids"] != served["token_ids"] or base_served["logprobs"]["token_logprobs"] != pytest.approx(expected, abs=1e-3)

    status, _, _ = call(base, "/v1/unload_lora_adapter", {"lora_name": "c-v3"})
    assert status == 200
    status, _, answer = call(base, "/v1/completions", {"model": "c-v3", "prompt": PROMPT})
    assert status == 404 and "does not exist" in answer["error"]["message"]
    status, _, answer = call(base, "/v1/unload_lora_adapter", {"lora_name": "c-v3"})
    assert status == 404
    assert [m["id"] for m in call(base, "/v1/models")[2]["data"]] == ["tiny"]


def test_unusable_adapters_are_refused_and_the_loaded_one_keeps_serving(make_server, tiny_model_dir, tmp_path):
    base = make_server()
    write_adapter(tiny_model_dir, tmp_path / "good")
    assert load(base, "c-v1", tmp_path / "good")[0] == 200
    before = complete(base, model="c-v1", temperature=0, logprobs=0)["choices"][0]

    status, _, answer = load(base, "c-v2", tmp_path / "missing")
    assert status == 404 and "No adapter found" in answer["error"]["message"]
    corrupt = tmp_path / "corrupt"
    write_adapter(tiny_model_dir, corrupt)
    weights = corrupt / "adapter_model.safetensors"
    weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])
    status, _, answer = load(base, "c-v2", corrupt)
    assert status == 400 and "cannot be read" in answer["error"]["message"]
    write_adapter(tiny_model_dir, tmp_path / "wide", rank=128)
    status, _, answer = load(base, "c-v2", tmp_path / "wide")
    assert status == 400 and "rank 128, above this server's --max-lora-rank 64" in answer["error"]["message"]
    foreign = tmp_path / "foreign"
    write_adapter(tiny_model_dir, foreign)
    from safetensors.torch import load_file, save_file

    renamed = {k.replace("self_attn.q_proj", "self_attn.c_attn"): v for k, v in load_file(str(foreign / "adapter_model.safetensors")).items()}
    save_file(renamed, str(foreign / "adapter_model.safetensors"))
    status, _, answer = load(base, "c-v2", foreign)
    assert status == 400 and "no linear layer" in answer["error"]["message"] and "c_attn" in answer["error"]["message"]
    status, _, answer = load(base, "c-v1", tmp_path / "good")
    assert status == 400 and "already loaded" in answer["error"]["message"]

    assert [m["id"] for m in call(base, "/v1/models")[2]["data"]] == ["tiny", "c-v1"]
    after = complete(base, model="c-v1", temperature=0, logprobs=0)["choices"][0]
    assert after["token_ids"] == before["token_ids"] and after["logprobs"]["token_logprobs"] == before["logprobs"]["token_logprobs"]


def test_the_adapter_routes_are_admin_routes(make_server, tiny_model_dir, tmp_path):
    base = make_server()
    write_adapter(tiny_model_dir, tmp_path / "a")
    status, _, _ = call(base, "/v1/load_lora_adapter", {"lora_name": "x", "lora_path": str(tmp_path / "a")}, token=None)
    assert status == 401
    status, _, _ = call(base, "/v1/unload_lora_adapter", {"lora_name": "x"}, token="wrong-token-0123456789")
    assert status == 401


def test_after_the_last_adapter_is_unloaded_the_base_serves_as_before_and_adapters_load_again(make_server, tiny_model_dir, tmp_path):
    base = make_server()
    write_adapter(tiny_model_dir, tmp_path / "a", seed=1)
    before = complete(base, model="tiny", temperature=0, logprobs=0)["choices"][0]
    assert load(base, "c-v1", tmp_path / "a")[0] == 200
    adapted = complete(base, model="c-v1", temperature=0, logprobs=0)["choices"][0]
    assert call(base, "/v1/unload_lora_adapter", {"lora_name": "c-v1"})[0] == 200
    after = complete(base, model="tiny", temperature=0, logprobs=0)["choices"][0]
    assert after["logprobs"]["token_logprobs"] == before["logprobs"]["token_logprobs"]
    assert load(base, "c-v1", tmp_path / "a")[0] == 200
    again = complete(base, model="c-v1", temperature=0, logprobs=0)["choices"][0]
    assert again["logprobs"]["token_logprobs"] == adapted["logprobs"]["token_logprobs"]
