"""Checks the code layout rules of docs/architecture.md and prints every breach.

    python scripts/check_layout.py

Rules:
- no file in crates/tcplab-core/src longer than 700 lines, and no Rust function there longer
  than 80 lines;
- no import circle between the core crate's layers (its top-level modules), nor between the files
  of one folder (a folder's mod.rs declares its files, so edges to it are not counted);
- no import circle between the modules of the Python package, counting every import: at module
  level, inside functions and under TYPE_CHECKING.

Exits 1 when a rule is broken; tests/test_layout.py runs it.
"""

from __future__ import annotations

import ast
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "crates" / "tcplab-core" / "src"
PACKAGE = ROOT / "python" / "tcplab"

MAX_FILE_LINES = 700
MAX_FUNCTION_LINES = 80

_FN = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:unsafe\s+)?fn\s+(\w+)")


def _strip_rust_line(line: str) -> str:
    """The line without string and char literals and line comments, so braces can be counted."""
    line = re.sub(r'"(?:\\.|[^"\\])*"', '""', line)
    line = re.sub(r"'(?:\\.|[^'\\])'", "''", line)
    return line.split("//", 1)[0]


def rust_function_lengths(text: str) -> list[tuple[str, int, int]]:
    """(name, first line, length in lines) of every function with a body."""
    lines = text.splitlines()
    found = []
    for start, line in enumerate(lines):
        match = _FN.match(line)
        if not match:
            continue
        depth, opened = 0, False
        for end in range(start, len(lines)):
            code = _strip_rust_line(lines[end])
            if not opened and ";" in code and "{" not in code:
                break  # a declaration without a body (trait method)
            depth += code.count("{") - code.count("}")
            opened = opened or "{" in code
            if opened and depth <= 0:
                found.append((match.group(1), start + 1, end - start + 1))
                break
    return found


def _rust_modules() -> dict[str, Path]:
    """Module path relative to src ('cc/cubic', 'simulation') -> file."""
    modules = {}
    for path in sorted(CORE.rglob("*.rs")):
        rel = path.relative_to(CORE).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "mod":
            parts = parts[:-1]
        if parts == ["lib"]:
            continue
        modules["/".join(parts)] = path
    return modules


def _rust_references(path: Path, module: str, modules: dict[str, Path]) -> set[str]:
    """The modules this file names: `crate::a::b` paths and `super::x` paths, resolved to files."""
    text = "\n".join(_strip_rust_line(line) for line in path.read_text().splitlines())
    targets = set()
    for chain in re.findall(r"crate((?:::\w+)+)", text):
        parts = chain.strip(":").split("::")
        for n in range(len(parts), 0, -1):
            candidate = "/".join(parts[:n])
            if candidate in modules:
                targets.add(candidate)
                break
    # `super::x::Y`: x is a file beside this one (tests' `use super::*` names no file).
    # In a/b.rs and in a/b/mod.rs alike, `super` is module a.
    folder = module.rsplit("/", 1)[0] + "/" if "/" in module else ""
    for chain in re.findall(r"\bsuper((?:::\w+)+)", text):
        parts = [p for p in chain.strip(":").split("::") if p != "super"]
        if parts and f"{folder}{parts[0]}" in modules:
            targets.add(f"{folder}{parts[0]}")
    targets.discard(module)
    return targets


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component with more than one node (Tarjan)."""
    index, low, stack, on_stack, result = {}, {}, [], set(), []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                result.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return result


def rust_layer_graph() -> dict[str, set[str]]:
    """Core layer -> the layers its files name."""
    modules = _rust_modules()
    layers: dict[str, set[str]] = defaultdict(set)
    for module, path in modules.items():
        layer = module.split("/")[0]
        layers[layer]
        for target in _rust_references(path, module, modules):
            if target.split("/")[0] != layer:
                layers[layer].add(target.split("/")[0])
    return dict(layers)


def rust_problems() -> list[str]:
    problems = []
    modules = _rust_modules()
    siblings: dict[str, set[str]] = defaultdict(set)
    for module, path in modules.items():
        rel = path.relative_to(CORE).as_posix()
        text = path.read_text()
        count = text.count("\n")
        if count > MAX_FILE_LINES:
            problems.append(f"{rel}: {count} lines (at most {MAX_FILE_LINES})")
        for name, line, length in rust_function_lengths(text):
            if length > MAX_FUNCTION_LINES:
                problems.append(f"{rel}:{line}: fn {name} has {length} lines (at most {MAX_FUNCTION_LINES})")
        folder = module.rsplit("/", 1)[0] if "/" in module else None
        for target in _rust_references(path, module, modules):
            if folder and path.name != "mod.rs" and "/" in target and target.rsplit("/", 1)[0] == folder:
                siblings[module].add(target)
    for cycle in _cycles(rust_layer_graph()):
        problems.append("import circle between core layers: " + " <-> ".join(cycle))
    for cycle in _cycles(siblings):
        problems.append("import circle between core files: " + " <-> ".join(cycle))
    return problems


def _python_modules() -> dict[str, Path]:
    """Dotted module names inside the package ('api', 'sweeps', 'sweeps.plan'; '__init__' for the
    package itself) -> file."""
    modules = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__" and len(parts) > 1:
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


def _resolve(dotted: str, names: set[str]) -> str:
    """The longest known module that ``dotted`` (relative to the package) names, else the package."""
    parts = dotted.split(".") if dotted else []
    for n in range(len(parts), 0, -1):
        candidate = ".".join(parts[:n])
        if candidate in names:
            return candidate
    return "__init__"


def python_imports(path: Path, names: set[str]) -> set[str]:
    """The package modules a file imports, anywhere in it ('__init__' for names from the package)."""
    targets = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "tcplab":
                    targets.add(_resolve(alias.name.partition(".")[2], names))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "tcplab":
            inner = node.module.partition(".")[2]
            for alias in node.names:
                # `from tcplab.sweeps import plan` names a module; `from tcplab import run`, a name.
                targets.add(_resolve(f"{inner}.{alias.name}" if inner else alias.name, names))
    return targets


def python_problems() -> list[str]:
    files = _python_modules()
    names = set(files) | {"_core"}
    graph = {name: python_imports(path, names) - {name, "_core"} for name, path in files.items()}
    return ["import circle between Python modules: " + " <-> ".join(cycle) for cycle in _cycles(graph)]


def main() -> int:
    problems = rust_problems() + python_problems()
    for problem in problems:
        print(problem)
    if not problems:
        print("layout rules hold: file and function lengths, no import circles")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
