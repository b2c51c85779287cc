"""`python -m finalstate.testing.tokenizer_pipe DIR [--vllm]`: a Hugging Face tokenizer over stdin/stdout, one JSON line each way.

First line: {"ready", "vocabSize", "addedTokens"} (the added tokens' spellings, as the model check reports them);
then {"tokenize": TEXT} -> {"ids": [...]} and {"detokenize": [IDS]} -> {"text": ...}, with the semantics of the policy
server's and vLLM's /tokenize (add_special_tokens false) and /detokenize (special tokens kept): the TypeScript
trajectory tests run the drift check against real tokenizers through it, without a model behind them. With --vllm
(run by vLLM's venv), the tokenizer is loaded as vLLM loads it (`vllm.tokenizers.get_tokenizer`: its registry, then
transformers 5), which need not read the same files the way the project's transformers does.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from typing import Any


def load(directory: str, through_vllm: bool) -> Any:
    if not through_vllm:
        from transformers import AutoTokenizer

        return AutoTokenizer.from_pretrained(directory)
    with contextlib.redirect_stdout(sys.stderr):  # vLLM logs to stdout, which carries the answers
        from vllm.tokenizers import get_tokenizer

        return get_tokenizer(directory)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m finalstate.testing.tokenizer_pipe")
    parser.add_argument("directory")
    parser.add_argument("--vllm", action="store_true", help="load the tokenizer through vLLM (run with vLLM's venv)")
    args = parser.parse_args()
    tokenizer = load(args.directory, args.vllm)
    added = [token.content for _, token in sorted(tokenizer.added_tokens_decoder.items())]
    print(json.dumps({"ready": True, "vocabSize": len(tokenizer), "addedTokens": added}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        if "tokenize" in request:
            answer = {"ids": tokenizer(request["tokenize"], add_special_tokens=False)["input_ids"]}
        else:
            answer = {"text": tokenizer.decode(request["detokenize"], skip_special_tokens=False)}
        print(json.dumps(answer, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
