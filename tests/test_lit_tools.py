"""lit takes every tool from the chosen build, never from PATH; a missing one is a configuration
error (lit exits 2), never a verdict; FileCheck alone may be the pip package of the harness's
own environment, found without PATH; `--param known_bugs=off` gives raw verdicts."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
TOOLS = ("llc", "llvm-mc", "opt", "llvm-as", "llvm-objdump", "FileCheck")
FILTER = "generated/wmma[^/]*32x16x128.f4.gfx1250.O0"  # 6 semantic files: 3 exact (PASS), 3 over-wide (XFAIL on 22.1.8)


def build_dir(tmp_path: Path, source: Path, without: tuple[str, ...] = ()) -> Path:
    out = tmp_path / "build-bin"
    out.mkdir()
    for tool in TOOLS:
        if tool not in without:
            (out / tool).symlink_to(source / tool)
    return out


def lit(lit_exe: str, bin_dir: Path, *extra: str, path: str = "/usr/bin:/bin") -> subprocess.CompletedProcess:
    return subprocess.run(
        [lit_exe, "-v", str(REPO / "cases"), "--filter", FILTER, "--param", f"llvm_bin={bin_dir}", *extra],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PATH": path},
    )


def counts(out: str) -> dict[str, int]:
    found = {}
    for line in out.splitlines():
        parts = line.split(":")
        if len(parts) == 2 and parts[0].strip() in ("Passed", "Failed", "Expectedly Failed", "Unsupported", "Unresolved"):
            found[parts[0].strip()] = int(parts[1].split()[0])
    return found


def test_a_build_without_llvm_mc_is_a_configuration_error_not_a_verdict(llvm_22_1_8, lit_exe, tmp_path):
    # PATH has an llvm-mc of another build: it must not be used.
    proc = lit(lit_exe, build_dir(tmp_path, llvm_22_1_8.bin_dir, without=("llvm-mc",)), path="/usr/lib/llvm-14/bin:/usr/bin:/bin")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "lacks llvm-mc" in proc.stderr


def test_tools_come_from_the_build_even_when_path_has_others(llvm_22_1_8, lit_exe, tmp_path):
    fake = tmp_path / "fake"
    fake.mkdir()
    for tool in TOOLS:  # fault injection: every tool on PATH fails loudly
        (fake / tool).write_text("#!/bin/sh\necho 'from PATH' >&2\nexit 1\n")
        (fake / tool).chmod(0o755)
    proc = lit(lit_exe, build_dir(tmp_path, llvm_22_1_8.bin_dir), path=f"{fake}:/usr/bin:/bin")
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert counts(proc.stdout) == {"Passed": 3, "Expectedly Failed": 3}


def test_filecheck_falls_back_to_the_harness_environment_without_path(llvm_22_1_8, lit_exe, tmp_path):
    proc = lit(lit_exe, build_dir(tmp_path, llvm_22_1_8.bin_dir, without=("FileCheck",)))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    assert "FileCheck: " in proc.stderr and "/filecheck" in proc.stderr
    assert counts(proc.stdout) == {"Passed": 3, "Expectedly Failed": 3}


def test_known_bugs_off_gives_raw_verdicts(llvm_22_1_8, lit_exe, tmp_path):
    proc = lit(lit_exe, llvm_22_1_8.bin_dir, "--param", "known_bugs=off")
    assert proc.returncode == 1 and counts(proc.stdout) == {"Passed": 3, "Failed": 3}
    bad = lit(lit_exe, llvm_22_1_8.bin_dir, "--param", "known_bugs=maybe")
    assert bad.returncode == 2 and "known_bugs takes on or off" in bad.stderr


def test_a_build_without_the_targets_is_all_unsupported(lit_exe, llvm14):
    proc = lit(lit_exe, llvm14)
    assert proc.returncode == 0 and counts(proc.stdout) == {"Unsupported": 6}, proc.stdout[-2000:] + proc.stderr


@pytest.mark.parametrize(
    "text, message",
    [
        (
            '"22.1.8":\n  - {files: a, reason: x}\n"22.1.8":\n  - {files: b, reason: y}\n',
            ":3:1: error: version '22.1.8' is listed twice",
        ),
        ("x: [\n", "invalid YAML"),
    ],
)
def test_a_broken_known_bugs_file_is_one_located_error(tmp_path, text, message):
    from harness.core.errors import InputError
    from harness.specs import known_bugs

    (tmp_path / known_bugs.FILENAME).write_text(text)
    with pytest.raises(InputError) as exc:
        known_bugs.load(tmp_path)
    assert message in str(exc.value)
    (tmp_path / known_bugs.FILENAME).write_bytes(b'"22.1.8":\n  - {files: a, reason: caf\xe9}\n')
    with pytest.raises(InputError, match=":2: error: not UTF-8"):
        known_bugs.load(tmp_path)


def test_run_lines_get_the_tool_environment_of_the_harness(llvm_22_1_8, lit_exe, tmp_path):
    # An aborting llc under lit must not spend half a second in llvm-symbolizer: every RUN line's
    # tool sees the settings harness.tools.toolchain gives its own tools.
    from harness.tools import toolchain

    bin_dir = build_dir(tmp_path, llvm_22_1_8.bin_dir, without=("llc",))
    log = tmp_path / "llc-env.log"
    names = " ".join(toolchain.TOOL_SETTINGS)
    (bin_dir / "llc").write_text(
        "#!/bin/sh\n"
        f'case "$*" in *-o*) for n in {names}; do printenv "$n" >/dev/null && v=$(printenv "$n") || v=unset; '
        f'echo "$n=$v" >> {log}; done;; esac\n'
        f'exec {llvm_22_1_8.bin_dir}/llc "$@"\n'
    )
    (bin_dir / "llc").chmod(0o755)
    proc = lit(lit_exe, bin_dir)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    seen = log.read_text().splitlines()
    # 3 passing files run four llc lines (text and object, both selectors); 3 XFAIL files stop
    # at their first llvm-mc.
    assert len(seen) == 15 * len(toolchain.TOOL_SETTINGS)
    assert set(seen) == {f"{k}={v}" for k, v in toolchain.TOOL_SETTINGS.items()}
