# lit configuration for the generated tests in cases/generated.
#
# The LLVM build under test: --param llvm_bin=DIR, else $LLVM_BIN, else the newest
# /usr/lib/llvm-N/bin whose llc has AMDGPU, else PATH. FileCheck comes from that build, else
# from the pip `filecheck` package. Known bugs of the exact version found turn into XFAILs.

import os
import pathlib
import re
import sys

ROOT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, ROOT)

from harness import targets  # noqa: E402
from harness.checks import litspace  # noqa: E402
from harness.checks.litformat import KnownBugShTest  # noqa: E402
from harness.core.errors import InputError  # noqa: E402
from harness.specs import emit, known_bugs  # noqa: E402
from harness.targets import catalog  # noqa: E402
from harness.tools import declared, toolchain  # noqa: E402

config.name = "matrix-lowering"
config.suffixes = [".ll"]
if not config.test_source_root:  # (a suite that loads this configuration names its own: harness lit)
    config.test_source_root = ROOT
    config.test_exec_root = os.path.join(ROOT, "build", "lit")
config.excludes = ["build", "harness", "tests", "ci", ".venv", ".git"]

try:
    # A short limit for the probes (llc --version, -mcpu=help, opt): a hung build fails the
    # configuration quickly instead of blocking every lit run.
    tc = toolchain.discover(lit_config.params.get("llvm_bin"), timeout=15)
    version = tc.version
except InputError as exc:
    lit_config.fatal(str(exc))
lit_config.note(f"testing {tc.describe()}")
# RUN lines run their tools in the environment the harness runs them in (no symbolizer).
config.environment.update(toolchain.TOOL_SETTINGS)

# Every tool a RUN line names resolves to an absolute path in the chosen build, never to PATH:
# a build without one of them cannot be judged, which is a configuration error (lit exits 2),
# not a verdict. FileCheck alone may come from the pip `filecheck` package of the harness's own
# environment (found beside this Python or in the repository's .venv, not on PATH).
TOOLS = ("llc", "llvm-mc", "opt", "llvm-as", "llvm-objdump")
missing = [t for t in TOOLS if not tc.tool(t)]
if missing:
    lit_config.fatal(
        f"{tc.describe()} lacks {', '.join(missing)}: it cannot run these tests "
        f"(build them, e.g. ninja llc llvm-mc opt llvm-as llvm-objdump FileCheck)"
    )
# llvm-extract cuts one call out of a module (files of several ISA-invalid values, each of which
# llc must reject on its own): a file that needs it REQUIRES llvm-extract.
OPTIONAL_TOOLS = ("llvm-extract",)
for name in TOOLS + tuple(t for t in OPTIONAL_TOOLS if tc.tool(t)):
    config.substitutions.append((rf"(?<![\w.%/-]){re.escape(name)}(?![\w.-])", tc.tool(name)))
config.available_features.update(t for t in OPTIONAL_TOOLS if tc.tool(t))

filecheck = tc.tool("FileCheck")
if filecheck:
    config.available_features.add("llvm-filecheck")  # numeric expressions, --implicit-check-not
else:
    beside = [pathlib.Path(sys.executable).parent / "filecheck", pathlib.Path(ROOT) / ".venv" / "bin" / "filecheck"]
    filecheck = next((str(p) for p in beside if p.is_file() and os.access(p, os.X_OK)), "")
    if not filecheck:
        lit_config.fatal(
            f"no FileCheck in {tc.bin_dir or 'the build'} and no pip `filecheck` in the harness's "
            f"environment ({beside[0].parent}); run ci/setup.sh"
        )
config.substitutions.append((r"(?<![\w.%/-])FileCheck(?![\w.-])", filecheck))
lit_config.note(f"FileCheck: {filecheck}")

# Features: what the build has, so a file that needs more is UNSUPPORTED rather than FAIL. Each
# target (harness/targets/__init__.py) gives its registered-target feature, its CPUs and, where its kernels
# need newer IR than the build may read, that feature.
major = version.split(".")[0]
config.available_features.update({f"llvm-{major}", f"llvm-{version}"})
for target in targets.TARGETS.values():
    if target.registered not in tc.targets:
        continue
    config.available_features.add(target.feature)
    config.available_features.update(target.cpu_feature(c) for c in tc.cpus(target.registered))
    if target.ir_feature and target.reads_ir(tc):
        config.available_features.add(target.ir_feature)
# The intrinsics the build knows, each a feature (one opt probe per target answers for all).
for target in targets.TARGETS.values():
    if target.registered not in tc.targets:
        continue
    known_cpus = tc.cpus(target.registered)
    present = [i for i in catalog.INTRINSICS if i.target is target and known_cpus & {*i.cpus, i.absent_cpu}]
    decls = emit.probe_declarations(present)
    try:  # the build's intrinsic header, then its opt: a broken one is a configuration error
        support = declared.support(tc, target, {i.name: (i.symbol, decls[i.name]) for i in present})
    except (InputError, toolchain.ProbeDied) as exc:
        lit_config.fatal(f"cannot tell which {target.name} intrinsics {tc.describe()} knows: {exc}")
    config.available_features.update(i.symbol for i in present if not support[i.name])

# ptxas closes NVPTX's PTX where there is one: --param ptxas=PATH, else $PTXAS, else PATH, else the
# CUDA install, else the pip wheel in the harness's environment. Without it the ptxas RUN lines
# are skipped (`%if ptxas`), never failed.
try:
    ptxas = toolchain.find_ptxas(lit_config.params.get("ptxas"))
except InputError as exc:
    lit_config.fatal(str(exc))
if ptxas:
    config.available_features.update(toolchain.ptxas_lit_features(ptxas))  # (ptxas, ptxas-sm_90a, ptxas-isa-8.0...)
    config.substitutions.append(
        ("%ptxas-verify", f"{ptxas} -c -o /dev/null -")
    )  # (LLVM's NVPTX tests: `| %ptxas-verify -arch=sm_80`)
    config.substitutions.append((r"(?<![\w.%/-])ptxas(?![\w.-])", ptxas))
    lit_config.note(f"ptxas: {ptxas}")
else:
    lit_config.note("no ptxas: NVPTX kernels are compiled and checked, not assembled")

CASES = os.path.join(ROOT, "cases")
try:
    KNOWN = known_bugs.load(pathlib.Path(CASES))
except InputError as exc:
    lit_config.fatal(str(exc))
# --param known_bugs=off: raw verdicts, no XFAIL (a branch commit may print a listed version).
known_setting = lit_config.params.get("known_bugs", "on")
if known_setting not in ("on", "off"):
    lit_config.fatal(f"--param known_bugs takes on or off, not {known_setting!r}")
if known_setting == "off":
    KNOWN = {}
    lit_config.note("known bugs off (--param known_bugs=off): nothing is XFAIL")
elif version in KNOWN:
    lit_config.note(f"known bugs of LLVM {version}: {len(KNOWN[version])} entries in cases/{known_bugs.FILENAME}")
else:
    lit_config.note(f"LLVM {version} has no entry in cases/{known_bugs.FILENAME}: nothing is XFAIL")


# --param space=full (or representative): beside the files, the whole space of the build (or its
# representative part), one test per matrix intrinsic name (cases/space/<target>/<name>), judged
# as `harness run --space full` (representative) judges it (harness/checks/litspace.py).
space_setting = lit_config.params.get("space", "files")
if space_setting not in ("files", "representative", "full"):
    lit_config.fatal(f"--param space takes files, representative or full, not {space_setting!r}")
if space_setting != "files":
    if ptxas:
        os.environ["PTXAS"] = ptxas  # the workers' runner closes NVPTX text with the same ptxas
    names = litspace.space_names()
    llvm_bin = lit_config.params.get("llvm_bin")
    config.test_format = litspace.SpaceTest(version, KNOWN, CASES, llvm_bin, names, space_setting)
    lit_config.note(f"the {space_setting} space of LLVM {version}: {len(names)} tests under cases/space/ besides the files")
else:
    config.test_format = KnownBugShTest(version, KNOWN, CASES)

# A hung tool must not hang the suite (or a bisect step): each test gets 300 s unless lit's own
# --timeout says otherwise. lit needs psutil for that; the set-up installs it.
if not config.maxIndividualTestTime:
    try:
        import psutil  # noqa: F401
    except ImportError:
        lit_config.note("psutil is missing: tests run without a time limit")
    else:
        # (a space test holds a name's cells on every processor, each tool call up to 10 s)
        config.maxIndividualTestTime = 300 if space_setting == "files" else 1800
