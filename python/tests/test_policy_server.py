"""The policy server over real HTTP, on the tiny model (CPU)."""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
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
from finalstate.policy_server.guard import TOKEN_ENV, admin_token, load_token_file

from episodes import DEFAULT_LOSS, DEFAULT_OPTIMIZER

CPU = torch.device("cpu")
PROMPT = [5, 17, 42, 8, 99]
TOKEN = "test-admin-token-0123456789"


@pytest.fixture()
def make_server(tiny_model_dir):
    started = []

    def start(model_dir=tiny_model_dir, batch_wait_s=0.005, **guard):
        engine = Engine(load_policy(model_dir, 0, CPU), device=CPU, batch_wait_s=batch_wait_s)
        server = PolicyServer(("127.0.0.1", 0), engine, "tiny", **{"admin_token": TOKEN, **guard})
        threading.Thread(target=server.serve_forever, daemon=True).start()
        started.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield start
    for server in started:
        server.shutdown()
        server.server_close()
        server.engine.close()


def call(base, path, body=None, token=TOKEN):
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
    request = urllib.request.Request(base + path, data=None if body is None else json.dumps(body).encode(), headers=headers)
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


def test_versions_only_move_forward_unless_the_reload_says_rollback(make_server, tiny_model_dir):
    base = make_server()
    assert reload(base, str(tiny_model_dir), policy_version=3)[0] == 200
    status, headers, refused = reload(base, str(tiny_model_dir), policy_version=2)
    assert status == 409 and headers["X-Policy-Version"] == "3"
    assert refused["error"]["type"] == "ConflictError" and refused["error"]["param"] == "policy_version"
    assert "policy version 2 is older than version 3, which this server serves: not loaded" in refused["error"]["message"]
    assert call(base, "/health")[2]["policy_version"] == 3, "the refusal changed nothing"
    assert reload(base, str(tiny_model_dir), policy_version=3)[0] == 200, "the same version again (a retried publish)"
    status, _, odd = reload(base, str(tiny_model_dir), policy_version=2, rollback="yes")
    assert status == 400 and "`rollback`" in odd["error"]["message"]
    status, _, back = reload(base, str(tiny_model_dir), policy_version=2, rollback=True)
    assert status == 200 and back["policy_version"] == 2 and call(base, "/health")[2]["policy_version"] == 2
    assert reload(base, str(tiny_model_dir))[2]["policy_version"] == 3, "no version: the newest plus one"


def test_an_older_reload_overtaken_by_a_newer_one_is_never_served(tiny_model_dir, monkeypatch):
    """Two reloads at once (a publish and a reconcile that raced): whichever finishes loading last, the newer version is
    the one served. The older one is refused when it finishes loading after the newer was swapped in, and when it waits
    for the sequences in flight and a newer one arrives meanwhile; neither changes what the server serves."""
    from finalstate.policy_server import engine as engine_module
    from finalstate.policy_server.engine import SamplingParams, VersionConflict

    real_load = engine_module.load_policy
    loading, release = threading.Event(), threading.Event()

    def load(path, version, device):
        if version == 1:
            loading.set()
            assert release.wait(60)
        return real_load(path, version, device)

    monkeypatch.setattr(engine_module, "load_policy", load)
    engine = Engine(real_load(tiny_model_dir, 0, CPU), device=CPU, batch_wait_s=0)
    try:
        with ThreadPoolExecutor(2) as pool:
            # 1. Version 1 still reading its checkpoint when version 2 is served.
            older = pool.submit(engine.reload, tiny_model_dir, 1)
            assert loading.wait(60)
            assert engine.reload(tiny_model_dir, 2).version == 2
            with pytest.raises(VersionConflict, match="policy version 1 is older than version 2, which this server serves"):
                engine.reload(tiny_model_dir, 1)
            release.set()
            with pytest.raises(VersionConflict, match="policy version 1 is older than version 2, which this server serves"):
                older.result(timeout=60)
            assert engine.policy.version == 2

            # 2. Version 3 waiting for a sequence in flight (the scheduler held inside its decode step) when version 4
            # arrives: 3 is never swapped in, 4 is once the sequence ends on version 2.
            step, stepping, go_on = engine._step, threading.Event(), threading.Event()

            def held_step(policy, batch):
                stepping.set()
                assert go_on.wait(60)
                return step(policy, batch)

            engine._step = held_step
            in_flight = engine.submit(PROMPT, SamplingParams(max_tokens=3, ignore_eos=True))
            assert stepping.wait(60)
            waiting = pool.submit(engine.reload, tiny_model_dir, 3)
            while engine._next_policy is None:  # loaded, waiting for the sequence in flight
                time.sleep(0.01)
            newer = pool.submit(engine.reload, tiny_model_dir, 4)
            with pytest.raises(VersionConflict, match=r"policy version 3 .* was not served: version 4 was reloaded"):
                waiting.result(timeout=60)
            assert not newer.done() and engine.policy.version == 2
            go_on.set()
            assert newer.result(timeout=60).version == 4
            assert in_flight.result(timeout=60).policy_version == 2
            assert engine.policy.version == 4
    finally:
        release.set()
        engine.close()


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


def test_entrypoint_serves_and_stops_cleanly(tiny_model_dir, tmp_path):
    token_file = tmp_path / "secrets" / "policy-server.token"
    process = subprocess.Popen(
        [sys.executable, "-m", "finalstate.policy_server", "--model", str(tiny_model_dir), "--port", "0", "--device", "cpu", "--policy-version", "3",
         "--admin-token-file", str(token_file)],
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
        assert token_file.stat().st_mode & 0o777 == 0o600, "the server made its token file, owner-only"
        assert call(base, "/pause", {})[0] == 401
        assert call(base, "/pause", {}, token=token_file.read_text().strip())[0] == 200
    finally:
        process.terminate()
        assert process.wait(timeout=30) == 0


def raw(base, method, path, body=b"", headers=None):
    """One request exactly as given (Host included), as a web page or another local user could send it."""
    address = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=60)
    try:
        connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        sent = {"Host": address.netloc, **(headers or {})}
        if method == "POST":
            sent["Content-Length"] = str(len(body))
        for name, value in sent.items():
            if value is not None:
                connection.putheader(name, value)
        connection.endheaders(body if method == "POST" else None)
        response = connection.getresponse()
        payload = response.read()
        return response.status, dict(response.headers), json.loads(payload) if payload else None
    finally:
        connection.close()


def paused(base):
    return call(base, "/is_paused")[2]["is_paused"]


def test_admin_routes_need_the_bearer_token_and_refusals_change_nothing(make_server, tiny_model_dir):
    base = make_server()
    json_type = {"Content-Type": "application/json"}
    reload_body = json.dumps({"method": "reload_weights", "kwargs": {"weights_path": str(tiny_model_dir), "policy_version": 99}}).encode()
    for headers, message in (
        ({}, "need the header `Authorization: Bearer <token>`"),
        ({"Authorization": "Bearer wrong-token-0123456789"}, "wrong bearer token"),
        ({"Authorization": f"Basic {TOKEN}"}, "wrong bearer token"),
    ):
        for path, body in (("/pause", b"{}"), ("/collective_rpc", reload_body), ("/reset_prefix_cache", b"{}"), ("/resume", b"{}")):
            status, answer_headers, payload = raw(base, "POST", path, body, {**json_type, **headers})
            assert status == 401 and message in payload["error"]["message"], (path, headers, payload)
            assert answer_headers["WWW-Authenticate"] == 'Bearer realm="finalstate-policy-server"'
        assert raw(base, "GET", "/is_paused", headers=headers)[0] == 401
    assert not paused(base)
    assert call(base, "/health")[2]["policy_version"] == 0, "no refused reload changed the version"
    assert complete(base, temperature=0)["policy_version"] == 0
    assert raw(base, "POST", "/pause", b"{}", {**json_type, "Authorization": f"Bearer {TOKEN}"})[0] == 200
    assert paused(base), "the same request with the token goes through"


def test_a_server_started_without_a_token_refuses_every_admin_route(make_server):
    base = make_server(admin_token=None)
    for token in (None, TOKEN):
        status, _, payload = call(base, "/pause", {}, token=token)
        assert status == 403 and "started without --admin-token-file" in payload["error"]["message"]
    assert complete(base, temperature=0)["policy_version"] == 0, "completions are served as before"


def test_cross_site_requests_are_refused_on_every_route(make_server):
    """A web page can POST text/plain or a form, and can reach a loopback server under its own name (DNS rebinding)."""
    base = make_server()
    port = urllib.parse.urlsplit(base).port
    auth = {"Authorization": f"Bearer {TOKEN}"}
    completion = json.dumps({"prompt": PROMPT, "max_tokens": 2}).encode()
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", None):
        for path, body in (("/pause", b"{}"), ("/v1/completions", completion)):
            status, _, payload = raw(base, "POST", path, body, {**auth, "Content-Type": kind})
            assert status == 415 and "Content-Type: application/json" in payload["error"]["message"], (kind, path, payload)
    for headers in ({"Host": f"evil.example:{port}"}, {"Host": f"rebind.example:{port}", "Origin": f"http://rebind.example:{port}"}, {"Origin": "http://evil.example"}, {"Origin": "null"}):
        for method, path, body in (("POST", "/pause", b"{}"), ("POST", "/v1/completions", completion), ("GET", "/v1/models", b""), ("GET", "/health", b"")):
            status, _, payload = raw(base, method, path, body, {**auth, "Content-Type": "application/json", **headers})
            assert status == 403 and "Invalid" in payload["error"]["message"], (headers, path, payload)
    assert not paused(base)
    for ok in ({"Host": f"localhost:{port}"}, {"Origin": f"http://127.0.0.1:{port}"}, {"Content-Type": "application/json; charset=utf-8"}):
        assert raw(base, "POST", "/v1/completions", completion, {"Content-Type": "application/json", **ok})[0] == 200, ok


def test_extra_hosts_and_origins_are_accepted_when_listed(make_server):
    base = make_server(allowed_hosts=("proxy.internal:8443",), allowed_origins=("https://console.internal",))
    for headers in ({"Host": "proxy.internal:8443"}, {"Host": "PROXY.internal:8443", "Origin": "https://console.internal"}):
        assert raw(base, "GET", "/health", headers=headers)[0] == 200, headers
    assert raw(base, "GET", "/health", headers={"Host": "proxy.internal:9999"})[0] == 403


def test_models_shows_the_checkpoint_path_only_with_the_token(make_server, tiny_model_dir):
    base = make_server()
    status, _, anonymous = call(base, "/v1/models", token=None)
    assert status == 200 and anonymous["data"][0]["id"] == "tiny" and "root" not in anonymous["data"][0]
    assert str(tiny_model_dir) not in json.dumps(anonymous)
    assert call(base, "/v1/models", token="wrong-token-0123456789")[2]["data"][0].get("root") is None
    assert call(base, "/v1/models")[2]["data"][0]["root"] == str(tiny_model_dir)


def test_the_token_file_is_made_owner_only_reused_and_refused_when_others_can_read_it(tmp_path):
    file = tmp_path / "secrets" / "admin.token"
    made = load_token_file(file)
    assert len(made) >= 43 and file.stat().st_mode & 0o777 == 0o600 and file.parent.stat().st_mode & 0o777 == 0o700
    assert load_token_file(file) == made, "an existing file is read, not replaced"
    file.chmod(0o644)
    with pytest.raises(ValueError, match="other users may read it"):
        load_token_file(file)
    link = tmp_path / "link.token"
    link.symlink_to(file)
    with pytest.raises(ValueError, match="not a regular file"):
        load_token_file(link)
    short = tmp_path / "short.token"
    short.write_text("abc\n")
    short.chmod(0o600)
    with pytest.raises(ValueError, match="at least 16 printable ASCII"):
        load_token_file(short)
    assert admin_token(None, {TOKEN_ENV: TOKEN}) == TOKEN and admin_token(None, {}) is None
    with pytest.raises(ValueError, match="not both"):
        admin_token(str(file), {TOKEN_ENV: TOKEN})
