"""Static analysis of a trajectory's AST: features, structure type, tools and tool edges.

Everything here reads the surface AST only (:mod:`edgedsl.syntax.nodes`), so it works on a file that
was parsed but never checked or run — the contamination audit needs no execution.

* **features** — the non-sequential ingredients a trajectory uses, in the fixed order
  ``drv``, ``fan``, ``sem``, ``cmp``, ``cond``:

  - ``drv``: a ``drv`` binding feeds a junction (``seq`` / ``fan`` argument, or a ``parallel``
    header argument) or the answer — except a ``drv`` that picks the winner of a ``compare``
    (directly over the compare's binding) and one bound inside an ``if`` branch: those are
    how a comparison is decided and how a conditional branches, parts of those structures;
  - ``fan``: some call has a ``fan`` argument (a ``parallel`` header argument spelled with
    ``fan`` counts too, although the checker rejects it);
  - ``sem``: a ``parallel`` group; ``cmp``: a ``compare``; ``cond``: an ``if``.

* **structure** — ``Seq`` without features, the feature's type (``Drv``, ``Fan``, ``Sem``,
  ``Cmp``, ``Cond``) with exactly one, ``Mixed`` with two or more.

* **dependency edges** — one occurrence per junction: ``(upstream tool, downstream tool)``,
  where the upstream tool is the call whose output the junction's field ultimately comes from
  (through ``drv`` sources, ``group.branch`` of a ``parallel``, a ``compare``, bindings made
  inside ``if`` branches). A ``parallel`` header junction counts once for each branch that
  uses its shared name. A name bound differently in the two branches of an ``if`` may come
  from either: its junction counts once for each *distinct* upstream tool it may come from.

* **adjacency edges** — consecutive call sites in source order: ``(call i, call i+1)``, each
  call site once (a ``compare`` or ``fan`` call site is one site; the sites of both branches of
  an ``if`` are listed in source order, ``then`` before ``else``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from ...syntax import nodes as n
from .record import Structure

__all__ = [
    "FEATURES",
    "adjacency_edges",
    "dependency_edges",
    "features",
    "structure_of",
    "tools_of",
]

FEATURES: tuple[str, ...] = ("drv", "fan", "sem", "cmp", "cond")
"""The feature names, in the order :func:`features` lists them."""

_TYPE_OF: dict[str, Structure] = {"drv": "Drv", "fan": "Fan", "sem": "Sem", "cmp": "Cmp",
                                  "cond": "Cond"}


@dataclass(frozen=True, slots=True)
class _Entry:
    """What a binding name stands for: the tools its records come from, or a group's branches."""

    tools: tuple[str, ...] = ()
    branches: dict[str, tuple[str, ...]] | None = None
    drv: bool = False
    compare: bool = False


@dataclass(slots=True)
class _Facts:
    """Everything one walk over a trajectory collects."""

    sites: list[str] = field(default_factory=list)
    deps: list[tuple[str, str]] = field(default_factory=list)
    drv_names: set[str] = field(default_factory=set)
    fed_names: set[str] = field(default_factory=set)
    fan: bool = False
    sem: bool = False
    cmp: bool = False
    cond: bool = False


def _unique(items: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def _merge(a: _Entry | None, b: _Entry | None) -> _Entry:
    if a is b or a is None or b is None:
        got = a or b
        assert got is not None
        return got
    branches: dict[str, tuple[str, ...]] | None = None
    if a.branches is not None or b.branches is not None:
        branches = dict(a.branches or {})
        for k, v in (b.branches or {}).items():
            branches[k] = _unique([*branches.get(k, ()), *v])
    return _Entry(_unique([*a.tools, *b.tools]), branches, a.drv or b.drv)


def _source_tools(parts: Sequence[str], env: dict[str, _Entry]) -> tuple[str, ...]:
    """The tools the relation ``parts`` (``x`` or ``group.branch``) ultimately comes from."""
    entry = env.get(parts[0])
    if entry is None:
        return ()
    if len(parts) >= 2 and entry.branches is not None:
        return entry.branches.get(parts[1], ())
    return entry.tools


def _ref_tools(ref: n.Ref, env: dict[str, _Entry]) -> tuple[str, ...]:
    """The upstream tools of the field reference ``x.f`` / ``group.branch.f``."""
    return _source_tools(ref.parts[:-1], env)


def _expr_names(e: n.Expr | None, out: set[str]) -> None:
    if isinstance(e, n.Ref):
        out.add(e.binding)
    elif isinstance(e, n.NameExpr):
        out.add(e.name)
    elif isinstance(e, n.FuncCall):
        for a in e.args:
            _expr_names(a, out)
    elif isinstance(e, n.BinOp):
        _expr_names(e.left, out)
        _expr_names(e.right, out)
    elif isinstance(e, n.Neg):
        _expr_names(e.operand, out)


def _call(call: n.Call, env: dict[str, _Entry], facts: _Facts,
          shared: dict[str, n.ArgValue] | None = None) -> None:
    facts.sites.append(call.qualname)
    for arg in call.args:
        value = arg.value
        if isinstance(value, n.SharedArg) and shared is not None:
            value = shared.get(value.name, value)
        if isinstance(value, n.SeqArg | n.FanArg):
            facts.fan |= isinstance(value, n.FanArg)
            facts.fed_names.add(value.ref.binding)
            facts.deps += [(up, call.qualname) for up in _ref_tools(value.ref, env)]


def _walk(body: Sequence[n.Stmt], env: dict[str, _Entry], facts: _Facts,
          in_if: bool = False) -> None:
    for s in body:
        if isinstance(s, n.Binding):
            node = s.node
            if isinstance(node, n.Call):
                _call(node, env, facts)
                env[s.name] = _Entry((node.qualname,))
            elif isinstance(node, n.Compare):
                facts.cmp = True
                _call(node.call, env, facts)
                env[s.name] = _Entry((node.call.qualname,), compare=True)
            elif isinstance(node, n.Drv):
                src = env.get(node.source[0])
                if not in_if and not (src is not None and src.compare and len(node.source) == 1):
                    facts.drv_names.add(s.name)
                env[s.name] = _Entry(_source_tools(node.source, env), drv=True)
            elif isinstance(node, n.Parallel):
                facts.sem = True
                shared = {a.name: a.value for a in node.shared}
                for v in shared.values():
                    if isinstance(v, n.SeqArg | n.FanArg):
                        facts.fan |= isinstance(v, n.FanArg)
                        facts.fed_names.add(v.ref.binding)
                branches: dict[str, tuple[str, ...]] = {}
                for b in node.branches:
                    _call(b.call, env, facts, shared)
                    branches[b.name] = (b.call.qualname,)
                env[s.name] = _Entry((), branches)
        elif isinstance(s, n.IfStmt):
            facts.cond = True
            then_env, else_env = dict(env), dict(env)
            _walk(s.then, then_env, facts, True)
            _walk(s.orelse or (), else_env, facts, True)
            for name in dict.fromkeys([*then_env, *else_env]):
                in_then, in_else = then_env.get(name), else_env.get(name)
                if in_then is not env.get(name) or in_else is not env.get(name):
                    env[name] = _merge(in_then, in_else)
        elif isinstance(s, n.AnswerStmt):
            _expr_names(s.expr, facts.fed_names)
            for f in s.fields or ():
                _expr_names(f.expr, facts.fed_names)


def _facts(traj: n.Trajectory) -> _Facts:
    facts = _Facts()
    _walk(traj.body, {}, facts)
    return facts


def features(traj: n.Trajectory) -> list[str]:
    """The features of ``traj``: a subset of ``drv``, ``fan``, ``sem``, ``cmp``, ``cond``, in
    that order (see the module docstring for each definition)."""
    f = _facts(traj)
    have = {"drv": bool(f.drv_names & f.fed_names), "fan": f.fan, "sem": f.sem, "cmp": f.cmp,
            "cond": f.cond}
    return [k for k in FEATURES if have[k]]


def structure_of(traj: n.Trajectory) -> Structure:
    """The structure type: ``Seq`` (no feature), the one feature's type, or ``Mixed``."""
    fs = features(traj)
    if not fs:
        return "Seq"
    return _TYPE_OF[fs[0]] if len(fs) == 1 else "Mixed"


def dependency_edges(traj: n.Trajectory) -> list[tuple[str, str]]:
    """``(upstream tool, downstream tool)`` for each junction, in source order (module
    docstring: a header junction once per branch using it)."""
    return _facts(traj).deps


def adjacency_edges(traj: n.Trajectory) -> list[tuple[str, str]]:
    """``(call i, call i+1)`` over the call sites of ``traj`` in source order."""
    sites = _facts(traj).sites
    return list(pairwise(sites))


def tools_of(traj: n.Trajectory) -> list[str]:
    """The tools ``traj`` calls (``platform.tool``), in order of first occurrence."""
    return list(dict.fromkeys(_facts(traj).sites))
