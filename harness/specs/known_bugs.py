"""The checked-in list of known bugs per exact LLVM version (cases/known-bugs.yaml)."""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml

from harness.core import files
from harness.core.errors import InputError
from harness.specs.spec import compose, quote, shorten, yaml_error

FILENAME = "known-bugs.yaml"


@dataclass(frozen=True)
class Entry:
    """One glob of a known-bugs entry, where the file writes it."""

    version: str
    glob: str
    reason: str
    line: int
    col: int


def load(cases_dir: Path) -> dict[str, list[tuple[str, str]]]:
    """Version -> [(glob relative to cases/, reason)]."""
    out: dict[str, list[tuple[str, str]]] = {}
    for e in entries(cases_dir):
        out.setdefault(e.version, []).append((e.glob, e.reason))
    return out


def entries(cases_dir: Path) -> list[Entry]:
    """Every glob of the known-bugs file with its version, reason and location, in file order."""
    path = cases_dir / FILENAME
    if path.is_symlink() and not path.exists():
        raise InputError("a symbolic link to nothing (the known-bugs file must be a file or absent)", str(path))
    if not path.exists():
        return []
    root = _parsed(path)
    at = lambda node: (str(path), node.start_mark.line + 1, node.start_mark.column + 1)
    if root is None:
        return []
    if not isinstance(root, yaml.MappingNode):
        raise InputError("expected a mapping of LLVM version -> list of {files, reason}", *at(root))
    out: list[Entry] = []
    for key, value in root.value:
        version = _version(key, at)
        if not isinstance(value, yaml.SequenceNode):
            raise InputError(f"version {quote(version)}: expected a list of {{files, reason}}", *at(value))
        for node in value.value:
            fields = _fields(version, node, at)
            reason = _reason(version, fields["reason"], at)
            out.extend(Entry(version, glob, reason, *at(g)[1:]) for glob, g in _globs(version, fields["files"], at))
    return out


def _version(key: yaml.Node, at) -> str:
    """A top-level key: the exact version `llc --version` prints, which YAML must read as text."""
    if isinstance(key, yaml.ScalarNode) and key.tag == _STR:
        return key.value
    kind = key.tag.rsplit(":", 1)[-1]
    scalar = isinstance(key, yaml.ScalarNode)  # (as written, quoted: the text to put in quotes)
    shown, example = (quote(key.value), shorten(key.value)) if scalar else (_shown(key), "22.1.8")
    raise InputError(f'version {shown} is not text (YAML reads it as a {kind}): quote it, e.g. "{example}":', *at(key))


def _fields(version: str, node: yaml.Node, at) -> dict[str, yaml.Node]:
    """An entry's `files` and `reason` nodes (merge keys already flattened by `_parsed`); any other
    key is named where it is written."""
    if not isinstance(node, yaml.MappingNode):
        raise InputError(f"version {quote(version)}: each entry needs exactly 'files' and 'reason'", *at(node))
    fields: dict[str, yaml.Node] = {}
    for key, value in node.value:
        name = key.value if isinstance(key, yaml.ScalarNode) and key.tag == _STR else None
        if name not in ENTRY_KEYS:
            raise InputError(
                f"version {quote(version)}: unknown key {_shown(key)} in an entry; expected 'files' and 'reason'", *at(key)
            )
        fields[name] = value  # (an entry's own key comes after the ones it merges, and wins, as in YAML)
    missing = [k for k in ENTRY_KEYS if k not in fields]
    if missing:
        raise InputError(
            f"version {quote(version)}: each entry needs exactly 'files' and 'reason' (this one lacks '{missing[0]}')", *at(node)
        )
    return fields


ENTRY_KEYS = ("files", "reason")


def _globs(version: str, node: yaml.Node, at) -> list[tuple[str, yaml.Node]]:
    """(glob, its node) of an entry's `files`: one glob (text) or a non-empty list of them."""
    items = node.value if isinstance(node, yaml.SequenceNode) else [node]
    if not items or not all(_text(item) for item in items):
        raise InputError(
            f"version {quote(version)}: files: expected a glob (text) or a list of globs, not {_shown(node)}", *at(node)
        )
    return [(item.value, item) for item in items]


def _reason(version: str, node: yaml.Node, at) -> str:
    if not _text(node):
        raise InputError(f"version {quote(version)}: reason: expected text saying why, not {_shown(node)}", *at(node))
    return " ".join(node.value.split())


def _text(node: yaml.Node) -> bool:
    """Whether a node is text YAML reads as a string, not blank."""
    return isinstance(node, yaml.ScalarNode) and node.tag == _STR and bool(node.value.strip())


def _shown(node: yaml.Node, depth: int = 3) -> str:
    """A node as one message line shows it, cut short: text quoted, another scalar as written
    (`null` when nothing is), a list or mapping in flow style (`[a, b]`, `{a: 1}`)."""
    if isinstance(node, yaml.ScalarNode):
        return quote(node.value) if node.tag == _STR else shorten(node.value or "null")
    if depth == 0:
        return "[...]" if isinstance(node, yaml.SequenceNode) else "{...}"
    if isinstance(node, yaml.SequenceNode):
        text = "[" + ", ".join(_shown(item, depth - 1) for item in node.value[:8]) + (", ...]" if len(node.value) > 8 else "]")
    else:
        pairs = [f"{_shown(k, depth - 1)}: {_shown(v, depth - 1)}" for k, v in node.value[:8]]
        text = "{" + ", ".join(pairs) + (", ...}" if len(node.value) > 8 else "}")
    return shorten(text)


def idle(cases_dir: Path, generated: Iterable[str]) -> list[str]:
    """Warnings (`file:line:col: warning: ...`) for the globs under generated/ that mark nothing:
    naming no file of `generated` (names relative to cases/, e.g. a cohort's shared file that
    the entry itself split into files of their own), or only files an earlier glob of the same
    version already gives its XFAIL."""
    path = cases_dir / FILENAME
    every = entries(cases_dir)  # (any glob may give a file its reason first)
    known = [e for e in every if e.glob.startswith(GENERATED_PREFIX)]  # (space/ names cells no file holds)
    names = list(generated)
    matched: dict[int, int] = {}  # id of an entry -> the files it matches
    first: set[int] = set()  # ids of the entries some file takes its reason from
    for version in dict.fromkeys(e.version for e in known):
        index = GlobIndex((e.glob, e) for e in every if e.version == version)
        for name in names:
            hits = list(index.matches(name))
            for e in hits:
                matched[id(e)] = matched.get(id(e), 0) + 1
            if hits:
                first.add(id(hits[0]))
    out = []
    for e in known:
        if not matched.get(id(e)):
            why = "names no generated file: it marks nothing XFAIL"
        elif id(e) not in first:
            why = f"names {matched[id(e)]} generated file(s), each of which gets an earlier entry's XFAIL: this one marks nothing"
        else:
            continue
        out.append(f"{path}:{e.line}:{e.col}: warning: version {quote(e.version)}: {quote(e.glob)} {why}")
    return out


GENERATED_PREFIX = "generated/"


MAX_BYTES = 4 << 20  # known-bugs.yaml is a few pages of YAML (as a spec: PyYAML takes seconds per MB)


def _parsed(path: Path) -> yaml.Node | None:
    """The known-bugs file's YAML node tree (None when it holds nothing), each key given once and
    merge keys (`<<: *anchor`) flattened as YAML reads them; bad YAML is bad input, with where.
    Only a regular file is read, without blocking (a FIFO or a device is refused, never waited on)."""
    data = files.read_input(path, MAX_BYTES, "known-bugs file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError("not UTF-8 text", str(path), data[: exc.start].count(b"\n") + 1) from None
    root = compose(text, str(path))  # (as every YAML file is read: its limits, its errors)
    try:
        mappings = _mappings(root)
        for node in mappings:
            _each_key_once(node, path, top=node is root)
        for node in mappings:
            _MERGER.flatten_mapping(node)
    except (yaml.YAMLError, RecursionError) as exc:  # (a bad merge key; a chain of them too deep)
        raise yaml_error(exc, text, str(path)) from None
    return root


_STR = "tag:yaml.org,2002:str"
_MERGER = yaml.constructor.SafeConstructor()  # (its flatten_mapping: YAML's merge keys, nothing constructed)


def _mappings(root: yaml.Node | None) -> list[yaml.MappingNode]:
    """Every mapping of the tree, each once (an alias names its anchor's node), without recursion."""
    seen: set[int] = set()
    out: list[yaml.MappingNode] = []
    todo = [root] if root is not None else []
    while todo:
        node = todo.pop()
        if id(node) in seen or isinstance(node, yaml.ScalarNode):
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            out.append(node)
            todo.extend(n for pair in reversed(node.value) for n in reversed(pair))
        else:
            todo.extend(reversed(node.value))
    return out


def _each_key_once(node: yaml.MappingNode, path: Path, top: bool) -> None:
    """A key written twice in one mapping would silently drop the first one's value (a version's
    XFAILs, an entry's files): refuse it where the second is written."""
    seen: dict[str, int] = {}
    for key, _ in node.value:
        if not isinstance(key, yaml.ScalarNode):
            continue  # (a list or mapping as a key is refused by name where a key is read)
        line = key.start_mark.line + 1
        if key.value in seen:
            what = (
                f"version {quote(key.value)} is listed twice" if top else f"key {quote(key.value)} is given twice in one mapping"
            )
            raise InputError(
                f"{what} (first on line {seen[key.value]}): YAML would keep only the last",
                str(path),
                line,
                key.start_mark.column + 1,
            )
        seen[key.value] = line


def reason_for(known: dict[str, list[tuple[str, str]]], version: str, relpath: str) -> str:
    """Why `relpath` (relative to cases/) is expected to fail on `version`, or ""."""
    rules = known.get(version)
    return next(_index(rules).matches(relpath), "") if rules else ""


def _glob_match(relpath: str, pattern: str) -> bool:
    """Shell-style glob per path segment: `*` never crosses a `/` (so `generated/*.ll` does not
    reach into `generated/snapshots/`)."""
    parts, segments = relpath.split("/"), _segments(pattern)
    return len(parts) == len(segments) and all(match(part) for match, part in zip(segments, parts))


_WILD = re.compile(r"[*?\[]")


class GlobIndex:
    """Globs in order, each with what it stands for, found for a path without trying them all:
    a glob can only match a path that starts with its literal head (the text before its first
    `*`, `?` or `[`), so the globs are bucketed by that head, and a path looks up its own
    prefix of each head length there. A known-bugs file of thousands of globs then costs each
    file name a few lookups, not a match per glob."""

    def __init__(self, items: Iterable[tuple[str, object]]):
        self.by_head: dict[int, dict[str, list[tuple[int, str, object]]]] = {}
        for order, (glob, value) in enumerate(items):
            head = glob[: m.start()] if (m := _WILD.search(glob)) else glob
            self.by_head.setdefault(len(head), {}).setdefault(head, []).append((order, glob, value))

    def matches(self, relpath: str) -> Iterator:
        """What each glob that matches `relpath` stands for, in the globs' order."""
        found = [item for size, heads in self.by_head.items() for item in heads.get(relpath[:size], ())]
        return (value for _, glob, value in sorted(found, key=lambda item: item[0]) if _glob_match(relpath, glob))


def _index(rules: list[tuple[str, str]]) -> GlobIndex:
    """The index of one version's (glob, reason) list, made once per list."""
    key = id(rules)
    held = _INDEXES.get(key)
    if held is None or held[0] is not rules:
        held = _INDEXES[key] = (rules, GlobIndex(rules))
    return held[1]


_INDEXES: dict[int, tuple[list, GlobIndex]] = {}  # id -> (the list, kept alive so the id stays its own; its index)


@functools.cache  # (bounded: the file is at most MAX_BYTES)
def _segments(pattern: str) -> tuple[Callable[[str], object], ...]:
    """A glob's segments, each as `fnmatch.fnmatchcase` matches it (compiled once: every file
    name of a run is held against every glob of its version)."""
    return tuple(re.compile(fnmatch.translate(segment)).match for segment in pattern.split("/"))
