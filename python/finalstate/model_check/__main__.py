"""`python -m finalstate.model_check < REQUEST.json`: print the ModelCheckReport of a ModelCheckRequest (one JSON line)."""

from __future__ import annotations

import json
import sys

from finalstate.model_check import check
from finalstate.schemas import validate


def main() -> None:
    request = validate("ModelCheckRequest", json.load(sys.stdin), where="stdin")
    print(json.dumps(check(request), ensure_ascii=False))


if __name__ == "__main__":
    main()
