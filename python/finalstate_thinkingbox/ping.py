"""op ping: which ThinkingBox answers."""

import sys
from importlib import metadata
from pathlib import Path

import thinkingbox


def handle(request: dict) -> dict:
    package_dir = Path(thinkingbox.__file__).resolve().parent
    # infra/setup-thinkingbox.sh copies ThinkingBox to <copy>/thinkingbox/ and writes <copy>/.source.sha256.
    stamp = package_dir.parents[1] / ".source.sha256"
    return {
        "thinkingbox": {
            "version": metadata.version("thinkingbox"),
            "path": str(package_dir),
            "sourceSha256": stamp.read_text().strip() if stamp.is_file() else None,
            "fastmcp": metadata.version("fastmcp"),
            "mcp": metadata.version("mcp"),
            "python": sys.version.split()[0],
        }
    }
