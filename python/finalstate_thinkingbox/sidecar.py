"""The JSON-lines loop: one request object a line on stdin, one answer object a line on stdout."""

import json
import logging
import os
import sys
import traceback

from finalstate_thinkingbox.errors import OpError

log = logging.getLogger("finalstate_thinkingbox")


def answer(request_line: str) -> dict:
    from finalstate_thinkingbox.ops import OPS

    try:
        request = json.loads(request_line)
    except ValueError as e:
        return {"ok": False, "kind": "bad_request", "message": f"not a JSON line: {e}"}
    if not isinstance(request, dict):
        return {"ok": False, "kind": "bad_request", "message": "a request is a JSON object"}
    op = request.get("op")
    handler = OPS.get(op)
    if handler is None:
        return {"ok": False, "kind": "unknown_op", "message": f"unknown op {op!r}; known: {', '.join(OPS)}"}
    try:
        return {"ok": True, **handler(request)}
    except OpError as e:
        return {"ok": False, "kind": e.kind, "message": e.message}
    except KeyError as e:
        return {"ok": False, "kind": "bad_request", "message": f"{op}: missing field {e}"}
    except BaseException as e:  # a test body's sys.exit() too: the sidecar outlives any one request
        if isinstance(e, KeyboardInterrupt):
            raise
        log.error("%s failed:\n%s", op, traceback.format_exc())
        return {"ok": False, "kind": "internal", "message": f"{op}: {type(e).__name__}: {e}"}


def protocol_stdout():
    """The real stdout for answers; file descriptor 1 then goes to stderr, so that nothing else (a test body's
    sys.stdout.write, a library's print, a child process) can put a line into the protocol."""
    out = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out


def main():
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="finalstate_thinkingbox %(levelname)s %(message)s")
    out = protocol_stdout()
    for line in sys.stdin:
        if not line.strip():
            continue
        out.write(json.dumps(answer(line), ensure_ascii=False, default=str) + "\n")
        out.flush()
