import asyncio
import hashlib

from temporalio.testing import ActivityEnvironment

from finalstate.smoke_worker import EchoInput, smoke_echo


def test_smoke_echo_hashes_the_text():
    result = asyncio.run(ActivityEnvironment().run(smoke_echo, EchoInput(text="final state")))
    assert result["text"] == "final state"
    assert result["sha256"] == hashlib.sha256(b"final state").hexdigest()
    assert result["worker"].startswith("python@")
