"""The feasibility prior from a chat model: :class:`ChatModelScorer`.

For each candidate edge the scorer renders a jinja2 prompt (``templates/prior.jinja2`` shipped in
the package, or a template file of the user's) showing the source tool (name, doc, output fields
with their types), the target tool (name, doc, parameters with types and optional flags), the
proposed bindings and the similarity, and asks the model of an
:class:`~edgedsl.recipe.llm.LLMClient` for one JSON object::

    {"score": 0.8, "bindings": [{"field": "corp_code", "param": "corp_code"}],
     "defaults": {"bsns_year": [2023]}}

The reply is validated in two steps.

1. **Shape** (pydantic, :class:`PriorReply`): ``score`` a number in [0, 1], ``bindings`` a list
   of ``{field, param}``, ``defaults`` an object of scalar lists. A reply that is not JSON or not
   of this shape is sent back to the model with the problem, up to the client's ``attempts``.
2. **Meaning**, against the candidate: a binding must name a real output field of the source and
   a real parameter of the target, a parameter may be bound once, and a parameter of a code type
   only from a field of exactly the same code type. An offending binding is rejected (and
   replaced by the retriever's proposed binding of the same parameter when there is one); when
   no valid binding remains the proposed bindings are kept. Defaults are kept only for required
   target parameters that no binding fills, enum values only if they are members, dates only as
   ``YYYY-MM-DD``. None of this retries or raises: every repair is noted in :attr:`report`.

**Fallback.** When the model gives no valid reply for a candidate in all its attempts, that
candidate gets the documented neutral prior: the proposed bindings, no defaults, ``score``
:data:`FALLBACK_SCORE` (0.5, the mean of the uniform Beta(1, 1) prior that refinement starts
from) and scorer ``model:<model>/fallback``, so such edges can be found in the graph file and
the report counts them. With ``strict=True`` the :class:`~edgedsl.recipe.llm.LLMError` is raised
instead. Errors that are not about one reply — the endpoint unreachable after every retry, a
refused request (wrong key, URL or model), a template that does not render — always raise:
they would hit every candidate alike.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import importlib.resources
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
from jinja2.sandbox import SandboxedEnvironment
from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..llm import LLMClient, LLMError, LLMUsage, Message
from .candidate import Candidate, Prior
from .model import Binding, Scalar

__all__ = [
    "DEFAULT_TEMPLATE",
    "FALLBACK_SCORE",
    "SYSTEM_PROMPT",
    "ChatModelScorer",
    "ModelPriorReport",
    "PriorReply",
    "PriorTemplateError",
    "ReplyBinding",
    "load_prior_template",
    "prior_messages",
    "render_prior_prompt",
    "vet_reply",
]

FALLBACK_SCORE = 0.5
"""The score of a candidate the model gave no valid reply for: the mean of Beta(1, 1)."""

DEFAULT_TEMPLATE = "prior.jinja2"
"""The packaged prompt template (``edgedsl/recipe/graph/templates/prior.jinja2``)."""

SYSTEM_PROMPT = ("You assess whether two web API tools compose: whether records returned by "
                 "one can supply the inputs of the other. You answer with one JSON object only.")
"""The system message sent before every rendered prompt."""

MAX_DEFAULT_VALUES = 10
"""At most this many default candidates are kept per parameter."""

log = logging.getLogger("edgedsl.recipe.graph.model_prior")


class PriorTemplateError(Exception):
    """A prompt template that cannot be read, parsed or rendered."""


# ----------------------------------------------------------------------------- reply shape


class ReplyBinding(BaseModel):
    """A binding as the model writes it."""

    model_config = ConfigDict(extra="ignore")
    field: str
    param: str
    why: str = ""


class PriorReply(BaseModel):
    """The JSON object the model must reply with (step 1 of the validation)."""

    model_config = ConfigDict(extra="ignore")
    score: float = Field(ge=0.0, le=1.0, allow_inf_nan=False)
    bindings: list[ReplyBinding] | None = None
    defaults: dict[str, list[Scalar]] = Field(default_factory=dict)

    @field_validator("defaults", mode="before")
    @classmethod
    def _scalar_to_list(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {k: v if isinstance(v, list) else [v] for k, v in value.items()}
        return value


# ----------------------------------------------------------------------------- the template


def load_prior_template(path: str | Path | None = None) -> jinja2.Template:
    """The prompt template: the packaged one, or the file at ``path``, compiled in a sandboxed
    environment with strict undefined variables. :class:`PriorTemplateError` when the file
    cannot be read or parsed."""
    if path is None:
        name = f"<edgedsl>/graph/templates/{DEFAULT_TEMPLATE}"
        templates = importlib.resources.files("edgedsl.recipe.graph") / "templates"
        text = (templates / DEFAULT_TEMPLATE).read_text(encoding="utf-8")
    else:
        name = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise PriorTemplateError(f"cannot read prompt template {name!r}: "
                                     f"{exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise PriorTemplateError(f"prompt template {name!r} is not UTF-8 text") from None
    env = SandboxedEnvironment(undefined=jinja2.StrictUndefined, autoescape=False,
                               trim_blocks=True, lstrip_blocks=True)
    try:
        template = env.from_string(text)
    except jinja2.TemplateSyntaxError as exc:
        raise PriorTemplateError(f"prompt template {name!r}, line {exc.lineno}: "
                                 f"{exc.message}") from None
    template.name = name
    return template


def _unbound(candidate: Candidate) -> list[str]:
    bound = {b.param for b in candidate.bindings}
    return [p for p in candidate.target.required if p not in bound]


def render_prior_prompt(candidate: Candidate, template: jinja2.Template | None = None) -> str:
    """The user prompt for ``candidate``. Variables: ``source``, ``target`` (tool nodes as
    plain objects), ``bindings``, ``unbound`` (required target parameters no binding fills),
    ``similarity``, ``same_domain``. :class:`PriorTemplateError` when it does not render."""
    tpl = template or load_prior_template()
    variables = {
        "source": candidate.source.model_dump(mode="json"),
        "target": candidate.target.model_dump(mode="json"),
        "bindings": [b.model_dump(mode="json") for b in candidate.bindings],
        "unbound": _unbound(candidate),
        "similarity": float(candidate.similarity),
        "same_domain": candidate.same_domain,
    }
    try:
        return tpl.render(variables).strip() + "\n"
    except jinja2.TemplateError as exc:
        raise PriorTemplateError(f"prompt template {tpl.name!r} does not render: {exc} "
                                 f"(variables: {', '.join(sorted(variables))})") from None


def prior_messages(candidate: Candidate, template: jinja2.Template | None = None,
                   system: str = SYSTEM_PROMPT) -> list[Message]:
    """The chat messages for ``candidate``: the system message and the rendered prompt."""
    return [{"role": "system", "content": system},
            {"role": "user", "content": render_prior_prompt(candidate, template)}]


# ----------------------------------------------------------------------------- step 2


@dataclass(frozen=True, slots=True)
class _Vetted:
    bindings: tuple[Binding, ...]
    defaults: dict[str, list[Scalar]]
    notes: tuple[str, ...]
    rejected: int
    repaired: int
    dropped_defaults: int


_ENUM = re.compile(r"^enum\[(.*)\]$")


def _vet_values(type_: str, values: list[Scalar]) -> list[Scalar]:
    """The values fit for a parameter of type ``type_`` (deduplicated, at most ten)."""
    out: list[Scalar] = []
    seen: set[tuple[str, Scalar]] = set()
    m = _ENUM.match(type_.strip())
    members = {s.strip() for s in m.group(1).split(",")} if m else None
    for v in values:
        if members is not None:
            if str(v) not in members:
                continue
            v = str(v)  # enum members are strings
        if type_ == "date":
            text = str(v)
            if re.fullmatch(r"\d{8}", text):
                text = f"{text[:4]}-{text[4:6]}-{text[6:]}"
            try:
                dt.date.fromisoformat(text)
            except ValueError:
                continue
            if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
                continue
            v = text
        key = (type(v).__name__, v)  # 1, 1.0 and True are different defaults
        if key not in seen:
            seen.add(key)
            out.append(v)
        if len(out) >= MAX_DEFAULT_VALUES:
            break
    return out


def vet_reply(candidate: Candidate, reply: PriorReply) -> _Vetted:
    """Check a reply's bindings and defaults against ``candidate`` (step 2 of the validation):
    drop or repair what is wrong and say why."""
    src = {f.name: f for f in candidate.source.fields}
    tgt = {p.name: p for p in candidate.target.params}
    proposed = {b.param: b for b in candidate.bindings}
    notes: list[str] = []
    rejected = repaired = dropped = 0
    kept: list[Binding] = []
    bound: set[str] = set()
    if reply.bindings is None:
        kept = list(candidate.bindings)
        notes.append("the reply has no bindings; the proposed bindings are kept")
    else:
        for rb in reply.bindings:
            f, p = src.get(rb.field), tgt.get(rb.param)
            problem = None
            if p is None:
                problem = f"the target has no parameter `{rb.param}`"
            elif f is None:
                problem = f"the source has no output field `{rb.field}`"
            elif p.code is not None and f.code != p.code:
                problem = (f"parameter `{p.name}` has code type {p.code}, field `{f.name}` "
                           f"{'has code type ' + f.code if f.code else 'is ' + f.type}")
            elif rb.param in bound:
                problem = f"parameter `{rb.param}` is bound twice"
            if problem is None:
                prop = proposed.get(rb.param)
                why = rb.why or (prop.why if prop is not None and prop.field == rb.field
                                 else "model")
                kept.append(Binding(field=rb.field, param=rb.param, why=why))
                bound.add(rb.param)
                continue
            rejected += 1
            note = f"binding {rb.field} → {rb.param} rejected: {problem}"
            sub = proposed.get(rb.param)
            if sub is not None and sub.param not in bound:
                kept.append(sub)
                bound.add(sub.param)
                repaired += 1
                note += f"; the proposed binding {sub.field} → {sub.param} is used instead"
            notes.append(note)
        if not kept and candidate.bindings:
            kept = list(candidate.bindings)
            notes.append("no valid binding in the reply; the proposed bindings are kept")
    bound = {b.param for b in kept}
    defaults: dict[str, list[Scalar]] = {}
    for name, values in reply.defaults.items():
        p = tgt.get(name)
        if p is None:
            problem = f"the target has no parameter `{name}`"
        elif name in bound:
            problem = f"parameter `{name}` is bound"
        elif p.optional:
            problem = f"parameter `{name}` is optional"
        else:
            good = _vet_values(p.type, values)
            if good:
                defaults[name] = good
                if len(good) < len(values):
                    notes.append(f"defaults of `{name}`: {len(values) - len(good)} value(s) "
                                 f"not of type {p.type} or repeated dropped")
                continue
            problem = f"no value of type {p.type}"
        dropped += 1
        notes.append(f"defaults of `{name}` dropped: {problem}")
    return _Vetted(tuple(kept), defaults, tuple(notes), rejected, repaired, dropped)


# ----------------------------------------------------------------------------- the scorer


@dataclass(frozen=True, slots=True)
class ModelPriorReport:
    """What a :class:`ChatModelScorer` did: candidates scored, fallbacks to the neutral prior,
    bindings rejected (and of those repaired from the proposal), defaults dropped, one note per
    repair (``source → target: …``), and the client usage of its calls."""

    scored: int = 0
    fallbacks: int = 0
    rejected_bindings: int = 0
    repaired_bindings: int = 0
    dropped_defaults: int = 0
    notes: tuple[str, ...] = ()
    usage: LLMUsage = field(default_factory=LLMUsage)

    def to_json(self) -> dict[str, object]:
        """The report as a JSON object."""
        return {"scored": self.scored, "fallbacks": self.fallbacks,
                "rejected_bindings": self.rejected_bindings,
                "repaired_bindings": self.repaired_bindings,
                "dropped_defaults": self.dropped_defaults, "notes": list(self.notes),
                "usage": self.usage.to_json()}


class ChatModelScorer:
    """The :class:`~edgedsl.recipe.graph.candidate.Scorer` backed by a chat model.

    ``template`` is a path to a jinja2 prompt template (the packaged ``prior.jinja2`` when
    ``None``); it is compiled at once, so a broken template fails here. ``strict=True`` raises
    on a candidate the model gives no valid reply for instead of falling back to
    :data:`FALLBACK_SCORE`. ``attempts`` overrides the client's number of replies per candidate.
    Candidates are scored concurrently; the client caps the requests in flight.
    """

    def __init__(self, client: LLMClient, template: str | Path | None = None, *,
                 strict: bool = False, attempts: int | None = None,
                 system: str = SYSTEM_PROMPT) -> None:
        self.client = client
        self.name = f"model:{client.config.model}"
        self.template = load_prior_template(template)
        self.strict = strict
        self.attempts = attempts
        self.system = system
        self._report = ModelPriorReport()

    @property
    def report(self) -> ModelPriorReport:
        """Counts and notes of every candidate scored so far."""
        return self._report

    def _add(self, **delta: Any) -> None:
        r = self._report
        self._report = ModelPriorReport(
            scored=r.scored + delta.get("scored", 0),
            fallbacks=r.fallbacks + delta.get("fallbacks", 0),
            rejected_bindings=r.rejected_bindings + delta.get("rejected", 0),
            repaired_bindings=r.repaired_bindings + delta.get("repaired", 0),
            dropped_defaults=r.dropped_defaults + delta.get("dropped", 0),
            notes=r.notes + tuple(delta.get("notes", ())),
            usage=r.usage + delta.get("usage", LLMUsage()),
        )

    async def score(self, candidate: Candidate) -> Prior:
        """The prior of one candidate (see the module docstring for validation and fallback)."""
        where = f"{candidate.source.name} → {candidate.target.name}"
        messages = prior_messages(candidate, self.template, self.system)
        try:
            reply = await self.client.complete_json_reply(messages, PriorReply,
                                                          attempts=self.attempts)
        except LLMError as exc:
            if exc.kind != "malformed" or self.strict:
                self._add(usage=exc.usage)
                raise
            log.warning("%s: %s; neutral prior %.1f used", where, exc, FALLBACK_SCORE)
            self._add(scored=1, fallbacks=1, usage=exc.usage,
                      notes=[f"{where}: no valid reply, fallback score {FALLBACK_SCORE}"])
            return Prior(score=FALLBACK_SCORE, bindings=candidate.bindings, defaults={},
                         scorer=f"{self.name}/fallback")
        vetted = vet_reply(candidate, reply.value)
        for note in vetted.notes:
            log.info("%s: %s", where, note)
        self._add(scored=1, rejected=vetted.rejected, repaired=vetted.repaired,
                  dropped=vetted.dropped_defaults, usage=reply.usage,
                  notes=[f"{where}: {n}" for n in vetted.notes])
        return Prior(score=float(reply.value.score), bindings=vetted.bindings,
                     defaults=vetted.defaults, scorer=self.name)

    async def score_many(self, candidates: Sequence[Candidate]) -> list[Prior]:
        """One :class:`Prior` per candidate, in order; the first error that is not a
        per-candidate fallback cancels the rest and is raised."""
        try:
            async with self.client, asyncio.TaskGroup() as tg:  # one pool for all of them
                tasks = [tg.create_task(self.score(c)) for c in candidates]
        except BaseExceptionGroup as group:
            first: BaseException = group
            while isinstance(first, BaseExceptionGroup):
                first = first.exceptions[0]
            raise first from None
        return [t.result() for t in tasks]
