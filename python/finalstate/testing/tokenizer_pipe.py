"""`python -m finalstate.testing.tokenizer_pipe DIR`: a Hugging Face tokenizer over stdin/stdout, one JSON line each way.

First line: {"ready", "vocabSize", "addedTokens"} (the added tokens' spellings, as the model check reports them);
then {"tokenize": TEXT} -> {"ids": [...]} and {"detokenize": [IDS]} -> {"text": ...}, with the semantics of the policy
server's and vLLM's /tokenize (add_special_tokens false) and /detokenize (special tokens kept): the TypeScript
trajectory tests run the drift check against real tokenizers through it, without a model behind them.
"""

from __future__ import annotations

import json
import sys

from transformers import AutoTokenizer


def main() -> None:
    tokenizer = AutoTokenizer.from_pretrained(sys.argv[1])
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
