"""`python -m finalstate.token_scores < REQUEST.json`: print the TokenScoreReport of a TokenScoreRequest (one JSON line)."""

from __future__ import annotations

import json
import sys

from finalstate.schemas import validate
from finalstate.token_scores import score


def main() -> None:
    request = validate("TokenScoreRequest", json.load(sys.stdin), where="stdin")
    print(json.dumps(score(request)))


if __name__ == "__main__":
    main()
