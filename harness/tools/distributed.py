"""The Runner's tasks on the workers of a Dask distributed cluster (`--scheduler ADDRESS`).

A task is what one module decides today: a batch of cases of one build and its selectors
(`Runner.run_batch`). It runs only on a worker that has its build. A build is named by what it
is, not where it lies: `build_key` is its LLVM version and a digest of the contents of llc and
the libraries it loads, so workers on other machines may keep the same build at other paths.
Each worker states the builds it has as Dask resources of those names; it finds them when it
loads this module as a preload:

    dask worker tcp://HOST:8786 --preload harness.tools.distributed

which looks in the directories of $HARNESS_LLVM_BIN (os.pathsep between them), else in every
/usr/lib/llvm-N/bin. A build made after the workers started (each step of a bisect over a build
farm) is taken by every worker that sees it at the client's path under one of the directories of
its $HARNESS_LLVM_ROOTS, and is the same build there; a build rebuilt in place replaces the one it
was. A build no worker has or takes is `unsupported`, with that reason, before any task is
sent. The verdicts come back to the client, which judges and reports them as a local run does,
so the outputs of a distributed run are those of the same run done here.

Dask is imported only here, and this module only with --scheduler (`pip install '.[distributed]'`).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import glob
import hashlib
import ipaddress
import logging
import os
import pickle
import re
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout

from harness.core.errors import PATH_LIMIT, InputError, quoted
from harness.specs import selection
from harness.tools import builds, toolchain

CONNECT_TIMEOUT = 10.0  # seconds to reach the scheduler before the run ends with exit 2
BUILDS_VARIABLE = "HARNESS_LLVM_BIN"
ROOTS_VARIABLE = "HARNESS_LLVM_ROOTS"
# Seconds the workers may take to say whether they take a build the client names: each hashes its
# tools and their libraries (about 200 MB for a release build), perhaps over a network filesystem.
TAKE_TIMEOUT = 120.0
WATCH_INTERVAL = 2.0  # seconds between looks at whether a worker with the build is left
# Seconds no worker may have the build before the run ends: a nanny restarts a killed worker
# within a few seconds, and its tasks wait for it.
GRACE = 30.0
CANCEL_LOOK = 0.2  # seconds between a running task's looks at whether its client cancelled it
_CHUNK = 1 << 20


@functools.cache
def _digest(identity: tuple) -> str:
    h = hashlib.sha256()
    for real, *_ in identity:
        h.update(os.path.basename(real).encode() + b"\0")
        with open(real, "rb") as fh:
            while chunk := fh.read(_CHUNK):
                h.update(chunk)
    return h.hexdigest()


# Every tool whose output decides a verdict: a worker is the client's build only when each is
# the same (a patched llvm-mc beside a release llc is another build).
KEYED_TOOLS = ("llc", "llvm-mc", "opt", "llvm-as", "llvm-objdump", "ptxas")


def build_key(tc: toolchain.Toolchain) -> str:
    """`llvm-<version>-<16 hex digits>`: the digest covers each tool of KEYED_TOOLS the build has,
    by name, and every file it runs (its libraries; a wrapper script's interpreter and the files it
    names), remembered per process while their stat identity stays."""
    h = hashlib.sha256()
    for name in KEYED_TOOLS:
        path = tc.tool(name)
        identity = tuple(tuple(f) for f in builds.identity(path)) if path else ()
        h.update(f"{name}={_digest(identity) if identity else '-'};".encode())
    return f"llvm-{tc.version}-{h.hexdigest()[:16]}"


# ---- the worker's side --------------------------------------------------------------------------
_LOCAL: dict[str, str] = {}  # build key -> bin directory, on this worker
_LOCAL_LOCK = threading.Lock()
_SCANNED: list[bool] = []  # [True] once $HARNESS_LLVM_BIN has been looked at
_RUNNERS: dict[tuple, object] = {}


def local_builds() -> dict[str, str]:
    """Build key -> bin directory of every build this machine offers (the named ones found once
    per process; those taken since)."""
    with _LOCAL_LOCK:
        if not _SCANNED:
            _SCANNED.append(True)
            named = os.environ.get(BUILDS_VARIABLE, "")
            dirs = [d for d in named.split(os.pathsep) if d] if named else sorted(glob.glob("/usr/lib/llvm-*/bin"))
            for d in dirs:
                try:
                    tc = toolchain.discover(d)
                    if tc.tool("llc"):
                        _LOCAL.setdefault(build_key(tc), str(tc.bin_dir))
                except InputError as exc:
                    print(f"harness worker: {d}: {exc}", file=sys.stderr)
        return dict(_LOCAL)


def dask_setup(worker) -> None:
    """Dask's preload hook: this worker's builds become its resources, each as many as it has
    threads (one task per thread), before it registers with the scheduler; and its tools die
    with it, even by SIGKILL."""
    toolchain.tie_tools_to_parent()
    for key in local_builds():
        worker.state.total_resources[key] = worker.state.nthreads
        worker.state.available_resources[key] = worker.state.nthreads


def _roots() -> list[str]:
    """The real paths of $HARNESS_LLVM_ROOTS' directories (a relative one means nothing: skipped)."""
    return [os.path.realpath(r) for r in os.environ.get(ROOTS_VARIABLE, "").split(os.pathsep) if os.path.isabs(r)]


def _take(path: str, key: str) -> list[str] | None:
    """The keys this worker stops offering when it takes build `key` at `path` (another build that
    was at that path before), or None when it does not take it: the path is not under its roots,
    or the build there is another one on this machine. (The roots bound where the build's
    directory lies, not where links among its tools point.)"""
    local_builds()
    real = os.path.realpath(path)
    if not any(os.path.commonpath([real, root]) == root for root in _roots()):
        return None
    try:
        tc = toolchain.fresh(real)
        if build_key(tc) != key:
            return None
    except Exception as exc:  # (whatever the build there does, this worker does not take it)
        print(f"harness worker: {path}: {exc}", file=sys.stderr)
        return None
    with _LOCAL_LOCK:
        stale = [k for k, d in _LOCAL.items() if d == str(tc.bin_dir) and k != key]
        for k in stale:
            del _LOCAL[k]
        _LOCAL[key] = str(tc.bin_dir)
    return stale


_TAKING: list = []  # [the asyncio.Lock that orders takes on this worker], made in its loop


async def take_build(path: str, key: str, dask_worker=None) -> bool:
    """Run on every worker by a client whose build no worker offers: the worker takes the build
    at `path` when `_take` does, and offers it from then on (Dask resources, as `dask_setup`).
    Takes run one at a time, so what the scheduler is told last is what the worker has."""
    import asyncio

    if not _TAKING:
        _TAKING.append(asyncio.Lock())
    async with _TAKING[0]:
        stale = await asyncio.to_thread(_take, path, key)
        if stale is None:
            return False
        await dask_worker.set_resources(**{key: dask_worker.state.nthreads}, **dict.fromkeys(stale, 0))
    return True


def _drop(key: str, where: str) -> None:
    """This worker stops offering build `key`, which is no longer at `where`."""
    with _LOCAL_LOCK:
        if _LOCAL.get(key) == where:
            del _LOCAL[key]
        for runner_key in [k for k in _RUNNERS if k[0] == key]:
            del _RUNNERS[runner_key]
    try:
        from distributed import get_worker

        worker = get_worker()
        worker.loop.add_callback(worker.set_resources, **{key: 0})
    except ValueError:  # (not on a worker)
        pass


def run_task(key: str, options: dict, task: bytes) -> bytes:
    """One task on a worker: the pickled (batch, selectors)' verdicts on this worker's copy of
    build `key`, pickled. (Pickled here and on the client as one object: Dask would serialise a
    dict's values one by one, copying the tool runs many verdicts share.) The build is checked
    to be `key` for every task (a stat of each file while they stay as they were): one rebuilt
    or upgraded in place since is dropped, and the task fails with that reason."""
    from harness.tools.runner import Runner

    batch, sels = pickle.loads(task)
    toolchain.tie_tools_to_parent()  # (a worker started without the preload)

    where = local_builds().get(key)
    if where is None:
        raise RuntimeError(f"this worker has no build {key}")
    with _LOCAL_LOCK:
        runner = _RUNNERS.get((key, *sorted(options.items())))
    if runner is None:
        runner = Runner(toolchain.fresh(where, options["timeout"]), 1, with_object=options["with_object"], facts=options["facts"])
        with _LOCAL_LOCK:
            runner = _RUNNERS.setdefault((key, *sorted(options.items())), runner)
    if build_key(runner.tc) != key:  # type: ignore[attr-defined]
        _drop(key, where)
        raise RuntimeError(f"the build at {where} is no longer {key}: rebuilt or upgraded in place since this worker took it")
    with _ended_when_cancelled():
        verdicts = runner.run_batch(batch, sels)  # type: ignore[attr-defined]
    return pickle.dumps(verdicts, protocol=pickle.HIGHEST_PROTOCOL)


@contextlib.contextmanager
def _ended_when_cancelled() -> Iterator[None]:
    """The task's tools run in a scope of their own, ended as soon as Dask cancels the task (its
    client cancelled its futures on Ctrl-C or SIGTERM, or left): the tools of other clients'
    tasks on this worker go on. (Dask cannot stop a running task's thread; its tools it can.)"""
    from distributed import get_worker

    try:
        worker = get_worker()
        key = worker.get_current_task()
    except ValueError:  # (not in a task of a worker)
        yield
        return
    done = threading.Event()

    def watch() -> None:
        while not done.wait(CANCEL_LOOK):
            task = worker.state.tasks.get(key)
            if task is None or task.state == "cancelled":
                toolchain.stop(key)
                return

    with toolchain.scoped(key):
        threading.Thread(target=watch, daemon=True, name=f"harness-cancel-{key}").start()
        try:
            yield
        finally:
            done.set()


# ---- the client's side --------------------------------------------------------------------------
class ClusterError(InputError):
    """The Dask cluster failed (its scheduler did not answer, or was lost; its workers were
    lost, or a task failed there): nothing about the build is judged from the run."""


# HOST:PORT with an optional scheme: a name or IPv4 address, or an IPv6 one in brackets.
_ADDRESS = re.compile(r"(?:(?P<scheme>[^:/]*)://)?(?P<host>\[[^\]/]*\]|[A-Za-z0-9._-]+):(?P<port>[0-9]{1,5})")
VALID_ADDRESS = "tcp://HOST:PORT, e.g. tcp://127.0.0.1:8786 (an IPv6 host in brackets: tcp://[::1]:8786)"


def address(text: str) -> str:
    """A --scheduler value: a Dask scheduler's address, checked before any connection is made."""
    why = address_error(text)
    if why:
        raise argparse.ArgumentTypeError(why)
    return text


def address_error(text: str) -> str:
    """Why `text` is no Dask scheduler address, in words that name a valid one, or ""."""
    why = _malformed(text)
    return f"{quoted(text)} is not a Dask scheduler address ({why}): give {VALID_ADDRESS}" if why else ""


def _malformed(text: str) -> str:
    """Why `text` cannot name a Dask scheduler of another process, or ""."""
    found = _ADDRESS.fullmatch(text)
    scheme = text.partition("://")[0] if "://" in text else "tcp"
    if scheme.lower() in ("tcp", "tls") and scheme != scheme.lower():
        return f"the schemes of Dask are lower case: {scheme.lower()}://"
    if scheme == "inproc":
        return "inproc:// names a scheduler inside one process"
    if scheme not in ("tcp", "tls"):
        return f"the scheme is tcp:// or tls://, not {quoted(scheme + '://')}"
    if found is None:
        return "nothing after the scheme" if text.endswith("://") else "not [SCHEME://]HOST:PORT"
    host, port = found["host"], int(found["port"])
    if host.startswith("["):
        try:
            ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            return f"{quoted(host)} is no IPv6 address"
    if not 0 < port < 65536:
        return f"port {port} is not 1 to 65535"
    if scheme == "tls" and not _tls_configured():
        return "tls:// needs a TLS context, and the Dask configuration (distributed.comm.tls) sets none"
    return ""


def _tls_configured() -> bool:
    """Whether Dask's configuration gives a client a TLS context (True without Dask: it is
    reported when the connection is made)."""
    try:
        from distributed.security import Security
    except ImportError:
        return True
    return Security().get_connection_args("client").get("ssl_context") is not None


def add_flags(p) -> None:
    """--scheduler ADDRESS and --scheduler-timeout S."""
    p.add_argument(
        "--scheduler",
        type=address,
        metavar="ADDRESS",
        help="run the tool work on the workers of this Dask scheduler (tcp://HOST:8786; each worker started with "
        "`dask worker ADDRESS --preload harness.tools.distributed`); the outputs are those of the same run here",
    )
    p.add_argument(
        "--scheduler-timeout",
        type=selection.seconds,
        default=CONNECT_TIMEOUT,
        metavar="S",
        help=f"seconds to reach the scheduler before giving up with exit 2 (default {CONNECT_TIMEOUT:g})",
    )


@contextlib.contextmanager
def connected(args) -> Iterator[DaskEngine | None]:
    """The engine --scheduler names, connected first (a scheduler not there fails before any
    work) and closed at the end; None without --scheduler (the local pool)."""
    address = getattr(args, "scheduler", None)
    engine = DaskEngine(address, args.scheduler_timeout) if address else None
    try:
        yield engine
    finally:
        if engine is not None:
            engine.close()


def _pickled(batch, sels) -> bytes:
    return pickle.dumps((batch, sels), protocol=pickle.HIGHEST_PROTOCOL)


class DaskEngine:
    """A connection to a Dask scheduler that runs Runner tasks on its workers."""

    def __init__(self, address: str, timeout: float = CONNECT_TIMEOUT):
        try:
            import distributed
        except ImportError:
            raise InputError("--scheduler needs Dask: pip install '.[distributed]' (dask, distributed)") from None
        self.address, self.timeout = address, timeout
        self._distributed = distributed
        self._paths: dict[str, str] = {}  # build key -> the client's bin directory of it
        self._failures: dict[str, str] = {}  # build key -> why a worker could not look at it
        _quiet_dask_logs()  # (what goes wrong there becomes one line here)
        wrong = address_error(address)  # (--scheduler's own check: no client is made for such an address)
        if wrong:
            raise ClusterError(f"--scheduler {wrong}")
        made: list = []
        try:
            self.client = _within(timeout, lambda: _client(distributed, made, address, timeout))
        except Exception as exc:
            _discard(made)
            why = _first_line(exc)
            said = "" if f"within {timeout:g} s" in why else f" ({why})"
            raise ClusterError(
                f"--scheduler {quoted(address)}: no Dask scheduler answered within {timeout:g} s{said}: "
                "is `dask scheduler` running there? (a slow one: raise --scheduler-timeout)"
            ) from None
        if self._ask(timeout, lambda: self.client.scheduler_info(n_workers=0)).get("services", {}).get("dashboard"):
            link = self._ask(timeout, lambda: self.client.dashboard_link)
            if _shows(link):  # (`dask scheduler --no-dashboard` still serves HTTP, not the page)
                print(f"harness: Dask dashboard: {link}", file=sys.stderr)

    def _ask(self, seconds: float, call):
        """call()'s answer from the cluster; ClusterError when the scheduler has not answered
        within `seconds`, or is gone (Dask says so in many ways: a closed stream or connection
        pool, a client with no scheduler left)."""
        try:
            return _within(seconds, call)
        except Exception as exc:
            raise self._lost(exc) from None

    def _lost(self, why: BaseException | str) -> ClusterError:
        text = why if isinstance(why, str) else _first_line(why)
        client = getattr(self, "client", None)
        if client is not None and client.status not in ("running", "connecting"):
            text = f"the client's connection is {client.status}"  # (not what a call on it said)
        return ClusterError(f"lost the Dask scheduler at {self.address} ({text})")

    def holders(self, key: str) -> list[str]:
        """The workers that have build `key` now (the scheduler answering within the timeout)."""
        info = self._ask(self.timeout, lambda: self.client.scheduler_info(n_workers=-1))
        workers = info.get("workers", {})
        return [w for w, info in workers.items() if info.get("resources", {}).get(key)]

    def lacks(self, tc: toolchain.Toolchain) -> str:
        """Why this cluster cannot run build `tc` ("" when a worker has it, or takes it now)."""
        key = build_key(tc)
        if tc.bin_dir is not None:
            self._paths[key] = str(tc.bin_dir)
        if self.holders(key) or self._taken(key):
            return ""
        failed = self._failures.get(key)
        return (
            f"no worker of the Dask scheduler at {self.address} has LLVM {tc.version} ({key}) or takes it from "
            f"{quoted(str(tc.bin_dir or 'PATH'), PATH_LIMIT)} (a worker takes a build under the directories of its "
            f"${ROOTS_VARIABLE})" + (f"; a worker failed to look: {failed}" if failed else "")
        )

    def _taken(self, key: str) -> bool:
        """Whether a worker took build `key` at the client's path (see `take_build`). A worker that
        has not answered within TAKE_TIMEOUT takes nothing; those that took it stay."""
        path = self._paths.get(key)
        if path is None:
            return False
        try:
            answers = _within(TAKE_TIMEOUT, lambda: self.client.run(take_build, path, key, on_error="return"))
        except TimeoutError:
            return bool(self.holders(key))  # (a scheduler gone: one line there)
        except Exception as exc:
            raise self._lost(exc) from None
        errors = [a for a in answers.values() if isinstance(a, BaseException)]
        if errors:
            self._failures[key] = _first_line(errors[0])
        return any(answer is True for answer in answers.values())

    def run(self, runner, tasks: list, finished) -> None:
        """Each task on a worker with the build; `finished(verdicts, sels)` here as each ends.
        A worker that dies takes its tasks to another (Dask runs them again); a task's verdicts
        are kept once, when its future first completes."""
        key = build_key(runner.tc)
        options = {"timeout": runner.tc.timeout, "with_object": runner.with_object, "facts": runner.facts}
        futures: dict = {}
        try:
            try:
                for m, sels in tasks:
                    task = _pickled(m, sels)
                    futures[self.client.submit(run_task, key, options, task, resources={key: 1}, pure=False, retries=0)] = sels
                pending = self._distributed.as_completed(list(futures), loop=self.client.loop)
            except Exception as exc:  # (a client whose scheduler is gone takes no task)
                raise self._lost(exc) from None
            self._collect(key, pending, futures, finished)
        except BaseException:  # (Ctrl-C, SIGTERM, a lost cluster: the workers end these tasks' tools)
            self._cancel(list(futures))
            raise

    def _cancel(self, futures: list) -> None:
        """Cancel the tasks of `futures`: each worker running one ends its tools at once
        (`_ended_when_cancelled`). A scheduler gone or frozen cancels nothing."""
        try:
            _within(self.timeout, lambda: self.client.cancel(futures))
        except Exception:
            pass

    def _collect(self, key: str, pending, futures: dict, finished) -> None:
        left = len(futures)
        last_look = time.monotonic()
        alone_since: float | None = None  # since when no worker has had the build
        while left:
            batch = pending.next_batch(block=False)
            for future in batch:
                left -= 1
                try:
                    verdicts = pickle.loads(future.result())
                except Exception as exc:
                    if self.client.status not in ("running", "connecting") or future.status == "cancelled":
                        raise self._lost(exc) from None
                    raise ClusterError(f"a task on the Dask cluster at {self.address} failed: {_first_line(exc)}") from None
                finished(verdicts, futures[future])
            if not batch:
                if time.monotonic() - last_look > WATCH_INTERVAL:
                    alone_since = self._still_there(key, alone_since)
                    last_look = time.monotonic()
                time.sleep(0.02)

    def _still_there(self, key: str, alone_since: float | None) -> float | None:
        """Ends the run (exit 2) when the scheduler is gone, or when no worker has had the build
        for GRACE seconds; else when that began (None: a worker has it, or takes it again: one
        restarted, or joined since, has only the builds it was started with)."""
        if self.client.status not in ("running", "connecting"):
            raise self._lost(self.client.status)
        if self.holders(key) or self._taken(key):
            return None
        now = time.monotonic()
        if alone_since is not None and now - alone_since > GRACE:
            raise ClusterError(f"no worker of the Dask scheduler at {self.address} has had {key} for {GRACE:g} s")
        return alone_since if alone_since is not None else now

    def close(self) -> None:
        try:
            _within(5, lambda: self.client.close(timeout=5))
        except Exception:  # (a scheduler already gone or frozen: nothing to close)
            pass


def _client(distributed, made: list, address: str, timeout: float):
    """A Dask client of the scheduler at `address`, connected. Each client made is put in
    `made` before it connects: one whose connection fails is closed by `_discard`, never by its
    __del__ at exit (a stall of twice the timeout, and a traceback)."""

    class Client(distributed.Client):
        def start(self, **kwargs):
            made.append(self)
            super().start(**kwargs)

    return Client(address, timeout=timeout, set_as_default=False)


def _discard(made: list) -> None:
    """Close the clients `_client` made whose connection failed, within a few seconds; one that
    does not close in time is marked closed, so that nothing is left to do at exit."""
    for client in made:
        try:
            _within(2, lambda c=client: c.close(timeout=2))
        except Exception:
            pass
        client.status = "closed"


def _within(seconds: float, call):
    """call()'s value, or TimeoutError when it has not returned within `seconds` (it goes on in a
    daemon thread: Dask's own timeouts cover a connection, not a peer that accepts and says
    nothing, nor a scheduler that stops answering)."""
    done: Future = Future()

    def run() -> None:
        try:
            done.set_result(call())
        except BaseException as exc:
            done.set_exception(exc)

    threading.Thread(target=run, daemon=True).start()
    try:
        return done.result(timeout=seconds)
    except FutureTimeout:
        raise TimeoutError(f"no answer within {seconds:g} s") from None


def _shows(url: str) -> bool:
    """Whether `url` answers a GET with a page within a second."""
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=1) as answer:
            return answer.status == 200
    except (OSError, ValueError):
        return False


def _quiet_dask_logs() -> None:
    """Dask's loggers (each with its own level, and a handler on stderr) say nothing below CRITICAL."""
    names = [n for n in logging.root.manager.loggerDict if n == "distributed" or n.startswith("distributed.")]
    for name in ["distributed", *names]:
        logging.getLogger(name).setLevel(logging.CRITICAL)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
