"""The venv setup builds must be exactly python/requirements.lock, and the lock must honour requirements.txt."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

PYTHON_DIR = Path(__file__).resolve().parents[1]


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pins(path: Path) -> dict[str, str]:
    pins: dict[str, str] = {}
    for number, raw in enumerate(path.read_text().splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        assert sep, f"{path.name}:{number}: '{line}' is not an exact pin (name==version)"
        pins[_normalize(name)] = version
    return pins


def test_lock_pins_every_requirement_at_the_same_version():
    requirements = _pins(PYTHON_DIR / "requirements.txt")
    lock = _pins(PYTHON_DIR / "requirements.lock")
    assert requirements, "requirements.txt pins nothing"
    mismatched = {name: (version, lock.get(name)) for name, version in requirements.items() if lock.get(name) != version}
    assert not mismatched, f"requirements.txt vs requirements.lock (run infra/lock-python.sh): {mismatched}"


def test_installed_venv_is_the_lock():
    lock = _pins(PYTHON_DIR / "requirements.lock")
    installed = {_normalize(dist.metadata["Name"]): dist.version for dist in metadata.distributions()}
    wrong = {name: (version, installed.get(name)) for name, version in lock.items() if installed.get(name) != version}
    assert not wrong, f"locked version vs installed: {wrong}"
    project = _normalize(tomllib.loads((PYTHON_DIR / "pyproject.toml").read_text())["project"]["name"])  # installed editable
    extra = sorted(set(installed) - set(lock) - {"pip", "setuptools", "wheel", project})
    assert not extra, f"installed but not locked: {extra}"
