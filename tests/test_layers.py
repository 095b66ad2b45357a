"""The package is layered by folder: core -> targets -> specs and kernels -> tools -> checks,
reports and gpu -> the command line (harness/*.py). No module imports one of a higher layer
(imports for type checking only are not edges). The map below is the one docs/development.md's
layout table draws; a new folder must be placed in it."""

from __future__ import annotations

import ast
from pathlib import Path

HARNESS = Path(__file__).resolve().parent.parent / "harness"

# The folders of harness/, each in one layer, lowest first; the modules directly in harness/ (the
# command line) are the top layer.
LAYERS: tuple[tuple[str, ...], ...] = (
    # core: errors, files, tool command lines, verdict codes and the parsers of tool output
    ("core",),
    # targets: triples, CPUs, the intrinsic rows and catalog
    ("targets",),
    # specs: what to test (specs, cases, their IR); the GPU kernels as text
    ("specs", "kernels"),
    # tools: finding a build, running it, the cache, the runner
    ("tools",),
    # checks and reports: lit files, CHECK lines, audits; tables, matrices, bisect, coverage; GPU
    # builds, their judges and the second opinion
    ("checks", "reports", "gpu"),
    # the command line: harness/*.py
    ("",),
)


def layer_of(module: str) -> int:
    """The layer of the folder of harness/ that holds `module` (the top layer for harness/*.py)."""
    parts = module.split(".")
    folder = parts[1] if len(parts) > 2 or (len(parts) == 2 and (HARNESS / parts[1]).is_dir()) else ""
    found = [level for level, names in enumerate(LAYERS) if folder in names]
    assert found, f"{module}: its folder harness/{folder} is in no layer: place it in LAYERS"
    return found[0]


def module_name(path: Path) -> str:
    parts = path.relative_to(HARNESS.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """The harness modules a file imports, not counting `if TYPE_CHECKING:` blocks."""
    tree = ast.parse(path.read_text())
    skipped = {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for stmt in block.body
        for node in ast.walk(stmt)
    }
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("harness"):
            # `from harness.targets import catalog` imports the module harness.targets.catalog.
            for alias in node.names:
                candidate = f"{node.module}.{alias.name}"
                is_module = (HARNESS.parent / Path(*candidate.split("."))).with_suffix(".py").exists() or (
                    HARNESS.parent / Path(*candidate.split("."))
                ).is_dir()
                out.add(candidate if is_module else node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("harness"))
    return out


def upward_edges() -> list[str]:
    edges = []
    for path in sorted(HARNESS.rglob("*.py")):
        here = module_name(path)
        for target in sorted(imports(path)):
            if layer_of(target) > layer_of(here):
                edges.append(f"{here} (layer {layer_of(here)}) imports {target} (layer {layer_of(target)})")
    return edges


def test_no_module_imports_a_higher_layer():
    assert upward_edges() == []


def test_every_module_has_a_layer():
    for path in HARNESS.rglob("*.py"):
        layer_of(module_name(path))  # raises for a module in no layer


def test_every_folder_is_in_exactly_one_layer():
    folders = sorted(p.name for p in HARNESS.iterdir() if p.is_dir() and (p / "__init__.py").exists())
    placed = [name for names in LAYERS for name in names if name]
    assert sorted(placed) == folders and len(set(placed)) == len(placed)


def test_the_walk_sees_an_upward_import(tmp_path, monkeypatch):
    """The check itself can fail: a core module that imports the runner is reported."""
    fake = tmp_path / "harness"
    for folder in ("tools", "core"):
        (fake / folder).mkdir(parents=True)
        (fake / folder / "__init__.py").write_text("")
    (fake / "__init__.py").write_text("")
    (fake / "tools" / "runner.py").write_text("")
    (fake / "core" / "commands.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from harness.cli import main\nfrom harness.tools import runner\n"
    )
    monkeypatch.setattr(__import__(__name__), "HARNESS", fake)
    assert upward_edges() == ["harness.core.commands (layer 0) imports harness.tools.runner (layer 3)"]


def test_no_function_is_longer_than_60_lines():
    long = []
    for path in sorted(HARNESS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1  # type: ignore[operator]
                if lines > 60:
                    long.append(f"{path.relative_to(HARNESS.parent)}:{node.lineno} {node.name} ({lines} lines)")
    assert long == []
