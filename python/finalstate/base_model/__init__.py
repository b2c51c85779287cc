"""The tiny base model built locally: BPE tokenizer, a ~1M-parameter Qwen3 model and SFT on rendered demonstrations."""
