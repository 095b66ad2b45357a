"""dev/mutate.py's generator: which edits it plants where, and that the same code gives the same
mutants on every run (a mutation run that drew new mutants each time would measure nothing)."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SAMPLE = '''\
"""Module docstring with 1 < 2 and True."""

from typing import TYPE_CHECKING

__all__ = ["f"]
if TYPE_CHECKING:
    from os import PathLike


def f(x: int = 3, *, flag: bool = True) -> list[int]:
    """Docstring: x == 1 or x > 2."""
    print(f"# progress {x > 1}", file=sys.stderr)
    parser.add_argument("--n", default=4, help="at most 5 < 6")
    if x < 10 and flag:
        return [x + 1]
    y: int = 0
    return None
'''


def _mutate():
    spec = importlib.util.spec_from_file_location("mutate_script", REPO / "dev" / "mutate.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (its dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


def test_sites_skip_docstrings_annotations_all_help_and_logging(tmp_path):
    mutate = _mutate()
    (tmp_path / "harness").mkdir()
    (tmp_path / "harness" / "m.py").write_text(SAMPLE)
    found = {(s.line, s.operator, s.old, s.new) for s in mutate.module_sites(tmp_path, "harness/m.py")}
    assert found == {
        (10, "int-plus-minus-1", "3", "2"),  # the default, not the annotation (odd: -1, even: +1)
        (10, "flip-bool", "True", "False"),
        (13, "delete-statement", 'parser.add_argument("--n", default=4, help="at most 5 < 6")', "pass"),
        (13, "int-plus-minus-1", "4", "5"),  # default=4, not the help text
        (14, "delete-statement", "if x < 10 and flag:\n        return [x + 1]", "pass"),
        (14, "negate-condition", "x < 10 and flag", "not (x < 10 and flag)"),
        (14, "swap-and-or", "and", "or"),
        (14, "flip-compare", "<", "<="),
        (14, "int-plus-minus-1", "10", "11"),
        (15, "return-value", "[x + 1]", "None"),
        (15, "int-plus-minus-1", "1", "0"),
        (16, "int-plus-minus-1", "0", "1"),  # y: int = 0 in a function is a statement, kept
        (16, "delete-statement", "y: int = 0", "pass"),
        (17, "delete-statement", "return None", "pass"),
    }


def test_every_site_of_the_harness_is_one_edit_that_still_parses():
    mutate = _mutate()
    for module in ("harness/core/verdicts.py", "harness/checks/autogen/options.py"):
        source = (REPO / module).read_bytes()
        for site in mutate.module_sites(REPO, module):
            assert source[site.start : site.end].decode() == site.old and site.old != site.new
            if site.operator != "delete-statement":
                ast.parse(site.mutated(source))


def test_the_same_code_gives_the_same_mutants_and_each_package_its_share():
    run = lambda *a: (
        subprocess.run(
            [sys.executable, "dev/mutate.py", "--generated", "--per-package", "3", "--list", *a],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    first, again, other = run(), run(), run("--seed", "other")
    names = [line.split()[0] for line in first.splitlines() if not line.startswith(" ")]
    assert first == again and first != other and len(names) == 3 * len(_mutate().PACKAGES) == len(set(names))


def test_bad_usage_is_one_line_and_exit_2():
    proc = subprocess.run(
        [sys.executable, "dev/mutate.py", "--per-package", "0"], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 2 and proc.stderr == "mutate: --per-package must be at least 1 (see --help)\n"


def test_a_line_run_at_import_keeps_only_the_maps_tests_in_its_table_files(tmp_path):
    mutate = _mutate()
    (tmp_path / "harness").mkdir()
    (tmp_path / "harness" / "m.py").write_text(
        "N = 4\n\n\nclass C:\n    k = 6\n\n    @cache(10)\n    def f(self, x=12):\n        return 8\n\n\nL = lambda: 14\n"
    )
    sites = {s.old: s for s in mutate.module_sites(tmp_path, "harness/m.py") if s.operator == "int-plus-minus-1"}
    found = {old: s.at_import for old, s in sites.items()}
    assert found == {"4": True, "6": True, "10": True, "12": True, "8": False, "14": False}  # decorators, defaults: at def
    ran = ["tests/test_cli.py::test_a", "tests/test_rows.py::test_b", "tests/test_rows.py::test_c"]
    cmap = mutate.CoverageMap({"harness/m.py": {"1": ran, "9": ran}}, {"tests/test_rows.py::test_c": 1.0})
    table = ("tests/test_rows.py",)
    at_import = mutate.replace(sites["4"], tests=table)
    in_function = mutate.replace(sites["8"], tests=table)
    assert cmap.tests(at_import) == (("tests/test_rows.py::test_c", "tests/test_rows.py::test_b"), 61.0)
    assert cmap.tests(in_function)[0] == ("tests/test_rows.py::test_c", "tests/test_cli.py::test_a", "tests/test_rows.py::test_b")
    assert cmap.tests(mutate.replace(sites["4"], tests=("tests/test_other.py",))) is None


def test_a_name_imported_from_the_package_itself_ties_the_test_to_its_init(tmp_path):
    mutate = _mutate()
    (tmp_path / "harness").mkdir()
    (tmp_path / "tests").mkdir()
    for rel in ("harness/__init__.py", "harness/a.py"):
        (tmp_path / rel).write_text("")
    (tmp_path / "tests" / "test_x.py").write_text("from harness import once, a\n")
    (tmp_path / "tests" / "test_y.py").write_text("import harness.a\n")
    assert mutate.test_importers(tmp_path) == {
        "harness/__init__.py": {"tests/test_x.py"},
        "harness/a.py": {"tests/test_x.py", "tests/test_y.py"},
    }
