"""Runs another simulator's process (ns-2's `ns`, the ns-3 engine) with a progress bar fed by the
'progress T' lines it writes to standard error; everything else it writes goes to a log file."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

# Lines of an engine's own output kept for an error message.
KEPT_OUTPUT_LINES = 20


def run_with_progress(command: list[str], log_path: Path, duration_s: float, progress: bool, label: str,
                      cwd: Path | None = None) -> int:
    """The process's exit code; Ctrl-C kills it."""
    bar = _progress_bar(duration_s, label) if progress else None
    with log_path.open("w", encoding="utf-8") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.PIPE, text=True, cwd=cwd)
        try:
            for line in process.stderr:
                if line.startswith("progress "):
                    if bar is not None:
                        bar[0].update(bar[1], completed=float(line.split()[1]))
                    continue
                log.write(line)
            return process.wait()
        except BaseException:
            process.kill()
            process.wait()
            raise
        finally:
            if bar is not None:
                bar[0].stop()


def last_lines(log_path: Path) -> str:
    return "\n".join(log_path.read_text(encoding="utf-8", errors="replace").splitlines()[-KEPT_OUTPUT_LINES:])


def _progress_bar(total_s: float, label: str) -> tuple[Any, Any]:
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    bar = Progress(TextColumn(label), BarColumn(), TextColumn("{task.completed:.1f} / {task.total:.1f} s simulated"),
                   TimeElapsedColumn(), TimeRemainingColumn(), transient=True)
    task = bar.add_task(label, total=total_s)
    bar.start()
    return bar, task
