"""Experiment tracking: a campaign's step and evaluation scalars to TensorBoard and Weights & Biases."""

from .metrics_logger import MetricsLogger, wandb_run_id

__all__ = ["MetricsLogger", "wandb_run_id"]
