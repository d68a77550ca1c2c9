"""Metrics to the console, to train_log.jsonl and, when enabled, to the accelerate trackers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from accelerate import Accelerator

from nmt_sparql.atomic import atomic_write_text


class MetricsLog:
    """The JSONL log is rewritten atomically on each record; on resume it keeps only the records
    up to the checkpoint's step, so it always describes the run the weights come from."""

    def __init__(self, path: Path, accelerator: Accelerator, resume_step: int | None) -> None:
        self.path, self.accelerator = path, accelerator
        self.records: list[dict[str, Any]] = []
        if resume_step is not None and path.exists():
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{path}:{number}: not a JSON record ({exc})") from exc
                if record.get("step", 0) <= resume_step:
                    self.records.append(record)

    def write(self, record: dict[str, Any], console: bool = False) -> None:
        self.records.append(record)
        if self.accelerator.is_main_process:
            atomic_write_text(self.path, "".join(json.dumps(r) + "\n" for r in self.records))
        numbers = {k: v for k, v in record.items() if isinstance(v, (int, float)) and k != "step"}
        if self.accelerator.trackers:
            self.accelerator.log(
                {f"{record['event']}/{k}": v for k, v in numbers.items()}, step=record["step"]
            )
        if console:
            shown = " ".join(
                f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in record.items()
            )
            self.accelerator.print(shown)
