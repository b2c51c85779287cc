"""The policy server over real HTTP, on the tiny model (CPU)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import torch
from transformers import AutoModelForCausalLM

import finalstate
from finalstate.grpo import PolicyTrainer
from finalstate.policy_server.api import PolicyServer
from finalstate.policy_server.engine import Engine, load_policy

from episodes import DEFAULT_LOSS, DEFAULT_OPTIMIZER

CPU = torch.device("cpu")
PROMPT = [5, 17, 42, 8, 99]


@pytest.fixture()
def make_server(tiny_model_dir):
    started = []

    def start(model_dir=tiny_model_dir, batch_wait_s=0.005):
        engine = Engine(load_policy(model_dir, 0, CPU), device=CPU, batch_wait_s=batch_wait_s)
        server = PolicyServer(("127.0.0.1", 0), engine, "tiny")
        threading.Thread(target=server.serve_forever, daemon=True).start()
        started.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield start
    for server in started:
        server.shutdown()
        server.server_close()
        server.engine.close()


def call(base, path, body=None):
    request = urllib.request.Request(base + path, data=None if body is None else json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            raw = response.read()
            return response.status, dict(response.headers), json.loads(raw) if raw else None
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), json.loads(err.read())


def complete(base, **body):
    status, headers, payload = call(base, "/v1/completions", {"prompt": PROMPT, "max_tokens": 8, "return_token_ids": True, "ignore_eos": True, **body})
    assert status == 200, payload
    assert headers["X-Policy-Version"] == str(payload["policy_version"])
    return payload


@torch.no_grad()
def forward_logprobs(model_dir, prompt, completion):
    model = AutoModelForCausalLM.from_pretrained(model_dir).eval()
    ids = torch.tensor([prompt + completion])
    log_probs = torch.log_softmax(model(input_ids=ids).logits[0].float(), dim=-1)
    return [float(log_probs[len(prompt) - 1 + j, token]) for j, token in enumerate(completion)], log_probs


def test_greedy_is_deterministic_and_logprobs_match_a_forward_pass(make_server, tiny_model_dir):
    base = make_server()
    first = complete(base, temperature=0, logprobs=3)
    second = complete(base, temperature=0, logprobs=3)
    choice = first["choices"][0]
    assert choice["token_ids"] == second["choices"][0]["token_ids"]
    assert choice["prompt_token_ids"] == PROMPT and len(choice["token_ids"]) == 8
    assert choice["finish_reason"] == "length"
    assert first["usage"] == {"prompt_tokens": 5, "completion_tokens": 8, "total_tokens": 13}
    expected, all_logprobs = forward_logprobs(tiny_model_dir, PROMPT, choice["token_ids"])
    assert choice["logprobs"]["token_logprobs"] == pytest.approx(expected, abs=1e-4)
    for j, token in enumerate(choice["token_ids"]):  # greedy: each token is the forward pass's argmax
        assert token == int(all_logprobs[len(PROMPT) - 1 + j].argmax())
        assert max(choice["logprobs"]["top_logprobs"][j].values()) == pytest.approx(expected[j], abs=1e-4)
    assert "".join(choice["logprobs"]["tokens"]) == choice["text"]


def test_seeded_sampling_is_reproducible_and_logprobs_match(make_server, tiny_model_dir):
    base = make_server()
    a = complete(base, temperature=1.0, seed=7, logprobs=0)["choices"][0]
    b = complete(base, temperature=1.0, seed=7, logprobs=0)["choices"][0]
    c = complete(base, temperature=1.0, seed=8, logprobs=0)["choices"][0]
    assert a["token_ids"] == b["token_ids"]
    assert a["token_ids"] != c["token_ids"]
    expected, _ = forward_logprobs(tiny_model_dir, PROMPT, a["token_ids"])
    assert a["logprobs"]["token_logprobs"] == pytest.approx(expected, abs=1e-4)
    assert a["logprobs"]["top_logprobs"] is None
    n = complete(base, temperature=1.0, seed=7, n=2)["choices"]
    assert n[0]["token_ids"] == a["token_ids"] and n[1]["token_ids"] == c["token_ids"]  # choice i uses seed + i


def test_concurrent_requests_are_batched_and_match_single_requests(make_server):
    base = make_server(batch_wait_s=0.2)
    prompts = [PROMPT, [7, 7, 7], [11, 12, 13, 14, 15, 16, 17], [200]]
    alone = [complete(base, prompt=p, temperature=0, logprobs=0)["choices"][0] for p in prompts]
    with ThreadPoolExecutor(len(prompts)) as pool:
        together = list(pool.map(lambda p: complete(base, prompt=p, temperature=0, logprobs=0)["choices"][0], prompts))
    _, _, stats = call(base, "/stats")
    assert stats["batch_sizes"][: len(prompts)] == [1] * len(prompts)
    assert max(stats["batch_sizes"][len(prompts) :]) > 1, stats
    for single, batched in zip(alone, together):
        assert batched["token_ids"] == single["token_ids"]
        assert batched["logprobs"]["token_logprobs"] == pytest.approx(single["logprobs"]["token_logprobs"], abs=1e-4)


def test_a_request_joins_a_running_batch_and_returns_before_the_longer_one(tiny_model_dir):
    """Continuous batching: a short request arriving mid-generation is merged into the running batch (different
    prompt length, so left-padded), returns as soon as it is done, and both match what they give alone."""
    engine = Engine(load_policy(tiny_model_dir, 0, CPU), device=CPU, batch_wait_s=0)
    try:
        from finalstate.policy_server.engine import SamplingParams

        def greedy(max_tokens):
            return SamplingParams(max_tokens=max_tokens, temperature=0, logprobs=0, ignore_eos=True)

        alone_long = engine.submit(PROMPT, greedy(400)).result()
        alone_short = engine.submit([11, 12, 13, 14, 15, 16, 17, 18, 19], greedy(5)).result()
        admissions = len(engine.batch_sizes)
        long = engine.submit(PROMPT, greedy(400))
        while len(engine.batch_sizes) == admissions:  # until the long request is admitted and generating
            time.sleep(0.001)
        short = engine.submit([11, 12, 13, 14, 15, 16, 17, 18, 19], greedy(5))
        joined = short.result(timeout=60)
        assert not long.done(), "the short request returned while the long one was still generating"
        assert engine.batch_sizes[admissions:] == [1, 2], "admitted alone, then the short one merged into its batch"
        assert joined.batch_size == 2
        finished = long.result(timeout=120)
        assert joined.token_ids == alone_short.token_ids
        assert joined.token_logprobs == pytest.approx(alone_short.token_logprobs, abs=1e-4)
        assert finished.token_ids == alone_long.token_ids
        assert finished.token_logprobs == pytest.approx(alone_long.token_logprobs, abs=1e-4)
    finally:
        engine.close()


def test_tokenize_detokenize_round_trip(make_server):
    base = make_server()
    text = "<|im_start|>user\nCancel order 1042, über-fast ✓<|im_end|>"
    status, _, tokenized = call(base, "/tokenize", {"prompt": text})
    assert status == 200 and tokenized["count"] == len(tokenized["tokens"]) > 0
    assert tokenized["max_model_len"] == 512
    status, _, detokenized = call(base, "/detokenize", {"tokens": tokenized["tokens"]})
    assert status == 200 and detokenized["prompt"] == text
    # The text prompt and its token ids give the same completion.
    by_text = complete(base, prompt=text, temperature=0)["choices"][0]
    by_ids = complete(base, prompt=tokenized["tokens"], temperature=0)["choices"][0]
    assert by_text["token_ids"] == by_ids["token_ids"] and by_text["prompt_token_ids"] == tokenized["tokens"]


def reload(base, weights_path, **extra):
    return call(base, "/collective_rpc", {"method": "reload_weights", "kwargs": {"weights_path": weights_path, **extra}})


def test_reload_through_the_vllm_admin_routes_serves_the_new_checkpoint(make_server, tiny_model_dir, tmp_path):
    base = make_server()
    before = complete(base, temperature=0, logprobs=0)
    assert before["policy_version"] == 0
    changed = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    with torch.no_grad():
        changed.model.norm.weight.mul_(3.0)  # sharper distribution: every logprob changes
    changed.save_pretrained(tmp_path)
    for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        (tmp_path / name).write_bytes((tiny_model_dir / name).read_bytes())
    assert call(base, "/pause", {})[::2] == (200, {"status": "paused", "policy_version": 0})
    assert call(base, "/is_paused")[2]["is_paused"] is True
    status, headers, reloaded = reload(base, tmp_path.as_uri())
    assert status == 200 and reloaded == {"results": [None], "policy_version": 1} and headers["X-Policy-Version"] == "1"
    status, headers, empty = call(base, "/reset_prefix_cache", {})
    assert (status, empty, headers["Content-Length"]) == (200, None, "0")  # vLLM answers an empty 200 here
    assert call(base, "/resume", {})[2]["status"] == "resumed" and call(base, "/is_paused")[2]["is_paused"] is False
    after = complete(base, temperature=0, logprobs=0)
    assert after["policy_version"] == 1
    assert after["choices"][0]["logprobs"]["token_logprobs"][0] != pytest.approx(before["choices"][0]["logprobs"]["token_logprobs"][0], abs=1e-3)
    _, _, models = call(base, "/v1/models")
    assert models["data"][0]["policy_version"] == 1 and models["data"][0]["root"] == str(tmp_path)
    status, _, explicit = reload(base, str(tiny_model_dir), policy_version=7)
    assert explicit["policy_version"] == 7 and call(base, "/health")[2] == {"status": "ok", "policy_version": 7}
    status, _, failed = reload(base, str(tmp_path / "missing"))
    assert status == 400 and "no config.json" in failed["error"]["message"] and failed["policy_version"] == 7
    status, _, odd = reload(base, str(tiny_model_dir), version=8)
    assert status == 400 and "unexpected keyword argument(s) version" in odd["error"]["message"]
    status, _, other = call(base, "/collective_rpc", {"method": "sleep"})
    assert status == 400 and "only 'reload_weights'" in other["error"]["message"]
    assert call(base, "/admin/reload", {"checkpoint": str(tiny_model_dir)})[0] == 404


def test_a_paused_server_holds_new_completions_until_resumed(make_server):
    base = make_server()
    call(base, "/pause", {})
    with ThreadPoolExecutor(1) as pool:
        held = pool.submit(complete, base, temperature=0)
        time.sleep(0.5)
        assert not held.done(), "a completion went through while paused"
        call(base, "/resume", {})
        assert held.result(timeout=30)["choices"][0]["finish_reason"] == "length"


def test_stops_and_bad_requests(make_server):
    base = make_server()
    free = complete(base, temperature=0, max_tokens=12)["choices"][0]
    assert free["finish_reason"] == "length" and len(free["text"]) >= 2
    stop = free["text"][1:3]
    cut = complete(base, temperature=0, max_tokens=12, stop=[stop])["choices"][0]
    assert cut["finish_reason"] == "stop" and cut["text"] == free["text"][: free["text"].find(stop)]
    assert free["token_ids"][: len(cut["token_ids"])] == cut["token_ids"]
    by_id = complete(base, temperature=0, max_tokens=12, stop_token_ids=[free["token_ids"][2]])["choices"][0]
    assert by_id["finish_reason"] == "stop" and by_id["token_ids"] == free["token_ids"][: free["token_ids"].index(free["token_ids"][2]) + 1]
    for body, message in (
        ({"prompt": [1, 100000]}, "outside the vocabulary"),
        ({"prompt": PROMPT, "temperature": -1}, "`temperature` must be >= 0"),
        ({"prompt": PROMPT, "max_tokens": 600}, "maximum context length is 512 tokens"),
        ({"prompt": PROMPT, "model": "other"}, "does not exist"),
    ):
        status, _, payload = call(base, "/v1/completions", body)
        assert status in (400, 404) and message in payload["error"]["message"], payload


def test_server_rollouts_are_on_policy_for_the_trainer(make_server, tiny_model_dir):
    """The contract between the two halves: token_ids + token_logprobs drop into a TrainingEpisode unchanged."""
    base = make_server()
    episodes = []
    for index, seed in enumerate((1, 2, 3, 4)):
        choice = complete(base, temperature=1.0, seed=seed, logprobs=0, max_tokens=6)["choices"][0]
        prompt, completion = choice["prompt_token_ids"], choice["token_ids"]
        episodes.append({
            "episodeId": f"e{index}", "taskId": "t", "groupId": "g", "reward": float(index % 2),
            "tokenIds": prompt + completion,
            "lossMask": [0] * len(prompt) + [1] * len(completion),
            "rolloutLogprobs": [0.0] * len(prompt) + choice["logprobs"]["token_logprobs"],
        })
    trainer = PolicyTrainer(AutoModelForCausalLM.from_pretrained(tiny_model_dir), DEFAULT_OPTIMIZER)
    metrics = trainer.accumulate_gradients(episodes, loss_config=DEFAULT_LOSS, micro_batch_size=2)
    assert metrics["tokens"] == 24
    assert metrics["approxKl"] < 1e-8 and metrics["clipFraction"] == 0.0


def test_entrypoint_serves_and_stops_cleanly(tiny_model_dir):
    process = subprocess.Popen(
        [sys.executable, "-m", "finalstate.policy_server", "--model", str(tiny_model_dir), "--port", "0", "--device", "cpu", "--policy-version", "3"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONPATH": str(Path(finalstate.__file__).resolve().parents[1])},
    )
    try:
        line = ""
        while "ready on" not in line:
            line = process.stdout.readline()
            assert line, "the server exited before it was ready"
        base = re.search(r"http://[\d.]+:\d+", line).group(0)
        status, headers, health = call(base, "/health")
        assert status == 200 and health == {"status": "ok", "policy_version": 3} and headers["X-Policy-Version"] == "3"
        assert call(base, "/v1/models")[2]["data"][0]["id"] == tiny_model_dir.name
    finally:
        process.terminate()
        assert process.wait(timeout=30) == 0
