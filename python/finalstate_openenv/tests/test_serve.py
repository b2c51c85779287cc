"""OpenEnv's own clients (GenericEnvClient for whole episodes, MCPToolClient for tools) against `finalstate env serve
--openenv` on real PostgreSQL: rewards, tool errors, isolation, teardown, malformed actions, guards, limits."""

from __future__ import annotations

import asyncio
import base64
import concurrent.futures
import json
import os
import signal

import httpx
import pytest
import websockets
from openenv.core.generic_client import GenericEnvClient
from openenv.core.mcp_client import MCPToolClient

from finalstate.schemas import load_schema

from .conftest import Served, golden_task, postgres


def run(coro):
    return asyncio.run(coro)


def test_oracle_calls_earn_1_and_no_calls_earn_0(served):
    task = golden_task(0)

    async def episodes():
        async with GenericEnvClient(base_url=served.authed_url) as env:
            first = await env.reset(task_id=task["id"])
            assert first.done is False and first.reward is None
            assert first.observation["user_message"] == task["query"]
            # the agent's system prompt is the one finalstate's own episodes get: the domain's policy (retail's states its
            # restocking fee)
            assert "15%" in first.observation["system_prompt"], first.observation["system_prompt"][:300]
            assert {t["name"] for t in first.observation["tools"]} >= {c["tool"] for c in task["golden"]}
            for call in task["golden"]:
                step = await env.step({"type": "call_tool", "tool_name": call["tool"], "arguments": call["arguments"]})
                assert step.done is False and "error" not in step.observation, step.observation
                assert step.observation["tool_name"] == call["tool"] and step.observation["result"]
            graded = await env.step({"type": "finish"})
            # a second episode in the same session: a reset opens a fresh database, and no call leaves it as it was
            await env.reset(task_id=task["id"])
            idle = await env.step({"type": "finish"})
            return graded, idle

    graded, idle = run(episodes())
    assert graded.done is True and graded.reward == 1, graded.observation
    assert graded.observation["finish_reason"] == "agent_done"
    assert graded.observation["diff"] == [] and "reward 1" in graded.observation["summary"]
    assert idle.done is True and idle.reward == 0 and idle.observation["diff"], idle.observation


def test_a_wrong_argument_is_a_tool_error_the_episode_survives(served):
    task = golden_task(1)
    first_call = task["golden"][0]
    argument = next(iter(first_call["arguments"]))

    async def episode():
        async with MCPToolClient(base_url=served.authed_url) as env:
            await env.reset(task_id=task["id"])
            tools = await env.list_tools()
            assert first_call["tool"] in {t.name for t in tools}
            errors = []
            for name, arguments in [(first_call["tool"], {argument: 12345}), ("no_such_tool", {})]:
                with pytest.raises(RuntimeError) as refused:
                    await env.call_tool(name, **arguments)
                errors.append(str(refused.value))
            result = await env.call_tool(first_call["tool"], **first_call["arguments"])
            return errors, result

    (wrong_argument, unknown_tool), result = run(episode())
    assert argument in wrong_argument and "invalid_args" in wrong_argument, wrong_argument
    assert "unknown tool no_such_tool" in unknown_tool and "tool_not_found" in unknown_tool, unknown_tool
    assert isinstance(result, str) and result


def test_two_concurrent_sessions_see_only_their_own_writes(served):
    task = golden_task(0)
    read = task["golden"][0]
    assert read["tool"].startswith("get_") and len(task["golden"]) > 1, task["golden"]
    call = {"type": "call_tool", "tool_name": read["tool"], "arguments": read["arguments"]}

    async def writer(opened: asyncio.Event, written: asyncio.Event):
        async with GenericEnvClient(base_url=served.authed_url) as env:
            await env.reset(task_id=task["id"])
            await opened.wait()
            before = await env.step(call)
            for golden in task["golden"][1:]:
                await env.step({"type": "call_tool", "tool_name": golden["tool"], "arguments": golden["arguments"]})
            after = await env.step(call)
            written.set()
            return before, after, await env.step({"type": "finish"})

    async def reader(opened: asyncio.Event, written: asyncio.Event):
        async with GenericEnvClient(base_url=served.authed_url) as env:
            await env.reset(task_id=task["id"])
            opened.set()
            await written.wait()
            return await env.step(call), await env.step({"type": "finish"})

    async def both():
        opened, written = asyncio.Event(), asyncio.Event()
        return await asyncio.gather(writer(opened, written), reader(opened, written))

    (before, after, graded), (seen, idle) = run(both())
    assert before.observation["result"] != after.observation["result"], "the writer's calls change what it reads"
    assert seen.observation["result"] == before.observation["result"], "the reader sees none of the writer's writes"
    assert graded.reward == 1 and idle.reward == 0


def test_a_dropped_connection_tears_its_episode_down(served):
    task = golden_task(2)
    headers = {"Authorization": f"Bearer {served.token}"}

    async def drop():
        ws = await websockets.connect(served.url.replace("http", "ws") + "/ws", additional_headers=headers)
        await ws.send(json.dumps({"type": "reset", "data": {"task_id": task["id"], "episode_id": "dropped-1"}}))
        answer = json.loads(await ws.recv())
        assert answer["type"] == "observation", answer
        ws.transport.abort()  # the connection drops: no close frame, no close message

    run(drop())
    database = served.wait_for_line(r"episode dropped-1 \(task .*\) opened on database (\w+)").group(1)
    served.wait_for_line(r"episode dropped-1 torn down")
    role = database.replace("fs_ep_", "fs_er_", 1)
    assert postgres("SELECT datname FROM pg_database WHERE datname = $1", database) == []
    assert postgres("SELECT rolname FROM pg_roles WHERE rolname = $1", role) == []
    assert postgres("SELECT pid FROM pg_stat_activity WHERE datname = $1 OR usename = $2", database, role) == []


def test_malformed_actions_get_errors_that_name_what_is_wrong(served):
    task = golden_task(0)
    resets = [
        ({"task_id": "no.such.task"}, "no task no.such.task"),
        ({"task_id": task["id"], "seed": 3}, "task_id or seed, not both"),
        ({"colour": "red"}, "colour"),
    ]
    actions = [
        ({"type": "dance"}, "type 'dance' is not an action"),
        ({"type": "call_tool"}, "tool_name"),
        ({"type": "call_tool", "tool_name": "get_order", "arguments": "ORD-1"}, "arguments"),
        ({"type": "message", "content": ""}, "content"),
        ({"type": "finish", "extra": 1}, "extra"),
    ]

    async def session():
        async with GenericEnvClient(base_url=served.authed_url) as env:

            async def answer(message: dict) -> dict:  # OpenEnv's error response whole, not just its message
                await env._send(message)
                return await env._receive()

            before_reset = await answer({"type": "step", "data": {"type": "finish"}})
            refused = [await answer({"type": "reset", "data": kwargs}) for kwargs, _ in resets]
            await env.reset(task_id=task["id"])
            refused += [await answer({"type": "step", "data": action}) for action, _ in actions]
            with pytest.raises(RuntimeError, match="VALIDATION_ERROR"):
                await env.step({"type": "dance"})
            # the session survived every one of them
            return before_reset, refused, await env.step({"type": "finish"})

    before_reset, refused, graded = run(session())
    assert before_reset["type"] == "error" and "reset first" in before_reset["data"]["message"], before_reset
    for response, (_, names) in zip(refused, resets + actions):
        assert response["type"] == "error" and response["data"]["code"] == "VALIDATION_ERROR", response
        assert names in json.dumps(response["data"]["errors"]), response
    assert graded.done is True and graded.reward == 0


def test_limits_users_seeds_and_infrastructure_failures(served):
    task = golden_task(0)
    read = task["golden"][0]

    async def session():
        async with GenericEnvClient(base_url=served.authed_url) as env:
            drawn = [(await env.reset(seed=7)).observation["task_id"] for _ in range(2)]
            # the user answers a message; a closing message lets the user end the conversation: graded
            await env.reset(task_id=task["id"])
            asked = await env.step({"type": "message", "content": "Which order do you mean?"})
            closing = await env.step({"type": "message", "content": "Is there anything else I can help with?"})
            # every action is an agent turn: the 12th (EpisodeLimits.maxAgentTurns) ends the episode
            await env.reset(task_id=task["id"])
            steps = [await env.step({"type": "call_tool", "tool_name": read["tool"], "arguments": read["arguments"]}) for _ in range(12)]
            # the database goes away under an open episode: an infrastructure failure, reward None, never 0
            await env.reset(task_id=task["id"], episode_id="lost-db-1")
            database = served.wait_for_line(r"episode lost-db-1 \(task .*\) opened on database (\w+)").group(1)
            postgres(f'DROP DATABASE "{database}" WITH (FORCE)')
            lost = await env.step({"type": "call_tool", "tool_name": read["tool"], "arguments": read["arguments"]})
            return drawn, asked, closing, steps, lost

    drawn, asked, closing, steps, lost = run(session())
    assert drawn[0] == drawn[1]
    assert asked.done is False and asked.observation["user_message"]
    assert closing.done is True and closing.observation["finish_reason"] == "user_done" and closing.reward == 0
    assert [s.done for s in steps] == [False] * 11 + [True]
    assert steps[-1].observation["finish_reason"] == "max_turns" and steps[-1].reward == 0
    assert lost.done is True and lost.reward is None, lost.observation
    assert lost.observation["infrastructure_error"], lost.observation


def test_guards_task_api_and_metadata(served):
    task = golden_task(0)
    good = {"Authorization": f"Bearer {served.token}"}
    with httpx.Client(base_url=served.url, trust_env=False) as http:
        assert http.get("/health").status_code == 200
        assert http.get("/tasks").status_code == 401
        assert http.get("/tasks", headers={"Authorization": "Bearer wrong-token-of-some-length"}).status_code == 401
        basic = base64.b64encode(f"finalstate:{served.token}".encode()).decode()
        sets = http.get("/tasks", headers={"Authorization": f"Basic {basic}"}).json()["sets"]
        assert sets[0]["name"] == "retail-train-mini" and task["id"] in sets[0]["task_ids"]
        one = http.get(f"/tasks/{task['id']}", headers=good).json()
        assert one["domain"] == "retail" and "golden" not in one
        assert http.get("/tasks/no.such.task", headers=good).status_code == 404
        assert http.get("/tasks", headers={**good, "Host": "evil.example:80"}).status_code == 403
        assert http.get("/tasks", headers={**good, "Origin": "http://evil.example"}).status_code == 403
        metadata = http.get("/metadata", headers=good).json()
        assert metadata["name"] == "finalstate" and "call_tool" in metadata["description"]
        assert http.get("/schema", headers=good).json()["action"] == load_schema("OpenEnvAction")

    async def upgrades():
        ws_url = served.url.replace("http", "ws") + "/ws"
        refused = []
        for headers in [{}, {"Origin": "http://evil.example", **good}]:
            with pytest.raises(websockets.exceptions.InvalidStatus) as err:
                await websockets.connect(ws_url, additional_headers=headers)
            refused.append(err.value.response.status_code)
        return refused

    assert run(upgrades()) == [401, 403]


def test_sessions_are_bounded_idle_ones_closed_and_neither_process_outlives_the_other():
    # the session cap and the idle reaper on separate servers: a reaper on the capped one could free the slot between
    # the first session's reset and the second's connection
    with concurrent.futures.ThreadPoolExecutor(2) as pool:  # two servers, started side by side
        one, two = pool.map(lambda extra: Served(*extra), [("--max-sessions", "1"), ("--session-idle-seconds", "1")])
    try:
        # sessions are bounded (--max-sessions 1): a second one is refused with OpenEnv's CAPACITY_REACHED
        async def one_too_many():
            env = GenericEnvClient(base_url=one.authed_url)
            await env.reset(task_id=golden_task(0)["id"], episode_id="orphan-1")
            second = await GenericEnvClient(base_url=one.authed_url).connect()
            return await second._receive()  # the server's answer to the connection itself, then it closes it

        refused = run(one_too_many())
        assert refused["type"] == "error" and refused["data"]["code"] == "CAPACITY_REACHED", refused
        # the OpenEnv server dies under the open episode: finalstate tears the episode down and stops (exit 1)
        os.kill(one.python_pid(), signal.SIGKILL)
        assert one.process.wait(timeout=60) == 1
        one.wait_for_line(r"the OpenEnv server exited")
        one.wait_for_line(r"episode orphan-1 torn down")
    finally:
        one.stop()

    # a session idle past --session-idle-seconds is closed by OpenEnv's reaper, and its episode torn down
    async def idle():
        env = GenericEnvClient(base_url=two.authed_url)
        await env.reset(task_id=golden_task(0)["id"], episode_id="idle-1")
        await asyncio.to_thread(two.wait_for_line, r"episode idle-1 torn down")
        for again in [env.step({"type": "finish"}), env.reset(task_id=golden_task(0)["id"])]:
            with pytest.raises(RuntimeError, match="this session was closed"):
                await again

    run(idle())
    # finalstate is killed: the OpenEnv server sees its stdin close and exits
    python = two.python_pid()
    two.process.kill()
    two.process.wait()
    _wait_gone(python)
    assert not os.path.exists(f"/proc/{python}") or "zombie" in _state(python)


def _state(pid: int) -> str:
    try:
        return open(f"/proc/{pid}/status").read().split("State:")[1].split("\n")[0].lower()
    except (FileNotFoundError, IndexError):
        return "gone"


def _wait_gone(pid: int) -> None:
    """Block until `pid` (not our child) has exited: pidfd_open and poll on it, the kernel's own event."""
    import select

    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    try:
        select.select([fd], [], [], 60)
    finally:
        os.close(fd)
