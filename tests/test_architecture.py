"""The layout is the architecture: every import between kiosk's packages goes inward (the
layers of the README's table), and no module imports itself back through others. Read from
the source, so it holds for imports inside functions too."""

from __future__ import annotations

import ast
import functools
import itertools
from collections import defaultdict
from pathlib import Path

import pytest

from .helpers import ROOT

pytestmark = pytest.mark.unit

#: kiosk's packages, inner first. A package may import only packages of a lower rank: the
#: kiosk's side (table, hw, sync, ui) never the scorer, the rules core nothing but kiosk.errors.
LAYERS = {
    "errors": 0,
    "rules": 1, "sqlite": 1,
    "i18n": 2,
    "words": 3, "protocol": 3,
    "table": 4,
    "hw": 5, "fleet": 5,
    "sync": 6,
    "update": 7,
    "ui": 8, "scorer": 8,
    "sim": 9,
    "cli": 10,
    "__main__": 11,  # (`python -m kiosk`: the command line)
}
#: The scorer's own packages, the same way.
SCORER_LAYERS = {
    "store": 0, "tournament": 0, "pipes": 0,
    "director": 1, "net": 1, "checker": 1, "terminal": 1,
    "hall": 2, "printing": 2,
    "web": 3,
    "server": 4,
}


def _modules() -> dict[str, Path]:
    found = {}
    for path in (ROOT / "kiosk").rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


@functools.cache
def _imports(typing_too: bool = True) -> dict[str, set[str]]:
    """Each kiosk module's imports of other kiosk modules (a name imported from a package
    counts as its module when it is one); without `typing_too`, those the program makes (not
    the type checker's alone, under `if TYPE_CHECKING:`)."""
    edges: dict[str, set[str]] = defaultdict(set)
    for name, path in MODULES.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only = set() if typing_too else {
            id(inner) for node in ast.walk(tree) if isinstance(node, ast.If)
            and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
            for stmt in node.body for inner in ast.walk(stmt)}
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[:len(package.split(".")) - node.level + 1]
                    source = ".".join([*base, *([node.module] if node.module else [])])
                else:
                    source = node.module or ""
                targets = [source, *(f"{source}.{alias.name}" for alias in node.names)]
            else:
                continue
            edges[name].update(t for t in targets if t in MODULES and t != name)
    return edges


def _arrows(prefix: str, ranks: dict[str, int]) -> list[str]:
    depth = prefix.count(".")
    wrong = []
    for source, targets in _imports().items():
        for target in targets:
            if not (source.startswith(prefix) and target.startswith(prefix)):
                continue
            a, b = source.split(".")[depth], target.split(".")[depth]
            if a != b and ranks[a] <= ranks[b]:
                wrong.append(f"{source} → {target}")
    return sorted(wrong)


def test_every_package_has_a_layer():
    packages = {name.split(".")[1] for name in MODULES if name.count(".") >= 1}
    assert packages == set(LAYERS)
    scorer = {name.split(".")[2] for name in MODULES if name.startswith("kiosk.scorer.")}
    assert scorer == set(SCORER_LAYERS)


def test_imports_between_packages_only_go_inward():
    assert _arrows("kiosk.", LAYERS) == []


def test_imports_between_the_scorers_parts_only_go_inward():
    assert _arrows("kiosk.scorer.", SCORER_LAYERS) == []


def test_no_module_imports_itself_back():
    """No cycle of module imports (a package's __init__ importing its own modules aside, and
    the type checker's own under `if TYPE_CHECKING:`, which the program never makes)."""
    state: dict[str, int] = {}
    cycles: list[list[str]] = []
    imports = _imports(typing_too=False)

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for target in sorted(imports.get(node, ())):
            if node.startswith(target + "."):  # a module importing its own package
                continue
            if state.get(target) == 1:
                cycles.append([*path[path.index(target):], target])
            elif target not in state:
                visit(target, [*path, target])
        state[node] = 2

    for name in sorted(MODULES):
        if name not in state:
            visit(name, [name])
    cycles = [c for c in cycles if not _through_own_init(c)]
    assert cycles == []


def _through_own_init(cycle: list[str]) -> bool:
    """A package's __init__ that imports its modules, which import a sibling by the package."""
    return any(b.startswith(a + ".") for a, b in itertools.pairwise(cycle))
