"""Where drill keeps its files ($DRILL_HOME, else click's app dir) and how it writes one: atomically."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

import click


def home() -> Path:
    return Path(os.environ.get("DRILL_HOME") or click.get_app_dir("drill"))


def current_umask() -> int:
    """The process's umask, read without changing it where Linux says it (/proc/self/status): setting it to read
    it would, for a moment, change the mode of files other threads create."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


def atomic_write_text(path: Path, text: str, mode: int | None = None) -> None:
    """Write text to path through a temp file and a rename. mode: the new file's permissions less the umask
    (0o666 for a file the learner edits); by default mkstemp's 0600 (drill's own state)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=str(path.parent))
    try:
        if mode is not None:
            os.fchmod(fd, mode & ~current_umask())
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
