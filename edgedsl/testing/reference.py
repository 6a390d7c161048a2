"""A pure-Python reference interpreter of checked trajectories (IR), for tests only.

It restates the language's semantics as plainly as possible — relations are Python lists,
reducers are the registry's reference implementations, coercion is ``reducers.coerce`` — so that
``edgedsl.testing.check_trajectory`` can compare the real executor (plans, DuckDB, async) with an
independent oracle. Nothing in the runtime imports this module.

Semantics restated:

- a relation is a list of rows (raw records) in response order, each with an optional arm value
  (the fan / compare value it came from, visible as the field ``__arm``);
- ``x.f`` is the list of distinct non-null coerced values of ``f``, in first-occurrence order;
- Seq needs exactly one value, Fan 1 … k; anything else fails structurally (R501 / R502);
- paging: no clause reads page 1; ``pages N`` at most N pages; ``pages all`` until a page is
  empty or short, or the reported total is reached, bounded by ``max_pages`` (R506);
- answers: a bare field reference gives None / the value / the list of values; arithmetic needs
  single values (R507); ``/`` divides as floats; ``round`` rounds half away from zero;
  aggregates skip nulls; a null operand makes the result null.
- determinacy facts (:class:`ReferenceRun` ``ties``, ``complete``, :meth:`ReferenceRun.determined`):
  a ``most_frequent`` counts the values sharing the top count (the tie-break chose when more
  than one did; ``tie_break="largest"`` takes the largest of them instead of the smallest),
  ``max`` / ``min`` the rows holding the extreme; a call is complete when every arm stopped
  because it was done, not at its page limit (unknown without a total or a page size); the
  answer is determined when no broken tie and no partial read reaches it — through a ``drv``
  source, a junction, a ``parallel``'s shared argument or an ``if`` predicate (the branch
  taken).
"""

from __future__ import annotations

import datetime as dt
import inspect
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..check import ir
from ..core.catalog import Tool
from ..core.types import FieldType, ScalarType, storage_kind
from ..reduce.coerce import coerce, json_text
from ..reduce.registry import REDUCERS, coerced_column

ARM = "__arm"


class ReferenceFailure(Exception):
    """A run-time failure of the reference semantics, with the R5xx code the executor uses."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def _raised(tool: Tool, exc: Exception) -> ReferenceFailure:
    """A tool that raised, classified by the python backend's rule: a failure carrying its own
    ``code`` (a ``ToolFailure``) keeps it; an ``OSError`` is R504; anything else is R503."""
    code, message = getattr(exc, "code", None), getattr(exc, "message", None)
    if isinstance(code, str) and isinstance(message, str):
        return ReferenceFailure(code, message)
    detail = str(exc)
    return ReferenceFailure("R504" if isinstance(exc, OSError) else "R503",
                            f"`{tool.qualname}` raised {type(exc).__name__}"
                            + (f": {detail}" if detail else ""))


@dataclass
class _Rel:
    rows: list[dict[str, Any]]
    types: dict[str, FieldType]
    arms: list[object] = field(default_factory=list)

    def view(self) -> list[dict[str, Any]]:
        """Rows with the arm value visible as ``__arm``."""
        if not self.arms:
            return self.rows
        return [{**r, ARM: a} for r, a in zip(self.rows, self.arms, strict=True)]

    def values(self, f: str) -> list[Any]:
        t = self.types.get(f)
        out: list[Any] = []
        seen: set[object] = set()
        for r in self.view():
            v = r.get(f) if t is None else coerce(t, r.get(f))
            if v is None:
                continue
            key = _key(v)
            if key not in seen:
                seen.add(key)
                out.append(v)
        return out


def _key(v: object) -> object:
    return json_text(v) if isinstance(v, list | dict) else v


def round_half_away(x: float, digits: int) -> float:
    """DuckDB's ``round(x, n)``: half away from zero on the scaled value."""
    scale = 10.0**digits
    scaled = x * scale
    return math.copysign(math.floor(abs(scaled) + 0.5), scaled) / scale


class ReferenceRun:
    """Runs one TrajectoryIR over plain Python tools (``{"platform.tool": callable}``)."""

    def __init__(
        self, traj: ir.TrajectoryIR, tools: Mapping[str, Callable[..., Any]], *, max_pages: int,
        tie_break: Literal["smallest", "largest"] = "smallest",
    ) -> None:
        self.traj = traj
        self.tools = tools
        self.max_pages = max_pages
        self.tie_break = tie_break
        self.rels: dict[str, _Rel] = {}
        #: relation → (op, field, tied) of each most_frequent / max / min of its drv
        self.ties: dict[str, list[tuple[str, str, int]]] = {}
        #: relation → whether every arm of its call read the whole result (None: unknown)
        self.complete: dict[str, bool | None] = {}
        #: relation → the relations whose broken tie or partial read reaches it
        self.taint: dict[str, frozenset[str]] = {}
        self._arms: list[bool | None] = []

    # ------------------------------------------------------------ calls
    def _invoke(
        self, tool: Tool, args: dict[str, object]
    ) -> tuple[list[dict[str, Any]], int | None]:
        fn = self.tools.get(tool.qualname)
        if fn is None:
            raise ReferenceFailure("E403", f"no python tool for `{tool.qualname}`")
        try:
            out = fn(**args)
        except Exception as exc:
            raise _raised(tool, exc) from exc
        if inspect.isawaitable(out):
            raise ReferenceFailure("R509", "the reference interpreter runs sync tools only")
        total = None
        if isinstance(out, dict) and tool.at is not None:
            node: Any = out
            for part in tool.at.split("."):
                node = node.get(part) if isinstance(node, dict) else None
            if tool.paging is not None and tool.paging.total is not None:
                raw_total = out.get(tool.paging.total)
                total = None if raw_total is None else int(str(raw_total).replace(",", ""))
            out = node if node is not None else []
        if isinstance(out, dict):
            return [out], total
        return [dict(r) for r in out], total

    def _fetch(self, call: ir.CallIR, args: dict[str, object]) -> list[dict[str, Any]]:
        tool, pg = call.tool, call.tool.paging
        if pg is None:
            got, total = self._invoke(tool, args)
            self._arms.append(total is None or len(got) >= total)
            return got
        limit = 1 if call.pages is None else self.max_pages if call.pages == "all" else call.pages
        rows: list[dict[str, Any]] = []
        seen_total: int | None = None
        page = 1
        while True:
            kw = dict(args)
            if pg.page:
                kw[pg.page] = page
            if pg.size and pg.size_limit:
                kw[pg.size] = pg.size_limit
            got, total = self._invoke(tool, kw)
            rows += got
            if total is not None:
                seen_total = total
            last = (
                not got
                or (total is not None and len(rows) >= total)
                or (pg.size_limit is not None and len(got) < pg.size_limit)
            )
            if last:
                self._arms.append(True)
                return rows
            if page >= limit:
                if call.pages == "all":
                    raise ReferenceFailure("R506", f"`pages all` hit the bound of {limit} pages")
                known = seen_total is not None or bool(pg.size and pg.size_limit)
                self._arms.append(False if known else None)
                return rows
            page += 1

    def _junction(self, j: ir.Junction) -> list[Any]:
        values = self.rels[j.source].values(j.field)
        n = len(values)
        if n == 0:
            raise ReferenceFailure("R501", f"`{j.kind} {j.source}.{j.field}` saw no value")
        if n > j.bound:
            raise ReferenceFailure("R502", f"`{j.kind} {j.source}.{j.field}` saw {n} values")
        return values

    def _call(
        self,
        call: ir.CallIR,
        shared: Mapping[str, object],
        extra: Sequence[tuple[object, dict[str, object]]] | None = None,
    ) -> _Rel:
        base: dict[str, object] = {}
        fan: tuple[str, list[Any]] | None = None
        for a in call.args:
            if a.is_literal:
                base[a.name] = a.literal
            elif a.shared is not None:
                base[a.name] = shared[a.shared]
            elif a.junction is not None:
                values = self._junction(a.junction)
                if a.junction.kind == "seq":
                    base[a.name] = values[0]
                else:
                    fan = (a.name, values)
            elif a.items is not None:  # a list of literals and Seq references
                base[a.name] = [i.literal if i.junction is None else self._junction(i.junction)[0]
                                for i in a.items]
        types = dict(self.traj.relations.get(call.id, call.tool.record.field_types()))
        self._arms = []
        try:
            return self._call_arms(call, base, fan, types, extra)
        finally:
            arms = self._arms
            self.complete[call.id] = (False if False in arms else None if None in arms
                                      else True) if arms else None

    def _call_arms(
        self,
        call: ir.CallIR,
        base: dict[str, object],
        fan: tuple[str, list[Any]] | None,
        types: dict[str, FieldType],
        extra: Sequence[tuple[object, dict[str, object]]] | None,
    ) -> _Rel:
        if extra is not None:
            arms = [(arm, {**base, **kw}) for arm, kw in extra]
        elif fan is not None:
            arms = [(v, {**base, fan[0]: v}) for v in fan[1]]
        else:
            rows = self._fetch(call, base)
            return _Rel(rows, types)
        rel = _Rel([], types, [])
        for arm, kw in arms:
            got = self._fetch(call, kw)
            rel.rows += got
            rel.arms += [_arm_value(arm)] * len(got)
        return rel

    # ------------------------------------------------------------ steps
    def _reduce(self, rows: list[dict[str, Any]], red: Any, ftype: FieldType,
                facts: list[tuple[str, str, int]]) -> list[int]:
        """The rows ``red`` keeps, recording its tie fact in ``facts``."""
        if red.op == "most_frequent":
            col = coerced_column(rows, red.field, ftype)
            counts: dict[Any, int] = {}
            for v in col:
                if v is not None:
                    counts[v] = counts.get(v, 0) + 1
            top = max(counts.values(), default=0)
            tied = sorted(v for v, c in counts.items() if c == top)
            facts.append(("most_frequent", red.field, len(tied)))
            if not tied:
                return []
            best = tied[-1] if self.tie_break == "largest" else tied[0]
            return [i for i, v in enumerate(col) if v is not None and v == best]
        kept = REDUCERS[red.op].reference(rows, red.field, red.pivot, ftype)
        if red.op in ("max", "min"):
            facts.append((red.op, red.field, len(kept)))
        elif red.op in ("top", "bottom") and kept:  # rows holding the boundary (worst kept) value
            col = coerced_column([rows[i] for i in kept], red.field, ftype)
            worst = min(col) if red.op == "top" else max(col)
            facts.append((red.op, red.field, sum(1 for v in col if v == worst)))
        elif red.op in ("top", "bottom"):
            facts.append((red.op, red.field, 0))
        return kept

    def _tainted(self, names: Sequence[str]) -> frozenset[str]:
        out: frozenset[str] = frozenset()
        for n in names:
            out |= self.taint.get(n, frozenset())
        return out

    def step(self, s: ir.StepIR, shared: Mapping[str, object] | None = None,
             ctx: frozenset[str] = frozenset()) -> None:
        if isinstance(s, ir.CallIR):
            self.rels[s.id] = self._call(s, shared or {})
            reads = [j.source for a in s.args for j in a.junctions]
            own = {s.id} if self.complete.get(s.id) is False else set()
            self.taint[s.id] = ctx | self._tainted(reads) | own
        elif isinstance(s, ir.DrvIR):
            src = self.rels[s.source]
            view, idx = src.view(), list(range(len(src.rows)))
            facts: list[tuple[str, str, int]] = []
            for red in s.steps:
                ftype = s.field_types[red.field]
                kept = self._reduce([view[i] for i in idx], red, ftype, facts)
                idx = [idx[k] for k in kept]
            kept_arms = [src.arms[i] for i in idx] if src.arms else []
            self.rels[s.id] = _Rel([src.rows[i] for i in idx], dict(src.types), kept_arms)
            if facts:
                self.ties[s.id] = facts
            broken = any(op == "most_frequent" and n > 1 for op, _, n in facts)
            self.taint[s.id] = ctx | self.taint.get(s.source, frozenset()) | (
                {s.id} if broken else set())
        elif isinstance(s, ir.ParallelIR):
            values: dict[str, object] = {}
            for a in s.shared:
                values[a.name] = a.literal if a.junction is None else self._junction(a.junction)[0]
            inner = ctx | self._tainted([a.junction.source for a in s.shared
                                         if a.junction is not None])
            for b in s.branches:
                self.step(b, values, inner)
            self.taint[s.id] = inner | self._tainted([b.id for b in s.branches])
        elif isinstance(s, ir.CompareIR):
            arms: list[tuple[object, dict[str, object]]] = [(v, {s.param: v}) for v in s.values]
            self.rels[s.id] = self._call(s.call, {}, arms)
            self.complete[s.id] = self.complete.pop(s.call.id, None)
            reads = [j.source for a in s.call.args for j in a.junctions]
            own = {s.id} if self.complete.get(s.id) is False else set()
            self.taint[s.id] = ctx | self._tainted(reads) | own
        else:
            taken = self.pred(s.cond)
            inner = ctx | self._tainted(sorted(_pred_sources(s.cond)))
            for step in s.then if taken else s.orelse:
                self.step(step, None, inner)

    def determined(self) -> bool:
        """True when no broken tie and no partial read reaches the answer (after :meth:`run`)."""
        a = self.traj.answer
        if a is None:
            return True
        exprs = [e for _, e in a.fields] if a.fields is not None else [a.expr]
        names: set[str] = set()
        for e in exprs:
            if e is not None:
                _expr_sources(e, names)
        return not self._tainted(sorted(names))

    # ------------------------------------------------------------ expressions
    def scalar(self, e: ir.ExprIR) -> Any:
        if isinstance(e, ir.LitE):
            return e.value
        if isinstance(e, ir.FieldE):
            values = self.rels[e.source].values(e.field)
            if len(values) > 1:
                raise ReferenceFailure("R507", f"`{e.source}.{e.field}` has {len(values)} values")
            return values[0] if values else None
        if isinstance(e, ir.CountE):
            return len(self.rels[e.source].rows)
        if isinstance(e, ir.AggE) and e.fn == "count_distinct":
            col = coerced_column(self.rels[e.source].view(), e.field, e.type)
            return len({v for v in col if v is not None})
        if isinstance(e, ir.AggE):
            rel = self.rels[e.source]
            vals: list[Any] = [
                v for r in rel.view() if (v := coerce(e.type, r.get(e.field))) is not None
            ]
            if not vals:
                return None
            if e.fn == "sum":
                return sum(vals)
            if e.fn == "avg":
                return sum(vals) / len(vals)
            return max(vals) if e.fn == "max" else min(vals)
        if isinstance(e, ir.NegE):
            v = self.scalar(e.operand)
            return None if v is None else -v
        if isinstance(e, ir.RoundE):
            v = self.scalar(e.operand)
            if v is None:
                return None
            if isinstance(v, int) and e.digits >= 0:
                return v
            r = round_half_away(v, e.digits)
            if e.digits == 0:  # an integer, as DuckDB's TRY_CAST to HUGEINT makes it
                return int(r) if math.isfinite(r) and -(2**127) <= r < 2**127 else None
            return r
        left, right = self.scalar(e.left), self.scalar(e.right)
        if left is None or right is None:
            return None
        if e.op == "+":
            return left + right
        if e.op == "-":
            return left - right
        if e.op == "*":
            return left * right
        return None if right == 0 else left / right

    def pred(self, p: ir.PredIR) -> bool:
        if isinstance(p, ir.ExistsP):
            return bool(self.rels[p.source].rows)
        if isinstance(p, ir.NotP):
            return not self.pred(p.operand)
        if isinstance(p, ir.AndP):
            return all(self.pred(q) for q in p.operands)
        if isinstance(p, ir.OrP):
            return any(self.pred(q) for q in p.operands)
        a, b = self.scalar(p.left), self.scalar(p.right)
        if a is None or b is None:
            return False
        return bool(
            {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[p.op]
        )

    def value(self, e: ir.ExprIR) -> Any:
        if isinstance(e, ir.FieldE):
            values = [_plain(v, e.type) for v in self.rels[e.source].values(e.field)]
            return None if not values else values[0] if len(values) == 1 else values
        return _plain(self.scalar(e), None)

    def run(self) -> Any:
        for s in self.traj.steps:
            self.step(s)
        a = self.traj.answer
        if a is None:
            return None
        if a.fields is not None:
            return {name: self.value(e) for name, e in a.fields}
        assert a.expr is not None
        return self.value(a.expr)


def _expr_sources(e: ir.ExprIR, out: set[str]) -> None:
    if isinstance(e, ir.FieldE | ir.CountE | ir.AggE):
        out.add(e.source)
    elif isinstance(e, ir.BinE):
        _expr_sources(e.left, out)
        _expr_sources(e.right, out)
    elif isinstance(e, ir.NegE | ir.RoundE):
        _expr_sources(e.operand, out)


def _pred_sources(p: ir.PredIR) -> set[str]:
    out: set[str] = set()
    if isinstance(p, ir.ExistsP):
        out.add(p.source)
    elif isinstance(p, ir.NotP):
        out |= _pred_sources(p.operand)
    elif isinstance(p, ir.AndP | ir.OrP):
        for q in p.operands:
            out |= _pred_sources(q)
    else:
        _expr_sources(p.left, out)
        _expr_sources(p.right, out)
    return out


def _arm_value(v: object) -> object:
    return v.isoformat() if isinstance(v, dt.date) else v


def _plain(v: Any, t: FieldType | None) -> Any:
    if isinstance(v, dt.date):
        return v.isoformat()
    if isinstance(t, ScalarType) and t.kind == "int" and isinstance(v, float) and v.is_integer():
        return int(v)
    if (
        t is not None
        and storage_kind(t) == "double"
        and isinstance(v, int)
        and not isinstance(v, bool)
    ):
        return float(v)
    return v


def reference_answers(
    program: ir.ProgramIR,
    tools: Mapping[str, Callable[..., Any]],
    *,
    trajectory: str | None = None,
    max_pages: int = 100,
) -> dict[str, Any]:
    """Trajectory name → reference answer, or the ReferenceFailure it ended with."""
    return {name: got if isinstance(got, ReferenceFailure) else got.answer
            for name, got in reference_runs(program, tools, trajectory=trajectory,
                                            max_pages=max_pages).items()}


@dataclass
class ReferenceResult:
    """A reference run that succeeded: its answer and the run (its facts: ``ties``,
    ``complete``, :meth:`ReferenceRun.determined`)."""

    answer: Any
    run: ReferenceRun


def reference_runs(
    program: ir.ProgramIR,
    tools: Mapping[str, Callable[..., Any]],
    *,
    trajectory: str | None = None,
    max_pages: int = 100,
    tie_break: Literal["smallest", "largest"] = "smallest",
) -> dict[str, ReferenceResult | ReferenceFailure]:
    """Trajectory name → its reference result (answer and facts), or the ReferenceFailure it
    ended with; ``tie_break`` as for :func:`edgedsl.runtime.executor.run_trajectory`."""
    out: dict[str, ReferenceResult | ReferenceFailure] = {}
    for t in program.trajectories:
        if trajectory is not None and t.name != trajectory:
            continue
        ref = ReferenceRun(t, tools, max_pages=max_pages, tie_break=tie_break)
        try:
            out[t.name] = ReferenceResult(ref.run(), ref)
        except ReferenceFailure as f:
            out[t.name] = f
    return out
