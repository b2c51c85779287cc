"""The Temporal worker of the `gpu` task queue: the `policyUpdate` activity and its checkpoints."""
