"""finalstate's Python side: the GRPO trainer (grpo, gpu_worker) and the policy server (policy_server)."""
