"""The natural-language query of a synthesized trajectory, rendered from Korean jinja2 templates.

:func:`query_context` turns a trajectory (its AST) and its compiled
:class:`~edgedsl.plan.model.Plan` into a JSON-able context: the structure type, the platforms and
tools used (with their Korean docs), every literal value the trajectory uses (arguments,
``parallel`` header values, ``compare`` arms, ``drv`` pivots, ``if`` thresholds) with its Korean
renderings, each step as Korean phrases, the ``if`` predicate, and the answer's *field names* —
never the answer's values, so that no template can leak them.

:func:`render_query` renders the template chosen by structure and platform (the platform of the
trajectory's first call): ``{structure}.{platform}.j2``, then ``{structure}.j2``, then
``default.j2``; each name is looked up in the user's directory first, then in the packaged one
(``edgedsl/recipe/synth/templates/query/``). Templates run in a sandbox with strict undefined
names and may vary their wording with ``pick([...])``, a choice seeded by ``rng_seed``, and
their shape with ``phrasing`` (:func:`phrasing_of`, one of :data:`PHRASINGS`): the same seed
gives the same query.

The Korean text helpers are in :mod:`.korean`, the literal values and labels in :mod:`.literals`,
the template directories and the glossary in :mod:`.templates`, the chat-model paraphrase in
:mod:`.paraphrase`.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
from jinja2.sandbox import SandboxedEnvironment

from ...plan.model import Plan
from ...reduce.registry import synth_words
from ...runtime.builtins import is_builtin
from ...syntax import nodes as n
from .analyze import structure_of
from .korean import join_ko, josa, korean_forms, period_text, tidy, with_unit
from .literals import (
    LiteralUse,
    items_of,
    label_of,
    of_title,
    pred_name,
    python_value,
    shared_param,
    tool_title,
)
from .templates import (
    PACKAGE_TEMPLATES,
    PROMPT_TEMPLATES,
    Glossary,
    QueryTemplateError,
    load_glossary,
)

__all__ = [
    "PHRASINGS",
    "phrasing_of",
    "prompt_template",
    "query_context",
    "render_query",
    "template_env",
    "template_names",
]


def template_env(*dirs: Path | None) -> SandboxedEnvironment:
    """A sandboxed jinja2 environment (strict undefined names, no autoescape) loading templates
    from ``dirs`` in order: for each template name the first directory holding that file wins
    (``None`` entries are skipped). Filters: ``josa`` (a Korean particle after a word) and
    ``join_ko`` (a Korean list)."""
    loader = jinja2.ChoiceLoader([jinja2.FileSystemLoader(str(d)) for d in dirs if d is not None])
    env = SandboxedEnvironment(loader=loader, undefined=jinja2.StrictUndefined, autoescape=False,
                               trim_blocks=True, lstrip_blocks=True)
    env.filters["josa"] = josa
    env.filters["join_ko"] = join_ko
    return env


@lru_cache(maxsize=32)
def _query_env(user: Path | None, listing: tuple[str, ...] = ()) -> SandboxedEnvironment:
    """The environment of a user directory (``listing``, its file names, is part of the key:
    a file added to the directory is seen by the next render)."""
    return template_env(user, PACKAGE_TEMPLATES)


def template_names(structure: str, platform: str | None) -> list[str]:
    """The template names tried, in order, for a structure and platform."""
    names = [f"{structure}.{platform}.j2"] if platform else []
    return [*names, f"{structure}.j2", "default.j2"]


PHRASINGS = 3
"""How many shapes of the whole question the packaged templates write (``phrasing`` 0, 1, 2:
the steps then the question; the goal first; one request per sentence — ``_macros.j2``)."""


def phrasing_of(rng_seed: int) -> int:
    """The ``phrasing`` a render with ``rng_seed`` uses (a draw of its own, so that the template's
    ``pick`` draws do not move it)."""
    return random.Random(f"{rng_seed}:phrasing").randrange(PHRASINGS)


REGISTERS = ("polite", "plain")
"""The speech levels of a shape-0 question (``register``): 해요체 (``polite``: "…알려 주세요.")
or 반말 (``plain``: "…알려줘."); shapes 1 and 2 are always polite. An opening and its question
keep one register (``_macros.j2``: ``reg``, ``ask``)."""


def register_of(rng_seed: int, phrasing: int) -> str:
    """The ``register`` a render with ``rng_seed`` in shape ``phrasing`` uses (a draw of its
    own, like :func:`phrasing_of`)."""
    if phrasing != 0:
        return "polite"
    return random.Random(f"{rng_seed}:register").choice(REGISTERS)


def _picker(rng: random.Random) -> Callable[[Sequence[Any]], Any]:
    """``pick(options)``: one option drawn from ``rng``, never the one the same list gave last
    time (so that consecutive clauses do not all end "…조회한 뒤, …조회한 뒤")."""
    last: dict[tuple[str, ...], int] = {}

    def pick(options: Sequence[Any]) -> Any:
        items = list(options)
        if not items:
            raise ValueError("pick() needs at least one option")
        key = tuple(repr(x) for x in items)
        free = [i for i in range(len(items)) if i != last.get(key)] or [0]
        i = free[rng.randrange(len(free))]
        last[key] = i
        return items[i]
    return pick


def _json(v: Any) -> Any:
    if isinstance(v, dt.date):
        return v.isoformat()
    if isinstance(v, dict):
        return {k: _json(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_json(x) for x in v]
    return v


def _kind(v: Any) -> str:
    for t, name in ((bool, "bool"), (dt.date, "date"), (int, "int"), (float, "float"),
                    (str, "str")):
        if isinstance(v, t):
            return name
    return "object"


_Clause = tuple[str, str, bool]  # (text before the verb, verb stem, stem glued to the text)


def _ending(stem: str, ending: str) -> str:
    """A verb stem with ``면`` / ``고`` / ``거나`` / ``지`` (``으면`` after a consonant but ㄹ)."""
    if ending == "면" and "가" <= stem[-1] <= "힣" and (ord(stem[-1]) - 0xAC00) % 28 not in (0, 8):
        return stem + "으면"
    return stem + ending


def _say(c: _Clause, ending: str) -> str:
    head, stem, glued = c
    return f"{head}{'' if glued else ' '}{_ending(stem, ending)}"


class _Builder:
    """One walk over a trajectory, collecting the context's parts."""

    def __init__(self, traj: n.Trajectory, plan: Plan, glossary: Glossary) -> None:
        self.plan, self.gl = plan, glossary
        tp = next((t for t in plan.trajectories if t.name == traj.name), None)
        self.fields: dict[str, dict[str, Any]] = {}
        for s in (tp.steps.values() if tp is not None else ()):
            flds = getattr(s, "fields", None)
            if flds:
                self.fields[s.relation or s.id] = flds
        self.origin: dict[str, str] = {}  # relation -> the tool its records come from
        self.noun: dict[str, str] = {}    # relation -> a Korean noun phrase naming it
        self.arm: dict[str, str] = {}     # relation -> label of the parameter in `__arm`
        self.tools: dict[str, dict[str, Any]] = {}
        self.platforms: dict[str, dict[str, str]] = {}
        self.literals: list[dict[str, Any]] = []
        self.comparisons: list[dict[str, Any]] = []  # the `if` comparisons: {op, count}
        self.last = ""                    # the relation bound last
        self.handed: set[tuple[str, str]] = set()  # (relation, field) a seq hand-off read
        self.readers = _readers(traj.body)  # relation -> how each statement reading it does
        self.folded: dict[str, dict[str, Any]] = {}  # conversion relation -> its step

    # -- tools, labels, literals ----------------------------------------------------------

    def tool(self, qualname: str) -> dict[str, Any]:
        if qualname not in self.tools:
            spec = self.plan.tools.get(qualname)
            platform, _, name = qualname.partition(".")
            doc = spec.doc if spec is not None else ""
            params = [{"name": p.name, "label": label_of(p.name, p.type, self.gl, p.label),
                       "unit": p.unit, "optional": p.optional}
                      for p in (spec.params if spec else [])]
            self.tools[qualname] = {"qualname": qualname, "platform": platform, "name": name,
                                    "title": tool_title(doc, name), "doc": doc, "params": params}
            self.platforms.setdefault(platform, {
                "name": platform, "label": self.gl.platforms.get(platform, platform)})
        return self.tools[qualname]

    def pspec(self, qualname: str | None, param: str) -> Any:
        spec = self.plan.tools.get(qualname) if qualname else None
        return next((p for p in (spec.params if spec else []) if p.name == param), None)

    def plabel(self, qualname: str, param: str) -> str:
        p = self.pspec(qualname, param)
        return label_of(param, p.type if p else None, self.gl, p.label if p else None)

    def origin_spec(self, relation: str) -> Any:
        return self.plan.tools.get(self.origin.get(relation, ""))

    def flabel(self, relation: str, field: str) -> str:
        if field == "__arm":
            return self.arm.get(relation, label_of("__arm", None, self.gl))
        spec = self.origin_spec(relation)
        declared = spec.labels.get(field) if spec is not None else None
        return label_of(field, self.ftype(relation, field), self.gl, declared)

    def funit(self, relation: str, field: str) -> str | None:
        spec = self.origin_spec(relation)
        return spec.units.get(field) if spec is not None else None

    def ftype(self, relation: str, field: str) -> Any:
        flds = self.fields.get(relation)
        if flds is None and relation in self.origin:
            spec = self.plan.tools.get(self.origin[relation])
            flds = spec.fields if spec else None
        return (flds or {}).get(field)

    def lit(self, use: LiteralUse, label: str, unit: str | None = None) -> dict[str, Any]:
        forms = korean_forms(use.value, use.name, self.gl)
        text = forms[0] if forms else ""
        if unit and text and _kind(use.value) in ("int", "float"):
            text = with_unit(text, unit)
        item = {"role": use.role, "step": use.step, "tool": use.tool, "name": use.name,
                "label": label, "unit": unit, "value": _json(use.value),
                "type": _kind(use.value), "text": text, "forms": forms}
        self.literals.append(item)
        return item

    # -- steps ----------------------------------------------------------------------------

    def call(self, step: str, call: n.Call,
             shared: Mapping[str, dict[str, Any]] | None = None) -> dict[str, Any]:
        tool = self.tool(call.qualname)
        args: list[dict[str, Any]] = []
        inputs: list[dict[str, Any]] = []
        for a in call.args:
            label, v = self.plabel(call.qualname, a.name), a.value
            if isinstance(v, n.SeqArg | n.FanArg):
                inputs.append(self.junction(a.name, label, v))
            elif isinstance(v, n.SharedArg):
                got = (shared or {}).get(v.name, {"kind": "shared", "text": v.name})
                inputs.append({**got, "param": a.name, "label": label,
                               "short": got.get("short", got["text"])})
            else:
                p = self.pspec(call.qualname, a.name)
                args += [self.lit(LiteralUse("arg", step, call.qualname, a.name,
                                             python_value(i)), label, p.unit if p else None)
                         for i in items_of(v)]
        constraints = _constraints(args)
        text = tool["title"] + (f"({', '.join(c['phrase'] for c in constraints)})"
                                if constraints else "")
        # "그 도로명주소로 도로명주소를 조회하고": a search by the very thing it is named for
        searched = (not constraints and len(inputs) == 1 and inputs[0]["kind"] in ("seq", "fan")
                    and inputs[0]["field_label"] == tool["title"])
        return {"kind": "call", "name": step, "tool": call.qualname, "title": tool["title"],
                "doc": tool["doc"], "platform": tool["platform"], "args": args,
                "inputs": inputs, "constraints": constraints, "searched": searched,
                "via": _via(list(dict.fromkeys(i["short"] for i in inputs))),
                "fan": any(i["kind"] == "fan" for i in inputs), "text": text,
                "pages": call.pages}

    def junction(self, param: str, label: str, v: n.SeqArg | n.FanArg) -> dict[str, Any]:
        rel = ".".join(v.ref.parts[:-1])
        field_label = self.flabel(rel, v.ref.field)
        kind = "fan" if isinstance(v, n.FanArg) else "seq"
        of = self.noun.get(rel, rel)
        each = "각 " if kind == "fan" else ""
        text = of_title(of, f"{each}{field_label}")
        short = f"{each or '그 '}{field_label}" if rel == self.last else text
        if rel in self.folded:  # the conversion is said inside the hand-off it feeds
            short = text = f"{self.folded[rel]['via']}의 {field_label}"
        if kind == "seq" and (rel, v.ref.field) in self.handed:
            # the context a chain keeps (the city its routes were listed in): named once
            short = f"같은 {field_label}"
        elif kind == "seq":
            self.handed.add((rel, v.ref.field))
        return {"kind": kind, "param": param, "label": label, "source": rel,
                "field": v.ref.field, "field_label": field_label, "of": of, "text": text,
                "short": short}

    def bind(self, name: str, call: n.Call, node: dict[str, Any]) -> None:
        self.origin[name] = call.qualname
        self.last = name
        self.noun[name] = node["title"]
        fan = next((i for i in node["inputs"] if i["kind"] == "fan"), None)
        if fan is not None:
            self.arm[name] = fan["label"]

    def drv(self, name: str, d: n.Drv) -> dict[str, Any]:
        src = ".".join(d.source)
        reducers = [self.reducer(name, src, r) for r in d.steps]
        phrase = " 것 중 ".join(r["phrase"] for r in reducers)
        of = self.noun.get(src, src)
        origin = self.origin.get(src)
        self.origin[name] = origin or src
        self.noun[name] = f"{phrase} {self.tool(origin)['title'] if origin else of}"
        if src in self.arm:
            self.arm[name] = self.arm[src]
        short = f"그중 {phrase} 것" if src == self.last else f"{of} 중 {phrase} 것"
        self.last = name
        return {"kind": "drv", "name": name, "source": src, "of": of, "reducers": reducers,
                "phrase": phrase, "text": f"{of} 중 {phrase} 것", "short": short}

    def reducer(self, step: str, src: str, r: n.Reducer) -> dict[str, Any]:
        label = self.flabel(src, r.field)
        is_date = self.ftype(src, r.field) == "date"
        pivot = None
        if r.pivot is not None:
            pivot = self.lit(LiteralUse("pivot", step, None, r.field, python_value(r.pivot)),
                             label, self.funit(src, r.field))
        p = pivot["text"] if pivot else ""
        words = synth_words(r.op)
        word = words.word[is_date]
        phrase = words.phrase[is_date].format(subj=josa(label, "이"), p=p)
        return {"op": r.op, "field": r.field, "label": label, "date": is_date,
                "pivot": pivot["value"] if pivot else None, "pivot_text": p or None,
                "word": word, "phrase": phrase}

    def parallel(self, name: str, p: n.Parallel) -> dict[str, Any]:
        shared: dict[str, dict[str, Any]] = {}
        for a in p.shared:
            v = a.value
            tool, param = shared_param(p, a.name)  # the first tool and parameter it feeds
            label = self.plabel(tool, param) if tool else a.name
            if isinstance(v, n.SeqArg | n.FanArg):
                shared[a.name] = self.junction(a.name, label, v)
            else:
                spec = self.pspec(tool, param)
                items = [self.lit(LiteralUse("shared", name, tool, param, python_value(i)),
                                  label, spec.unit if spec else None) for i in items_of(v)]
                text = join_ko([i["text"] for i in items])
                if items and not _plain(label, a.name, text, items[0]["type"]):
                    text = f"{label} {text}"
                shared[a.name] = {"kind": "literal", "param": a.name, "label": label,
                                  "text": text, "short": text}
        branches = []
        for b in p.branches:
            rel = f"{name}.{b.name}"
            node = self.call(rel, b.call, shared=shared)
            self.bind(rel, b.call, node)
            branches.append({**node, "branch": b.name})
        titles = [b["title"] for b in branches]
        self.noun[name] = join_ko(titles)
        self.last = name
        return {"kind": "parallel", "name": name, "shared": list(shared.values()),
                "via": _via(list(dict.fromkeys(s["short"] for s in shared.values()))),
                "branches": branches, "titles": titles,
                "texts": [b["text"] for b in branches],
                "text": join_ko([b["text"] for b in branches])}

    def compare(self, name: str, c: n.Compare) -> dict[str, Any]:
        node = self.call(name, c.call)
        label = self.plabel(c.call.qualname, c.param)
        arms = [self.lit(LiteralUse("arm", name, c.call.qualname, c.param, python_value(i)),
                         label) for i in c.values.items]
        self.bind(name, c.call, node)
        self.arm[name] = label
        arm_text = join_ko([a["text"] for a in arms])
        return {**node, "kind": "compare", "param": c.param, "label": label, "arms": arms,
                "arm_text": arm_text, "text": f"{label} {arm_text} 각각의 {node['text']}"}

    def stmts(self, body: Sequence[n.Stmt]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for s in body:
            if isinstance(s, n.IfStmt):
                cond = _say(self.pred(s.cond), "면")
                then, orelse = self.stmts(s.then), self.stmts(s.orelse or ())
                out.append({"kind": "if", "name": "if", "condition": cond, "then": then,
                            "else": orelse, "text": cond, "choice": _choice(then, orelse)})
            elif isinstance(s, n.Binding):
                node = s.node
                if isinstance(node, n.Call):
                    step = self.call(s.name, node)
                    self.bind(s.name, node, step)
                    if self.foldable(s.name, node, step):
                        self.folded[s.name] = step
                    else:
                        out.append(step)
                elif isinstance(node, n.Drv):
                    out.append(self.drv(s.name, node))
                elif isinstance(node, n.Parallel):
                    out.append(self.parallel(s.name, node))
                elif isinstance(node, n.Compare):
                    out.append(self.compare(s.name, node))
        return out

    def foldable(self, name: str, call: n.Call, step: dict[str, Any]) -> bool:
        """True for an in-process conversion (``std``: a 법정동코드's 시군구 code, UTM-K to
        WGS84 coordinates) that states nothing and whose records one later call or
        ``parallel`` group reads, by single-value hand-offs only: no person asks for the
        conversion as a step ("그 법정동코드로 시군구 코드를 조회하고, 그 시군구 코드로 …");
        the call it feeds says it ("그 법정동코드의 시군구 코드로 …")."""
        return (is_builtin(call.qualname) and not step["args"] and bool(step["inputs"])
                and all(i["kind"] == "seq" for i in step["inputs"])
                and self.readers.get(name) == ["call"])

    # -- expressions and predicates -------------------------------------------------------

    def expr(self, e: n.Expr | None) -> str:
        if isinstance(e, n.Ref) and ".".join(e.parts) in self.noun:  # a group's branch
            return self.noun[".".join(e.parts)]
        if isinstance(e, n.Ref):
            rel = ".".join(e.parts[:-1])
            return of_title(self.noun.get(rel, rel), self.flabel(rel, e.field))
        if isinstance(e, n.NameExpr):
            return self.noun.get(e.name, e.name)
        if isinstance(e, n.FuncCall):
            inner = e.args[0] if e.args else None
            if e.name == "round":
                return self.expr(inner)
            if e.name == "count":
                return f"{self.expr(inner)} 건수"
            part = self.aggregate(e)
            if part is not None:
                return f"{part[0]}의 {part[1]}"
            return self.expr(inner)
        if isinstance(e, n.BinOp):
            a, b = self.operand_label(e.left), self.operand_label(e.right)
            if e.op == "*" and isinstance(e.right, n.NumberLit) and e.right.value == 100:
                return f"{a}(%)"
            word = {"-": "차이", "+": "합", "/": "비율", "*": "곱"}[e.op]
            return f"{josa(a, '와')} {b}의 {word}"
        if isinstance(e, n.Neg):
            return self.expr(e.operand)
        forms = korean_forms(python_value(e), None, self.gl) if e is not None else []
        return forms[0] if forms else ""

    def aggregate(self, e: n.FuncCall) -> tuple[str, str] | None:
        """An aggregate of one relation's field as (the relation's noun, what is asked of it):
        ``(건축물대장 표제부, 가장 최근 사용승인일)``, ``(주식시세, 최대 거래량)``; a count as
        ``(…, 건수)``; None for anything else."""
        inner = e.args[0] if e.args else None
        if e.name == "count" and isinstance(inner, n.NameExpr):
            return self.noun.get(inner.name, inner.name), "건수"
        if not isinstance(inner, n.Ref) or ".".join(inner.parts) in self.noun:
            return None
        rel = ".".join(inner.parts[:-1])
        lab = self.flabel(rel, inner.field)
        word = {"sum": f"{lab} 합계", "avg": f"평균 {lab}", "min": f"최소 {lab}",
                "max": f"최대 {lab}"}.get(e.name)
        if word is None:
            return None
        if self.ftype(rel, inner.field) == "date" and e.name in ("max", "min"):
            word = f"가장 {'최근' if e.name == 'max' else '이른'} {lab}"
        return self.noun.get(rel, rel), word

    def operand_label(self, e: n.Expr) -> str:
        """An arithmetic operand, briefly: a field's label, a count's noun."""
        if isinstance(e, n.Ref):
            return self.flabel(".".join(e.parts[:-1]), e.field)
        if isinstance(e, n.FuncCall) and e.name == "round" and e.args:
            return self.operand_label(e.args[0])
        return self.expr(e)

    def operand(self, e: n.Expr, other: n.Expr) -> str:
        if items_of(e):
            name = pred_name(other)
            for i in items_of(e):
                self.lit(LiteralUse("predicate", "if", None, name, python_value(i)),
                         label_of(name, None, self.gl))
        return self.expr(e)

    def pred(self, p: n.Pred) -> _Clause:
        if isinstance(p, n.PredExists):
            return josa(self.noun.get(p.name, p.name), "이"), "있", False
        if isinstance(p, n.PredNot):
            if isinstance(p.operand, n.PredExists):
                return josa(self.noun.get(p.operand.name, p.operand.name), "이"), "없", False
            return _say(self.pred(p.operand), "지"), "않", False
        if isinstance(p, n.PredAnd | n.PredOr):
            conj = "고" if isinstance(p, n.PredAnd) else "거나"
            parts = [self.pred(q) for q in p.operands]
            head = " ".join(_say(c, conj) for c in parts[:-1])
            last_head, stem, glued = parts[-1]
            return f"{head} {last_head}", stem, glued
        left, right = self.operand(p.left, p.right), self.operand(p.right, p.left)
        self.comparisons.append({"op": p.op, "count": isinstance(p.left, n.FuncCall)
                                 and p.left.name == "count"})
        subj = josa(left, "이")
        if p.op == "==":
            return f"{subj} {right}", "이", True
        if p.op == "!=":
            return f"{subj} {josa(right, '이')}", "아니", False
        if p.op in (">", "<"):
            many = isinstance(p.left, n.FuncCall) and p.left.name == "count"
            stem = ("많" if many else "크") if p.op == ">" else ("적" if many else "작")
            return f"{subj} {right}보다", stem, False
        return f"{subj} {right} {'이상' if p.op == '>=' else '이하'}", "이", True

    # -- the answer -----------------------------------------------------------------------

    def answer(self, stmt: n.AnswerStmt | None, answer: Any) -> dict[str, Any]:
        if stmt is None:
            return {"kind": "none", "fields": [], "labels": [], "names": [], "text": ""}
        pairs = ([(f.name, f.expr) for f in stmt.fields] if stmt.fields is not None
                 else [(None, stmt.expr)])
        fields = []
        for name, e in pairs:
            text = self.expr(e)
            of, label = None, text
            part = self.aggregate(e) if isinstance(e, n.FuncCall) else None
            if isinstance(e, n.Ref):
                rel = ".".join(e.parts[:-1])
                of, label = self.noun.get(rel, rel), self.flabel(rel, e.field)
                part = (of, label)
            fields.append({"name": name, "label": label, "of": of, "text": text,
                           "part": list(part) if part is not None else None,
                           "count": isinstance(e, n.FuncCall) and e.name == "count"})
        names = list(answer) if isinstance(answer, dict) else [f["name"] for f in fields
                                                                if f["name"]]
        return {"kind": "object" if stmt.fields is not None else "expr", "fields": fields,
                "labels": [f["label"] for f in fields], "names": names,
                "text": _group_answer(fields)}


def _choice(then: Sequence[dict[str, Any]],
            orelse: Sequence[dict[str, Any]]) -> dict[str, str] | None:
    """An ``if`` whose branches are one ``drv`` each over the same records, as the two things
    chosen (``{then: "그중 설립일이 가장 최근인 것", else: "설립일이 가장 이른 것"}``), so that
    a query says one verb for both; None for any other ``if``."""
    if (len(then) == 1 and len(orelse) == 1 and then[0]["kind"] == orelse[0]["kind"] == "drv"
            and then[0]["source"] == orelse[0]["source"]):
        return {"then": then[0]["short"], "else": f"{orelse[0]['phrase']} 것"}
    return None


def _via(shorts: Sequence[str]) -> str:
    """The inputs of a call as one Korean list, the shared ``그``/``각`` said once: "그
    법정동코드, 도로명코드와 건물 본번" rather than "그 법정동코드, 그 도로명코드와 그 건물
    본번"."""
    for lead in ("그 ", "각 "):
        if len(shorts) > 1 and all(s.startswith(lead) for s in shorts):
            return lead + join_ko([s.removeprefix(lead) for s in shorts])
    return join_ko(list(shorts))


def _group_answer(fields: Sequence[dict[str, Any]]) -> str:
    """``X의 a와 b, 그리고 Y의 c``: answer fields grouped by the relation they read — a count or
    an aggregate of it too (``법령 본문의 가장 최근 조문시행일자와 건수``, not ``… 조문시행일자와
    법령 본문 건수``); a field alone in its group is said whole (``법령 본문 건수``)."""
    groups: list[tuple[str | None, list[dict[str, Any]]]] = []
    for f in fields:
        of = f["part"][0] if f.get("part") else None
        if of is not None and groups and groups[-1][0] == of:
            groups[-1][1].append(f)
        else:
            groups.append((of, [f]))
    parts = [f"{of}의 {join_ko([f['part'][1] for f in fs])}" if of and len(fs) > 1
             else fs[0]["text"] for of, fs in groups]
    if len(parts) == 2 and all(len(fs) == 1 for _, fs in groups):
        return join_ko(parts, "와", ", ")
    return ", ".join(parts)  # "A의 x, B의 y와 건수": one 와 inside a group, not two in a row


def _constraints(args: Sequence[dict[str, Any]]) -> list[dict[str, str]]:
    """A call's literal arguments as phrases; exactly two date arguments make one period."""
    dates = [a for a in args if a["type"] == "date"]
    out: list[dict[str, str]] = []
    for a in args:
        if a["type"] == "date" and len(dates) == 2:
            if a is dates[0]:
                text = period_text(dates[0]["value"], dates[1]["value"])
                out.append({"label": "기간", "text": text, "phrase": text})
            continue
        if not a["text"]:
            continue
        label, text = a["label"], a["text"]
        plain = _plain(label, a["name"], text, a["type"])
        out.append({"label": label, "text": text, "phrase": text if plain else f"{label} {text}"})
    return out


def _plain(label: str, name: str, text: str, kind: str) -> bool:
    """True when a literal's text reads without its label before it: no label, the label is
    in the text already (``2024학년도``), or a date."""
    return not label or label == name or label in text or kind == "date"


def _readers(body: Sequence[n.Stmt]) -> dict[str, list[str]]:
    """Relation → one entry per statement reading it: ``call`` for a call or a ``parallel``
    group reading it only by single-value hand-offs (``seq``), ``other`` for anything else (a
    fan, a ``drv``, a comparison, a condition, the answer)."""
    out: dict[str, list[str]] = {}

    def note(rel: str, kind: str, seen: set[str]) -> None:
        if rel not in seen:  # one entry per statement
            seen.add(rel)
            out.setdefault(rel, []).append(kind)

    def read(node: object, kind: str, seen: set[str]) -> None:
        if isinstance(node, n.Ref):
            note(".".join(node.parts[:-1]), kind, seen)
            return
        if isinstance(node, n.NameExpr):
            note(node.name, "other", seen)
            return
        if isinstance(node, n.Drv):
            note(".".join(node.source), "other", seen)
        if isinstance(node, n.FanArg):
            kind = "other"
        if dataclasses.is_dataclass(node):
            for f in dataclasses.fields(node):
                read(getattr(node, f.name), kind, seen)
        elif isinstance(node, tuple | list):
            for x in node:
                read(x, kind, seen)

    def stmts(ss: Sequence[n.Stmt]) -> None:
        for st in ss:
            if isinstance(st, n.IfStmt):
                read(st.cond, "other", set())
                stmts(st.then)
                stmts(st.orelse or ())
            elif isinstance(st, n.Binding) and isinstance(st.node, n.Call | n.Parallel):
                read(st.node, "call", set())  # a group's header hands on like a call
            else:
                read(st, "other", set())

    stmts(body)
    return out


def _flatten(steps: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for s in steps:
        out.append(s)
        if s["kind"] == "if":
            out += _flatten(s["then"]) + _flatten(s["else"])
    return out


def query_context(traj: n.Trajectory, plan: Plan, answer: Any, *,
                  glossary: Glossary | None = None) -> dict[str, Any]:
    """The JSON-able template context of ``traj`` (the documentation lists every variable).

    ``plan`` (compiled from the file holding ``traj``) supplies the tools' Korean docs and the
    parameter and field types; ``answer`` is read for its field names only — its values never
    enter the context. ``glossary`` is the packaged one unless given."""
    gl = glossary or load_glossary(None)
    b = _Builder(traj, plan, gl)
    steps = b.stmts(traj.body)
    flat = _flatten(steps)
    ans_stmt = next((s for s in traj.body if isinstance(s, n.AnswerStmt)), None)
    calls = [s for s in flat if s["kind"] in ("call", "compare")]
    calls += [br for s in flat if s["kind"] == "parallel" for br in s["branches"]]
    first = next((s for s in flat if s["kind"] in ("call", "compare", "parallel")), None)
    if first is not None and first["kind"] == "parallel":
        first = first["branches"][0] if first["branches"] else None
    cond = next((s for s in flat if s["kind"] == "if"), None)
    return {
        "name": traj.name,
        "structure": structure_of(traj),
        "platform": first["platform"] if first else None,
        "platforms": list(b.platforms.values()),
        "tools": list(b.tools.values()),
        "steps": steps,
        "first": first,
        "calls": len(calls),
        "literals": b.literals,
        "drvs": [s for s in flat if s["kind"] == "drv"],
        "reducers": [{**r, "step": s["name"], "source": s["source"]}
                     for s in flat if s["kind"] == "drv" for r in s["reducers"]],
        "compares": [s for s in flat if s["kind"] == "compare"],
        "parallels": [s for s in flat if s["kind"] == "parallel"],
        "fans": [s for s in flat if s.get("fan")],
        "condition": cond["condition"] if cond else None,
        "comparisons": b.comparisons,
        "answer": b.answer(ans_stmt, answer),
    }


def render_query(traj: n.Trajectory, plan: Plan, answer: Any, *, rng_seed: int,
                 templates: Path | None = None) -> str:
    """The Korean query of ``traj``, from the template chosen by structure and platform
    (``templates``, a user directory, takes precedence file by file). Deterministic for a
    seed. :class:`QueryTemplateError` when no template is found or one does not render."""
    user = templates.resolve() if templates is not None else None
    if user is not None and not user.is_dir():
        raise QueryTemplateError(f"template directory {str(templates)!r} does not exist")
    ctx = query_context(traj, plan, answer, glossary=load_glossary(user))
    names = template_names(ctx["structure"], ctx["platform"])
    try:
        listing = tuple(sorted(p.name for p in user.iterdir())) if user is not None else ()
        tpl = _query_env(user, listing).select_template(names)
        phrasing = phrasing_of(rng_seed)
        text = tpl.render({**ctx, "pick": _picker(random.Random(rng_seed)),
                           "phrasing": phrasing, "register": register_of(rng_seed, phrasing)})
    except jinja2.TemplateNotFound:
        raise QueryTemplateError(f"no query template found (tried {', '.join(names)})") from None
    except (jinja2.TemplateError, ValueError) as exc:
        raise QueryTemplateError(f"query template of {ctx['structure']}/{ctx['platform']} "
                                 f"does not render: {exc}") from None
    return tidy(text)


def prompt_template(path: Path | None, default: str) -> jinja2.Template:
    """A prompt template: the file ``path``, or the packaged ``default`` (its own directory is
    searched first, so it may ``{% include %}`` its neighbours)."""
    env = template_env(path.parent if path is not None else None, PROMPT_TEMPLATES)
    name = path.name if path is not None else default
    try:
        return env.get_template(name)
    except jinja2.TemplateNotFound:
        raise QueryTemplateError(f"prompt template {name!r} not found") from None
    except jinja2.TemplateSyntaxError as exc:
        raise QueryTemplateError(f"prompt template {name!r}, line {exc.lineno}: "
                                 f"{exc.message}") from None
