import json
import os
import subprocess
import sys
from pathlib import Path

import finalstate_thinkingbox

PYTHON_DIR = Path(finalstate_thinkingbox.__file__).resolve().parents[1]


def test_two_requests_on_one_process_and_nothing_else_on_stdout():
    noisy_body = "import sys\ndef check(x, judge):\n    sys.stdout.write('noise\\n')\n    print('captured')\n__tb_test_fn = check\n"
    requests = [
        {"op": "ping"},
        "this is not JSON",
        {"op": "grade", "uid": "f.py:check", "testCode": noisy_body, "messages": [], "toolCalls": [], "effects": {},
         "initResult": {}, "sessionId": "s", "judge": None},
        {"op": "apply_tool_overrides", "tools": [{"name": "t", "description": "d", "inputSchema": {}}], "overrides": []},
    ]
    stdin = "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in requests)
    done = subprocess.run([sys.executable, "-m", "finalstate_thinkingbox"], input=stdin, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(PYTHON_DIR)}, check=True)
    lines = done.stdout.splitlines()
    assert len(lines) == 4, done.stdout
    ping, bad, graded, tools = (json.loads(line) for line in lines)
    assert ping["ok"] and ping["thinkingbox"]["version"]
    assert bad == {"ok": False, "kind": "bad_request", "message": bad["message"]}
    assert graded["ok"] and graded["result"] is True and graded["prints"] == "captured\n"
    assert tools["ok"] and tools["tools"][0]["name"] == "t"
    assert "noise" in done.stderr
