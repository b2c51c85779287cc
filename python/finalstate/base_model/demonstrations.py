"""Reading SftDemonstration JSONL (schemas/training.ts) and turning assistant spans into a token loss mask."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..schemas import SchemaError, validate


class DemonstrationError(ValueError):
    """The demonstrations file cannot be used; the message names the file and line."""


@dataclass(frozen=True)
class Demonstration:
    text: str
    assistant_spans: tuple[tuple[int, int], ...]  # Python string indices


def utf16_to_python_index(text: str) -> list[int]:
    """Map every UTF-16 offset (JavaScript string index) of `text`, end included, to a Python index."""
    mapping = []
    for index, char in enumerate(text):
        mapping.extend([index] * (2 if ord(char) > 0xFFFF else 1))
    mapping.append(len(text))
    return mapping


def load_demonstrations(path: str | Path) -> list[Demonstration]:
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError as err:
        raise DemonstrationError(f"demonstrations file {path} does not exist") from err
    demonstrations = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            record = validate("SftDemonstration", json.loads(line), where=where)
        except (json.JSONDecodeError, SchemaError) as err:
            raise DemonstrationError(f"{where}: {err}") from err
        text = record["text"]
        to_index = utf16_to_python_index(text)
        spans = []
        previous_end = 0
        for start, end in record["assistantSpans"]:
            if not (previous_end <= start < end < len(to_index)):
                raise DemonstrationError(f"{where}: assistant span [{start}, {end}) is empty, out of order or outside the text")
            spans.append((to_index[start], to_index[end]))
            previous_end = end
        demonstrations.append(Demonstration(text, tuple(spans)))
    if not demonstrations:
        raise DemonstrationError(f"demonstrations file {path} has no demonstrations")
    return demonstrations


def assistant_token_mask(offsets: list[tuple[int, int]], spans: tuple[tuple[int, int], ...]) -> list[int]:
    """1 for each token that starts inside an assistant span (the tokens the model is trained to write)."""
    mask = []
    span_index = 0
    for start, end in offsets:
        while span_index < len(spans) and spans[span_index][1] <= start:
            span_index += 1
        inside = span_index < len(spans) and spans[span_index][0] <= start < spans[span_index][1] and end > start
        mask.append(1 if inside else 0)
    return mask
