"""`python -m finalstate_openenv.oracle_client`: oracle episodes played through OpenEnv's own client, N at once.

Reads a plan (a JSON list of {"task_id", "calls": [{"tool", "arguments"}], "closing"}) and plays each entry as the
oracle policy does in `finalstate run`: the task's golden calls, one step each, then its closing message to the
simulated user, who ends the conversation. Prints one JSON line: {"episodes", "passed", "infrastructure", "seconds"}.
bench/openenv-serve.ts runs it against `finalstate env serve --openenv`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time

from openenv.core.generic_client import GenericEnvClient


async def play(url: str, plan: list[dict], concurrency: int) -> dict:
    queue = list(reversed(plan))
    rewards: list[object] = []

    async def worker():
        async with GenericEnvClient(base_url=url, message_timeout_s=300) as env:
            while queue:
                entry = queue.pop()
                result = await env.reset(task_id=entry["task_id"])
                for call in entry["calls"]:
                    if result.done:
                        break
                    action = {"type": "call_tool", "tool_name": call["tool"], "arguments": call["arguments"]}
                    result = await env.step(action)
                if not result.done:
                    result = await env.step({"type": "message", "content": entry["closing"]})
                if not result.done:
                    result = await env.step({"type": "finish"})
                rewards.append(result.reward)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(min(concurrency, len(plan)))))
    return {
        "episodes": len(rewards),
        "passed": sum(1 for r in rewards if r == 1),
        "infrastructure": sum(1 for r in rewards if r is None),
        "seconds": time.perf_counter() - started,
    }


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m finalstate_openenv.oracle_client")
    parser.add_argument("--url", required=True, help="the server's base URL, with the token: http://finalstate:<token>@host:port")
    parser.add_argument("--plan", required=True, help="a JSON file: [{task_id, calls, closing}]")
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()
    with open(args.plan) as f:
        plan = json.load(f)
    print(json.dumps(asyncio.run(play(args.url, plan, args.concurrency))), flush=True)


if __name__ == "__main__":
    main()
