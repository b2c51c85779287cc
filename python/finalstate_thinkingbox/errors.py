"""The failures an op answers with `{"ok": false, "kind": ..., "message": ...}`."""


class OpError(Exception):
    """A failure with the kind the caller sees: malformed (the task's fault), bad_request, judge_unreachable, ..."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind
        self.message = message


class EndpointUnreachable(Exception):
    """An LLM endpoint that could not answer: connection refused, a timeout, a 5xx."""


class EndpointRejected(Exception):
    """An LLM endpoint that answered, but not with a completion: a 4xx, or a body that is not a chat completion."""
