"""The Space uses the evaluator through its public API only (docs/api.md, the API reference): the
names listed in `__all__` of `API_MODULES`, read from every import statement of the Space (its
package and app.py, with `ast`: module level, inside functions, `__main__` blocks) and every
attribute it reads of an imported evaluator module. Each API module documents itself and each of
its names resolves, and the reference's page of each module lists exactly those names."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EVALUATOR = ROOT / "evaluator"
SPACE = ROOT / "space"

API_MODULES = (
    "respondeoqa_eval",
    "respondeoqa_eval.data",
    "respondeoqa_eval.predictions",
    "respondeoqa_eval.scoring",
    "respondeoqa_eval.report",
    "respondeoqa_eval.analysis",
    "respondeoqa_eval.runner",
    "respondeoqa_eval.io",
    "respondeoqa_eval.jsonl",
)
"""The evaluator's public modules (the API reference, docs/api.md, lists their names)."""

MODULE_ATTRIBUTES = frozenset({"__name__", "__file__", "__doc__"})
"""What any module has; reading it uses no name of the API."""


def source_of(module: str, root: Path = EVALUATOR) -> Path:
    path = root.joinpath(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def declared_all(module: str, root: Path = EVALUATOR) -> list[str]:
    """The literal `__all__` of `module`'s source (an AssertionError when it has none)."""
    tree = ast.parse(source_of(module, root).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return [ast.literal_eval(e) for e in node.value.elts]  # type: ignore[attr-defined]
    raise AssertionError(f"{module} has no __all__")


def api_violations(
    files: list[Path], api: tuple[str, ...] = API_MODULES, root: Path = EVALUATOR, base: Path = ROOT
) -> list[str]:
    """Every evaluator name the files use outside `api` (`file:line: what`, the file relative
    to `base`); `root` holds the evaluator's source."""
    top = api[0].split(".")[0]
    public = {m: set(declared_all(m, root)) for m in api}
    found: list[str] = []

    def member(module: str, name: str, where: str) -> str | None:
        """The API module `module.name` names, else None (the name checked as a name)."""
        if f"{module}.{name}" in public:
            return f"{module}.{name}"
        if name not in public[module] and name not in MODULE_ATTRIBUTES:
            found.append(f"{where}: {module}.{name} is not in {module}.__all__")
        return None

    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        parent = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        aliases: dict[str, str] = {}  # local name -> API module it is bound to
        for node in ast.walk(tree):
            where = f"{path.relative_to(base)}:{getattr(node, 'lineno', '?')}"
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == top:
                if node.level or node.module not in public:
                    found.append(f"{where}: {node.module} is not an API module")
                    continue
                for alias in node.names:
                    sub = member(node.module, alias.name, where)
                    if sub:
                        aliases[alias.asname or alias.name] = sub
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] != top:
                        continue
                    if alias.name not in public:
                        found.append(f"{where}: {alias.name} is not an API module")
                    elif alias.asname:
                        aliases[alias.asname] = alias.name
                    else:
                        aliases[top] = top
            elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module":
                arg = node.args[0] if node.args else None
                if isinstance(arg, ast.Constant) and str(arg.value).split(".")[0] == top:
                    if arg.value not in public:
                        found.append(f"{where}: {arg.value} is not an API module")
        for node in ast.walk(tree):  # attributes read of a bound API module: a.b.c
            if not isinstance(node, ast.Attribute) or isinstance(node.value, ast.Attribute):
                continue
            if not (isinstance(node.value, ast.Name) and node.value.id in aliases):
                continue
            where = f"{path.relative_to(base)}:{node.lineno}"
            module: str | None = aliases[node.value.id]
            chain: ast.AST | None = node
            while module is not None and isinstance(chain, ast.Attribute):
                module = member(module, chain.attr, where)
                chain = parent.get(chain)
    return found


def space_files() -> list[Path]:
    return [SPACE / "app.py", *sorted((SPACE / "respondeoqa_space").rglob("*.py"))]


def test_the_space_imports_only_the_public_api():
    files = space_files()
    assert len(files) > 50
    assert api_violations(files) == []


@pytest.mark.parametrize("module", API_MODULES)
def test_every_api_module_documents_and_exports_its_names(module):
    imported = importlib.import_module(module)
    assert (imported.__doc__ or "").strip(), f"{module} has no docstring"
    names = declared_all(module)
    assert names and len(set(names)) == len(names)
    assert list(imported.__all__) == names
    for name in names:
        assert not name.startswith("_") or (name.startswith("__") and name.endswith("__")), name
        assert getattr(imported, name) is not None, name  # resolves (lazy ones too)
        assert name in dir(imported), name


def reference_pages(index: Path = ROOT / "docs" / "api.md") -> dict[str, Path]:
    """Module -> its page of the API reference, as the reference's index links them."""
    links = re.findall(r"\[`([\w.]+)`\]\((api/[\w.-]+\.md)\)", index.read_text(encoding="utf-8"))
    return {module: index.parent / page for module, page in links}


def listed_members(page: Path, module: str) -> list[str]:
    """The `members` option of the page's mkdocstrings directive for `module` (`::: module`)."""
    text = page.read_text(encoding="utf-8")
    directive = re.search(rf"^::: {re.escape(module)}\n((?:    .*\n)+)", text, flags=re.M)
    assert directive, f"{page}: no `::: {module}`"
    options = directive.group(1)
    listed = options.split("members:\n", 1)[1] if "members:\n" in options else ""
    return re.findall(r"^ +- (\w+)$", listed, flags=re.M)


def test_the_api_reference_lists_every_public_name():
    pages = reference_pages()
    assert sorted(pages) == sorted(API_MODULES)
    for module, page in pages.items():
        assert listed_members(page, module) == declared_all(module), f"{page}: {module}"


@pytest.mark.parametrize(
    ("code", "violations"),
    [
        ("from respondeoqa_eval.data import CONFIGS, DIMENSIONS\n", []),
        ("from respondeoqa_eval import jsonl\njsonl.encode([])\n", []),
        (
            "import respondeoqa_eval\nprint(respondeoqa_eval.__version__, respondeoqa_eval.__file__)\n",
            [],
        ),
        (
            "from respondeoqa_eval.data.gold import GoldSet\n",
            ["m.py:1: respondeoqa_eval.data.gold is not an API module"],
        ),
        (
            "def f():\n    from respondeoqa_eval import _version\n",
            ["m.py:2: respondeoqa_eval._version is not in respondeoqa_eval.__all__"],
        ),
        (
            "if __name__ == '__main__':\n    from respondeoqa_eval.data import CONFIGS, read_folder\n",
            ["m.py:2: respondeoqa_eval.data.read_folder is not in respondeoqa_eval.data.__all__"],
        ),
        (
            "import respondeoqa_eval.data as d\nd.gold\n",
            ["m.py:2: respondeoqa_eval.data.gold is not in respondeoqa_eval.data.__all__"],
        ),
        (
            "import respondeoqa_eval\nrespondeoqa_eval.data.DIMENSIONS\nrespondeoqa_eval.api\n",
            ["m.py:3: respondeoqa_eval.api is not in respondeoqa_eval.__all__"],
        ),
        (
            "from respondeoqa_eval import jsonl\njsonl._escape('x')\n",
            ["m.py:2: respondeoqa_eval.jsonl._escape is not in respondeoqa_eval.jsonl.__all__"],
        ),
        (
            "import importlib\nimportlib.import_module('respondeoqa_eval.cli')\n",
            ["m.py:2: respondeoqa_eval.cli is not an API module"],
        ),
    ],
)
def test_the_api_check_names_every_name_outside_the_api(tmp_path, code, violations):
    api = ("respondeoqa_eval", "respondeoqa_eval.data", "respondeoqa_eval.jsonl")
    root = tmp_path / "evaluator"
    for module, body in {
        "respondeoqa_eval": "__all__ = ['InputError', '__version__', 'jsonl']\n",
        "respondeoqa_eval.data": "__all__ = ['CONFIGS', 'DIMENSIONS']\n",
        "respondeoqa_eval.jsonl": "__all__ = ['encode']\n",
    }.items():
        path = root.joinpath(*module.split("."))
        path = path.with_suffix(".py") if module.endswith("jsonl") else path / "__init__.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")
    user = tmp_path / "m.py"
    user.write_text(code, encoding="utf-8")
    assert api_violations([user], api, root, tmp_path) == violations
