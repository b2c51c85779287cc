"""A small OpenAI-compatible (vLLM-subset) completion server for the current policy checkpoint."""
