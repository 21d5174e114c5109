"""Which earlier cells a part of a `.qmd` runs again before its own.

A Quarto file runs top to bottom in one Python session. This build runs each part of it in a
fresh process (so parts run in parallel and are cached apart), so a part first runs again,
silently, the earlier cells it depends on:

- cells that bind a name it reads (assignment, import, `def`, `class`, `for`, `with`, `del`);
- cells that may change such a name in place: `x.attr = …`, `x[i] = …`, `x += …`, a method
  call `x.m(…)` or passing `x` to a function (for names that are not imported modules), and for
  a module a call whose result is dropped and whose name says it sets something
  (`torch.set_printoptions(…)`, `plt.style.use(…)`, `np.set_printoptions(…)`);
- in turn, the earlier cells those cells depend on.

What is not rebuilt: the random generators' state (each part starts from the seed), and
effects the names do not show (a file a cell writes is there already; a setting changed
through a name the part does not read).
"""

from __future__ import annotations

import ast
import builtins
import re
from dataclasses import dataclass, field

from deck.model import Cell

SETTER = re.compile(r"^(set|use$|style|rc|filterwarnings$|simplefilter$)")
BUILTINS = frozenset(dir(builtins)) | {"__name__", "__file__"}


@dataclass
class Names:
    """What a piece of code does with module-level names."""

    binds: set[str] = field(default_factory=set)
    reads: set[str] = field(default_factory=set)  # read before this code binds them
    changes: set[str] = field(default_factory=set)  # may be changed in place
    imports: set[str] = field(default_factory=set)


class _Visitor(ast.NodeVisitor):
    def __init__(self, modules: frozenset[str]):
        self.names = Names()
        self.modules = modules
        self.scopes: list[set[str]] = []  # local names of the enclosing functions
        self.dropped: ast.AST | None = None  # a call whose result a statement drops

    # -- names --------------------------------------------------------------------------

    def local(self, name: str) -> bool:
        return any(name in scope for scope in self.scopes)

    def read(self, name: str) -> None:
        if not self.local(name) and name not in self.names.binds:
            self.names.reads.add(name)

    def bind(self, name: str) -> None:
        if not self.scopes:
            self.names.binds.add(name)

    def change(self, name: str) -> None:
        if not self.local(name):
            self.names.changes.add(name)

    def visit_Name(self, node: ast.Name) -> None:  # noqa: N802 - ast's visitor names
        if isinstance(node.ctx, ast.Load):
            self.read(node.id)
        else:  # Store, Del
            self.bind(node.id)
            self.change(node.id)

    def visit_Global(self, node: ast.Global) -> None:  # noqa: N802
        self.names.binds.update(node.names)  # bound at module level when the function runs

    def visit_Import(self, node: ast.Import) -> None:  # noqa: N802
        for alias in node.names:
            name = alias.asname or alias.name.split(".")[0]
            self.bind(name)
            self.names.imports.add(name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:  # noqa: N802
        for alias in node.names:
            if alias.name != "*":
                self.bind(alias.asname or alias.name)
                self.names.imports.add(alias.asname or alias.name)

    # -- evaluation order: what is read before what is bound ----------------------------

    def visit_Assign(self, node: ast.Assign) -> None:  # noqa: N802
        self.visit(node.value)
        for target in node.targets:
            self.target(target)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:  # noqa: N802
        if node.value is not None:
            self.visit(node.value)
        self.target(node.target)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:  # noqa: N802
        root = _root(node.target)
        if root is not None:
            self.read(root)
        self.visit(node.value)
        self.target(node.target)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:  # noqa: N802
        self.visit(node.value)
        self.target(node.target)

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:  # noqa: N802
        self.visit(node.iter)
        self.target(node.target)
        for stmt in [*node.body, *node.orelse]:
            self.visit(stmt)

    visit_AsyncFor = visit_For  # noqa: N815

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:  # noqa: N802
        for item in node.items:
            self.visit(item.context_expr)
            if item.optional_vars is not None:
                self.target(item.optional_vars)
        for stmt in node.body:
            self.visit(stmt)

    visit_AsyncWith = visit_With  # noqa: N815

    def target(self, node: ast.AST) -> None:
        """An assignment target: a name is bound; `x.a = …` / `x[i] = …` change x."""
        if isinstance(node, ast.Name):
            self.bind(node.id)
            self.change(node.id)
        elif isinstance(node, ast.Tuple | ast.List):
            for element in node.elts:
                self.target(element)
        elif isinstance(node, ast.Starred):
            self.target(node.value)
        else:
            root = _root(node)
            if root is not None:
                self.read(root)
                self.change(root)
            self.generic_visit(node)

    # -- calls --------------------------------------------------------------------------

    def visit_Expr(self, node: ast.Expr) -> None:  # noqa: N802
        if not self.scopes and isinstance(node.value, ast.Call):
            self.dropped = node.value
        self.visit(node.value)

    def visit_Call(self, node: ast.Call) -> None:  # noqa: N802
        func = node.func
        if isinstance(func, ast.Attribute):
            root = _root(func)
            if root is not None and root not in self.modules:
                self.change(root)  # x.append(…) may change x
            elif root is not None and node is self.dropped and SETTER.match(func.attr):
                self.change(root)  # torch.set_printoptions(…): a module's setting
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            value = arg.value if isinstance(arg, ast.Starred) else arg
            if isinstance(value, ast.Name) and value.id not in self.modules:
                self.change(value.id)  # f(x) may change x
        self.generic_visit(node)

    # -- scopes -------------------------------------------------------------------------

    def function(self, node: ast.AST, params: ast.arguments, body: list[ast.AST]) -> None:
        for default in [*params.defaults, *(d for d in params.kw_defaults if d is not None)]:
            self.visit(default)
        names = {a.arg for a in [*params.posonlyargs, *params.args, *params.kwonlyargs]}
        names |= {a.arg for a in (params.vararg, params.kwarg) if a is not None}
        declared = {n for stmt in body for g in ast.walk(stmt) if isinstance(g, ast.Global)
                    for n in g.names}  # fmt: skip
        for stmt in body:
            for sub in ast.walk(stmt):
                if isinstance(sub, ast.Name) and not isinstance(sub.ctx, ast.Load):
                    names.add(sub.id)
                elif isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    names.add(sub.name)
                elif isinstance(sub, ast.Import | ast.ImportFrom):
                    names.update((a.asname or a.name).split(".")[0] for a in sub.names)
        self.scopes.append(names - declared)
        for stmt in body:
            self.visit(stmt)
        self.scopes.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:  # noqa: N802
        for decorator in node.decorator_list:
            self.visit(decorator)
        self.function(node, node.args, list(node.body))
        self.bind(node.name)

    visit_AsyncFunctionDef = visit_FunctionDef  # noqa: N815

    def visit_Lambda(self, node: ast.Lambda) -> None:  # noqa: N802
        self.function(node, node.args, [ast.Expr(node.body)])

    def visit_ClassDef(self, node: ast.ClassDef) -> None:  # noqa: N802
        for expr in [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]:
            self.visit(expr)
        self.function(node, ast.arguments([], [], None, [], [], None, []), list(node.body))
        self.bind(node.name)

    def comprehension(self, node: ast.AST, generators: list[ast.comprehension]) -> None:
        self.visit(generators[0].iter)  # evaluated in the enclosing scope
        names = {n.id for g in generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
        self.scopes.append(names)
        for k, generator in enumerate(generators):
            if k:
                self.visit(generator.iter)
            for condition in generator.ifs:
                self.visit(condition)
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.comprehension):
                self.visit(child)
        self.scopes.pop()

    def visit_ListComp(self, node: ast.ListComp) -> None:  # noqa: N802
        self.comprehension(node, node.generators)

    def visit_SetComp(self, node: ast.SetComp) -> None:  # noqa: N802
        self.comprehension(node, node.generators)

    def visit_GeneratorExp(self, node: ast.GeneratorExp) -> None:  # noqa: N802
        self.comprehension(node, node.generators)

    def visit_DictComp(self, node: ast.DictComp) -> None:  # noqa: N802
        self.comprehension(node, node.generators)


def _root(node: ast.AST) -> str | None:
    """The name an attribute or subscript chain starts from: `a` in `a.b[1].c`."""
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def names(code: str, modules: frozenset[str] = frozenset(), mode: str = "exec") -> Names | None:
    """What `code` binds, reads, may change and imports; None when it is not Python."""
    try:
        tree = ast.parse(code, mode=mode)
    except (SyntaxError, ValueError):
        return None
    visitor = _Visitor(modules)
    if isinstance(tree, ast.Expression):
        visitor.visit(tree.body)
    elif isinstance(tree, ast.Module | ast.Interactive):
        for stmt in tree.body:
            visitor.visit(stmt)
    found = visitor.names
    found.reads -= BUILTINS
    return found


def replayed(earlier: list[Cell], cells: list[Cell], expressions: list[str]) -> list[Cell]:
    """The cells of `earlier` (in order) that `cells` and the inline `expressions` after them
    depend on, directly or through one another."""
    modules = frozenset().union(
        *((n.imports if (n := names(c.code)) else set()) for c in [*earlier, *cells])
    )
    needed: set[str] = set()
    bound: set[str] = set()
    for cell in cells:
        found = names(cell.code, modules)
        if found is not None:
            needed |= found.reads - bound
            bound |= found.binds
    for expr in expressions:
        found = names(expr.strip(), modules, mode="eval")
        if found is not None:
            needed |= found.reads - bound
    chosen = []
    for cell in reversed(earlier):
        found = names(cell.code, modules)
        if found is not None and (found.binds | found.changes) & needed:
            chosen.append(cell)
            needed |= found.reads
    return chosen[::-1]
