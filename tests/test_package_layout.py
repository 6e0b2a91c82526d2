"""The packages' layout, read from every import statement of the source (nothing is imported):
no import circle in the evaluator (`respondeoqa_eval`) and the Space (`respondeoqa_space`), no
upward arrow between the evaluator's layers, no package attribute shadowed by a submodule's name,
and the evaluator never importing the Space or its web stack.

The import graph is read with `ast`:

- a node per module of the packages (a package is its `__init__.py`);
- an edge per `import` / `from ... import` that names a module of the packages, relative ones
  resolved, wherever it stands: at module level, **inside functions** (a lazy import only hides
  a circle at import time: the two modules still depend on each other) and in
  `if __name__ == "__main__":` blocks (`python -m` runs them). Only `if TYPE_CHECKING:` blocks
  are left out: they never run;
- `from pkg import name` is an edge to the submodule `pkg.name`, or to `pkg` when
  `pkg/__init__.py` binds `name` itself (Python then takes the attribute, not the submodule);
- importing `a.b.c` from outside `a.b` also runs `a/b/__init__.py`: an edge to every package
  above the target that does not also hold the importer (the top package holds every module).

The layers (`LAYERS`, the order of the evaluator's package docstring): a module may import its
own area and the areas of lower layers only; areas of one layer never import each other.
"""

from __future__ import annotations

import ast
import importlib
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DIR = ROOT / "evaluator" / "respondeoqa_eval"
SPACE_DIR = ROOT / "space" / "respondeoqa_space"

LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "_version", "_lazy"),
    ("io",),
    ("jsonl",),
    ("data",),
    ("metrics", "predictions"),
    ("scoring",),
    ("report",),
    ("analysis", "api"),
    ("__init__",),  # the package itself: `evaluate`, `load_gold`, ... on first use
    ("runner",),
    ("harness",),
    ("dataset",),
    ("cli",),
)
"""The evaluator's areas (a top-level module or folder; `__init__` is the package itself), lowest
first: data flows up this list (respondeoqa_eval/__init__.py says what each holds)."""

NEVER_IN_THE_EVALUATOR = ("respondeoqa_space", "gradio", "gradio_client", "fastapi", "starlette")
"""What the evaluator never imports: the Space and its web stack."""


def _is_main_block(node: ast.AST) -> bool:
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
        return False
    sides = [node.test.left, *node.test.comparators]
    return any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and any(
        isinstance(s, ast.Constant) and s.value == "__main__" for s in sides
    )


def _is_type_checking(node: ast.AST) -> bool:
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement that can run (`if TYPE_CHECKING:` bodies left out)."""
    out, stack = [], [tree]
    while stack:
        node = stack.pop()
        if _is_type_checking(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return out


def _bound_names(tree: ast.Module, here: str, modules: set[str]) -> dict[str, ast.AST]:
    """Names a package's `__init__` binds at its top level, each with the statement binding it:
    definitions, assignments, imports (all but `from . import sub` of the submodule itself) and
    the names it re-exports on first use (`lazy_exports(__name__, {".module": (name, ...)})`)."""
    names: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for t in ast.walk(target):
                    if isinstance(t, ast.Name):
                        names[t.id] = node
            call = node.value
            if isinstance(call, ast.Call) and getattr(call.func, "id", "") == "lazy_exports":
                for arg in call.args:
                    for const in ast.walk(arg) if isinstance(arg, ast.Dict) else ():
                        value = getattr(const, "value", None)
                        if isinstance(value, str) and not value.startswith("."):
                            names[value] = node  # a name (the keys are ".module" paths)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                names[alias.asname or alias.name.split(".")[0]] = node
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                itself = node.level == 1 and node.module is None and alias.asname is None
                if not (itself and f"{here}.{alias.name}" in modules):
                    names[alias.asname or alias.name] = node
    return names


def _modules(package_dirs: tuple[Path, ...]) -> dict[str, tuple[ast.Module, bool]]:
    trees: dict[str, tuple[ast.Module, bool]] = {}
    for package_dir in package_dirs:
        for path in sorted(package_dir.rglob("*.py")):
            parts = list(path.relative_to(package_dir.parent).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            name = ".".join(parts[:-1] if is_package else parts)
            trees[name] = (ast.parse(path.read_text(encoding="utf-8"), str(path)), is_package)
    return trees


def _sources(name: str, is_package: bool, tree: ast.Module) -> Iterator[tuple[str, list[str]]]:
    """(module named, names imported from it) per import statement; `[]` for `import m`."""
    here = name if is_package else name.rpartition(".")[0]
    for node in _imports(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, []
            continue
        if node.level:
            base = here.split(".")[: len(here.split(".")) - node.level + 1]
            source = ".".join(base + ([node.module] if node.module else []))
        else:
            source = node.module or ""
        yield source, [a.name for a in node.names]


def import_graph(*package_dirs: Path) -> dict[str, set[str]]:
    """Module -> the modules of the packages it imports (see the module docstring)."""
    trees = _modules(package_dirs)
    modules = set(trees)
    bound = {
        name: _bound_names(tree, name, modules) for name, (tree, is_pkg) in trees.items() if is_pkg
    }

    def known(name: str) -> str | None:
        while name and name not in trees:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, (tree, is_package) in trees.items():
        targets: set[str] = set()
        for source, names in _sources(name, is_package, tree):
            if not names:
                if (target := known(source)) is not None:
                    targets.add(target)
                continue
            for imported in names:
                sub = f"{source}.{imported}"
                if sub in trees and imported not in bound.get(source, {}):
                    targets.add(sub)
                elif (target := known(source)) is not None:
                    targets.add(target)
        for target in list(targets):
            parent = target.rpartition(".")[0]
            while parent and not (name == parent or name.startswith(parent + ".")):
                targets.add(parent)
                parent = parent.rpartition(".")[0]
        targets.discard(name)
        graph[name] = targets
    return graph


def find_circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle as `[a, b, ..., a]`, or None (depth-first search, sorted: stable)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def area_of(module: str) -> str:
    """`pkg.data.gold` -> `data`; the package itself -> `__init__`."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def upward_arrows(
    graph: dict[str, set[str]],
    layers: tuple[tuple[str, ...], ...] = LAYERS,
    exceptions: frozenset[str] = frozenset(),
) -> list[str]:
    """Every import from an area to one of a higher layer or another area of its layer, as
    "importer -> imported"; an area missing from `layers` is an arrow too (place it)."""
    rank = {area: i for i, layer in enumerate(layers) for area in layer}
    wrong = []
    for importer, targets in sorted(graph.items()):
        for target in sorted(targets):
            if importer.split(".")[0] != target.split(".")[0] or {importer, target} & exceptions:
                continue  # another package (its own check), or a temporary exception
            a, b = area_of(importer), area_of(target)
            if a == b:
                continue
            if a not in rank or b not in rank or rank[b] >= rank[a]:
                wrong.append(f"{importer} -> {target}")
    return wrong


def shadowed_submodules(*package_dirs: Path) -> list[str]:
    """Every name a package's `__init__` binds that is also one of its submodules' names (the
    attribute then changes to the module once the submodule is imported)."""
    trees = _modules(package_dirs)
    modules = set(trees)
    found = []
    for name, (tree, is_package) in sorted(trees.items()):
        if not is_package:
            continue
        for bound, node in sorted(_bound_names(tree, name, modules).items()):
            if f"{name}.{bound}" in modules:
                found.append(f"{name}.{bound} (line {getattr(node, 'lineno', '?')})")
    return found


def foreign_imports(package_dir: Path, tops: tuple[str, ...]) -> list[str]:
    """Every import in the package of a module whose top-level name is in `tops`."""
    found = []
    for name, (tree, is_package) in sorted(_modules((package_dir,)).items()):
        for source, _ in _sources(name, is_package, tree):
            if source.split(".")[0] in tops:
                found.append(f"{name} imports {source}")
    return found


def test_the_packages_have_no_import_circle():
    graph = import_graph(PACKAGE_DIR, SPACE_DIR)
    assert "respondeoqa_eval.report.model" in graph and "respondeoqa_space.service" in graph
    assert len(graph) > 140  # the real packages
    assert "respondeoqa_eval.report" in graph["respondeoqa_space.service"]  # both read
    circle = find_circle(graph)
    assert circle is None, "import circle: " + " -> ".join(circle or [])


def test_no_upward_arrow_between_the_evaluators_layers():
    graph = import_graph(PACKAGE_DIR)
    areas = {area_of(m) for m in graph}
    assert areas == {a for layer in LAYERS for a in layer}, "place every area"
    assert upward_arrows(graph) == []


def test_no_package_attribute_is_shadowed_by_a_submodule():
    assert shadowed_submodules(PACKAGE_DIR, SPACE_DIR) == []


def test_the_evaluator_imports_neither_the_space_nor_its_web_stack():
    assert foreign_imports(PACKAGE_DIR, NEVER_IN_THE_EVALUATOR) == []
    assert not (PACKAGE_DIR / "space").exists()


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root / "pkg"


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    files = {"pkg/__init__.py": "", **{f"pkg/{k}": v for k, v in files.items()}}
    return _write(tmp_path, files)


@pytest.mark.parametrize(
    ("files", "circle"),
    [
        # a lazy import inside a function still closes a circle
        (
            {"a.py": "from .b import x\n", "b.py": "def f():\n    from . import a\n"},
            ["pkg.a", "pkg.b", "pkg.a"],
        ),
        # an import in a `__main__` block runs under `python -m`: a circle too
        (
            {
                "a.py": "from .b import x\n",
                "b.py": "if __name__ == '__main__':\n    from .a import y\n",
            },
            ["pkg.a", "pkg.b", "pkg.a"],
        ),
        # importing sub.m from outside runs sub/__init__.py, which imports back
        (
            {"a.py": "from .sub.m import x\n", "sub/__init__.py": "from ..a import y\n"},
            ["pkg.a", "pkg.sub", "pkg.a"],
        ),
        # absolute imports count as relative ones do
        (
            {"a.py": "import pkg.b\n", "b.py": "from pkg import a\n"},
            ["pkg.a", "pkg.b", "pkg.a"],
        ),
        # a name the package's __init__ binds is that attribute, not the submodule of that
        # name: `from . import g` here depends on sub/__init__.py, not on sub/g.py
        (
            {
                "sub/__init__.py": "from .m import x\ndef g(): pass\n",
                "sub/m.py": "from . import f\n",
                "sub/f.py": "x = 1\n",
                "sub/g.py": "from ..a import y\n",
                "a.py": "from .sub import g\n",
            },
            None,
        ),
        # ... and a circle when that name is the submodule
        (
            {
                "sub/__init__.py": "",
                "sub/g.py": "from ..a import y\n",
                "a.py": "from .sub import g\n",
            },
            ["pkg.a", "pkg.sub.g", "pkg.a"],
        ),
        # a package importing its own modules is no circle; TYPE_CHECKING imports never run
        (
            {
                "sub/__init__.py": "from .m import x\n",
                "sub/m.py": "from . import f\n",
                "sub/f.py": "x = 1\n",
                "a.py": "from .sub.m import x\nfrom typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from .b import z\n",
                "b.py": "from .a import w\n",
            },
            None,
        ),
    ],
)
def test_the_circle_check_reads_imports_as_python_runs_them(tmp_path, files, circle):
    assert find_circle(import_graph(_package(tmp_path, files))) == circle


@pytest.mark.parametrize(
    ("files", "arrows"),
    [
        # the lower layer imports the higher one, at module level or inside a function
        ({"low.py": "from .high import x\n", "high.py": "x = 1\n"}, ["pkg.low -> pkg.high"]),
        (
            {
                "low/__init__.py": "",
                "low/m.py": "def f():\n    from ..high import x\n",
                "high.py": "x = 1\n",
            },
            ["pkg.low.m -> pkg.high"],
        ),
        # two areas of one layer import neither way
        ({"mid1.py": "from .mid2 import x\n", "mid2.py": "x = 1\n"}, ["pkg.mid1 -> pkg.mid2"]),
        # an area the list does not place is named
        ({"other.py": "from .low import x\n", "low.py": "x = 1\n"}, ["pkg.other -> pkg.low"]),
        # downward is right
        (
            {
                "high.py": "from .low import x\nfrom . import mid1\n",
                "low.py": "x = 1\n",
                "mid1.py": "from .low import x\n",
            },
            [],
        ),
    ],
)
def test_the_layer_check_finds_upward_arrows(tmp_path, files, arrows):
    layers = (("low",), ("mid1", "mid2"), ("high",))
    graph = import_graph(_package(tmp_path, files))
    assert upward_arrows(graph, layers) == arrows


@pytest.mark.parametrize(
    ("init", "shadowed"),
    [
        # the lighteval bug: a function named like the submodule next to it
        ("def tasks():\n    return []\n", ["pkg.tasks (line 1)"]),
        ("from .table import tasks\n", ["pkg.tasks (line 1)"]),  # a re-export of that name
        ("tasks = 1\n", ["pkg.tasks (line 1)"]),
        (
            "from ._lazy import lazy_exports\n__getattr__, __dir__ = lazy_exports(__name__, "
            "{'.table': ('tasks',)})\n",
            ["pkg.tasks (line 2)"],
        ),
        # importing the submodule itself binds the same module: no shadowing
        ("from . import tasks\nfrom .table import task_names\n", []),
    ],
)
def test_the_shadowing_check_finds_a_name_that_is_a_submodule(tmp_path, init, shadowed):
    package = _write(
        tmp_path,
        {
            "pkg/__init__.py": init,
            "pkg/tasks.py": "x = 1\n",
            "pkg/table.py": "tasks = task_names = 1\n",
            "pkg/_lazy.py": "",
        },
    )
    assert shadowed_submodules(package) == shadowed


def test_the_foreign_import_check_reads_function_level_and_main_block_imports(tmp_path):
    package = _package(
        tmp_path,
        {
            "a.py": "def f():\n    import gradio\n",
            "b.py": "if __name__ == '__main__':\n    from respondeoqa_space.cli import main\n",
            "c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import fastapi\n",
        },
    )
    assert foreign_imports(package, NEVER_IN_THE_EVALUATOR) == [
        "pkg.a imports gradio",
        "pkg.b imports respondeoqa_space.cli",
    ]


@pytest.mark.parametrize(
    "old",
    [
        "respondeoqa_eval.items",
        "respondeoqa_eval.items_cli",
        "respondeoqa_eval.breakdowns",
        "respondeoqa_eval.space",
        "respondeoqa_eval.dataset.load",
    ],
)
def test_a_moved_module_is_gone_and_the_changelog_names_its_new_place(old):
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(old)
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    unreleased = changelog[changelog.index("## [Unreleased]") :]
    assert f"`{old}`" in unreleased.split("\n## [")[0], old


def test_the_documented_paths_import_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        from respondeoqa_eval import InputError, Report, evaluate, load_gold, load_predictions
        from respondeoqa_eval.cli import main
        from respondeoqa_eval.predictions import Predictions
        from respondeoqa_eval.report import Report as ReportAgain

    assert ReportAgain is Report and callable(main) and Predictions and InputError
    assert callable(evaluate) and callable(load_gold) and callable(load_predictions)


def test_each_area_adds_the_commands_the_cli_lists_for_it():
    import argparse

    from respondeoqa_eval.cli import AREAS, build_parser

    for name, commands in AREAS.items():
        sub = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(name).register(sub)
        assert tuple(sub.choices) == commands, name
        assert tuple(build_parser(commands[0])._subparsers._group_actions[0].choices) == commands
    every = build_parser()._subparsers._group_actions[0].choices
    assert tuple(every) == sum(AREAS.values(), ())
    assert tuple(build_parser("no-such-command")._subparsers._group_actions[0].choices) == tuple(
        every
    )


@pytest.mark.slow
def test_score_loads_only_what_scoring_needs(tmp_path, public_dir, public_gold):
    # `score` in a new interpreter, as a user runs it: none of the other areas' modules, their
    # optional dependencies or the download's HTTP client are imported
    import json
    import subprocess

    preds = tmp_path / "p.jsonl"
    rows = [{"id": r.id, "answer": r.answers[0]} for r in public_gold.records[::40]]
    preds.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code = (
        "import json, os, sys\n"
        "from respondeoqa_eval.cli import main\n"
        "code = main(sys.argv[1:])\n"
        "print(json.dumps(sorted(sys.modules)))\n"
        "sys.exit(code)\n"
    )
    args = ["score", str(preds), "--data-dir", str(public_dir), "--bootstrap", "10", "-q"]
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout.splitlines()[-1])
    assert "respondeoqa_eval.scoring.aggregate" in loaded
    assert "sacrebleu.metrics.chrf" in loaded  # sacreBLEU computes BLEU and chrF
    for unwanted in (
        "respondeoqa_space",
        "respondeoqa_eval.runner",
        "respondeoqa_eval.harness",  # reading harness logs needs only data/harness_tasks.py
        "respondeoqa_eval.harness.cli",
        "respondeoqa_eval.harness.eee",
        "respondeoqa_eval.harness.eval_results",
        "respondeoqa_eval.harness.lm_eval_task",
        "respondeoqa_eval.dataset",
        "respondeoqa_eval.analysis",
        "gradio",
        "pandas",
        "datasets",
        "huggingface_hub",
        "pyarrow",
        "torch",
        "transformers",
        "urllib.request",
    ):
        assert not [m for m in loaded if m == unwanted or m.startswith(unwanted + ".")], unwanted


@pytest.mark.slow
def test_importing_the_package_loads_no_scoring_module():
    # the API's names come on first use: importing a module of the package loads only its own
    import subprocess

    code = (
        "import sys, respondeoqa_eval\n"
        "assert 'numpy' not in sys.modules and 'respondeoqa_eval.api' not in sys.modules\n"
        "assert {'evaluate', 'Report', 'load_gold'} <= set(dir(respondeoqa_eval))\n"
        "from respondeoqa_eval import Report, evaluate, load_gold, load_predictions\n"
        "assert 'numpy' in sys.modules and callable(evaluate)\n"
        "try:\n"
        "    respondeoqa_eval.no_such_name\n"
        "except AttributeError:\n"
        "    print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout == "ok\n", done.stderr
