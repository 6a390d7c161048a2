"""The natural-language query of a synthesized trajectory: Korean jinja2 templates, and an
optional paraphrase by a chat model.

:func:`query_context` turns a trajectory (its AST) and its compiled :class:`~edgedsl.plan.Plan`
into a JSON-able context: the structure type, the platforms and tools used (with their Korean
docs), every literal value the trajectory uses (arguments, ``parallel`` header values,
``compare`` arms, ``drv`` pivots, ``if`` thresholds) with its Korean renderings, each step as
Korean phrases, the ``if`` predicate, and the answer's *field names* — never the answer's
values, so that no template can leak them.

:func:`render_query` renders the template chosen by structure and platform (the platform of the
trajectory's first call): ``{structure}.{platform}.j2``, then ``{structure}.j2``, then
``default.j2``; each name is looked up in the user's directory first, then in the packaged one
(``edgedsl/synth/templates/query/``). Templates run in a sandbox with strict undefined names and
may vary their wording with ``pick([...])``, a choice seeded by ``rng_seed``: the same seed gives
the same query.

:func:`paraphrase` asks a chat model (:class:`~edgedsl.llm.LLMClient`) to reword the template
query, and falls back to the template query — counting why — when the reply is invalid, leaks
an answer value, or drops a literal value of the trajectory.

The Korean text helpers (particles, dates, numbers, labels from ``glossary.json``) and
:func:`literal_uses` / :func:`mentioned`, which the filters share, are defined here too.
"""

from __future__ import annotations

import calendar
import contextlib
import datetime as dt
import random
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import jinja2
import orjson
from jinja2.sandbox import SandboxedEnvironment
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .. import nodes as n
from ..llm import LLMClient, LLMError, Message
from ..plan import Plan
from ..reduce.registry import REDUCERS
from .analyze import structure_of

__all__ = [
    "PACKAGE_TEMPLATES",
    "PARAPHRASE_SYSTEM",
    "PROMPT_TEMPLATES",
    "FallbackReason",
    "Glossary",
    "LiteralUse",
    "ParaphraseReply",
    "ParaphraseReport",
    "QueryTemplateError",
    "join_ko",
    "josa",
    "korean_date",
    "korean_forms",
    "label_of",
    "literal_uses",
    "load_glossary",
    "mask",
    "mentioned",
    "paraphrase",
    "paraphrase_messages",
    "period_text",
    "prompt_template",
    "python_value",
    "query_context",
    "render_query",
    "template_env",
    "template_names",
    "tidy",
    "tool_title",
]

PACKAGE_TEMPLATES = Path(__file__).resolve().parent / "templates" / "query"
"""The packaged query templates (and ``glossary.json``)."""

PROMPT_TEMPLATES = Path(__file__).resolve().parent / "templates" / "prompts"
"""The packaged prompt templates of the chat-model paraphrase and static check."""


class QueryTemplateError(Exception):
    """A query or prompt template (or glossary) that cannot be found, read or rendered."""


# ============================================================================= Korean text

_PAIRS: dict[str, tuple[str, str]] = {}
for _a, _b in (("을", "를"), ("이", "가"), ("은", "는"), ("과", "와"), ("으로", "로"),
               ("이나", "나"), ("이고", "고"), ("이면", "면"), ("이며", "며")):
    _PAIRS[_a] = _PAIRS[_b] = (_a, _b)
_UNKNOWN = {"으로": "(으)로", "이고": "(이)고", "이면": "(이)면", "이며": "(이)며",
            "이나": "(이)나"}
_DIGIT_CODA = {"0": 21, "1": 8, "2": 0, "3": 16, "4": 0, "5": 0, "6": 1, "7": 8, "8": 8, "9": 0}
_TENS_CODA = {1: 17, 2: 1, 3: 4}  # 십 ㅂ, 백 ㄱ, 천 ㄴ; 만 and beyond ㄴ


def _coda(word: str) -> int | None:
    """The final consonant index of ``word`` as read aloud (0: none, 8: ㄹ), None if unknown."""
    w = word.rstrip(" '\"’”」』")
    while w.endswith(")") and "(" in w:  # a particle attaches to the word before "(…)"
        w = w[:w.rindex("(")].rstrip()
    if not w:
        return None
    c = w[-1]
    if "가" <= c <= "힣":
        return (ord(c) - 0xAC00) % 28
    if c.isdigit():
        digits = re.search(r"[0-9]+$", w)
        run = digits.group(0) if digits else c
        zeros = len(run) - len(run.rstrip("0"))
        if zeros and run.strip("0"):
            return _TENS_CODA.get(zeros, 4)
        return _DIGIT_CODA[c]
    if c in "%":
        return 0
    return None


def josa(word: Any, particle: str) -> str:
    """``word`` followed by the Korean particle that fits it: ``josa("회사", "을")`` is
    ``회사를``, ``josa("종가", "이")`` ``종가가``, ``josa("법률", "으로")`` ``법률로``. When the
    word's final sound is unknown (Latin letters), both forms are written: ``을(를)``."""
    text = str(word)
    pair = _PAIRS.get(particle)
    if pair is None:
        return text + particle
    with_coda, without = pair
    coda = _coda(text)
    if coda is None:
        return text + _UNKNOWN.get(with_coda, f"{with_coda}({without})")
    if with_coda == "으로":
        return text + ("로" if coda in (0, 8) else "으로")
    return text + (with_coda if coda else without)


def join_ko(items: Sequence[Any], conj: str = "와", sep: str = ", ") -> str:
    """A Korean list: ``A``, ``A와 B``, ``A, B와 C`` (``conj`` chooses 와/과 by sound)."""
    words = [str(i) for i in items if str(i)]
    if len(words) <= 1:
        return words[0] if words else ""
    return sep.join([*words[:-2], f"{josa(words[-2], conj)} {words[-1]}"])


def korean_date(d: dt.date) -> str:
    """``2024년 11월 1일``."""
    return f"{d.year}년 {d.month}월 {d.day}일"


def _last_day(d: dt.date) -> bool:
    return d.day == calendar.monthrange(d.year, d.month)[1]


def period_text(a: str | dt.date, b: str | dt.date) -> str:
    """Two dates as one period: a day, a whole month (``2024년 12월``), a whole year, or
    ``A부터 B까지``."""
    x = a if isinstance(a, dt.date) else dt.date.fromisoformat(a)
    y = b if isinstance(b, dt.date) else dt.date.fromisoformat(b)
    x, y = min(x, y), max(x, y)
    if x == y:
        return korean_date(x)
    if x.day == 1 and _last_day(y) and (x.year, x.month) == (y.year, y.month):
        return f"{x.year}년 {x.month}월"
    if (x.month, x.day, y.month, y.day) == (1, 1, 12, 31) and x.year == y.year:
        return f"{x.year}년"
    return f"{korean_date(x)}부터 {korean_date(y)}까지"


def _date_forms(d: dt.date) -> list[str]:
    forms = [korean_date(d), d.isoformat(), d.strftime("%Y%m%d"), d.strftime("%Y.%m.%d")]
    if d.day == 1 or _last_day(d):  # a period written as its month (see period_text)
        forms.append(f"{d.year}년 {d.month}월")
    if (d.month, d.day) in ((1, 1), (12, 31)):
        forms.append(f"{d.year}년")
    return forms


def _korean_units(v: int) -> str | None:
    """``12조``, ``1억 5,000만`` when ``v`` is a whole number of 만 (None otherwise)."""
    if abs(v) < 10_000 or v % 10_000:
        return None
    sign, rest, parts = "-" if v < 0 else "", abs(v), []
    for unit, word in ((10**12, "조"), (10**8, "억"), (10**4, "만")):
        q, rest = divmod(rest, unit)
        if q:
            parts.append(f"{q:,}{word}")
    return sign + " ".join(parts)


def _num_text(v: int | float) -> str:
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    return str(v)


def _number_forms(v: int | float) -> list[str]:
    if isinstance(v, float) and not v.is_integer():
        return [repr(v)] + ([f"{v:,}"] if abs(v) >= 1000 else [])
    i = int(v)
    units = _korean_units(i)
    forms = [units] if units else []
    return [*forms, f"{i:,}", str(i)] if abs(i) >= 1000 else [*forms, str(i)]


def _dedupe(forms: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(f for f in forms if f))


def korean_forms(value: Any, name: str | None = None,
                 glossary: Glossary | None = None) -> list[str]:
    """Every way a query may write a literal value, the preferred one first.

    Dates: ``2024년 12월 1일``, ``2024-12-01``, ``20241201``, ``2024.12.01`` (and ``2024년 12월``
    for the first or last day of a month, ``2024년`` for 1 January or 31 December). Numbers: the
    glossary's meaning or format for ``name``, ``12조`` for whole 만, thousands separators, the
    digits. Strings: the glossary's meaning for ``name``, its format, a ``YYYYMMDD`` / ``YYYYMM``
    string as a Korean date / month, the text itself. Booleans ``예`` / ``아니오``; objects and
    lists none (lists are checked item by item)."""
    gl = glossary or load_glossary(None)
    if isinstance(value, bool):
        return ["예" if value else "아니오"]
    if isinstance(value, dt.date):
        return _date_forms(value)
    if not isinstance(value, int | float | str):
        return []
    text = _num_text(value) if not isinstance(value, str) else value
    forms: list[str] = []
    if name is not None:
        alias = gl.values.get(name, {}).get(text)
        if alias:
            forms.append(alias)
        fmt = gl.formats.get(name)
        if fmt:
            forms.append(fmt.replace("{v}", text))
    if isinstance(value, str):
        if re.fullmatch(r"(19|20)\d{6}", value):
            with contextlib.suppress(ValueError):
                forms += _date_forms(dt.date(int(value[:4]), int(value[4:6]), int(value[6:])))
        elif re.fullmatch(r"(19|20)\d{2}(0[1-9]|1[0-2])", value):
            forms.append(f"{int(value[:4])}년 {int(value[4:])}월")
        forms.append(value)
    else:
        forms += _number_forms(value)
    return _dedupe(forms)


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFC", text)).strip().casefold()


@lru_cache(maxsize=4096)
def _pattern(form: str) -> re.Pattern[str]:
    """A form as a pattern: spaces optional, no digit or Latin letter glued to either end, and
    a month or year form not followed by a number (``2024년 12월`` is not in ``…12월 10일``)."""
    norm = _norm(form)
    body = r"\s*".join(re.escape(t) for t in norm.split(" "))
    pre = post = ""
    if norm[:1].isascii() and norm[:1].isalnum():
        pre = r"(?<![a-z0-9])" + (r"(?<![0-9][.,])" if norm[0].isdigit() else "")
    if norm[-1:].isascii() and norm[-1:].isalnum():
        post = r"(?![a-z0-9])" + (r"(?![.,][0-9])" if norm[-1].isdigit() else "")
    if norm.endswith(("년", "월")):
        post = r"(?!\s*[0-9])"
    return re.compile(pre + body + post)


def mentioned(text: str, forms: Sequence[str]) -> bool:
    """True when ``text`` contains one of ``forms`` (case and spacing ignored, no digit or
    Latin letter glued to its ends). Nothing to look for counts as mentioned."""
    if not forms:
        return True
    norm = _norm(text)
    return any(_pattern(f).search(norm) for f in forms if f.strip())


def mask(text: str, forms: Sequence[str]) -> str:
    """``text`` (normalised) with every occurrence of ``forms`` blanked out."""
    out = _norm(text)
    for f in sorted({f for f in forms if f.strip()}, key=len, reverse=True):
        out = _pattern(f).sub(" \x00 ", out)
    return out


def tidy(text: str) -> str:
    """Whitespace collapsed, no space before ``, . ? ! )`` or after ``(``."""
    out = re.sub(r"\s+", " ", text).strip()
    out = re.sub(r"\s+([,.?!)])", r"\1", out)
    out = re.sub(r"\(\s+", "(", out)
    return re.sub(r",(?=[^\s\d])", ", ", out)


# ============================================================================= the glossary


class Glossary(BaseModel):
    """Korean labels for templates (``glossary.json``): ``platforms`` (how a query names a
    platform), ``labels`` (field or parameter → noun), ``formats`` (parameter → ``{v}년``…),
    ``values`` (parameter or field → code value → meaning)."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    platforms: dict[str, str] = Field(default_factory=dict)
    labels: dict[str, str] = Field(default_factory=dict)
    formats: dict[str, str] = Field(default_factory=dict)
    values: dict[str, dict[str, str]] = Field(default_factory=dict)

    def merged(self, other: Glossary) -> Glossary:
        """This glossary with ``other``'s entries on top (``values`` merged per name)."""
        values = {k: dict(v) for k, v in self.values.items()}
        for k, v in other.values.items():
            values[k] = {**values.get(k, {}), **v}
        return Glossary(platforms={**self.platforms, **other.platforms},
                        labels={**self.labels, **other.labels},
                        formats={**self.formats, **other.formats}, values=values)


@lru_cache(maxsize=64)
def _read_glossary(path: str, mtime_ns: int) -> Glossary:
    try:
        return Glossary.model_validate(orjson.loads(Path(path).read_bytes()))
    except (OSError, orjson.JSONDecodeError, ValidationError) as exc:
        raise QueryTemplateError(f"glossary {path!r} cannot be used: {exc}") from None


def load_glossary(templates: Path | None = None) -> Glossary:
    """The packaged glossary, with ``templates/glossary.json`` merged over it when present."""
    base_path = PACKAGE_TEMPLATES / "glossary.json"
    base = _read_glossary(str(base_path), base_path.stat().st_mtime_ns)
    user = templates / "glossary.json" if templates is not None else None
    if user is None or not user.is_file():
        return base
    return base.merged(_read_glossary(str(user.resolve()), user.stat().st_mtime_ns))


def _code_label(doc: str) -> str | None:
    """The noun of a code type's doc: ``DART 고유번호 corp_code (8자리)`` → ``DART 고유번호``."""
    text = doc.split(" (")[0].split(" = ")[0]
    words = [w for w in text.split() if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_/]*", w)
             or (w.isupper() and "_" not in w and len(w) <= 5)]
    return " ".join(words) or None


def label_of(name: str, type_: Any, glossary: Glossary) -> str:
    """The Korean label of a field or parameter: the glossary's, a code type's doc, the name."""
    if name in glossary.labels:
        return glossary.labels[name]
    if isinstance(type_, dict) and type_.get("code") and type_.get("doc"):
        return _code_label(str(type_["doc"])) or name
    return name


def tool_title(doc: str, name: str) -> str:
    """A tool's short Korean name: its doc up to ``: `` without parentheses (``공시검색: …`` →
    ``공시검색``); the tool's name when that is empty or longer than 40 characters."""
    head = re.sub(r"\s*\([^()]*\)", "", doc.split(": ")[0]).strip()
    return head if head and len(head) <= 40 else name


# ============================================================================= literals


@dataclass(frozen=True, slots=True)
class LiteralUse:
    """One literal value a trajectory uses: its role (``arg`` of a call, ``shared`` value of a
    ``parallel`` header, ``arm`` of a ``compare``, ``pivot`` of a reducer, ``predicate``
    operand of an ``if``), the step, the tool (None for pivots and predicates), the parameter
    or field name, and the value (``datetime.date`` for dates; a list literal gives one use per
    item)."""

    role: Literal["arg", "shared", "arm", "pivot", "predicate"]
    step: str
    tool: str | None
    name: str
    value: Any


def python_value(lit: n.Literal_ | n.Expr) -> Any:
    """The Python value of a literal node (``datetime.date`` for a date)."""
    if isinstance(lit, n.StringLit | n.NumberLit | n.DateLit | n.BoolLit):
        return lit.value
    if isinstance(lit, n.ListLit):
        return [python_value(i) for i in lit.items]
    if isinstance(lit, n.DictLit):
        return {k: python_value(v) for k, v in lit.entries}
    return None


def _items(v: n.ArgValue | n.Expr) -> list[n.Literal_]:
    if isinstance(v, n.ListLit):
        return list(v.items)
    if isinstance(v, n.StringLit | n.NumberLit | n.DateLit | n.BoolLit | n.DictLit):
        return [v]
    return []


def _pred_name(e: n.Expr) -> str:
    """The name a predicate literal is compared with: the field, or ``count``."""
    if isinstance(e, n.Ref):
        return e.field
    if isinstance(e, n.FuncCall):
        return e.name
    return ""


def _pred_literals(p: n.Pred, out: list[LiteralUse]) -> None:
    if isinstance(p, n.PredCmp):
        for this, other in ((p.left, p.right), (p.right, p.left)):
            out += [LiteralUse("predicate", "if", None, _pred_name(other), python_value(i))
                    for i in _items(this)]
    elif isinstance(p, n.PredNot):
        _pred_literals(p.operand, out)
    elif isinstance(p, n.PredAnd | n.PredOr):
        for q in p.operands:
            _pred_literals(q, out)


def literal_uses(traj: n.Trajectory) -> list[LiteralUse]:
    """Every literal value ``traj`` uses, in source order (see :class:`LiteralUse`)."""
    out: list[LiteralUse] = []

    def call(step: str, c: n.Call) -> None:
        for a in c.args:
            out.extend(LiteralUse("arg", step, c.qualname, a.name, python_value(i))
                       for i in _items(a.value))

    def walk(body: Sequence[n.Stmt]) -> None:
        for s in body:
            if isinstance(s, n.IfStmt):
                _pred_literals(s.cond, out)
                walk(s.then)
                walk(s.orelse or ())
            if not isinstance(s, n.Binding):
                continue
            node = s.node
            if isinstance(node, n.Call):
                call(s.name, node)
            elif isinstance(node, n.Compare):
                call(s.name, node.call)
                out.extend(LiteralUse("arm", s.name, node.call.qualname, node.param,
                                      python_value(i)) for i in node.values.items)
            elif isinstance(node, n.Drv):
                out.extend(LiteralUse("pivot", s.name, None, r.field, python_value(r.pivot))
                           for r in node.steps if r.pivot is not None)
            elif isinstance(node, n.Parallel):
                first = node.branches[0].call.qualname if node.branches else None
                for a in node.shared:
                    out.extend(LiteralUse("shared", s.name, first, a.name, python_value(i))
                               for i in _items(a.value))
                for b in node.branches:
                    call(f"{s.name}.{b.name}", b.call)

    walk(traj.body)
    return out


# ============================================================================= templates


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


def _picker(rng: random.Random) -> Callable[[Sequence[Any]], Any]:
    def pick(options: Sequence[Any]) -> Any:
        items = list(options)
        if not items:
            raise ValueError("pick() needs at least one option")
        return items[rng.randrange(len(items))]
    return pick


# ============================================================================= the context


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
        self.last = ""                    # the relation bound last

    # -- tools, labels, literals ----------------------------------------------------------

    def tool(self, qualname: str) -> dict[str, Any]:
        if qualname not in self.tools:
            spec = self.plan.tools.get(qualname)
            platform, _, name = qualname.partition(".")
            doc = spec.doc if spec is not None else ""
            params = [{"name": p.name, "label": label_of(p.name, p.type, self.gl),
                       "optional": p.optional} for p in (spec.params if spec else [])]
            self.tools[qualname] = {"qualname": qualname, "platform": platform, "name": name,
                                    "title": tool_title(doc, name), "doc": doc, "params": params}
            self.platforms.setdefault(platform, {
                "name": platform, "label": self.gl.platforms.get(platform, platform)})
        return self.tools[qualname]

    def plabel(self, qualname: str, param: str) -> str:
        spec = self.plan.tools.get(qualname)
        ptype = next((p.type for p in (spec.params if spec else []) if p.name == param), None)
        return label_of(param, ptype, self.gl)

    def flabel(self, relation: str, field: str) -> str:
        if field == "__arm":
            return self.arm.get(relation, label_of("__arm", None, self.gl))
        return label_of(field, self.ftype(relation, field), self.gl)

    def ftype(self, relation: str, field: str) -> Any:
        flds = self.fields.get(relation)
        if flds is None and relation in self.origin:
            spec = self.plan.tools.get(self.origin[relation])
            flds = spec.fields if spec else None
        return (flds or {}).get(field)

    def lit(self, use: LiteralUse, label: str) -> dict[str, Any]:
        forms = korean_forms(use.value, use.name, self.gl)
        item = {"role": use.role, "step": use.step, "tool": use.tool, "name": use.name,
                "label": label, "value": _json(use.value), "type": _kind(use.value),
                "text": forms[0] if forms else "", "forms": forms}
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
                args += [self.lit(LiteralUse("arg", step, call.qualname, a.name,
                                             python_value(i)), label) for i in _items(v)]
        constraints = _constraints(args)
        text = tool["title"] + (f"({', '.join(c['phrase'] for c in constraints)})"
                                if constraints else "")
        return {"kind": "call", "name": step, "tool": call.qualname, "title": tool["title"],
                "doc": tool["doc"], "platform": tool["platform"], "args": args,
                "inputs": inputs, "constraints": constraints,
                "via": join_ko(list(dict.fromkeys(i["short"] for i in inputs))),
                "fan": any(i["kind"] == "fan" for i in inputs), "text": text,
                "pages": call.pages}

    def junction(self, param: str, label: str, v: n.SeqArg | n.FanArg) -> dict[str, Any]:
        rel = ".".join(v.ref.parts[:-1])
        field_label = self.flabel(rel, v.ref.field)
        kind = "fan" if isinstance(v, n.FanArg) else "seq"
        of = self.noun.get(rel, rel)
        each = "각 " if kind == "fan" else ""
        text = f"{of}의 {each}{field_label}"
        short = f"{each or '그 '}{field_label}" if rel == self.last else text
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
                             label)
        p = pivot["text"] if pivot else ""
        words = REDUCERS[r.op].synth
        word = words.word[is_date]
        phrase = words.phrase[is_date].format(subj=josa(label, "이"), p=p)
        return {"op": r.op, "field": r.field, "label": label, "date": is_date,
                "pivot": pivot["value"] if pivot else None, "pivot_text": p or None,
                "word": word, "phrase": phrase}

    def parallel(self, name: str, p: n.Parallel) -> dict[str, Any]:
        shared: dict[str, dict[str, Any]] = {}
        first = p.branches[0].call.qualname if p.branches else None
        for a in p.shared:
            v = a.value
            label = self.plabel(first, a.name) if first else a.name
            if isinstance(v, n.SeqArg | n.FanArg):
                shared[a.name] = self.junction(a.name, label, v)
            else:
                items = [self.lit(LiteralUse("shared", name, first, a.name, python_value(i)),
                                  label) for i in _items(v)]
                text = join_ko([i["text"] for i in items])
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
                "via": join_ko(list(dict.fromkeys(s["short"] for s in shared.values()))),
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
                            "else": orelse, "text": cond})
            elif isinstance(s, n.Binding):
                node = s.node
                if isinstance(node, n.Call):
                    step = self.call(s.name, node)
                    self.bind(s.name, node, step)
                    out.append(step)
                elif isinstance(node, n.Drv):
                    out.append(self.drv(s.name, node))
                elif isinstance(node, n.Parallel):
                    out.append(self.parallel(s.name, node))
                elif isinstance(node, n.Compare):
                    out.append(self.compare(s.name, node))
        return out

    # -- expressions and predicates -------------------------------------------------------

    def expr(self, e: n.Expr | None) -> str:
        if isinstance(e, n.Ref):
            rel = ".".join(e.parts[:-1])
            return f"{self.noun.get(rel, rel)}의 {self.flabel(rel, e.field)}"
        if isinstance(e, n.NameExpr):
            return self.noun.get(e.name, e.name)
        if isinstance(e, n.FuncCall):
            inner = e.args[0] if e.args else None
            if e.name == "round":
                return self.expr(inner)
            if e.name == "count":
                return f"{self.expr(inner)} 건수"
            if isinstance(inner, n.Ref):
                rel = ".".join(inner.parts[:-1])
                lab = self.flabel(rel, inner.field)
                word = {"sum": f"{lab} 합계", "avg": f"평균 {lab}", "min": f"최소 {lab}",
                        "max": f"최대 {lab}"}.get(e.name, lab)
                return f"{self.noun.get(rel, rel)}의 {word}"
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

    def operand_label(self, e: n.Expr) -> str:
        """An arithmetic operand, briefly: a field's label, a count's noun."""
        if isinstance(e, n.Ref):
            return self.flabel(".".join(e.parts[:-1]), e.field)
        if isinstance(e, n.FuncCall) and e.name == "round" and e.args:
            return self.operand_label(e.args[0])
        return self.expr(e)

    def operand(self, e: n.Expr, other: n.Expr) -> str:
        if _items(e):
            name = _pred_name(other)
            for i in _items(e):
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
            if isinstance(e, n.Ref):
                rel = ".".join(e.parts[:-1])
                of, label = self.noun.get(rel, rel), self.flabel(rel, e.field)
            fields.append({"name": name, "label": label, "of": of, "text": text,
                           "count": isinstance(e, n.FuncCall) and e.name == "count"})
        names = list(answer) if isinstance(answer, dict) else [f["name"] for f in fields
                                                                if f["name"]]
        return {"kind": "object" if stmt.fields is not None else "expr", "fields": fields,
                "labels": [f["label"] for f in fields], "names": names,
                "text": _group_answer(fields)}


def _group_answer(fields: Sequence[dict[str, Any]]) -> str:
    """``X의 a와 b, 그리고 Y의 c``: answer fields grouped by the relation they read."""
    groups: list[tuple[str | None, list[str]]] = []
    for f in fields:
        if f["of"] is not None and groups and groups[-1][0] == f["of"]:
            groups[-1][1].append(f["label"])
        else:
            groups.append((f["of"], [f["label"] if f["of"] is not None else f["text"]]))
    parts = [f"{of}의 {join_ko(labels)}" if of else labels[0] for of, labels in groups]
    return join_ko(parts, "와", ", ") if len(parts) < 3 else ", ".join(parts)


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
        plain = not label or label == a["name"] or label in text or a["type"] == "date"
        out.append({"label": label, "text": text, "phrase": text if plain else f"{label} {text}"})
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
        text = tpl.render({**ctx, "pick": _picker(random.Random(rng_seed))})
    except jinja2.TemplateNotFound:
        raise QueryTemplateError(f"no query template found (tried {', '.join(names)})") from None
    except (jinja2.TemplateError, ValueError) as exc:
        raise QueryTemplateError(f"query template of {ctx['structure']}/{ctx['platform']} "
                                 f"does not render: {exc}") from None
    return tidy(text)


# ============================================================================= paraphrase

FallbackReason = Literal["invalid_reply", "leak", "dropped_literal"]

PARAPHRASE_SYSTEM = ("You reword questions in natural Korean for a dataset of tasks over "
                     "Korean public APIs. You answer with one JSON object only.")
"""The system message of a paraphrase request."""


class ParaphraseReply(BaseModel):
    """The JSON object the model must reply with: ``{"query": "…"}``."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)
    query: str = Field(min_length=1)


class ParaphraseReport(BaseModel):
    """Paraphrases accepted, fallbacks to the template query by reason, a note per fallback."""

    model_config = ConfigDict(extra="forbid")
    paraphrased: int = 0
    fallbacks: dict[FallbackReason, int] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)

    def fallback(self, reason: FallbackReason, note: str) -> None:
        """Count one fallback to the template query."""
        self.fallbacks[reason] = self.fallbacks.get(reason, 0) + 1
        self.notes.append(f"{reason}: {note}")


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


def paraphrase_messages(query: str, context: Mapping[str, Any],
                        template: Path | None = None) -> list[Message]:
    """The chat messages of a paraphrase request: ``paraphrase.j2`` (or the file ``template``)
    rendered over ``context`` and ``query``."""
    try:
        prompt = prompt_template(template, "paraphrase.j2").render({**context, "query": query})
    except jinja2.TemplateError as exc:
        raise QueryTemplateError(f"the paraphrase prompt does not render: {exc}") from None
    return [{"role": "system", "content": PARAPHRASE_SYSTEM},
            {"role": "user", "content": prompt.strip() + "\n"}]


async def paraphrase(query: str, context: Mapping[str, Any], client: LLMClient, *,
                     answer: Any, report: ParaphraseReport | None = None,
                     template: Path | None = None, attempts: int | None = None) -> str:
    """A more natural wording of ``query`` by the chat model of ``client``, or ``query`` itself.

    ``context`` is :func:`query_context`'s; ``answer`` the trajectory's answer, read only to
    check the reply. The template query is returned, and the reason counted in ``report``, when
    the model gives no valid ``{"query": "…"}`` reply in its attempts (``invalid_reply``), when
    the reply shows an answer value (``leak``, :func:`edgedsl.synth.filters.find_leaks`), or
    when it drops a literal value the trajectory uses (``dropped_literal``). Errors that are not
    about one reply (endpoint unreachable, request refused) raise :class:`LLMError`."""
    from .filters import find_leaks

    report = report if report is not None else ParaphraseReport()
    messages = paraphrase_messages(query, context, template)
    try:
        reply = await client.complete_json_reply(messages, ParaphraseReply, attempts=attempts)
    except LLMError as exc:
        if exc.kind != "malformed":
            raise
        report.fallback("invalid_reply", str(exc))
        return query
    text = tidy(reply.value.query)
    literals = [lit for lit in context.get("literals", ()) if lit.get("forms")]
    leaks = find_leaks(text, answer, [f for lit in literals for f in lit["forms"]])
    if leaks:
        report.fallback("leak", f"the paraphrase shows {', '.join(map(repr, leaks))}")
        return query
    dropped = [lit["text"] for lit in literals
               if lit["type"] != "bool" and not mentioned(text, lit["forms"])]
    if dropped:
        report.fallback("dropped_literal", f"the paraphrase drops {', '.join(dropped)}")
        return query
    report.paraphrased += 1
    return text
