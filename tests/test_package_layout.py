"""The package's layout: no import circle inside `respondeoqa_eval`, and moved modules' old paths.

The import graph is read from the source with `ast` (nothing is imported):

- a node per module of the package (a package is its `__init__.py`);
- an edge per `import` / `from ... import` that names a module of the package, relative ones
  resolved, **including imports inside functions**: a lazy import only hides a circle at
  import time (the issue-28 circles were all lazy: the report model's renderer, the harness
  logs), the two modules still depend on each other. Imports under
  `if __name__ == "__main__":` are left out: that code runs only when the file is the main
  script, never when the module is imported;
- `from pkg import name` is an edge to the submodule `pkg.name`, or to `pkg` when
  `pkg/__init__.py` binds `name` itself (Python then takes the attribute, not the submodule);
- importing `a.b.c` from outside `a.b` also runs `a/b/__init__.py`: an edge to every package
  above the target that does not also hold the importer (the top package holds every module).
"""

from __future__ import annotations

import ast
import importlib
import os
import sys
import warnings
from pathlib import Path

import pytest

PACKAGE_DIR = Path(__file__).resolve().parents[1] / "evaluator" / "respondeoqa_eval"


def _is_main_block(node: ast.AST) -> bool:
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
        return False
    sides = [node.test.left, *node.test.comparators]
    return any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and any(
        isinstance(s, ast.Constant) and s.value == "__main__" for s in sides
    )


def _imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    out, stack = [], [tree]
    while stack:
        node = stack.pop()
        if _is_main_block(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return out


def _bound_names(tree: ast.Module) -> set[str]:
    """Names a package's `__init__` binds at its top level (other than by importing them)."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def import_graph(package_dir: Path) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (see the module docstring)."""
    top = package_dir.name
    trees: dict[str, tuple[ast.Module, bool]] = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = list(path.relative_to(package_dir.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if is_package else parts)
        trees[name] = (ast.parse(path.read_text(encoding="utf-8"), str(path)), is_package)
    bound = {name: _bound_names(tree) for name, (tree, is_pkg) in trees.items() if is_pkg}

    def known(name: str) -> str:
        while name not in trees:
            name = name.rpartition(".")[0]
        return name

    graph: dict[str, set[str]] = {}
    for name, (tree, is_package) in trees.items():
        here = name if is_package else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in _imports(tree):
            if isinstance(node, ast.Import):
                targets |= {known(a.name) for a in node.names if a.name.split(".")[0] == top}
                continue
            if node.level:
                base = here.split(".")[: len(here.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source.split(".")[0] != top:
                continue
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                submodule = sub in trees and alias.name not in bound.get(source, ())
                targets.add(sub if submodule else known(source))
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


def test_the_package_has_no_import_circle():
    graph = import_graph(PACKAGE_DIR)
    assert len(graph) > 100 and "respondeoqa_eval.report.model" in graph  # the real package
    circle = find_circle(graph)
    assert circle is None, "import circle: " + " -> ".join(circle or [])


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root / "pkg"


@pytest.mark.parametrize(
    ("files", "circle"),
    [
        # a lazy import inside a function still closes a circle
        (
            {"a.py": "from .b import x\n", "b.py": "def f():\n    from . import a\n"},
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
        # a package importing its own modules is no circle; a __main__ block is not an import
        (
            {
                "sub/__init__.py": "from .m import x\n",
                "sub/m.py": "from . import f\n",
                "sub/f.py": "x = 1\n",
                "a.py": "from .sub.m import x\nif __name__ == '__main__':\n    from .b import z\n",
                "b.py": "from .a import w\n",
            },
            None,
        ),
    ],
)
def test_the_circle_check_reads_imports_as_python_runs_them(tmp_path, files, circle):
    package = _write(tmp_path, {"pkg/__init__.py": "", **{f"pkg/{k}": v for k, v in files.items()}})
    assert find_circle(import_graph(package)) == circle


@pytest.mark.parametrize(
    ("old", "new", "name"),
    [
        ("respondeoqa_eval.items", "respondeoqa_eval.analysis.items", "analyze_items"),
        ("respondeoqa_eval.items_cli", "respondeoqa_eval.cli.items", "read_report"),
        ("respondeoqa_eval.breakdowns", "respondeoqa_eval.data.breakdowns", "DIMENSIONS"),
    ],
)
def test_a_moved_documented_module_still_imports_with_a_warning(old, new, name):
    assert not (PACKAGE_DIR.parent / (old.replace(".", "/") + ".py")).exists()
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"{old} moved to {new}"):
        module = importlib.import_module(old)
    assert getattr(module, name) is getattr(importlib.import_module(new), name)
    sys.modules.pop(old, None)


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
        "print(os.environ.get('OPENBLAS_NUM_THREADS'))\n"
        "sys.exit(code)\n"
    )
    args = ["score", str(preds), "--data-dir", str(public_dir), "--bootstrap", "10", "-q"]
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300, env=env
    )
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout.splitlines()[-2])
    assert done.stdout.splitlines()[-1] == "1"  # one BLAS thread (cli.ONE_BLAS_THREAD)
    assert "respondeoqa_eval.scoring.aggregate" in loaded
    # sacreBLEU's definitions are pinned by tests (metrics/sacre.py); scoring imports none
    assert not [m for m in loaded if m == "sacrebleu" or m.startswith("sacrebleu.")]
    for unwanted in (
        "respondeoqa_eval.space",
        "respondeoqa_eval.runner",
        "respondeoqa_eval.harness.cli",  # the harness package itself is the table of its tasks,
        "respondeoqa_eval.harness.eee",  # which reading predictions needs (harness logs)
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
    # the API's names come on first use, so a command sets what it must before numpy loads
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
