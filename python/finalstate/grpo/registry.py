"""Functions registered by name, as verl's core_algos registers its advantage estimators and policy losses: the
update looks each one up by the config value that selects it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

F = TypeVar("F", bound=Callable)


class Registry(Generic[F]):
    def __init__(self, kind: str):
        self.kind = kind  # what an entry is, in errors: "advantage estimator", ...
        self._entries: dict[str, F] = {}

    def register(self, name: str) -> Callable[[F], F]:
        """A decorator that registers its function under `name`."""

        def register(fn: F) -> F:
            if self._entries.get(name, fn) is not fn:
                raise ValueError(f"{self.kind} {name!r} is registered twice")
            self._entries[name] = fn
            return fn

        return register

    def get(self, name: str) -> F:
        if name not in self._entries:
            raise ValueError(f"unknown {self.kind} {name!r}; known: {', '.join(map(repr, self.names()))}")
        return self._entries[name]

    def names(self) -> tuple[str, ...]:
        return tuple(self._entries)
