"""The import graph of `bot/` and the size of each front end: `python bench/import_graph.py`.

Edges are the imports a module runs when it is imported (module level, outside `if TYPE_CHECKING:`), between
modules of `bot/` (an import of a package's name that is one of its modules counts as that module). Printed: the
number of modules and edges, cycles, core modules that import a front end or a platform library, the longest import
chain, and each front end's own lines (code lines: not blank, not a comment, not a docstring).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLATFORM_LIBRARIES = ("discord", "telegram", "slack_bolt", "slack_sdk")
FRONT_END_LINE_LIMIT = 400


def module_name(path: Path) -> str:
    """`bot/chat/turns.py` -> `bot.chat.turns`; a package's `__init__.py` is the package."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def modules() -> dict[str, Path]:
    """Every module of `bot/` by name."""
    return {module_name(p): p for p in sorted((ROOT / "bot").rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_imports(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """Imports run at import time: module level, in `if`/`try` blocks, not under `if TYPE_CHECKING:`."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If) and not _is_type_checking(node):
            yield from _runtime_imports(node.body)
            yield from _runtime_imports(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody, *[h.body for h in node.handlers]):
                yield from _runtime_imports(block)


def imported_names(path: Path) -> list[str]:
    """The dotted names a module imports at import time (absolute): `from a.b import c` names a.b.c when that is a
    module, else a.b."""
    known = modules()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: list[str] = []
    for node in _runtime_imports(tree.body):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif node.module and node.level == 0:
            subs = [f"{node.module}.{alias.name}" for alias in node.names]
            names += [sub for sub in subs if sub in known]
            if any(sub not in known for sub in subs):
                names.append(node.module)
    return names


@cache
def graph() -> dict[str, set[str]]:
    """Module -> the modules of `bot/` it imports at import time."""
    known = modules()
    return {name: {i for i in imported_names(path) if i in known and i != name} for name, path in known.items()}


def cycles() -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan)."""
    edges, index, low, stack, on_stack, found = graph(), {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10_000)

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in edges.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in edges:
        if node not in index:
            visit(node)
    return found


def longest_chain() -> list[str]:
    """The longest chain of imports (modules in order); the graph must have no cycles."""
    edges = graph()

    @cache
    def longest_from(node: str) -> tuple[str, ...]:
        best: tuple[str, ...] = ()
        for nxt in edges.get(node, ()):
            chain = longest_from(nxt)
            if len(chain) > len(best):
                best = chain
        return (node, *best)

    return list(max((longest_from(n) for n in edges), key=len))


def is_front_end(name: str) -> bool:
    """Modules of a front end (`bot.frontends.*`)."""
    return name == "bot.frontends" or name.startswith("bot.frontends.")


def core_importing_front_ends() -> list[tuple[str, str]]:
    """(core module, front-end module or platform library) for each import the core must not make."""
    found = []
    for name, path in modules().items():
        if is_front_end(name):
            continue
        for imported in imported_names(path):
            if is_front_end(imported) or imported.split(".")[0] in PLATFORM_LIBRARIES:
                found.append((name, imported))
    return found


def code_lines(path: Path) -> int:
    """Lines that are code: not blank, not a comment, not a docstring."""
    source = path.read_text(encoding="utf-8")
    docstring_lines: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                docstring_lines.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return sum(
        1
        for number, line in enumerate(source.splitlines(), 1)
        if line.strip() and not line.strip().startswith("#") and number not in docstring_lines
    )


def front_end_files() -> dict[str, list[Path]]:
    """Each front end's own files: its package or module under `bot/frontends/` (Discord's cogs included)."""
    base = ROOT / "bot" / "frontends"
    found: dict[str, list[Path]] = {}
    for entry in sorted(base.iterdir()):
        if entry.name.startswith("_") or entry.name == "__pycache__":
            continue
        name = entry.stem
        found[name] = sorted(entry.rglob("*.py")) if entry.is_dir() else [entry]
    if "discord" in found:
        found["discord"] += sorted((ROOT / "cogs").glob("*.py"))
    return found


def front_end_lines() -> dict[str, tuple[int, int]]:
    """Front end -> (code lines, all lines)."""
    return {
        name: (sum(code_lines(p) for p in files), sum(len(p.read_text(encoding="utf-8").splitlines()) for p in files))
        for name, files in front_end_files().items()
    }


def main() -> int:
    """Print the figures; exit 1 when a rule is broken (a cycle, the core importing a front end, a chain of 16)."""
    edges = graph()
    found_cycles = cycles()
    leaks = core_importing_front_ends()
    print(f"modules {len(edges)}, import edges {sum(len(v) for v in edges.values())}")
    print(f"cycles: {len(found_cycles)}" + "".join(f"\n  {' -> '.join(c)}" for c in found_cycles))
    print(
        f"core importing a front end or a platform library: {len(leaks)}" + "".join(f"\n  {a} -> {b}" for a, b in leaks)
    )
    if not found_cycles:
        chain = longest_chain()
        print(f"longest import chain: {len(chain)} modules\n  " + " -> ".join(chain))
    for name, (code, lines) in front_end_lines().items():
        flag = "" if code <= FRONT_END_LINE_LIMIT else f"  (over {FRONT_END_LINE_LIMIT})"
        print(f"front end {name}: {code} code lines ({lines} lines){flag}")
    return 1 if found_cycles or leaks else 0


if __name__ == "__main__":
    sys.exit(main())
