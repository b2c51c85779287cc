"""Failure types (Temporal ApplicationError.type) the workflows tell apart, read from the exported JSON Schema
(schemas/json/FailureType.schema.json, from core/failure-types.ts), so no string is copied by hand."""

from __future__ import annotations

from .schemas import SchemaError, load_schema

KNOWN = frozenset(load_schema("FailureType")["enum"])


def failure_type(name: str) -> str:
    if name not in KNOWN:
        raise SchemaError(f"failure type {name!r} is not in schemas/json/FailureType.schema.json ({sorted(KNOWN)})")
    return name


UNUSABLE_BATCH = failure_type("UnusableBatch")
UNUSABLE_POLICY_UPDATE_INPUT = failure_type("UnusablePolicyUpdateInput")
GPU_RANK_FAILURE = failure_type("GpuRankFailure")
