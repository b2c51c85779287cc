"""`python -m finalstate.tracking.read_back RUN_DIR`: print the scalars of a TensorBoard run as JSON.

Read with TensorBoard's own event accumulator, the way `tensorboard --logdir` reads them:
{"train/mean_reward": [[step, value], ...], ...}, each tag's points in step order (the last write of a step wins).
"""

from __future__ import annotations

import json
import sys


def read_scalars(run_dir: str) -> dict[str, list[list[float]]]:
    from tensorboard.backend.event_processing.event_accumulator import TENSORS, EventAccumulator
    from tensorboard.util import tensor_util

    accumulator = EventAccumulator(run_dir, size_guidance={TENSORS: 0})
    accumulator.Reload()
    out: dict[str, list[list[float]]] = {}
    for tag in accumulator.Tags()["tensors"]:
        by_step: dict[int, float] = {}
        for event in accumulator.Tensors(tag):
            by_step[event.step] = float(tensor_util.make_ndarray(event.tensor_proto).item())
        out[tag] = [[step, by_step[step]] for step in sorted(by_step)]
    return out


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        sys.exit("usage: python -m finalstate.tracking.read_back RUN_DIR")
    print(json.dumps(read_scalars(args[0]), sort_keys=True))


if __name__ == "__main__":
    main()
