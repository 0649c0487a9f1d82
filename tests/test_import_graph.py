"""The shape of `bot/`'s imports (measured by bench/import_graph.py): no cycles, the core never imports a front end
or a platform library, and the longest chain of imports stays short."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import import_graph  # a bench script, importable as a module

# modules in the longest chain: 20 on main when this test was written (the issue counted 16 before the regrouping);
# the target is under 16, which needs the members -> ranking -> digests -> core chain cut (see docs/BENCHMARKS.md)
MAX_CHAIN = 19


def test_the_import_graph_has_no_cycles() -> None:
    assert import_graph.cycles() == []


def test_the_core_imports_no_front_end_and_no_platform_library() -> None:
    assert import_graph.core_importing_front_ends() == []


def test_the_longest_import_chain_is_short() -> None:
    chain = import_graph.longest_chain()
    assert len(chain) <= MAX_CHAIN, " -> ".join(chain)


def test_the_graph_sees_lazy_and_type_only_imports_as_no_edges(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "from typing import TYPE_CHECKING\nimport bot.models\nif TYPE_CHECKING:\n    import bot.core\n"
        "def f():\n    import bot.config\n",
        encoding="utf-8",
    )
    assert import_graph.imported_names(module) == ["typing", "bot.models"]
