"""The package stays small enough to hold in the head: its imports form no cycle, no
module is over 700 lines and no function over 80 lines of code.

Read from the source with :mod:`ast`, so that the checks cost nothing and see every
module, imported or not.  A line of code is a line that holds a statement or part of
one: blank lines, comments and docstrings do not count.

``python tests/test_package_shape.py`` prints the longest modules and functions.
"""

import ast
import io
import tokenize
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "ksvm"
MAX_MODULE_LINES = 700
MAX_FUNCTION_CODE_LINES = 80


def _modules():
    """``{dotted name: path}`` of every module of the package."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _is_package(name):
    return MODULES[name].name == "__init__.py"


def _resolve(module, node):
    """The package modules that an import statement of ``module`` names."""
    if isinstance(node, ast.Import):
        targets = [alias.name for alias in node.names]
    else:
        if node.level:
            base = module.split(".")
            if not _is_package(module):
                base = base[:-1]
            base = base[: len(base) - (node.level - 1)]
            prefix = ".".join(base + ([node.module] if node.module else []))
        else:
            prefix = node.module
        # from package import name: name may be a submodule
        targets = [f"{prefix}.{alias.name}" for alias in node.names] + [prefix]
    return {t for t in targets if t in MODULES}


def _top_level_imports(module):
    """Modules imported when ``module`` is imported: the imports outside any function
    (an import inside a function runs only when it is called, the way the package
    keeps Dask and matplotlib out of ``import ksvm``)."""
    tree = ast.parse(MODULES[module].read_text())
    imported = set()

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                imported.update(_resolve(module, child))
            visit(child)

    visit(tree)
    imported.discard(module)
    return imported


def import_graph():
    """``{module: set of package modules it imports at import time}``."""
    return {name: _top_level_imports(name) for name in MODULES}


def find_cycle(graph):
    """A list of modules that import each other in a ring, or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            # a package imports its parent package's __init__ first: not an edge back
            if node.startswith(nxt + "."):
                continue
            if state.get(nxt) == "open":
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (ring := visit(nxt)):
                return ring
        state[node] = "done"
        stack.pop()
        return None

    for node in sorted(graph):
        if node not in state and (ring := visit(node)):
            return ring
    return None


def code_lines(source, node):
    """Lines of ``node`` that hold code: no blank line, comment or docstring."""
    docstrings = set()
    for inner in ast.walk(node):
        if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
            body = inner.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                docstrings.update(range(body[0].lineno, body[0].end_lineno + 1))
    lines = set()
    segment = "\n".join(source.splitlines()[node.lineno - 1 : node.end_lineno])
    for token in tokenize.generate_tokens(io.StringIO(segment).readline):
        if token.type in (
            tokenize.COMMENT,
            tokenize.NL,
            tokenize.NEWLINE,
            tokenize.INDENT,
            tokenize.DEDENT,
            tokenize.ENDMARKER,
        ):
            continue
        for row in range(token.start[0], token.end[0] + 1):
            lines.add(row + node.lineno - 1)
    return len(lines - docstrings)


def functions():
    """``(qualified name, code lines)`` of every function and method of the package."""
    for module, path in MODULES.items():
        source = path.read_text()
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield f"{module}.{node.name}:{node.lineno}", code_lines(source, node)


def module_lines():
    return {name: len(path.read_text().splitlines()) for name, path in MODULES.items()}


# --- the checks of the checks -------------------------------------------------------------


def test_find_cycle_sees_a_ring_and_only_a_ring():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None
    assert find_cycle({"p": set(), "p.m": {"p"}}) is None  # a submodule and its package


def test_code_lines_leave_out_docstrings_comments_and_blank_lines():
    source = (
        'def f(x):\n    """Doc\n\n    string."""\n    # a comment\n\n'
        "    y = (x +\n         1)\n    return y\n"
    )
    (node,) = ast.parse(source).body
    assert code_lines(source, node) == 4  # def, the two lines of y, return


def test_the_graph_sees_a_relative_import():
    assert "ksvm.kernels" in import_graph()["ksvm.base"]


# --- the package ----------------------------------------------------------------------------


def test_imports_form_no_cycle():
    assert find_cycle(import_graph()) is None


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_at_most_700_lines(module):
    assert module_lines()[module] <= MAX_MODULE_LINES


def test_no_function_over_80_lines_of_code():
    long = {name: n for name, n in functions() if n > MAX_FUNCTION_CODE_LINES}
    assert not long


if __name__ == "__main__":
    for name, n in sorted(module_lines().items(), key=lambda item: -item[1])[:8]:
        print(f"{n:5d}  {name}")
    print()
    for name, n in sorted(functions(), key=lambda item: -item[1])[:8]:
        print(f"{n:5d}  {name}")
