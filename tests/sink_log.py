"""Reading a filesystem sink as Spark's readers do, without Spark: only the files its
``_spark_metadata`` log commits. A file written by a batch that a stop or a kill interrupted is
never committed, and a reader never sees it."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlparse


def committed_files(sink: Path) -> set[Path]:
    """The files the filesystem sink committed: those its ``_spark_metadata`` log adds (batch
    files and compactions, which repeat what the batches before them added)."""
    names: set[Path] = set()
    log = sink / "_spark_metadata"
    for entry in sorted(log.iterdir()) if log.exists() else ():
        if not entry.name.split(".")[0].isdigit():  # a temporary file of a log write in progress
            continue
        for line in entry.read_text().splitlines()[1:]:  # the first line is the log's version
            item = json.loads(line)
            if item.get("action", "add") == "add":
                names.add(Path(urlparse(item["path"]).path))
    return names


def committed_lines(sink: Path) -> list[dict]:
    """The JSON rows of the committed files."""
    return [json.loads(line) for f in sorted(committed_files(sink)) for line in f.read_text().splitlines() if line.strip()]
