"""Hypothesis strategies for random, syntactically valid ASTs (``edgedsl.syntax.nodes``).

Generated modules respect the invariants of the build pass: no ``Neg(NumberLit)`` (build folds
``-<number>``), And/Or with two or more operands, ``paged`` None or a non-empty tuple, an
``else_end_comments`` only with an ``else`` block, no object literal as a whole expression,
unique object keys, comments single-line, starting with ``#`` and right-stripped.

Names are ASCII identifiers that are not keywords; where the contextual lexer accepts a keyword
as a name (record fields, argument names, ``x.f`` parts, reducer fields, answer fields, enum
members), the keywords it accepts are found by parsing small probes and are drawn as well.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import warnings
from functools import cache

from hypothesis import strategies as st

from edgedsl.core.diagnostics import CompileError
from edgedsl.core.types import CodePatternError, code_pattern
from edgedsl.reduce.registry import REDUCERS
from edgedsl.syntax import nodes as n
from edgedsl.syntax.build import parse_module
from edgedsl.syntax.parser import _lark

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@cache
def keywords() -> frozenset[str]:
    """Every keyword of the grammar (string terminals that look like a name)."""
    return frozenset(
        t.pattern.value
        for t in _lark().terminals
        if t.pattern.type == "str" and _IDENT.fullmatch(t.pattern.value)
    )


def _parses(text: str) -> bool:
    try:
        parse_module(text)
    except CompileError:
        return False
    return True


def _t(body: str) -> str:
    return 'trajectory t "q" { ' + body + " }"


PROBES: dict[str, tuple[str, ...]] = {
    "field": ("record R { @: str }", "record R { a: str @: int }"),
    "arg": (_t("a = p.t(@: 1)"), _t("a = p.t(x: 1, @: seq b.c)")),
    "attr": (_t("answer a.@"), _t("if a.@ > 1 {}"), _t("a = p.t(x: seq b.@)"), _t("a = p.@()")),
    "reducer_field": (
        _t("a = drv b | max @"),
        _t("a = drv b | where @ >= 1"),
        _t("a = drv b | most_frequent @ | min @"),
        _t("a = drv b | top 3 @ | where @ in [1]"),
    ),
    "answer_field": (_t("answer { @: 1 }"), _t("answer { a: 1, @: 2 }")),
    "enum_member": ("record R { f: enum[@] }", "record R { f: enum[a, @]? }"),
    "run_setting": ("run { @: 1 }", "run { a: 1, @: 2 }", "run { a: \"s\" @: 2 }"),
}
"""Probe texts per name position; ``@`` stands for the name."""


@cache
def accepted_keywords(position: str) -> tuple[str, ...]:
    """The keywords the contextual lexer accepts as a name at ``position`` (see PROBES)."""
    return tuple(
        kw
        for kw in sorted(keywords())
        if all(_parses(p.replace("@", kw)) for p in PROBES[position])
    )


_plain = st.one_of(
    st.sampled_from(["a", "b", "x", "corp", "filings", "rcept_dt", "_t1", "Disclosure", "unit"]),
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,7}", fullmatch=True),
).filter(lambda s: s not in keywords())


def names(position: str | None = None) -> st.SearchStrategy[str]:
    """Identifiers for ``position``; keywords only where the position accepts them."""
    if position is None:
        return _plain
    return st.one_of(_plain, st.sampled_from(accepted_keywords(position)))


# ---------------------------------------------------------------- text, comments, literals

_KOREAN = [
    "삼성전자",
    "공시검색: 회사·기간별 공시 목록",
    "서울특별시",
    "가장 최근 공시의 보고서명",
    "",
    "삼성전자가 2024년 12월에 제출한 공시 중 가장 최근 공시의 보고서명과, 그날의 종가는?",
]
_text_chars = st.characters(exclude_categories=("Cs",))
strings = st.one_of(
    st.sampled_from(_KOREAN),
    st.text(alphabet='가나다라 "\\/\n\t\x00é😀abc{}#', max_size=8),
    st.text(_text_chars, max_size=6),
)
comments = st.text(st.characters(exclude_categories=("Cs", "Cc", "Zl", "Zp")), max_size=12).map(
    lambda s: ("#" + s).rstrip()
)
leading = st.lists(comments, max_size=2).map(tuple)
trailing = st.none() | comments

numbers = st.one_of(
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0, -1, 0.5, -0.0, 1e-05, 1e16, 2.5e300]),
).map(lambda v: n.NumberLit(value=v))
_shifts = st.builds(
    lambda d, s, k, u: n.DateShift(day=d, sign=s, amount=k, unit=u),
    st.dates(min_value=dt.date(1, 1, 1)),
    st.sampled_from(["+", "-"]),
    st.one_of(st.integers(0, 3), st.integers(0, 10**6)),
    st.sampled_from(["days", "months"]),
).filter(lambda sh: sh.apply() is not None)
dates = st.one_of(
    st.dates(min_value=dt.date(1, 1, 1)).map(lambda d: n.DateLit(value=d)),
    _shifts.map(lambda sh: n.DateLit(value=sh.apply(), shift=sh)),
)
scalars = st.one_of(
    strings.map(lambda s: n.StringLit(value=s)),
    numbers,
    dates,
    st.booleans().map(lambda b: n.BoolLit(value=b)),
)


def _dict(children: st.SearchStrategy[n.Literal_]) -> st.SearchStrategy[n.DictLit]:
    entries = st.lists(st.tuples(strings, children), max_size=3, unique_by=lambda e: e[0])
    return entries.map(lambda es: n.DictLit(entries=tuple(es)))


def _containers(kids: st.SearchStrategy[n.Literal_]) -> st.SearchStrategy[n.Literal_]:
    lists = st.lists(kids, max_size=3).map(lambda xs: n.ListLit(items=tuple(xs)))
    return st.one_of(lists, _dict(kids))


literals: st.SearchStrategy[n.Literal_] = st.recursive(scalars, _containers, max_leaves=6)
list_lits = st.lists(literals, max_size=3).map(lambda xs: n.ListLit(items=tuple(xs)))
expr_literals = st.one_of(scalars, list_lits)  # an object literal is never a whole expression

# ---------------------------------------------------------------- expressions and predicates

refs = st.builds(
    lambda head, tail: n.Ref(parts=(head, *tail)),
    names(),
    st.lists(names("attr"), min_size=1, max_size=2),
)


def _neg(e: n.Expr) -> n.Expr:
    return e if isinstance(e, n.NumberLit) else n.Neg(operand=e)


def _compound_exprs(kids: st.SearchStrategy[n.Expr]) -> st.SearchStrategy[n.Expr]:
    return st.one_of(
        st.builds(
            lambda op, a, b: n.BinOp(op=op, left=a, right=b),
            st.sampled_from(["+", "-", "*", "/"]),
            kids,
            kids,
        ),
        kids.map(_neg),
        st.builds(
            lambda f, xs: n.FuncCall(name=f, args=tuple(xs)),
            st.sampled_from(["round", "count", "count_distinct", "sum", "avg", "min", "max",
                             "f"]),
            st.lists(kids, min_size=1, max_size=3),
        ),
    )


exprs: st.SearchStrategy[n.Expr] = st.recursive(
    st.one_of(expr_literals, refs, names().map(lambda s: n.NameExpr(name=s))),
    _compound_exprs,
    max_leaves=8,
)


def _compound_preds(kids: st.SearchStrategy[n.Pred]) -> st.SearchStrategy[n.Pred]:
    return st.one_of(
        kids.map(lambda p: n.PredNot(operand=p)),
        st.lists(kids, min_size=2, max_size=3).map(lambda ps: n.PredAnd(operands=tuple(ps))),
        st.lists(kids, min_size=2, max_size=3).map(lambda ps: n.PredOr(operands=tuple(ps))),
    )


preds: st.SearchStrategy[n.Pred] = st.recursive(
    st.one_of(
        st.builds(
            lambda op, a, b: n.PredCmp(op=op, left=a, right=b),
            st.sampled_from(["==", "!=", "<", "<=", ">", ">="]),
            exprs,
            exprs,
        ),
        names().map(lambda s: n.PredExists(name=s)),
    ),
    _compound_preds,
    max_leaves=6,
)

# ---------------------------------------------------------------- nodes and statements

seq_args = refs.map(lambda r: n.SeqArg(ref=r))
arg_values = st.one_of(
    literals,
    seq_args,
    st.builds(lambda r, k: n.FanArg(ref=r, bound=k), refs, st.none() | st.integers(0, 9)),
    names().map(lambda s: n.SharedArg(name=s)),
)
#: A list holding references (at least one) among literals: a call's argument only.
list_args = st.lists(st.one_of(literals, seq_args), min_size=1, max_size=3).flatmap(
    lambda xs: seq_args.map(lambda r: n.ListArg(items=(*xs, r)) if not any(
        isinstance(x, n.SeqArg) for x in xs) else n.ListArg(items=tuple(xs))))
args = st.builds(lambda k, v: n.Arg(name=k, value=v), names("arg"), arg_values)
call_args = st.builds(lambda k, v: n.Arg(name=k, value=v), names("arg"), arg_values | list_args)
calls = st.builds(
    lambda p, t, a, pg: n.Call(platform=p, tool=t, args=tuple(a), pages=pg),
    names(),
    names("attr"),
    st.lists(call_args, max_size=4),
    st.none() | st.just("all") | st.integers(0, 500),
)
reducers = st.one_of(  # every reducer of the registry, by how it is written
    st.builds(
        lambda op, f: n.Reducer(op=op, field=f),
        st.sampled_from([op for op, r in REDUCERS.items() if r.form == "plain"]),
        names("reducer_field"),
    ),
    st.builds(
        lambda op, f, p: n.Reducer(op=op, field=f, pivot=p),
        st.sampled_from([op for op, r in REDUCERS.items() if r.form == "where"]),
        names("reducer_field"),
        literals,
    ),
    st.builds(
        lambda op, f, k: n.Reducer(op=op, field=f, pivot=n.NumberLit(value=k)),
        st.sampled_from([op for op, r in REDUCERS.items() if r.form == "count"]),
        names("reducer_field"),
        st.integers(0, 10**6),
    ),
)
drvs = st.builds(
    lambda src, steps: n.Drv(source=tuple(src), steps=tuple(steps)),
    st.lists(names(), min_size=1, max_size=2),
    st.lists(reducers, min_size=1, max_size=3),
)
branches = st.builds(
    lambda name, call, c, t: n.Branch(name=name, call=call, comments=c, trailing=t),
    names(),
    calls,
    leading,
    trailing,
)
parallels = st.builds(
    lambda sh, br, end: n.Parallel(shared=tuple(sh), branches=tuple(br), end_comments=end),
    st.lists(args, max_size=3),
    st.lists(branches, max_size=3),
    leading,
)
compares = st.builds(
    lambda call, p, vs: n.Compare(call=call, param=p, values=vs), calls, names(), list_lits
)
bindings = st.builds(
    lambda name, node, c, t: n.Binding(name=name, node=node, comments=c, trailing=t),
    names(),
    st.one_of(calls, drvs, parallels, compares),
    leading,
    trailing,
)
answer_fields = st.builds(lambda k, e: n.AnswerField(name=k, expr=e), names("answer_field"), exprs)
answers = st.one_of(
    st.builds(
        lambda e, c, t: n.AnswerStmt(expr=e, comments=c, trailing=t), exprs, leading, trailing
    ),
    st.builds(
        lambda fs, c, t: n.AnswerStmt(fields=tuple(fs), comments=c, trailing=t),
        st.lists(answer_fields, max_size=3),
        leading,
        trailing,
    ),
)
says = st.builds(
    lambda s, c, t: n.SayStmt(template=s, comments=c, trailing=t), strings, leading, trailing
)


@st.composite
def _if(draw: st.DrawFn, stmts: st.SearchStrategy[n.Stmt]) -> n.IfStmt:
    then = tuple(draw(st.lists(stmts, max_size=2)))
    kind = draw(st.sampled_from(["none", "block", "else_if"]))
    orelse: tuple[n.Stmt, ...] | None = None
    else_end: tuple[str, ...] = ()
    if kind == "block":
        orelse = tuple(draw(st.lists(stmts, max_size=2)))
        else_end = draw(leading)
    elif kind == "else_if":
        inner = draw(_if(st.one_of(bindings, answers)))
        if draw(st.integers(0, 3)):  # mostly printable as `else if`
            inner = dataclasses.replace(inner, comments=(), trailing=None)
        orelse = (inner,)
    return n.IfStmt(
        cond=draw(preds),
        then=then,
        orelse=orelse,
        then_end_comments=draw(leading),
        else_end_comments=else_end,
        comments=draw(leading),
        trailing=draw(trailing),
    )


simple_stmts = st.one_of(bindings, answers, says)
stmts: st.SearchStrategy[n.Stmt] = st.deferred(
    lambda: st.one_of(simple_stmts, _if(st.one_of(simple_stmts, _if(simple_stmts))))
)

# ---------------------------------------------------------------- catalogs

_PATTERNS = ["^[0-9]{8}$", "^[0-9]{14}$", r"^\d{6}$", r"a\/b", "[가-힣]+", "x|y", r"\.", "(ab)*"]
patterns = st.one_of(
    st.sampled_from(_PATTERNS),
    st.text(alphabet="ab09^$.*+?|()[]{}", min_size=1, max_size=6).filter(lambda p: _valid_regex(p)),
)


def _valid_regex(p: str) -> bool:
    """A pattern a code type accepts (RE2, and Python's re without a warning; possessive
    ``*+`` is Python's only)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            re.compile(p)
            code_pattern(p)
        except (re.error, FutureWarning, CodePatternError):
            return False
    return True


enum_members = st.one_of(
    names("enum_member"), strings, st.sampled_from(["1", "007", "1.5", "1e5", "2024-01-01"])
)
type_names = st.lists(names(), min_size=1, max_size=2).map(".".join)


def _list_types(kids: st.SearchStrategy[n.TypeExpr]) -> st.SearchStrategy[n.TypeExpr]:
    return st.builds(lambda t, o: n.ListTypeExpr(item=t, optional=o), kids, st.booleans())


type_exprs: st.SearchStrategy[n.TypeExpr] = st.recursive(
    st.one_of(
        st.builds(lambda s, o: n.NamedTypeExpr(name=s, optional=o), type_names, st.booleans()),
        st.builds(
            lambda ms, o: n.EnumTypeExpr(members=tuple(ms), optional=o),
            st.lists(enum_members, min_size=1, max_size=4),
            st.booleans(),
        ),
    ),
    _list_types,
    max_leaves=3,
)
labels = st.one_of(
    st.just((None, None)),
    st.tuples(strings, st.none() | strings),
    st.tuples(st.sampled_from(["거래금액", "접수일자"]), st.sampled_from(["만원", "%", "Kcal"])),
)
"""A field's or parameter's (label, unit): a unit only with a label, as the grammar has it."""
fields = st.builds(
    lambda k, t, c, tr, lu: n.FieldDecl(
        name=k, type=t, comments=c, trailing=tr, label=lu[0], unit=lu[1]
    ),
    names("field"),
    type_exprs,
    leading,
    trailing,
    labels,
)
records = st.builds(
    lambda k, fs, c, t, end: n.RecordDecl(
        name=k, fields=tuple(fs), comments=c, trailing=t, end_comments=end
    ),
    names(),
    st.lists(fields, max_size=4),
    leading,
    trailing,
    leading,
)
type_decls = st.builds(
    lambda k, p, d, c, t: n.TypeDecl(name=k, pattern=p, doc=d, comments=c, trailing=t),
    names(),
    patterns,
    st.none() | strings,
    leading,
    trailing,
)
paged_opts = st.builds(
    lambda k, v, lim: n.PagedOpt(key=k, name=v, limit=lim),
    names(),
    names(),
    st.none() | st.integers(0, 1000),
)


@st.composite
def tool_decls(draw: st.DrawFn) -> n.ToolDecl:
    """A tool declaration (HTTP method and path together or not at all)."""
    http = draw(
        st.none() | st.tuples(st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH"]), strings)
    )
    params = draw(
        st.lists(
            st.builds(
                lambda k, t, lu: n.ParamDecl(name=k, type=t, label=lu[0], unit=lu[1]),
                names(),
                type_exprs,
                labels,
            ),
            max_size=5,
        )
    )
    paged = draw(st.none() | st.lists(paged_opts, min_size=1, max_size=3).map(tuple))
    return n.ToolDecl(
        name=draw(names()),
        doc=draw(st.none() | strings),
        method=None if http is None else http[0],
        path=None if http is None else http[1],
        params=tuple(params),
        returns=draw(names()),
        many=draw(st.booleans()),
        at=draw(st.none() | strings),
        paged=paged,
        comments=draw(leading),
        trailing=draw(trailing),
    )


settings_items = st.one_of(
    st.builds(
        lambda u, c, t: n.BaseDecl(url=u, comments=c, trailing=t), strings, leading, trailing
    ),
    st.builds(
        lambda k, c, t: n.EnvelopeDecl(name=k, comments=c, trailing=t), names(), leading, trailing
    ),
    st.builds(
        lambda k, c, t: n.SecretDecl(name=k, comments=c, trailing=t), names(), leading, trailing
    ),
    st.builds(
        lambda a, k, c, t: n.QuotaDecl(amount=a, per=k, comments=c, trailing=t),
        st.integers(0, 10**6),
        names(),
        leading,
        trailing,
    ),
)
platforms = st.builds(
    lambda k, d, items, c, t, end: n.PlatformDecl(
        name=k, doc=d, items=tuple(items), comments=c, trailing=t, end_comments=end
    ),
    names(),
    st.none() | strings,
    st.lists(st.one_of(settings_items, type_decls, records, tool_decls()), max_size=5),
    leading,
    trailing,
    leading,
)
uses = st.builds(
    lambda ks, c, t: n.UseDecl(names=tuple(ks), comments=c, trailing=t),
    st.lists(names(), min_size=1, max_size=3),
    leading,
    trailing,
)
trajectories = st.builds(
    lambda k, q, body, c, t, end: n.Trajectory(
        name=k, query=q, body=tuple(body), comments=c, trailing=t, end_comments=end
    ),
    names(),
    strings,
    st.lists(stmts, max_size=5),
    leading,
    trailing,
    leading,
)
run_decls = st.builds(
    lambda ss, c, t, end: n.RunDecl(settings=tuple(ss), comments=c, trailing=t, end_comments=end),
    st.lists(
        st.builds(
            lambda k, v, c, t: n.RunSetting(name=k, value=v, comments=c, trailing=t),
            names("run_setting"),
            literals,
            leading,
            trailing,
        ),
        max_size=3,
    ),
    leading,
    trailing,
    leading,
)
modules = st.builds(
    lambda items, end: n.Module(items=tuple(items), end_comments=end),
    st.lists(st.one_of(uses, type_decls, records, platforms, trajectories, run_decls), max_size=4),
    leading,
)
"""Whole modules: imports, catalog declarations and trajectories with comments."""
