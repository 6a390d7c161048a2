"""Filters of synthesized trajectories: rules, a static check, (the re-solve).

The recipe removes broken formats, answer leakage, ungradable tasks and decorative chains with
three filter stages. This module holds the first two; the third — an independent re-solve, and
the ``decorative`` rule that needs execution — is run by the synthesis driver and reported with
the same vocabulary (:mod:`edgedsl.recipe.synth.rejections`: :data:`~.rejections.Rejection`,
:data:`~.rejections.STAGE_OF`, :class:`~.rejections.FilterReport`).

**Stage ``rules``** (:func:`rule_filter`), pure and fast:

* ``format`` — the ``.edge`` text does not parse, or is not in canonical format
  (``format(parse(text)) != text``);
* ``leak`` — an answer value appears in the query (:func:`find_leaks`);
* ``ungradable`` — the answer cannot be graded by comparison (:func:`ungradable_problems`);
* ``restated_input`` — an answer value repeats a literal the query states.

**Stage ``static``** (:func:`static_check`), without executing anything:

* ``query_mismatch`` — a literal value the trajectory uses is not mentioned in the query, or
  the query mentions a date the trajectory does not use (:func:`static_problems`);
* ``unused_step`` — a read-only call or a ``drv`` whose result nothing reads;
* ``tool_incoherent`` — a step that repeats an earlier step exactly;
* ``odd_narrowing``, ``internal_input`` — a narrowing by a field no question narrows by, an
  input that is the service's internal code (:mod:`edgedsl.recipe.synth.plausible`);
* ``model_rejected`` — with a chat model, its verdict ``{"ok": false, …}``.

:func:`static_check` is synchronous (with a model client it runs its own event loop);
:func:`astatic_check` is the same for async code; :func:`static_rules` runs the heuristic rules
alone.

Every rule is documented on the function implementing it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
import math
import re
from collections.abc import Iterator, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

import jinja2
from pydantic import BaseModel, ConfigDict

from ...core.diagnostics import CompileError
from ...plan.model import Plan
from ...syntax import nodes as n
from ..llm import LLMClient, LLMError, Message
from .knowable import restated_answers
from .korean import korean_date, korean_forms, mask, mentioned, pattern_of
from .literals import literal_uses
from .plausible import implausible, plan_view
from .query import prompt_template, query_context
from .rejections import FilterReport, Rejection
from .templates import QueryTemplateError, load_glossary

__all__ = [
    "MAX_DECIMALS",
    "PHI",
    "Verdict",
    "astatic_check",
    "find_leaks",
    "model_check",
    "rule_filter",
    "static_check",
    "static_messages",
    "static_problems",
    "static_rules",
    "ungradable_problems",
    "value_forms",
]

PHI = 5
"""The fan-out budget φ: an answer list longer than this is ungradable."""

MAX_DECIMALS = 6
"""A float answer with more decimals than this was not rounded: ungradable."""

_WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


# ----------------------------------------------------------------------------- leaks


def _scalars(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for v in value.values():
            yield from _scalars(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _scalars(v)
    elif value is not None and not isinstance(value, bool):
        yield value


_NUMBER = re.compile(r"[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?")
_ISO = re.compile(r"((?:19|20)\d{2})[-.]?(\d{2})[-.]?(\d{2})")


def _number_leak_forms(v: int | float) -> list[str]:
    if isinstance(v, float) and not math.isfinite(v):
        return []
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, int):
        if abs(v) < 10:  # "1번", "2학년", "3월": a single digit says too little to be a leak
            return []
        return korean_forms(v)
    out = [repr(v)] + [str(round(v, k)) for k in (2, 1) if round(v, k) != v]
    out = [f for f in out if not re.fullmatch(r"-?\d", f)]  # 3.04 → "3.0" → nothing useful
    return [*out, f"{v:,}"] if abs(v) >= 1000 else out


def value_forms(value: Any) -> list[str]:
    """The ways a query could show an answer value: a string of two characters or more (and,
    when it is a date or a number, its other renderings), a number with two digits or more in
    the renderings of :func:`~edgedsl.recipe.synth.query.korean_forms` (``12조``, ``1,234``,
    ``1234``), a non-integral float also rounded to 2 and 1 decimals, a date as ``2024-12-20``,
    ``20241220``, ``2024.12.20``, ``2024년 12월 20일`` and ``12월 20일``."""
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, dt.date):
        return [*korean_forms(value)[:4], f"{value.month}월 {value.day}일"]
    if isinstance(value, int | float):
        return _number_leak_forms(value)
    if not isinstance(value, str):
        return []
    text = value.strip()
    if len(text) < 2:
        return []
    out = [text]
    m = _ISO.fullmatch(text)
    if m:
        with contextlib.suppress(ValueError):
            out += value_forms(dt.date(int(m[1]), int(m[2]), int(m[3])))
    num = _NUMBER.match(text)
    if m is None and num and (num.end() == len(text) or not text[num.end()].isdigit()):
        raw = num.group(0).replace(",", "")
        out += _number_leak_forms(float(raw) if "." in raw else int(raw))
    return list(dict.fromkeys(out))


def find_leaks(query: str, answer: Any, literal_forms: Sequence[str] = ()) -> list[str]:
    """The renderings of answer values (:func:`value_forms`) found in ``query``.

    Every occurrence of ``literal_forms`` (the renderings of the literal values the trajectory
    uses) is blanked out of the query first: a value the question must state — the company the
    question is about, a date it gives — is not a leak when the answer repeats it. Matching
    ignores case and spacing, and never matches inside a longer number or word of Latin letters
    (``30`` is not found in ``2030``)."""

    masked = mask(query, literal_forms)
    found: list[str] = []
    for value in _scalars(answer):
        for form in value_forms(value):
            if pattern_of(form).search(masked):
                found.append(form)
                break
    return list(dict.fromkeys(found))


# ----------------------------------------------------------------------------- ungradable


def _decimals(v: float) -> int:
    exp = Decimal(repr(v)).as_tuple().exponent
    return -exp if isinstance(exp, int) and exp < 0 else 0


def ungradable_problems(answer: Any, *, phi: int = PHI) -> list[str]:
    """Why ``answer`` cannot be graded by comparison (empty when it can):

    * the answer is null (``None``), or empty: ``""`` (or only spaces), ``[]``, ``{}``;
    * a field of an answer object is null or empty — part of the answer is missing;
    * a list (the answer or a field) holds more than ``phi`` values: a grader cannot expect
      every one of them, in order, from a free-text reply;
    * a number is NaN or infinite;
    * a float has more than :data:`MAX_DECIMALS` decimals (``33.333333333333336``): an
      unrounded division or average that no reply would reproduce exactly.
    """
    problems: list[str] = []

    def check(value: Any, where: str) -> None:
        if value is None:
            problems.append(f"{where} is null")
        elif isinstance(value, str) and not value.strip():
            problems.append(f"{where} is an empty string")
        elif isinstance(value, list | tuple | dict) and not value:
            problems.append(f"{where} is empty")
        elif isinstance(value, list | tuple):
            if len(value) > phi:
                problems.append(f"{where} has {len(value)} values, more than φ = {phi}")
            for i, item in enumerate(value):
                check(item, f"{where}[{i}]")
        elif isinstance(value, dict):
            for k, item in value.items():
                check(item, f"field `{k}`")
        elif isinstance(value, float) and not math.isfinite(value):
            problems.append(f"{where} is {value} (not a finite number)")
        elif isinstance(value, float) and _decimals(value) > MAX_DECIMALS:
            problems.append(f"{where} = {value!r} has {_decimals(value)} decimals "
                            f"(more than {MAX_DECIMALS}: not rounded)")

    check(answer, "the answer")
    return problems


def rule_filter(text: str, traj: n.Trajectory, answer: Any, query: str, *,
                phi: int = PHI) -> list[Rejection]:
    """Stage ``rules``: the rejection reasons of one trajectory (empty when it passes).

    ``text`` is the ``.edge`` file holding ``traj`` as emitted; ``answer`` its derived answer
    (JSON: dates as ISO text); ``query`` its natural-language query. ``format``: ``text`` does
    not parse, or ``format(parse(text)) != text``. ``leak``: :func:`find_leaks` finds an answer
    value in ``query`` (the trajectory's literal values masked). ``ungradable``:
    :func:`ungradable_problems` finds a problem. ``restated_input``: a text answer value is a
    literal the query states (:func:`edgedsl.recipe.synth.knowable.restated_answers`)."""
    from ... import api

    reasons: list[Rejection] = []
    try:
        if api.format(api.parse(text)) != text:
            reasons.append("format")
    except CompileError:
        reasons.append("format")
    if find_leaks(query, answer, _literal_forms(traj)):
        reasons.append("leak")
    if ungradable_problems(answer, phi=phi):
        reasons.append("ungradable")
    if restated_answers(traj, answer):
        reasons.append("restated_input")
    return reasons


def _literal_forms(traj: n.Trajectory) -> list[str]:
    gl = load_glossary(None)
    return [f for u in literal_uses(traj) for f in korean_forms(u.value, u.name, gl)]


# ----------------------------------------------------------------------------- static rules

_FULL_DATE = re.compile(r"(?<!\d)(\d{4})\s*년\s*(\d{1,2})\s*월\s*(\d{1,2})\s*일"
                        r"|(?<!\d)(\d{4})[-.](\d{1,2})[-.](\d{1,2})(?!\d)")
_MONTH = re.compile(r"(?<!\d)(\d{4})\s*년\s*(\d{1,2})\s*월(?!\s*\d)")


def _literal_dates(traj: n.Trajectory) -> list[dt.date]:
    out = []
    for u in literal_uses(traj):
        if isinstance(u.value, dt.date):
            out.append(u.value)
        elif isinstance(u.value, str) and re.fullmatch(r"(19|20)\d{6}", u.value):
            with contextlib.suppress(ValueError):
                out.append(dt.date(int(u.value[:4]), int(u.value[4:6]), int(u.value[6:])))
        elif isinstance(u.value, str) and re.fullmatch(r"(19|20)\d{2}(0[1-9]|1[0-2])", u.value):
            out.append(dt.date(int(u.value[:4]), int(u.value[4:]), 1))
    return out


def _query_dates(query: str) -> tuple[list[dt.date], list[tuple[int, int]]]:
    days = []
    for m in _FULL_DATE.finditer(query):
        y, mo, d = (m[1], m[2], m[3]) if m[1] else (m[4], m[5], m[6])
        try:
            days.append(dt.date(int(y), int(mo), int(d)))
        except ValueError:
            continue
    months = [(int(m[1]), int(m[2])) for m in _MONTH.finditer(query)]
    return days, months


def _mismatches(traj: n.Trajectory, query: str) -> list[str]:
    gl = load_glossary(None)
    out = []
    for u in literal_uses(traj):
        forms = korean_forms(u.value, u.name, gl)
        if forms and not isinstance(u.value, bool) and not mentioned(query, forms):
            out.append(f"{u.role} `{u.name}` = {forms[0]} is not mentioned in the query")
    dates = _literal_dates(traj)
    days, months = _query_dates(query)
    for d in days:
        if d not in dates:
            out.append(f"the query mentions {korean_date(d)}, a date the trajectory does not use")
    lo, hi = (min(dates), max(dates)) if dates else (None, None)
    for y, mo in months:
        if lo is None or hi is None or not (lo.replace(day=1) <= dt.date(y, min(max(mo, 1), 12), 1)
                                            <= hi.replace(day=1)):
            out.append(f"the query mentions {y}년 {mo}월, a month the trajectory does not use")
    return out


def _names(e: Any, out: set[str]) -> None:
    """Every binding (and ``group.branch``) an expression, predicate or argument reads."""
    if isinstance(e, n.Ref):
        out.add(e.parts[0])
        if len(e.parts) >= 3:
            out.add(".".join(e.parts[:2]))
    elif isinstance(e, n.NameExpr | n.PredExists):
        out.add(e.name)
    elif isinstance(e, n.SeqArg | n.FanArg):
        _names(e.ref, out)
    elif isinstance(e, n.FuncCall):
        for a in e.args:
            _names(a, out)
    elif isinstance(e, n.BinOp | n.PredCmp):
        _names(e.left, out)
        _names(e.right, out)
    elif isinstance(e, n.Neg | n.PredNot):
        _names(e.operand, out)
    elif isinstance(e, n.PredAnd | n.PredOr):
        for q in e.operands:
            _names(q, out)


def _walk_reads(body: Sequence[n.Stmt], out: set[str]) -> None:
    for s in body:
        if isinstance(s, n.IfStmt):
            _names(s.cond, out)
            _walk_reads(s.then, out)
            _walk_reads(s.orelse or (), out)
        elif isinstance(s, n.AnswerStmt):
            _names(s.expr, out)
            for f in s.fields or ():
                _names(f.expr, out)
        elif isinstance(s, n.Binding):
            node = s.node
            calls = [node] if isinstance(node, n.Call) else [node.call] \
                if isinstance(node, n.Compare) else []
            if isinstance(node, n.Parallel):
                calls = [b.call for b in node.branches]
                for a in node.shared:
                    _names(a.value, out)
            for c in calls:
                for a in c.args:
                    _names(a.value, out)
            if isinstance(node, n.Drv):
                out.add(node.source[0])
                out.add(".".join(node.source))


def _bindings(body: Sequence[n.Stmt]) -> Iterator[n.Binding]:
    for s in body:
        if isinstance(s, n.Binding):
            yield s
        elif isinstance(s, n.IfStmt):
            yield from _bindings(s.then)
            yield from _bindings(s.orelse or ())


def _unused(traj: n.Trajectory, plan: Plan) -> list[str]:
    reads: set[str] = set()
    _walk_reads(traj.body, reads)

    def writes(call: n.Call) -> bool:
        spec = plan.tools.get(call.qualname)
        return spec is not None and (spec.method or "").upper() in _WRITE_METHODS

    out = []
    for b in _bindings(traj.body):
        node = b.node
        if isinstance(node, n.Parallel):
            if b.name in reads and not any(f"{b.name}.{br.name}" in reads
                                           for br in node.branches):
                continue  # the group is read as a whole
            out += [f"parallel branch `{b.name}.{br.name}` ({br.call.qualname}) is never read"
                    for br in node.branches
                    if f"{b.name}.{br.name}" not in reads and not writes(br.call)]
        elif b.name not in reads:
            call = node if isinstance(node, n.Call) else node.call \
                if isinstance(node, n.Compare) else None
            if call is None or not writes(call):
                what = f"call of {call.qualname}" if call is not None else "drv"
                out.append(f"`{b.name}` ({what}) is never read")
    return out


def _duplicates(traj: n.Trajectory, plan: Plan) -> list[str]:
    out: list[str] = []

    def walk(body: Sequence[n.Stmt], seen: dict[Any, str]) -> None:
        for s in body:
            if isinstance(s, n.IfStmt):  # only one branch runs: each sees what came before
                walk(s.then, dict(seen))
                walk(s.orelse or (), dict(seen))
                continue
            if not isinstance(s, n.Binding) or isinstance(s.node, n.Parallel):
                continue
            node = s.node
            call = node if isinstance(node, n.Call) else node.call \
                if isinstance(node, n.Compare) else None
            spec = plan.tools.get(call.qualname) if call is not None else None
            if spec is not None and (spec.method or "").upper() in _WRITE_METHODS:
                continue  # a write repeated is a second write, not a repetition
            if node in seen:  # nodes compare (and hash) without their spans
                out.append(f"`{s.name}` repeats `{seen[node]}` exactly")
            else:
                seen[node] = s.name

    walk(traj.body, {})
    return out


def static_problems(traj: n.Trajectory, plan: Plan, query: str) -> list[tuple[Rejection, str]]:
    """The heuristic static rules, each problem with its reason and a message:

    * ``query_mismatch`` — a literal value the trajectory uses (an argument, a ``parallel``
      header value, a ``compare`` arm, a ``drv`` pivot, an ``if`` operand) is not mentioned in
      the query in any of its renderings (:func:`~edgedsl.recipe.synth.query.korean_forms`: a date
      as ``2024년 12월 1일`` / ``2024-12-01`` / ``20241201`` / ``2024.12.01``, the first or last
      day of a month also as ``2024년 12월``; a code by its meaning in the glossary, e.g.
      ``11011`` as ``사업보고서``); or the query mentions a full date that is none of the
      trajectory's dates, or a month outside the span of its dates (a model that changed a
      date). Booleans and objects are not checked.
    * ``unused_step`` — a binding whose result nothing reads (no junction, ``drv``, predicate
      or answer), or a ``parallel`` branch nobody reads: a call that cannot change the answer.
      Calls of write tools (``POST``/``PUT``/``PATCH``/``DELETE``) are exempt: their effect is
      the server state.
    * ``tool_incoherent`` — a step that repeats an earlier step on the same path exactly (the
      same tool with the same arguments, or the same reduction of the same relation): the
      second one returns what the first did. Write tools are exempt.
    * ``implausible`` — a chain an analyst would not run, each finding of
      :func:`edgedsl.recipe.synth.plausible.implausible` (read from the AST and the catalog).
    * ``odd_narrowing`` — a ``drv`` reducer over a field its catalog declaration does not let
      a question narrow by (an address, a floor, a coordinate), and ``internal_input`` — a
      literal input the query shows as the service's internal code (기관코드 1721000, 노선ID
      CCB…): the plausibility findings of those names, each under its own reason.
    """
    return ([("query_mismatch", m) for m in _mismatches(traj, query)]
            + [("unused_step", m) for m in _unused(traj, plan)]
            + [("tool_incoherent", m) for m in _duplicates(traj, plan)]
            + [(_FINDING_REASON.get(m, "implausible"), m)
               for m in implausible(traj.body, plan_view(plan))])


_FINDING_REASON: dict[str, Rejection] = {"odd_narrowing": "odd_narrowing",
                                         "internal_input": "internal_input"}
"""Plausibility findings rejected under a reason of their own (the others are
``implausible``)."""


# ----------------------------------------------------------------------------- the model check

STATIC_SYSTEM = ("You review synthesized tasks for training tool-using assistants on Korean "
                 "public APIs. You answer with one JSON object only.")
"""The system message of a model check."""


class Verdict(BaseModel):
    """The JSON object the model must reply with: ``{"ok": true, "reason": "…"}``."""

    model_config = ConfigDict(extra="ignore")
    ok: bool
    reason: str = ""


def static_messages(traj: n.Trajectory, plan: Plan, query: str,
                    template: Path | None = None) -> list[Message]:
    """The chat messages of a model check: ``static_check.j2`` (or the file ``template``)
    rendered over the query context, the query and the program text."""
    from ... import api

    program = api.format(n.Module(items=(dataclasses.replace(traj, query=query),))).strip()
    context = {**query_context(traj, plan, None), "query": query, "program": program}
    try:
        prompt = prompt_template(template, "static_check.j2").render(context)
    except jinja2.TemplateError as exc:
        raise QueryTemplateError(f"the static-check prompt does not render: {exc}") from None
    return [{"role": "system", "content": STATIC_SYSTEM},
            {"role": "user", "content": prompt.strip() + "\n"}]


async def model_check(traj: n.Trajectory, plan: Plan, query: str, client: LLMClient, *,
                      template: Path | None = None, attempts: int | None = None
                      ) -> Verdict | None:
    """The chat model's verdict on the pair, or None when it gave no valid reply in its
    attempts. Errors that are not about one reply (endpoint unreachable, request refused)
    raise :class:`~edgedsl.recipe.llm.LLMError`."""
    try:
        reply = await client.complete_json_reply(static_messages(traj, plan, query, template),
                                                 Verdict, attempts=attempts)
    except LLMError as exc:
        if exc.kind != "malformed":
            raise
        return None
    return reply.value


async def astatic_check(traj: n.Trajectory, plan: Plan, query: str, *,
                        client: LLMClient | None = None, template: Path | None = None,
                        report: FilterReport | None = None) -> list[Rejection]:
    """:func:`static_check` for async code (the model check is awaited)."""
    reasons = static_rules(traj, plan, query, report=report)
    if client is None:
        return reasons
    verdict = await model_check(traj, plan, query, client, template=template)
    if verdict is None:
        if report is not None:
            report.model_fallbacks += 1
            report.notes.append(f"{traj.name}: no valid model verdict; heuristic rules only")
    elif not verdict.ok:
        reasons.append("model_rejected")
        if report is not None:
            report.notes.append(f"{traj.name}: model: {verdict.reason}")
    return reasons


def static_check(traj: n.Trajectory, plan: Plan, query: str, *,
                 client: LLMClient | None = None, template: Path | None = None,
                 report: FilterReport | None = None) -> list[Rejection]:
    """Stage ``static``: the rejection reasons of one trajectory (empty when it passes).

    The heuristic rules of :func:`static_problems` always run. With ``client`` the chat model
    is asked too (prompt ``static_check.j2``, or the file ``template``), and a verdict
    ``{"ok": false}`` adds ``model_rejected``; when the model gives no valid reply the
    heuristic result stands and ``report.model_fallbacks`` counts it. The message of every
    problem goes to ``report.notes``. With a client, this runs its own event loop: from async
    code, ``await`` :func:`astatic_check` instead (a :class:`RuntimeError` says so)."""
    if client is None:
        return static_rules(traj, plan, query, report=report)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(astatic_check(traj, plan, query, client=client, template=template,
                                         report=report))
    raise RuntimeError("static_check with a model client was called from a running event "
                       "loop: await astatic_check(...) instead")


def static_rules(traj: n.Trajectory, plan: Plan, query: str, *,
                 report: FilterReport | None = None) -> list[Rejection]:
    """The reasons of the heuristic static rules alone (:func:`static_problems`), without a
    model; the messages go to ``report.notes``."""
    problems = static_problems(traj, plan, query)
    if report is not None:
        report.notes += [f"{traj.name}: {m}" for _, m in problems]
    return list(dict.fromkeys(r for r, _ in problems))
