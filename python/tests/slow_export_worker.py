"""Test helper run by torchrun: the gpu worker with rank 0's export write delayed by SLOW_EXPORT_S seconds (slow
shared storage, simulated), to show that the other ranks do not wait for it in a collective of the update."""

from __future__ import annotations

import os
import time

import finalstate.gpu_worker.checkpoints as checkpoints
from finalstate.gpu_worker.__main__ import main

real_write_export = checkpoints.write_export


def slow_write_export(*args, **kwargs):
    time.sleep(float(os.environ["SLOW_EXPORT_S"]))
    return real_write_export(*args, **kwargs)


checkpoints.write_export = slow_write_export

if __name__ == "__main__":
    main()
