"""Python side of finalstate: the GPU trainer worker, the policy server and the base-model build."""
