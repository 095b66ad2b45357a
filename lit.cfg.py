# lit configuration for the generated tests in cases/generated.
#
# The LLVM build under test: --param llvm_bin=DIR, else $LLVM_BIN, else the newest
# /usr/lib/llvm-N/bin whose llc has AMDGPU, else PATH. FileCheck comes from that build, else
# from the pip `filecheck` package. Known bugs of the exact version found turn into XFAILs.

import os
import pathlib
import shutil
import sys

ROOT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, ROOT)

from harness import catalog, emit, known_bugs, toolchain  # noqa: E402
from harness.litformat import KnownBugShTest  # noqa: E402
from harness.errors import InputError  # noqa: E402

config.name = "matrix-lowering"
config.suffixes = [".ll"]
config.test_source_root = ROOT
config.test_exec_root = os.path.join(ROOT, "build", "lit")
config.excludes = ["build", "harness", "tests", "ci", ".venv", ".git"]

try:
    tc = toolchain.discover(lit_config.params.get("llvm_bin"))
    version = tc.version
except InputError as exc:
    lit_config.fatal(str(exc))
lit_config.note(f"testing {tc.describe()}")

bin_dirs = [str(tc.bin_dir)] if tc.bin_dir else []
config.environment["PATH"] = os.pathsep.join(bin_dirs + [os.environ.get("PATH", "")])

filecheck = tc.tool("FileCheck")
if not filecheck:
    filecheck = shutil.which("filecheck")
    if not filecheck:
        lit_config.fatal("no FileCheck in the LLVM build and no pip `filecheck` on PATH")
    config.substitutions.append((r"\bFileCheck\b", filecheck))
else:
    config.available_features.add("llvm-filecheck")  # numeric expressions, --implicit-check-not
lit_config.note(f"FileCheck: {filecheck}")

# Features: what the build has, so a file that needs more is UNSUPPORTED rather than FAIL.
major = version.split(".")[0]
config.available_features.update({f"llvm-{major}", f"llvm-{version}"})
if "amdgcn" in tc.targets:
    config.available_features.add("amdgpu-registered-target")
    cpus = tc.cpus("amdgcn")
    config.available_features.update(f"cpu-{cpu}" for cpu in catalog.CPUS if cpu in cpus)
    present = [i for i in catalog.INTRINSICS if i.cpus[0] in cpus]
    support = tc.intrinsic_support(emit.probe_declarations(present))
    config.available_features.update(i.symbol for i in present if not support[i.name])

CASES = os.path.join(ROOT, "cases")
try:
    KNOWN = known_bugs.load(pathlib.Path(CASES))
except InputError as exc:
    lit_config.fatal(str(exc))
if version in KNOWN:
    lit_config.note(f"known bugs of LLVM {version}: {len(KNOWN[version])} entries in cases/{known_bugs.FILENAME}")
else:
    lit_config.note(f"LLVM {version} has no entry in cases/{known_bugs.FILENAME}: nothing is XFAIL")


config.test_format = KnownBugShTest(version, KNOWN, CASES)
