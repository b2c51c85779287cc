"""The sidecar's dispatch table: op name -> handler(request dict) -> answer dict (without "ok")."""

from finalstate_thinkingbox import (
    agent_request,
    apply_tool_overrides,
    direct_response,
    grade,
    hydrate,
    oracle_runner,
    ping,
    simulate_user,
)

OPS = {
    "ping": ping.handle,
    "hydrate": hydrate.handle,
    "grade": grade.handle,
    "simulate_user": simulate_user.handle,
    "agent_request": agent_request.handle,
    "apply_tool_overrides": apply_tool_overrides.handle,
    "direct_response": direct_response.handle,
    "run_oracle_thinkingbox": oracle_runner.handle,
}
