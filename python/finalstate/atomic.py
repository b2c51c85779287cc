"""Directories that appear complete or not at all: written under a temporary name, marked, fsynced, renamed."""

from __future__ import annotations

import contextlib
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

COMPLETE_MARKER = "COMPLETE"


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def is_complete(path: Path) -> bool:
    return (path / COMPLETE_MARKER).is_file()


def remove_temporaries(final: Path) -> None:
    """Drop what crashed writes of `final` left behind."""
    if final.parent.is_dir():
        for path in final.parent.glob(f".tmp-{final.name}-*"):
            shutil.rmtree(path, ignore_errors=True)


def begin_directory(final: Path) -> Path:
    """A fresh temporary directory beside `final`, to be filled and then committed with `commit_directory`."""
    final.parent.mkdir(parents=True, exist_ok=True)
    temporary = final.parent / f".tmp-{final.name}-{uuid.uuid4().hex}"
    temporary.mkdir()
    return temporary


def commit_directory(temporary: Path, final: Path) -> None:
    """fsync what `temporary` holds, mark it complete, and rename it to `final` (replacing a previous `final`)."""
    for file in temporary.rglob("*"):
        if file.is_file():
            with open(file, "rb") as handle:
                os.fsync(handle.fileno())
    (temporary / COMPLETE_MARKER).write_text("ok\n")
    fsync_dir(temporary)
    if final.exists():
        shutil.rmtree(final)
    os.rename(temporary, final)
    fsync_dir(final.parent)


@contextlib.contextmanager
def atomic_directory(final: Path) -> Iterator[Path]:
    """Yield a temporary directory beside `final`; on success it is marked complete and renamed to `final`.

    A previous `final` (incomplete, or replaced on purpose) is removed first; on failure nothing of the write stays.
    """
    temporary = begin_directory(final)
    try:
        yield temporary
        commit_directory(temporary, final)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
