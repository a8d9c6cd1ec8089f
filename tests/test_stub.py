"""The type stub of the native module names exactly what it exports, so a
new Rust function cannot be missing from it (nor a removed one linger)."""

import ast
import os

from sparseboost import _core

STUB = os.path.join(os.path.dirname(_core.__file__), "_core.pyi")


def stub_names():
    tree = ast.parse(open(STUB, encoding="utf-8").read())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def test_the_stub_lists_every_native_name():
    exported = {n for n in dir(_core) if not n.startswith("__")} | {"__version__"}
    # types the stub defines for its signatures
    aliases = {"EvalSet", "RoundCallback", "BoosterParams", "ForestParams"}
    assert stub_names() - aliases == exported
