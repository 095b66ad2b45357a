"""Load YAML case specs, keeping every node's file:line:col for error messages.

A spec file is a mapping with an optional `description` and a `matrix`: a list of blocks. Each
block names values (or lists of values) for the case dimensions; lists expand as a cartesian
product, and `exclude` entries drop combinations. See docs/rows.md, "Adding cases".

A file may instead (or also) hold `gemm`: the NVPTX tiled-gemm blocks that
`harness.kernels.gemm_spec` reads through `sections` and `located_blocks`; the matrix planning
skips a file without `matrix`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from harness.core import files
from harness.core.errors import QUOTE_LIMIT, InputError, quoted, shortened

DIMENSIONS = (
    "intrinsic",
    "cpu",
    "fmt_a",
    "fmt_b",
    "width_a",
    "width_b",
    "selector",
    "opt",
    "pipeline",
    "check",
    "elem_a",
    "elem_b",
    "narrowing",
)
OPTIONS = ("split_selectors", "snapshot")  # block settings that are not case dimensions
# `immarg: [high, outside]`: cases with each immarg of a row at its highest value, one past it.
BLOCK_KEYS = DIMENSIONS + OPTIONS + ("args", "exclude", "immarg")
FILE_KEYS = ("description", "matrix", "gemm")
MAX_DIGITS = 1000  # an integer longer than this is out of range for every spec value
# Tags the loader reads (YAML's own: str, int, bool, seq, map, ...); any other tag
# (!!python/..., !include) is refused where it is written, never silently dropped.
KNOWN_TAGS = frozenset(t for t in yaml.constructor.SafeConstructor.yaml_constructors if t) | {
    "tag:yaml.org,2002:merge",  # `<<` and `=` keys, which the block's key check then refuses
    "tag:yaml.org,2002:value",
}
_LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")  # what PyYAML counts as a line break


# The one cut of quoted user input (harness.core.errors), under the names the spec code uses.
quote, shorten = quoted, shortened


@dataclass(frozen=True)
class Value:
    """A scalar from a spec with its location (a command-line value has no line and column)."""

    value: object
    path: str
    line: int | None
    col: int | None

    def error(self, message: str) -> InputError:
        return InputError(message, self.path, self.line, self.col)


@dataclass(frozen=True)
class Block:
    """One `matrix` entry: dimension -> list of located values, plus exclude rules."""

    path: str
    line: int
    col: int
    dims: dict[str, list[Value]]
    excludes: list[dict[str, list[Value]]]
    # Alternatives for operand overrides: each a list of (operand, value) pairs.
    args: Sequence[list[tuple[Value, Value]]] = ()

    def error(self, message: str) -> InputError:
        return InputError(message, self.path, self.line, self.col)


def _mark(path: str, node: yaml.Node) -> tuple[str, int, int]:
    return path, node.start_mark.line + 1, node.start_mark.column + 1


def _scalar(path: str, node: yaml.Node) -> Value:
    if not isinstance(node, yaml.ScalarNode):
        raise InputError("expected a single value here", *_mark(path, node))
    value: object = node.value
    if node.tag == "tag:yaml.org,2002:int" and sum(c.isdigit() for c in node.value) > MAX_DIGITS:
        digits = sum(c.isdigit() for c in node.value)
        shown = node.value[:QUOTE_LIMIT] + "..."
        raise InputError(f"number out of range: {shown} ({digits:,} digits)", *_mark(path, node))
    if node.tag in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:bool"):
        # YAML's own reading: 010 is octal, 1:30 base 60, yes/on are true. A tag forced on a
        # value it cannot read (`!!int abc`, `!!bool maybe`) is bad input at that value.
        try:
            value = _CONSTRUCTOR.construct_object(node)
        except (ValueError, KeyError, IndexError, yaml.YAMLError):
            kind = node.tag.rsplit(":", 1)[-1]
            raise InputError(f"{quote(node.value)} is not a valid {kind}", *_mark(path, node)) from None
    return Value(value, *_mark(path, node))


_CONSTRUCTOR = yaml.constructor.SafeConstructor()


def _values(path: str, node: yaml.Node) -> list[Value]:
    """A scalar or a flat list of scalars, as a non-empty list."""
    if isinstance(node, yaml.SequenceNode):
        if not node.value:
            raise InputError("empty list", *_mark(path, node))
        return [_scalar(path, item) for item in node.value]
    return [_scalar(path, node)]


def _mapping(path: str, node: yaml.Node, allowed: tuple[str, ...], what: str) -> dict[str, yaml.Node]:
    if not isinstance(node, yaml.MappingNode):
        raise InputError(f"{what} must be a mapping", *_mark(path, node))
    out: dict[str, yaml.Node] = {}
    for key_node, value_node in node.value:
        key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
        if key not in allowed:
            raise InputError(
                f"unknown key {quote(key)} in {what}; expected one of: {', '.join(allowed)}",
                *_mark(path, key_node),
            )
        if key in out:
            raise InputError(f"duplicate key {quote(key)}", *_mark(path, key_node))
        out[key] = value_node
    return out


def _args(path: str, node: yaml.Node) -> list[list[tuple[Value, Value]]]:
    """`args: {operand: value}` or a list of such mappings (alternatives, expanded like lists)."""
    alternatives = node.value if isinstance(node, yaml.SequenceNode) else [node]
    if not alternatives:
        raise InputError("empty list", *_mark(path, node))
    out = []
    for alt in alternatives:
        if not isinstance(alt, yaml.MappingNode) or not alt.value:
            raise InputError("'args' must map operands (an index or fmt_a/fmt_b) to values", *_mark(path, alt))
        out.append([(_scalar(path, k), _scalar(path, v)) for k, v in alt.value])
    return out


def sections(text: str, path: str) -> tuple[dict[str, yaml.Node], yaml.Node]:
    """A spec file's top-level keys -> their YAML nodes (locations kept), and the root node."""
    top, root = _sections(text, path)
    return dict(top), root


@functools.lru_cache(maxsize=4)  # `matrix`, `gemm` and `mma` each read every spec
def _sections(text: str, path: str) -> tuple[dict[str, yaml.Node], yaml.Node]:
    root = compose(text, path)
    if root is None:
        raise InputError("empty spec (expected a mapping with a 'matrix' list)", path, 1, 1)
    return _mapping(path, root, FILE_KEYS, "a spec file"), root


def compose(text: str, path: str) -> yaml.Node | None:
    """The node tree of a YAML document (None when it holds none), as the harness reads every
    YAML file (specs, known-bugs.yaml): with each node's location, at most MAX_FLOW_DEPTH flow
    collections open at once, at most MAX_NODES nodes with every alias expanded, and only the
    tags the loader reads. Anything else is one InputError, located where YAML says."""
    deep = flow_too_deep(text)
    if deep is not None:
        raise InputError(f"invalid YAML: more than {MAX_FLOW_DEPTH} [ or {{ open at once", path, *deep)
    try:
        loader = _CountingComposer(text, path)  # (its reader refuses characters YAML does not allow)
        try:
            root = loader.get_single_node()
        finally:
            loader.dispose()
    except (yaml.YAMLError, RecursionError) as exc:
        raise yaml_error(exc, text, path) from None
    if root is not None:
        _refuse_unknown_tags(path, root)
    return root


def yaml_error(exc: yaml.YAMLError | RecursionError, text: str, path: str) -> InputError:
    """What PyYAML (or Python's stack, under nesting too deep for it) refused, as one located line."""
    if isinstance(exc, RecursionError):
        return InputError("invalid YAML: nested too deeply", path)
    if isinstance(exc, yaml.reader.ReaderError):
        return reader_error(exc, text, path)
    if isinstance(exc, yaml.MarkedYAMLError):  # (some carry only a context mark, or none)
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (None, None)
        return InputError(f"invalid YAML: {exc.problem or exc.context}", path, line, col)
    return InputError(f"invalid YAML: {str(exc).splitlines()[0]}", path)


# Nodes of one YAML file with every alias expanded (a node an alias names counts once per
# alias). The files the harness ships have a few hundred at most (known-bugs.yaml 252, the
# largest spec 103); aliases can multiply a 33 KB file into millions (each alias of a list
# of aliases), which every later step would walk one by one: minutes and gigabytes.
MAX_NODES = 100_000


class _CountingComposer(yaml.SafeLoader):
    """PyYAML's safe loader, composing only, counting the nodes the document holds with its
    aliases expanded as it composes them: past MAX_NODES it stops at the node or alias that
    crosses the bound. An alias counts the expanded size of the node it names, known once that
    node is composed; an alias inside the node it names (a cycle: `&e {<<: *e}` merges its own
    keys) counts one, as every walk of the tree stops at a node it has seen."""

    def __init__(self, text: str, path: str):
        super().__init__(text)
        self.path = path
        self.expanded = 0  # nodes so far, aliases expanded
        self.sizes: dict[int, int] = {}  # id(node) -> its expanded size, once it is composed

    def compose_node(self, parent, index):
        event = self.peek_event()
        node = super().compose_node(parent, index)
        if isinstance(event, yaml.AliasEvent):
            self.expanded += self.sizes.get(id(node), 1)
        else:
            parts = node.value if isinstance(node, yaml.SequenceNode) else ()
            if isinstance(node, yaml.MappingNode):
                parts = [n for pair in node.value for n in pair]
            self.sizes[id(node)] = 1 + sum(self.sizes.get(id(part), 1) for part in parts)
            self.expanded += 1  # (its parts were counted as they were composed)
        if self.expanded > MAX_NODES:
            raise InputError(
                f"YAML of more than {MAX_NODES:,} nodes with its aliases expanded (a spec or known-bugs.yaml has a few hundred)",
                *_event_mark(self.path, event),
            )
        return node


def _event_mark(path: str, event: yaml.Event) -> tuple[str, int | None, int | None]:
    mark = event.start_mark
    return (path, mark.line + 1, mark.column + 1) if mark else (path, None, None)


def reader_error(exc: yaml.reader.ReaderError, text: str, path: str) -> InputError:
    """PyYAML's refusal of a character YAML does not allow, located at that character."""
    char = exc.character if isinstance(exc.character, str) else chr(exc.character)
    return InputError(
        f"invalid YAML: character U+{ord(char):04X} is not allowed in YAML text", path, *text_position(text, exc.position)
    )


MAX_FLOW_DEPTH = 64  # flow collections ([ and {) open at once; a spec needs 2
# Quoted text on one line (where a quote can open one) and comments: a bracket there opens nothing.
_NOT_FLOW = re.compile(r"""(?<![^\s\[{,:])(?:"(?:[^"\\\n]|\\.)*"|'[^'\n]*')|(?<![^ \t\n])#[^\n]*""")


def flow_too_deep(text: str) -> tuple[int, int] | None:
    """Line and column of the first `[` or `{` that opens more than MAX_FLOW_DEPTH flow
    collections at once (outside quotes and comments), or None. PyYAML's scanner takes time
    quadratic in that depth (2,000 took 13 s to refuse), so such text is refused unread."""
    plain = _NOT_FLOW.sub(lambda m: " " * len(m.group()), text)
    depth = 0
    for m in re.finditer(r"[\[\]{}]", plain):
        depth += 1 if m.group() in "[{" else -1
        if depth > MAX_FLOW_DEPTH:
            return text_position(text, m.start())
        depth = max(depth, 0)
    return None


def text_position(text: str, index: int) -> tuple[int, int]:
    """1-based line and column of `text[index]`, counting line breaks as PyYAML does."""
    line, start = 1, 0
    for m in _LINE_BREAK.finditer(text, 0, index):
        line, start = line + 1, m.end()
    return line, index - start + 1


def _refuse_unknown_tags(path: str, root: yaml.Node) -> None:
    """The first node (in document order) whose tag the loader does not read is an error there:
    a dropped tag would quietly change what the value means."""
    stack, seen = [root], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:  # an alias shares its anchor's node
            continue
        seen.add(id(node))
        if node.tag not in KNOWN_TAGS:
            tag = node.tag.replace("tag:yaml.org,2002:", "!!", 1)
            raise InputError(
                f"YAML tag {shorten(tag)} is not supported (a spec holds plain strings, numbers, booleans, lists and mappings)",
                *_mark(path, node),
            )
        if isinstance(node, yaml.SequenceNode):
            stack.extend(reversed(node.value))
        elif isinstance(node, yaml.MappingNode):
            stack.extend(n for pair in reversed(node.value) for n in reversed(pair))


def located_blocks(path: str, node: yaml.Node, keys: tuple[str, ...], what: str) -> list[Block]:
    """A non-empty list of blocks, each a mapping of `keys` to a value or a flat list of values
    (no excludes, no args): for sections other than `matrix`, such as `gemm`."""
    if not isinstance(node, yaml.SequenceNode) or not node.value:
        raise InputError(f"{what} must be a non-empty list of blocks", *_mark(path, node))
    blocks = []
    for block_node in node.value:
        fields = _mapping(path, block_node, keys, f"a {what} block")
        blocks.append(Block(*_mark(path, block_node), dims={k: _values(path, v) for k, v in fields.items()}, excludes=[]))
    return blocks


def parse_spec(text: str, path: str) -> list[Block]:
    """Parse one spec file's text into blocks; raise InputError with a location on any fault.
    A file with a `gemm` section and no `matrix` has no matrix blocks."""
    top, root = sections(text, path)
    if "matrix" not in top:
        if "gemm" in top:  # NVPTX tiled gemm, read by harness.kernels.gemm_spec
            return []
        raise InputError("spec has no 'matrix' list", *_mark(path, root))
    matrix = top["matrix"]
    if not isinstance(matrix, yaml.SequenceNode) or not matrix.value:
        raise InputError("'matrix' must be a non-empty list of blocks", *_mark(path, matrix))
    blocks = []
    for block_node in matrix.value:
        fields = _mapping(path, block_node, BLOCK_KEYS, "a matrix block")
        if "intrinsic" not in fields:
            raise InputError("matrix block has no 'intrinsic'", *_mark(path, block_node))
        dims = {key: _values(path, node) for key, node in fields.items() if key not in ("exclude", "args")}
        args = _args(path, fields["args"]) if "args" in fields else []
        excludes = []
        if "exclude" in fields:
            rules = fields["exclude"]
            if not isinstance(rules, yaml.SequenceNode):
                raise InputError("'exclude' must be a list of mappings", *_mark(path, rules))
            for rule in rules.value:
                rule_fields = _mapping(path, rule, DIMENSIONS, "an exclude rule")
                if not rule_fields:
                    raise InputError("empty exclude rule would drop every case", *_mark(path, rule))
                excludes.append({k: _values(path, v) for k, v in rule_fields.items()})
        blocks.append(Block(*_mark(path, block_node), dims=dims, excludes=excludes, args=args))
    return blocks


MAX_SPEC_BYTES = 4 << 20  # a spec is a page of YAML; PyYAML takes seconds per MB


def read_text(path: Path) -> str:
    """A spec file's text: UTF-8, no NUL byte, a regular file (a FIFO would block). Anything else
    is one located error."""
    data = files.read_input(path, MAX_SPEC_BYTES, "spec")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputError("not UTF-8 text", str(path), line, col) from None
    if "\0" in text:
        at = text.index("\0")
        raise InputError("a NUL byte", str(path), text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1)
    return text


def load_spec(path: Path) -> list[Block]:
    return parse_spec(read_text(path), str(path))
