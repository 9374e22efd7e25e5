"""House rules that the linters do not check: no private name crosses a module boundary, nothing edits sys.path.

The layers and "no import cycles" are import-linter contracts (pyproject.toml, scripts/lint.sh); ruff checks style.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("meeplab", "sim", "strategies", "analysis", "reports")  # the folders installed under meeplab
ALL = (*PACKAGES, "scripts", "tests")


def _files(folders):
    for folder in folders:
        yield from sorted((ROOT / folder).rglob("*.py"))


def _module_of(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts if parts[0] == "meeplab" else ["meeplab", *parts])


def _imported_module(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def test_no_private_name_crosses_a_module_boundary():
    """``from x import _name`` (or ``x._name``) between two modules of the package is a hidden coupling: if two
    modules need it, it is public and documented where it belongs."""
    bad = []
    for path in _files(PACKAGES):
        module = _module_of(path)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases: dict[str, str] = {}  # local name -> module it names
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                source = _imported_module(node, module, path.name == "__init__.py")
                if not source.startswith("meeplab"):
                    continue
                for a in node.names:
                    if _private(a.name):
                        bad.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {a.name} from {source}")
                    aliases[a.asname or a.name] = f"{source}.{a.name}"
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.startswith("meeplab"):
                        aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and _private(node.attr)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
            ):
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno} reads {node.value.id}.{node.attr}")
    assert not bad, "\n".join(bad)


def test_nothing_edits_sys_path():
    """The packages are importable only as meeplab.*: no module, script or test puts a folder on sys.path."""
    bad = []
    for path in _files(ALL):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            target = node.func if isinstance(node, ast.Call) else node
            text = ast.unparse(target) if isinstance(target, ast.Attribute | ast.Subscript) else ""
            if text.startswith(("sys.path.", "sys.path[")) or text in ("monkeypatch.syspath_prepend",):
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno} {text}")
    assert not bad, "\n".join(bad)


def test_every_extension_point_of_the_kernel_is_listed_in_one_module():
    """``meeplab.sim.core.extending`` names every way to extend meeplab (Datasette's hookspecs idea): each
    ``register*`` function and decorator the kernel offers is in its ``__all__`` and its docstring."""
    import ast
    from pathlib import Path

    from meeplab.sim.core import extending

    core = Path(extending.__file__).parent
    offered = set()
    for f in core.glob("*.py"):
        for node in ast.parse(f.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef) and (node.name.startswith("register") or node.name == "bot_jit"):
                offered.add(node.name)
    listed = {getattr(extending, n).__name__ for n in extending.__all__ if callable(getattr(extending, n))}
    assert offered <= listed, offered - listed
    for name in extending.__all__:
        assert name in extending.__doc__, name
