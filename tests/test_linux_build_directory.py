"""`tcplab lab cleanup` removes the BPF build directories of killed runs and only those."""

import os
import subprocess
import sys
import tempfile

from tcplab.backends.linux import build_directory


def test_only_the_directories_of_runs_whose_process_is_gone_are_removed(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(ended.stdout)
    killed = tmp_path / f"{build_directory.PREFIX}{dead_pid}-abc"
    older = tmp_path / f"{build_directory.PREFIX}xyz123"  # named before names carried a pid
    killed.mkdir()
    older.mkdir()
    (killed / "tcplab_cubic.bpf.o").write_bytes(b"\0")
    with build_directory.create() as running:
        assert os.path.basename(running).startswith(f"{build_directory.PREFIX}{os.getpid()}-")
        removed = build_directory.remove_stale()
        assert sorted(removed) == sorted([killed, older])
        assert os.path.isdir(running) and not killed.exists() and not older.exists()
    assert build_directory.remove_stale() == []
