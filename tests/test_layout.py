"""The layout rules of docs/architecture.md hold: file and function lengths, no import circles."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _checker():
    spec = importlib.util.spec_from_file_location("check_layout", ROOT / "scripts" / "check_layout.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_tree_keeps_the_layout_rules():
    checker = _checker()
    assert checker.rust_problems() + checker.python_problems() == []


def test_the_checker_finds_circles_and_long_functions():
    checker = _checker()
    assert checker._cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert checker._cycles({"a": {"b"}, "b": set()}) == []
    rust = "\n".join(
        [
            "pub(crate) fn short(x: u32) -> u32 {",
            '    let s = "}}}";',
            "    x + 1 // }",
            "}",
            "trait T {",
            "    fn declared(&self);",
            "}",
            "fn long() {",
            *["    step();"] * 90,
            "}",
        ]
    )
    assert checker.rust_function_lengths(rust) == [("short", 1, 4), ("long", 8, 92)]


def test_python_imports_count_lazy_and_type_checking_imports(tmp_path):
    checker = _checker()
    module = tmp_path / "plots.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from tcplab.result import Result\n"
        "def f():\n    from tcplab import api, ScenarioError\n"
    )
    assert checker.python_imports(module, {"result", "api", "plots"}) == {"result", "api", "__init__"}
