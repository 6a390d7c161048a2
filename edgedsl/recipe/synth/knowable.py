"""Answers that tell something new (issue 18 §3): an answer must not restate an input of its
query — the district the query already gave, the name an equality narrowed by.

:func:`input_texts` lists every rendering of every literal a trajectory states (call
arguments, ``parallel`` header values, ``compare`` arms, ``drv`` pivots, as
:func:`~.korean.korean_forms` writes them: a code by its glossary meaning too);
:func:`restated_answers` names each text answer value among them (the ``restated_input`` rule
of stage ``rules``, :func:`~.filters.rule_filter`). Generation avoids such fields first:
:func:`~.chains.answer_of` and a group's answers treat them as echoes of what the calls were
handed (:func:`statement_texts`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ...syntax import nodes as n
from .korean import korean_forms
from .literals import literal_uses
from .templates import Glossary, load_glossary

__all__ = ["input_texts", "restated_answers", "statement_texts"]


def _answer_scalars(answer: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(answer, Mapping):
        for k, v in answer.items():
            if not isinstance(v, list | dict):
                yield str(k), v
    elif not isinstance(answer, list | dict):
        yield "answer", answer


def input_texts(traj: n.Trajectory, glossary: Glossary | None = None) -> frozenset[str]:
    """Every rendering of every literal the trajectory states (arguments, header values, arms,
    pivots; not the numbers an ``if`` compares a count with): the values its answer must not
    merely repeat."""
    gl = glossary or load_glossary(None)
    out: set[str] = set()
    for u in literal_uses(traj):
        if u.role == "predicate":
            continue
        out.add(str(u.value))
        out.update(korean_forms(u.value, u.name, gl))
    return frozenset(x.strip() for x in out if x.strip())


def statement_texts(stmts: Sequence[n.Stmt]) -> frozenset[str]:
    """:func:`input_texts` of a body under construction (a draft's statements)."""
    return input_texts(n.Trajectory(name="draft", query="", body=tuple(stmts)))


def restated_answers(traj: n.Trajectory, answer: Any,
                     glossary: Glossary | None = None) -> list[str]:
    """Every text answer value (two characters or more) that is one of the literals the query
    states (:func:`input_texts`), as a message: the answer restates an input. Numbers are not
    checked (a count equal to a year the query states is a coincidence, not a restatement), nor
    a comparison's winning arm."""
    said = input_texts(traj, glossary)
    arms = _arm_keys(traj)
    return [f"answer `{k}` = {v} restates an input of the query"
            for k, v in _answer_scalars(answer)
            if k not in arms and isinstance(v, str) and len(v.strip()) >= 2
            and v.strip() in said]


def _arm_keys(traj: n.Trajectory) -> set[str]:
    """Answer keys reading a comparison's winning arm (``x.__arm``): the arm is one of the
    values the query states by design — which of them wins is the answer, not a restatement."""
    ans = next((s for s in traj.body if isinstance(s, n.AnswerStmt)), None)
    if ans is None or ans.fields is None:
        return set()
    return {f.name for f in ans.fields if isinstance(f.expr, n.Ref) and f.expr.field == "__arm"}
