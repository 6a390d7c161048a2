"""Pass `graph`: the dataflow graph of each trajectory, and the statement-level rules.

Nodes are the bindings; an edge ``a → b`` means ``b`` uses ``a`` (a junction, a ``drv`` source,
a predicate or the answer). Checks:

- a forward use (a name bound only later in the text): a binding that uses itself or closes a
  cycle is ``E301``; any other forward use is ``E302`` (names are bound before they are used);
- an unused binding is ``W001`` — only when the trajectory has an answer (otherwise ``W003``
  already says what is missing) and nothing else is wrong (an unresolved name often *is* the
  missing use), and never for names starting with ``_``. ``say`` templates
  read the answer, not bindings, so they do not count as uses;
- ``pages``: a paged tool read without ``pages`` reads one page (``W002``); ``pages N`` with
  N < 1 is ``E303``; ``pages`` on a tool that is not paged is ``E304``;
- ``answer``: missing (``W003``), given twice (``E305``), inside an ``if`` (``E308``); ``say``
  without an answer (``E306``), twice (``E307``), inside an ``if`` (``E308``); a ``say``
  template that does not parse as jinja2 (``E309``), nests too deeply (``E310``, see
  :data:`edgedsl.core.say.MAX_TEMPLATE_DEPTH`) or names something that is not an answer field
  (``W005``; a single-expression answer is ``answer``).
"""

from __future__ import annotations

from jinja2 import TemplateSyntaxError, meta

from ..core.diagnostics import suggestion_hint
from ..core.say import MAX_TEMPLATE_DEPTH, SayTooDeepError, parse_say
from ..core.source import Span
from ..syntax import nodes as n
from .context import PAR_BRANCH, At, CheckContext, Reporter, TrajInfo


def _calls(node: n.NodeExpr, at: At) -> list[tuple[At, n.Call]]:
    """The calls of the node at ``at``, with their positions."""
    if isinstance(node, n.Call):
        return [(at, node)]
    if isinstance(node, n.Parallel):
        return [(((at, PAR_BRANCH), k), b.call) for k, b in enumerate(node.branches)]
    if isinstance(node, n.Compare):
        return [(at, node.call)]
    return []


class _Graph(Reporter):
    def __init__(self, ctx: CheckContext, t: TrajInfo) -> None:
        super().__init__(ctx)
        self.t = t
        self.deps: dict[str, set[str]] = {}
        for u in t.uses:
            if u.user is not None:
                self.deps.setdefault(u.user, set()).add(u.name)

    def reaches(self, start: str, goal: str) -> list[str] | None:
        """A dependency path ``start → … → goal`` through the uses, or None."""
        stack: list[tuple[str, list[str]]] = [(start, [start])]
        seen: set[str] = set()
        while stack:
            node, path = stack.pop()
            if node == goal:
                return path
            if node in seen:
                continue
            seen.add(node)
            for nxt in sorted(self.deps.get(node, ())):
                stack.append((nxt, [*path, nxt]))
        return None

    def def_span(self, name: str) -> Span | None:
        b = next((b for _, b in self.t.bindings if b.name == name), None)
        return None if b is None else self.ctx.named(b)

    def forward_uses(self) -> None:
        reported: set[frozenset[str]] = set()
        for u in self.t.uses:
            if not u.forward:
                continue
            target = self.def_span(u.name)
            secondary = [(target, f"`{u.name}` is bound here")] if target is not None else []
            if u.user == u.name:
                self.err(
                    "E301",
                    f"`{u.name}` uses itself",
                    u.span,
                    "refers to its own binding",
                    hints=["a binding can only use names bound before it"],
                )
                continue
            path = self.reaches(u.name, u.user) if u.user is not None else None
            if path is not None and u.user is not None:
                key = frozenset(path)
                if key in reported:
                    continue
                reported.add(key)
                cycle = " → ".join([u.user, *path])
                self.err(
                    "E301",
                    f"dependency cycle: {cycle}",
                    u.span,
                    "closes the cycle",
                    secondary=secondary,
                    hints=["a dataflow graph has no cycles; break one of the uses"],
                )
                continue
            self.err(
                "E302",
                f"`{u.name}` is used before it is bound",
                u.span,
                "used here",
                secondary=secondary,
                hints=[f"move the binding of `{u.name}` above its first use"],
            )

    def unused(self) -> None:
        used = {u.name for u in self.t.uses if u.user != u.name}
        for _, b in self.t.bindings:
            if b.name in used or b.name.startswith("_"):
                continue
            self.err(
                "W001",
                f"`{b.name}` is never used",
                self.ctx.named(b),
                "bound but not used",
                hints=[f"remove it, or rename it `_{b.name}` to keep it on purpose"],
            )
            used.add(b.name)

    def pages(self) -> None:
        for at, b in self.t.bindings:
            for call_at, call in _calls(b.node, at):
                tool = self.t.tools.get(call_at)
                if tool is None:
                    continue
                if call.pages is None and tool.paging is not None:
                    self.err(
                        "W002",
                        f"`{tool.qualname}` is paged; without `pages` only the first page is read",
                        call.span,
                        "reads one page",
                        hints=["add `pages all` to read every page, or `pages N`"],
                    )
                elif call.pages is not None and tool.paging is None:
                    self.err(
                        "E304",
                        f"`{tool.qualname}` is not paged",
                        self.ctx.part(call.span, call.pages_at, "pages"),
                        "`pages` not allowed",
                        hints=["remove the `pages` clause"],
                    )
                elif isinstance(call.pages, int) and call.pages < 1:
                    self.err(
                        "E303",
                        f"`pages {call.pages}` reads no page",
                        self.ctx.part(call.span, call.pages_at, "pages"),
                        "at least 1",
                        hints=["write `pages 1` or more, or `pages all`"],
                    )

    def statements(self) -> bool:
        """Answer and say rules; True when the trajectory has an answer."""
        traj = self.t.ast
        answers = [s for s in traj.body if isinstance(s, n.AnswerStmt)]
        says = [s for s in traj.body if isinstance(s, n.SayStmt)]
        self.nested(traj.body, top=True)
        for extra in answers[1:]:
            self.err(
                "E305",
                "a trajectory has one `answer`",
                extra.span,
                "second answer",
                secondary=[(answers[0].span, "first answer")],
                hints=["merge them into one `answer { name: …, … }` block"],
            )
        for extra_say in says[1:]:
            self.err(
                "E307",
                "a trajectory has one `say`",
                extra_say.span,
                "second say",
                secondary=[(says[0].span, "first say")],
            )
        if says and not answers:
            self.err(
                "E306",
                "`say` needs an `answer`",
                says[0].span,
                "nothing to render",
                hints=["add an `answer` the template can refer to"],
            )
        if not answers:
            self.err(
                "W003",
                f"trajectory `{traj.name}` has no `answer`",
                self.ctx.named(traj),
                "no answer",
                hints=["add `answer x.field` or `answer { name: x.field }`"],
            )
        if says and answers:
            self.template(says[0], answers[0])
        return bool(answers)

    def nested(self, stmts: tuple[n.Stmt, ...], *, top: bool) -> None:
        for s in stmts:
            if isinstance(s, n.AnswerStmt | n.SayStmt) and not top:
                kw = "answer" if isinstance(s, n.AnswerStmt) else "say"
                self.err(
                    "E308",
                    f"`{kw}` inside an `if` block",
                    s.span,
                    "not at the top level",
                    hints=[f"write one `{kw}` at the end of the trajectory"],
                )
            elif isinstance(s, n.IfStmt):
                self.nested(s.then, top=False)
                self.nested(s.orelse or (), top=False)

    def template(self, say: n.SayStmt, answer: n.AnswerStmt) -> None:
        try:  # parsed by the environment that renders it, which computes nothing of it
            ast = parse_say(say.template)
        except SayTooDeepError as err:
            self.err(
                "E310",
                f"`say` template nested too deeply (line {err.lineno} of the template)",
                say.span,
                f"more than {MAX_TEMPLATE_DEPTH} levels of blocks, brackets and operators",
                hints=["compute the parts in the answer, or split nested blocks and long "
                       "expressions into `{% set %}` steps"],
            )
            return
        except TemplateSyntaxError as err:
            self.err(
                "E309",
                f"`say` template does not parse: {err.message}",
                say.span,
                "jinja2 syntax error",
                hints=["templates use jinja2: `{{ name }}`"],
            )
            return
        names = ["answer"] if answer.fields is None else [f.name for f in answer.fields]
        for var in sorted(meta.find_undeclared_variables(ast)):
            if var not in names:
                self.err(
                    "W005",
                    f"`say` refers to `{var}`, which the answer does not define",
                    say.span,
                    "in this template",
                    hints=suggestion_hint(var, names)
                    or [f"the template sees {', '.join(f'`{x}`' for x in names)}"],
                )


def check_graph(ctx: CheckContext) -> None:
    """Pass: dataflow ordering and cycles, unused bindings, pages, answer and say."""
    for t in ctx.trajs:
        g = _Graph(ctx, t)
        g.forward_uses()
        g.pages()
        if g.statements() and not ctx.diags.has_errors():
            g.unused()
