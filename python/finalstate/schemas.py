"""Validation against the JSON Schemas exported from schemas/*.ts (the one source of every payload shape).

Defaults are filled from the schemas' `default` keywords, so no default is re-declared in Python. jsonschema is
imported when something is validated: filling the defaults of a known-good skeleton (config.py's test and benchmark
configs) needs none of it, so the GPU check runs on an image without it (infra/gpu-check.sh).
"""

from __future__ import annotations

import copy
import functools
import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np

SCHEMA_DIR = Path(os.environ.get("FINALSTATE_SCHEMA_DIR", Path(__file__).resolve().parents[2] / "schemas" / "json"))


class SchemaError(ValueError):
    """An instance does not match its schema; the message names the schema and the offending path."""


@functools.cache
def _defaulting_validator():
    import jsonschema
    from jsonschema import validators

    return _with_defaults(jsonschema.Draft202012Validator, validators)


def _with_defaults(validator_class, validators):
    validate_properties = validator_class.VALIDATORS["properties"]

    def set_defaults(validator, properties, instance, schema):
        if isinstance(instance, dict):
            for name, sub in properties.items():
                if "default" in sub and name not in instance:
                    instance[name] = copy.deepcopy(sub["default"])
        yield from validate_properties(validator, properties, instance, schema)

    return validators.extend(validator_class, {"properties": set_defaults})


@functools.cache
def load_schema(name: str) -> dict[str, Any]:
    path = SCHEMA_DIR / f"{name}.schema.json"
    try:
        return json.loads(path.read_text())
    except FileNotFoundError as err:
        raise SchemaError(f"schema {name} not found at {path} (run `npm run build` to export schemas/json)") from err


def validate(name: str, instance: Any, *, where: str = "") -> Any:
    """Return a deep copy of `instance` with schema defaults filled in; raise SchemaError naming what is wrong."""
    import jsonschema

    filled = copy.deepcopy(instance)
    validator = _defaulting_validator()(load_schema(name))
    error = jsonschema.exceptions.best_match(validator.iter_errors(filled))
    if error is not None:
        location = "/".join(str(p) for p in error.absolute_path) or "(root)"
        origin = f" in {where}" if where else ""
        raise SchemaError(f"{name}{origin} does not match schemas/json/{name}.schema.json at {location}: {error.message}")
    return filled


def with_defaults(name: str, instance: dict) -> dict:
    """A deep copy of `instance` with the schema's defaults filled in, object by object, without validating it: for
    instances this package builds itself (config.py's defaults), where no input is checked."""

    def fill(schema: dict, value):
        if isinstance(value, dict):
            for key, sub in schema.get("properties", {}).items():
                if key not in value and "default" in sub:
                    value[key] = copy.deepcopy(sub["default"])
                if key in value:
                    fill(sub, value[key])
        return value

    return fill(load_schema(name), copy.deepcopy(instance))


def check_array_items(values: list, item_schema: dict, *, where: str) -> None:
    """Check a long array of numbers against its `items` schema (type, minimum, maximum) at list speed.

    jsonschema checks each number through its full machinery, about 20 us per item; token arrays have millions.
    """
    if isinstance(values, np.ndarray):
        return _check_ndarray_items(values, item_schema, where=where)
    kind = item_schema.get("type")
    if kind == "integer":
        bad = next((i for i, v in enumerate(values) if type(v) is not int), None)
        expected = "an integer"
    elif kind == "number":
        bad = next((i for i, v in enumerate(values) if type(v) not in (int, float) or not math.isfinite(v)), None)
        expected = "a finite number"
    else:
        raise ValueError(f"check_array_items handles integer and number items, not {kind!r}")
    if bad is not None:
        raise SchemaError(f"{where}/{bad}: {values[bad]!r} is not {expected}")
    if not values:
        return
    low, high = min(values), max(values)
    if "minimum" in item_schema and low < item_schema["minimum"]:
        index = values.index(low)
        raise SchemaError(f"{where}/{index}: {low!r} is less than the minimum of {item_schema['minimum']}")
    if "maximum" in item_schema and high > item_schema["maximum"]:
        index = values.index(high)
        raise SchemaError(f"{where}/{index}: {high!r} is greater than the maximum of {item_schema['maximum']}")


def _check_ndarray_items(values: np.ndarray, item_schema: dict, *, where: str) -> None:
    """check_array_items for a numpy array (a memory-mapped batch column), vectorised."""
    kind = item_schema.get("type")
    if kind == "integer" and values.dtype.kind not in "iu":
        raise SchemaError(f"{where}: a {values.dtype} array where integers are required")
    if kind == "number":
        if values.dtype.kind not in "iuf":
            raise SchemaError(f"{where}: a {values.dtype} array where numbers are required")
        finite = np.isfinite(values)
        if not finite.all():
            bad = int(np.argmin(finite))
            raise SchemaError(f"{where}/{bad}: {values[bad]!r} is not a finite number")
    if values.size == 0:
        return
    if "minimum" in item_schema and values.min() < item_schema["minimum"]:
        index = int(np.argmin(values))
        raise SchemaError(f"{where}/{index}: {values[index]} is less than the minimum of {item_schema['minimum']}")
    if "maximum" in item_schema and values.max() > item_schema["maximum"]:
        index = int(np.argmax(values))
        raise SchemaError(f"{where}/{index}: {values[index]} is greater than the maximum of {item_schema['maximum']}")
