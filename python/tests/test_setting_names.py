"""Each training setting has one TypeScript name (the payload key) and one Python name, mapped in one place: the exported
PolicyUpdateInput schema (its zod `.meta({ python })`), which finalstate/config.py reads."""

import re
from pathlib import Path

from finalstate.config import LossConfig, ts_name

PACKAGE = Path(__file__).resolve().parents[1] / "finalstate"


def _spellings(pattern: str) -> dict[str, set[str]]:
    """Every word matching `pattern` in the package's sources, with the files it appears in."""
    found: dict[str, set[str]] = {}
    for file in sorted(PACKAGE.rglob("*.py")):
        for word in re.findall(pattern, file.read_text()):
            found.setdefault(word, set()).add(str(file.relative_to(PACKAGE)))
    return found


def test_std_normalisation_is_spelt_normalizeStd_in_the_payload_and_one_way_in_python():
    assert ts_name(LossConfig, "norm_adv_by_std_in_grpo") == "normalizeStd"
    found = _spellings(r"(?i)\b\w*norm\w*std\w*\b")
    # the payload's spelling is the schema's alone: no Python source spells it
    assert found == {"norm_adv_by_std_in_grpo": found["norm_adv_by_std_in_grpo"]}
