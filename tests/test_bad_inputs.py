"""Every scenario in tests/bad_inputs/ gets an answer: through `tcplab validate`, `tcplab run` and
the API, within a time limit, an error that names the expected key (or a warning, or a run that
succeeds) and never a panic, a hang, an abort, a traceback or an "internal error".

The files and their expected answers are written by scripts/bad_inputs.py.
"""

from __future__ import annotations

import subprocess
import sys
import time
import tomllib
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import tcplab

FOLDER = Path(__file__).resolve().parent / "bad_inputs"
EXPECTED = tomllib.loads((FOLDER / "expected.toml").read_text(encoding="utf-8"))
# A bad input must be answered quickly: validation is linear in the file and refuses runs that
# would be too long before starting them.
TIME_LIMIT_S = 60
CRASH_SIGNS = ["Traceback", "internal error", "panicked", "memory allocation", "RUST_BACKTRACE"]


def _expectation(name: str) -> tuple[str, str]:
    return next(iter(EXPECTED[name].items()))


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tcplab", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=TIME_LIMIT_S)


def _check_answer(name: str, completed: subprocess.CompletedProcess) -> list[str]:
    """What is wrong with one CLI answer (empty when it is right)."""
    kind, value = _expectation(name)
    err = completed.stderr
    problems = [f"{name}: crash sign {sign!r} in {err[-300:]!r}" for sign in CRASH_SIGNS if sign in err]
    if kind == "key" and not (completed.returncode == 2 and err.startswith(f"error: {value}: ")):
        problems.append(f"{name}: expected exit 2 and 'error: {value}: ...', got {completed.returncode}: {err[:300]!r}")
    if kind == "text" and not (completed.returncode == 2 and err.startswith("error: ") and value in err):
        problems.append(f"{name}: expected exit 2 and an error containing {value!r}, got {completed.returncode}: {err[:300]!r}")
    if kind == "warn" and not (completed.returncode == 0 and f"warning: {value}: " in err):
        problems.append(f"{name}: expected success with 'warning: {value}: ...', got {completed.returncode}: {err[:300]!r}")
    if kind == "ok" and completed.returncode != 0:
        problems.append(f"{name}: expected success, got {completed.returncode}: {err[:300]!r}")
    return problems


def test_the_corpus_is_large_and_every_file_has_an_expectation():
    files = {path.name for path in FOLDER.glob("*.toml")} - {"expected.toml"}
    assert len(files) >= 100
    assert files == set(EXPECTED)


@pytest.mark.parametrize("command", ["validate", "run"])
def test_the_command_line_answers_every_bad_input(command, tmp_path):
    def answer(name: str) -> list[str]:
        workdir = tmp_path / name
        workdir.mkdir()
        extra = ["--quiet"]
        completed = _cli(command, str(FOLDER / name), *extra, cwd=workdir)
        problems = _check_answer(name, completed)
        if command == "run" and completed.returncode == 0:
            # Whatever the scenario's name, results land in one folder inside results/.
            written = [p for p in workdir.iterdir()]
            folders = list((workdir / "results").iterdir()) if (workdir / "results").is_dir() else []
            if [p.name for p in written] != ["results"] or len(folders) != 1 or not (folders[0] / "flows.parquet").is_file():
                problems.append(f"{name}: results written outside results/<name>/: {written} {folders}")
        return problems

    with ThreadPoolExecutor(max_workers=2) as pool:
        problems = [p for found in pool.map(answer, sorted(EXPECTED)) for p in found]
    assert not problems, "\n".join(problems)


def _api_answer(name: str) -> tuple[tcplab.ScenarioError | Exception | None, list[str]]:
    """The error `tcplab.validate` raised (or None) and the scenario warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            tcplab.validate(FOLDER / name)
            error = None
        except Exception as raised:  # noqa: BLE001 - the test's point: see what escapes
            error = raised
    return error, [str(w.message) for w in caught if issubclass(w.category, tcplab.ScenarioWarning)]


def test_the_api_answers_every_bad_input():
    # In-process calls cannot be killed; a hang here would also hang the CLI tests above, which
    # have a hard limit. Each call's time is checked against the same limit.
    problems = []
    for name in sorted(EXPECTED):
        kind, value = _expectation(name)
        started = time.monotonic()
        error, warned = _api_answer(name)
        if time.monotonic() - started > TIME_LIMIT_S:
            problems.append(f"{name}: the API took more than {TIME_LIMIT_S} s to answer")
        if error is not None and not isinstance(error, tcplab.ScenarioError):
            problems.append(f"{name}: {type(error).__name__} escaped: {error}")
        elif kind == "key" and getattr(error, "key", None) != value:
            problems.append(f"{name}: expected key {value!r}, got {error!r}")
        elif kind == "text" and (error is None or value not in str(error)):
            problems.append(f"{name}: expected an error containing {value!r}, got {error!r}")
        elif kind in ("warn", "ok") and error is not None:
            problems.append(f"{name}: expected no error, got {error}")
        elif kind == "warn" and not any(text.startswith(f"{value}: ") for text in warned):
            problems.append(f"{name}: expected a warning on {value!r}, got {warned}")
    assert not problems, "\n".join(problems)


# ----- the three bad inputs of issue 33 -----

def _many_flow_entries(path: Path, entries: int = 657_894) -> Path:
    """A 50 MB scenario of 657,894 [[flows]] entries of 9 flows each (the file of issue 33)."""
    base = (FOLDER / "flows-none.toml").read_text(encoding="utf-8")
    with path.open("w", encoding="utf-8") as out:
        out.write(base)
        for i in range(entries):
            out.write(f'[[flows]]\nname = "flow-{i:06d}"\ncc = "reno"\ncount = 9\nstart = "{i % 7}ms"\nsize = "1MB"\n')
    return path


def _limited_cli(*args: str, cwd: Path, address_space: int) -> subprocess.CompletedProcess:
    """The CLI with its address space limited as `ulimit -v` does."""
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))

    return subprocess.run([sys.executable, "-m", "tcplab", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=4 * TIME_LIMIT_S, preexec_fn=limit)


def test_run_refuses_half_a_million_flow_entries_as_validate_does_within_4_gb(tmp_path):
    # Issue 33 saw `tcplab run` abort on such a file under `ulimit -v 4000000` ("memory
    # allocation of 2046820352 bytes failed", exit 134) where `validate` refused it. Parsing held
    # every entry in the core's scenario model (for this file a vector of 1,048,576 entries of
    # 520 B) before the flows were counted; they are now counted, and refused with validate's
    # error, from the parsed document first.
    scenario = _many_flow_entries(tmp_path / "many.toml")
    assert scenario.stat().st_size > 50_000_000
    answers = {}
    for command in ("validate", "run"):
        completed = _limited_cli(command, str(scenario), "--quiet", cwd=tmp_path, address_space=4_000_000 * 1024)
        assert completed.returncode == 2, (command, completed.returncode, completed.stderr[-500:])
        assert not [sign for sign in CRASH_SIGNS if sign in completed.stderr], completed.stderr[-500:]
        answers[command] = completed.stderr
    assert answers["run"] == answers["validate"]
    # 657,894 entries of 9 flows.
    assert answers["run"].startswith("error: flows: 5921046 flows and the buffers' packets need about "), answers


def test_a_dict_nested_100000_deep_is_a_scenario_error():
    deep: dict = {}
    node = deep
    for _ in range(100_000):
        node["x"] = {}
        node = node["x"]
    scenario = tomllib.loads((FOLDER.parent.parent / "scenarios" / "quickstart.toml").read_text(encoding="utf-8"))
    scenario["simulation"]["deep"] = deep
    for call in (tcplab.run, tcplab.validate):
        with pytest.raises(tcplab.ScenarioError) as raised:
            call(scenario)
        assert raised.value.key == "simulation.deep" + ".x" * 63
        assert "nests lists or tables too deeply" in raised.value.message
    with pytest.raises(tcplab.ScenarioError, match="too deeply"):
        tcplab.run(deep)


def test_no_plots_is_accepted_as_the_default_it_has_become(tmp_path):
    quickstart = FOLDER.parent.parent / "scenarios" / "quickstart.toml"
    completed = _cli("run", str(quickstart), "--no-plots", "--quiet", "-t", "1s", "-o", str(tmp_path / "out"),
                     cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    written = {path.name for path in (tmp_path / "out").iterdir()}
    assert "flows.parquet" in written and not [name for name in written if name.endswith(".png")], written
