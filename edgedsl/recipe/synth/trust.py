"""Measures of a corpus a person would trust (issue 18 §6), printed by ``synth stats`` beside the
recipe's tables (:mod:`edgedsl.recipe.synth.stats`).

Computed from :class:`~edgedsl.recipe.synth.record.TaskRecord` s; a measure whose data the
records do not hold is ``None`` (printed "n/a"):

* **determined answers** — tasks whose ``determinacy.determined`` is true, of the tasks whose
  record holds the run's determinacy (:class:`~edgedsl.runtime.trace.Determinacy`, from
  :mod:`edgedsl.runtime.determinacy`); **tie-broken** and **partial** answers — tasks whose
  determinacy names a broken tie or a partial read reaching the answer;
* **partial reads** — calls that read fewer records than the service reported (``records`` <
  ``total`` of a call record), and the tasks with one;
* from the rules of meaningful programs (the record's ``facts``,
  :mod:`edgedsl.recipe.synth.meaning`): tasks with a ``most_frequent`` tie or one over all
  distinct values, a no-op ``drv``, a decorative ``if`` (of the tasks with an ``if``), an ``if``
  decided by a page limit, a page-size answer, a chain handing an identifier back
  (``round_trip``);
* **no-op drv junctions** — ``drv`` junctions whose hand-off had as many values before the
  narrowing as after (``cardinality == passed``), of all ``drv`` junctions;
* **duplicate programs** — tasks whose ``body_sha`` (the printer-formatted body without names)
  another task had before, and the groups they make;
* **queries with API field names** — queries holding an ASCII identifier that reads as an API
  name (:func:`~edgedsl.recipe.synth.korean.identifiers_in`: a record field or parameter name
  of the catalog that no Korean label uses, or one with an underscore or a case change; needs
  the catalog; a word equal to an argument value the task's calls took, such as a bill id
  ``PRC_X2H5…``, is an input the query states, not a name); **particle fallbacks** — queries
  holding a doubled particle such as ``이(가)``, ``을(를)``, ``(으)로``
  (:func:`~edgedsl.recipe.synth.korean.fallbacks_in`). Both are measurements of the query text;
* **tasks per platform** — tasks calling a tool of each platform, a platform counted as the
  catalog module declaring it (``tago`` and ``seoulbus`` are ``bus``; every module with tools
  listed, zeros included, when the catalog is given);
* **hand-off cardinality without page caps** — median, nearest-rank p90 and max of the
  cardinalities of junctions whose upstream call read everything (``capped`` false);
* **entity hand-offs** — junctions into a parameter whose code type is an entity identifier
  (:mod:`edgedsl.recipe.synth.entities`), of all junctions (needs the catalog);
* **answers a person wants** (the record's ``facts.implausible`` and ``facts.answer_wants``,
  :func:`edgedsl.recipe.synth.plausible.judge`; "n/a" for records made before them):
  implausible chains (and among them the findings ``odd_narrowing`` — a narrowing by a field
  no question narrows by — and ``internal_input`` — an internal code as a query input),
  answers asking for a code or a category, answers holding a constant (a number answered from
  a relation of several records), count-only answers.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from ...core.catalog import Catalog
from ...core.types import CodeType
from .entities import entity_of
from .korean import fallbacks_in, identifiers_in
from .record import TaskRecord
from .stats import nearest_rank

__all__ = ["TrustStats", "render_trust", "trust_stats"]

_ASCII_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class TrustStats(BaseModel):
    """The measures of one corpus (module doc): counts, with their denominators; None where the
    records (or the missing catalog) do not tell."""

    model_config = ConfigDict(extra="forbid")
    tasks: int
    determinacy_known: int
    determined: int | None
    tie_broken_answers: int | None
    partial_answers: int | None
    calls: int
    partial_calls: int
    partial_tasks: int
    facts_known: int
    mf_tie_tasks: int | None
    noop_drv_tasks: int | None
    if_tasks: int
    decorative_if_tasks: int | None
    page_if_tasks: int | None
    page_answer_tasks: int | None
    round_trip_tasks: int | None
    drv_junctions: int
    noop_drv_junctions: int
    duplicates: int | None
    duplicate_groups: int | None
    field_name_queries: int | None
    particle_fallback_queries: int
    platforms: dict[str, int] = Field(default_factory=dict)
    uncapped_junctions: int | None
    uncapped_median: float | None
    uncapped_p90: int | None
    uncapped_max: int | None
    junctions: int
    entity_junctions: int | None
    implausible_tasks: int | None = None
    odd_narrowing_tasks: int | None = None
    internal_input_tasks: int | None = None
    code_answers: int | None = None
    constant_answers: int | None = None
    count_only_answers: int | None = None


def _api_names(catalog: Catalog) -> set[str]:
    """The ASCII field and parameter names of ``catalog`` that no Korean label uses (``ID`` is
    the law service's field name and also a word of the labels 의안ID, 노선ID: not counted)."""
    out: set[str] = set()
    words: set[str] = set()
    for tool in catalog.tools():
        members: list[tuple[str, str | None, str | None]] = [
            *((f.name, f.label, f.unit) for f in tool.record.fields),
            *((p.name, p.label, p.unit) for p in tool.params)]
        for name, label, unit in members:
            out.add(name)
            words.update(_ASCII_WORD.findall(f"{label or ''} {unit or ''}"))
    return {x for x in out if _ASCII_WORD.fullmatch(x) and len(x) >= 2} - words


def _modules(catalog: Catalog) -> dict[str, str]:
    """Platform → the catalog module declaring it (``tago`` → ``bus``), platforms with tools."""
    return {name: Path(p.span.file).stem if p.span.file else name
            for name, p in catalog.platforms.items() if p.tools}


def _param_codes(catalog: Catalog) -> dict[tuple[str, str], str | None]:
    out: dict[tuple[str, str], str | None] = {}
    for tool in catalog.tools():
        for p in tool.params:
            out[(tool.qualname, p.name)] = p.type.name if isinstance(p.type, CodeType) else None
    return out


def _argument_values(r: TaskRecord) -> set[str]:
    """The text of every argument value the task's calls took: a value the query states (a
    bill id ``PRC_X2H5…``) is an input, not an API name."""
    return {str(v) for c in r.calls for v in c.args.values()}


def trust_stats(records: Sequence[TaskRecord], catalog: Catalog | None = None) -> TrustStats:
    """The measures of ``records`` (module doc); ``catalog`` (the platforms the corpus was
    synthesized over) enables field names, zero platforms and entity hand-offs."""
    det = [r.determinacy for r in records if r.determinacy is not None]
    facts = [(r, r.facts) for r in records if r.facts is not None]
    known = bool(facts)
    wanted = [(r, f) for r, f in facts if f.answer_wants]  # records made with plausibility facts
    partial_calls = [sum(c.total is not None and c.total > c.records for c in r.calls)
                     for r in records]
    drv_j = [j for r in records for j in r.junctions if j.kind == "drv"]
    shas = [r.body_sha for r in records if r.body_sha]
    groups = Counter(shas)
    names = _api_names(catalog) if catalog is not None else None
    module = _modules(catalog) if catalog is not None else {}
    platforms: Counter[str] = Counter({m: 0 for m in module.values()})
    for r in records:
        platforms.update({module.get(p, p) for p in (t.partition(".")[0] for t in r.tools)})
    judged = [j for r in records for j in r.junctions if j.capped is not None]
    cards = [j.cardinality for j in judged if not j.capped]
    junctions = [j for r in records for j in r.junctions]
    codes = _param_codes(catalog) if catalog is not None else None
    return TrustStats(
        tasks=len(records),
        determinacy_known=len(det),
        determined=sum(d.determined for d in det) if det else None,
        tie_broken_answers=sum(any(c.kind == "tie" for c in d.causes) for d in det)
        if det else None,
        partial_answers=sum(any(c.kind == "partial" for c in d.causes) for d in det)
        if det else None,
        calls=sum(len(r.calls) for r in records),
        partial_calls=sum(partial_calls),
        partial_tasks=sum(k > 0 for k in partial_calls),
        facts_known=len(facts),
        mf_tie_tasks=sum(bool(f.tie_drv or f.distinct_mf) for _, f in facts) if known else None,
        noop_drv_tasks=sum(bool(f.noop_drv) for _, f in facts) if known else None,
        if_tasks=sum("cond" in r.features for r in records),
        decorative_if_tasks=sum(bool(f.decorative_if) for _, f in facts) if known else None,
        page_if_tasks=sum(bool(f.page_if) for _, f in facts) if known else None,
        page_answer_tasks=sum(bool(f.page_answer) for _, f in facts) if known else None,
        round_trip_tasks=sum(bool(f.round_trip) for _, f in facts) if known else None,
        drv_junctions=len(drv_j),
        noop_drv_junctions=sum(j.cardinality == j.passed for j in drv_j),
        duplicates=len(shas) - len(groups) if shas else None,
        duplicate_groups=sum(k > 1 for k in groups.values()) if shas else None,
        field_name_queries=None if names is None else sum(
            bool(set(identifiers_in(r.query, names)) - _argument_values(r)) for r in records),
        particle_fallback_queries=sum(bool(fallbacks_in(r.query)) for r in records),
        platforms=dict(sorted(platforms.items())),
        uncapped_junctions=len(cards) if judged else None,
        uncapped_median=float(statistics.median(cards)) if cards else None,
        uncapped_p90=nearest_rank(cards, 0.9),
        uncapped_max=max(cards) if cards else None,
        junctions=len(junctions),
        entity_junctions=None if codes is None else sum(
            entity_of(codes.get((j.tool, j.param))) is not None for j in junctions),
        implausible_tasks=sum(bool(f.implausible) for _, f in wanted) if wanted else None,
        odd_narrowing_tasks=sum("odd_narrowing" in f.implausible for _, f in wanted)
        if wanted else None,
        internal_input_tasks=sum("internal_input" in f.implausible for _, f in wanted)
        if wanted else None,
        code_answers=sum(any(w in ("code", "category") for w in f.answer_wants)
                         for _, f in wanted) if wanted else None,
        constant_answers=sum("constant" in f.answer_wants for _, f in wanted)
        if wanted else None,
        count_only_answers=sum(all(w == "count" for w in f.answer_wants)
                               for _, f in wanted) if wanted else None,
    )


def _of(k: int | None, whole: int | None) -> str:
    if k is None or whole is None:
        return "n/a"
    return f"{k} of {whole}" + (f" ({k / whole * 100:.1f}%)" if whole else "")


def render_trust(t: TrustStats) -> str:
    """A plain-text table of the measures (module doc); "n/a" where the records do not tell."""
    cards = "n/a" if t.uncapped_junctions is None else (
        f"median {t.uncapped_median if t.uncapped_median is not None else '—'}, "
        f"p90 {t.uncapped_p90 if t.uncapped_p90 is not None else '—'}, "
        f"max {t.uncapped_max if t.uncapped_max is not None else '—'} "
        f"(over {t.uncapped_junctions} junctions)")
    facts = t.facts_known or None
    rows = [
        ("determined answers", _of(t.determined, t.determinacy_known or None)),
        ("answers reached by a tie-break", _of(t.tie_broken_answers, t.determinacy_known or None)),
        ("answers reached by a partial read", _of(t.partial_answers,
                                                  t.determinacy_known or None)),
        ("calls reading part of the result", _of(t.partial_calls, t.calls)),
        ("tasks with a partial read", _of(t.partial_tasks, t.tasks)),
        ("tasks with a most_frequent tie", _of(t.mf_tie_tasks, facts)),
        ("tasks with a no-op drv", _of(t.noop_drv_tasks, facts)),
        ("drv junctions handing on what they got", _of(t.noop_drv_junctions, t.drv_junctions)),
        ("decorative if (of tasks with an if)", _of(t.decorative_if_tasks,
                                                    t.if_tasks if facts else None)),
        ("if decided by a page limit", _of(t.page_if_tasks, t.if_tasks if facts else None)),
        ("answers that are a page size", _of(t.page_answer_tasks, facts)),
        ("chains handing an identifier back (round trip)", _of(t.round_trip_tasks, facts)),
        ("duplicate programs", "n/a" if t.duplicates is None else
         f"{t.duplicates} in {t.duplicate_groups} groups"),
        ("queries with API field names", _of(t.field_name_queries, t.tasks)),
        ("queries with particle fallbacks", _of(t.particle_fallback_queries, t.tasks)),
        ("entity hand-offs", _of(t.entity_junctions, t.junctions)),
        ("implausible chains", _of(t.implausible_tasks, t.tasks)),
        ("… narrowing by a field no question narrows by",
         _of(t.odd_narrowing_tasks, t.tasks)),
        ("… an internal code as a query input", _of(t.internal_input_tasks, t.tasks)),
        ("answers asking for a code or category", _of(t.code_answers, t.tasks)),
        ("answers with a constant", _of(t.constant_answers, t.tasks)),
        ("count-only answers", _of(t.count_only_answers, t.tasks)),
        ("hand-off cardinality, no page cap", cards),
    ]
    width = max(len(a) for a, _ in rows)
    lines = ["trust (issue 18)", "-" * width]
    lines += [f"{a.ljust(width)}  {b}" for a, b in rows]
    lines.append("tasks per platform: " + ", ".join(
        f"{p} {k} ({k / t.tasks * 100:.1f}%)" if t.tasks else f"{p} {k}"
        for p, k in t.platforms.items()))
    return "\n".join(lines)
