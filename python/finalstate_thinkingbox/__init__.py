"""ThinkingBox (Microsoft's agent evaluation framework) for finalstate, run in its own venv (.venv-thinkingbox).

`python -m finalstate_thinkingbox` is a long-lived sidecar: one JSON request a line on stdin, one JSON answer a line on
stdout (`{"ok": true, ...}` or `{"ok": false, "kind": ..., "message": ...}`), logs on stderr. Every op calls
ThinkingBox's own modules (hydrator, recursive merge, TestScript, Judge, UserSimulator, AOAISession, tool overrides);
nothing of ThinkingBox is copied here. The ops are listed in ops.py.
"""
