"""One writer per run folder: a second `train` into a folder another process is writing stops at once,
naming the folder and that process; the lock goes with its holder, so a crashed run's resume is free."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from nmt_sparql.cli import main
from nmt_sparql.training.lock import LOCK_FILE, RunFolderLocked, run_folder_lock

HOLD = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
fcntl.flock(fd, fcntl.LOCK_EX)
os.write(fd, f"{os.getpid()}\\n".encode())
print("locked", flush=True)
time.sleep(120)
"""


def test_a_second_writer_is_refused_and_the_lock_is_released_on_exit(tmp_path: Path) -> None:
    with run_folder_lock(tmp_path):
        assert (tmp_path / LOCK_FILE).read_text().strip() == str(os.getpid())
        second = pytest.raises(RunFolderLocked, match=rf"{tmp_path}: another .* \(pid {os.getpid()}\)")
        with second, run_folder_lock(tmp_path):
            pass
    with run_folder_lock(tmp_path):  # released
        pass


def test_a_killed_holder_leaves_no_stale_lock(tmp_path: Path) -> None:
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(tmp_path / LOCK_FILE)], stdout=subprocess.PIPE)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == b"locked"
        with pytest.raises(RunFolderLocked, match=rf"pid {holder.pid}\)"), run_folder_lock(tmp_path):
            pass
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    with run_folder_lock(tmp_path):  # the crashed run's resume goes on
        assert (tmp_path / LOCK_FILE).read_text().strip() == str(os.getpid())


def test_train_refuses_a_run_folder_another_process_is_writing(tmp_path: Path) -> None:
    run = tmp_path / "run"
    with run_folder_lock(run), pytest.raises(SystemExit, match=rf"{run}: another .* \(pid {os.getpid()}\)"):
        main(["train", "train.max_steps=1", "evaluate=false", f"data.dir={tmp_path / 'data'}",
              f"hydra.run.dir={run}"])  # fmt: skip
    assert not (run / "config.yaml").exists() and not (run / "tokenizer").exists()
