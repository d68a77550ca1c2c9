"""One writer per run folder: an exclusive lock held for the whole `train` run.

Two runs writing one folder would interleave train_log.jsonl and swap checkpoints under each other.
The lock is `flock` on RUN_DIR/.lock, which the kernel releases when the process ends, however it
ends: a crashed run leaves the file but no lock, so its resume is never blocked by a stale lock.
The file holds the owner's pid, only to name it in the error a second writer gets.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_FILE = ".lock"


class RunFolderLocked(RuntimeError):
    """Another process is writing the run folder."""


@contextmanager
def run_folder_lock(folder: str | Path) -> Iterator[None]:
    """Hold the run folder's lock for the `with` block; RunFolderLocked at once if another holds it."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOCK_FILE
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            owner = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            raise RunFolderLocked(
                f"{folder}: another `nmt-sparql train` (pid {owner}) is writing this run folder; "
                "wait for it to finish, or train into another folder (hydra.run.dir=...)"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock
