"""NESTFUL (IBM, Apache-2.0) → edgedsl: the gold call sequences of ``data_v2`` as trajectories.

The suite's folder (``SRC``) holds ``data_v2/nestful_data_excerpt10.jsonl`` and
``data_v2/icl_examples.json``: each sample a query, its gold calls (``label`` ``$var_1``,
arguments with ``$var_1.result$`` references) and its gold answer, the output of the last call.
A reference becomes ``seq var_1.result``; the answer reads the last call's documented output
field. The catalog (:data:`CATALOG`, the in-process tools' declarations) and the tools
(:mod:`.nestful_tools`) ship with edgedsl; answers are compared by NESTFUL's own rule
(:func:`.nestful_tools.answers_match`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..core.source import Source
from ..syntax.build import parse_module
from .emit import formatted, program
from .model import FieldRef, GoldCall, GoldCase, SuiteError
from .nestful_tools import TOOLS, answers_match
from .outcome import Reproduced, Written, failure, run_file, write_files

__all__ = ["CATALOG", "PLATFORM", "check", "load_cases", "parse_sample", "write"]

PLATFORM = "nestful"
CATALOG = Path(__file__).resolve().parent / "data" / "nestful.edge"
"""The catalog of the NESTFUL tools (hand-typed from their documentation; see its header)."""

FILES = ("data_v2/nestful_data_excerpt10.jsonl", "data_v2/icl_examples.json")
_REF = re.compile(r"\$([A-Za-z_]\w*)\.([A-Za-z_]\w*)\$")


def _label(raw: Any, where: str) -> str:
    if not isinstance(raw, str) or not re.fullmatch(r"\$[A-Za-z_]\w*", raw):
        raise SuiteError(f"{where}: label {raw!r} is not `$name`")
    return raw[1:]


def _refs_inside(value: Any) -> bool:
    """True when a list or object holds a `$label.field$` text at any depth."""
    if isinstance(value, str):
        return bool(_REF.search(value))
    if isinstance(value, dict):
        return any(_refs_inside(v) for v in value.values())
    if isinstance(value, list):
        return any(_refs_inside(v) for v in value)
    return False


def _arg(value: Any, where: str, item: bool = False) -> Any:
    """A `$label.field$` string as a FieldRef, and a list argument's items each so (a list of
    references); a reference inside other text, inside an object argument or inside a list
    nested in a list is refused (pasted into a literal it would be the text
    ``$var_1.result$``, not the value). None of the 13 samples has one."""
    if isinstance(value, str):
        m = _REF.fullmatch(value)
        if m:
            return FieldRef(m.group(1), m.group(2))
        if _REF.search(value):
            raise SuiteError(f"{where}: a reference inside a text ({value!r}) is not supported")
    elif isinstance(value, list) and not item:
        return [_arg(v, where, item=True) for v in value]
    elif _refs_inside(value):
        raise SuiteError(f"{where}: a reference inside an object argument or a nested list "
                         f"({value!r}) is not supported")
    return value


def parse_sample(sample: dict[str, Any]) -> GoldCase:
    """One NESTFUL sample as a gold case (its trajectory is named after the sample id)."""
    sid = str(sample.get("sample_id", ""))
    if not re.fullmatch(r"[0-9a-f-]{8,}", sid):
        raise SuiteError(f"sample id {sid!r} is not a NESTFUL uuid")
    calls = []
    for i, raw in enumerate(sample.get("output") or []):
        where = f"{sid} call {i}"
        label = _label(raw.get("label"), where)
        args = {k: _arg(v, f"{where} `{k}`") for k, v in (raw.get("arguments") or {}).items()}
        calls.append(GoldCall(label=label, tool=str(raw["name"]), args=args))
    if not calls:
        raise SuiteError(f"{sid}: no gold calls")
    last = calls[-1]
    outputs = {t["name"]: t.get("output_parameters") or {} for t in sample.get("tools") or []}
    fields = list(outputs.get(last.tool, {}))
    if not fields:
        raise SuiteError(f"{sid}: the last tool `{last.tool}` documents no output field")
    return GoldCase(case_id=sid, name=f"n_{sid[:8]}", query=str(sample["input"]),
                    calls=tuple(calls), answer=FieldRef(last.label, fields[0]),
                    gold_answer=sample.get("gold_answer"))


def load_cases(src: Path) -> list[GoldCase]:
    """The gold cases of the NESTFUL folder ``src``, in file order (excerpt, then ICL)."""
    samples: list[dict[str, Any]] = []
    for rel in FILES:
        path = src / rel
        if not path.is_file():
            raise SuiteError(f"{path}: missing (expected NESTFUL's {rel})")
        text = path.read_text(encoding="utf-8")
        if rel.endswith(".jsonl"):
            samples += [json.loads(line) for line in text.splitlines() if line.strip()]
        else:
            samples += json.loads(text)
    cases = [parse_sample(s) for s in samples]
    names = [c.name for c in cases]
    if len(set(names)) != len(names):
        raise SuiteError("two NESTFUL samples share the first 8 characters of their id")
    return cases


TOOLS_FILE = '''"""The NESTFUL tools for `edgedsl run --backend python --tools tools.py` (written by
`edgedsl import nestful`; the functions live in edgedsl.suites.nestful_tools)."""

from edgedsl.suites.nestful_tools import TOOLS, answers_match

__all__ = ["TOOLS", "answers_match"]
'''
"""The ``tools.py`` an import writes: it names the shipped tools, it does not copy them."""

HEADER = ("# NESTFUL (IBM, Apache-2.0)의 골드 호출 순서를 `edgedsl import nestful`이 옮긴 것.",
          "# 참조 `$var_1.result$`는 `seq var_1.result`가 되고, 마지막 호출의 출력이 답이다.")


def _all(split: str) -> None:
    if split != "all":
        raise SuiteError(f"NESTFUL has no split {split!r}: its 13 gold sequences are one set "
                         "(`all`)")


def write(src: Path, out: Path, split: str = "all") -> Written:
    """Write ``gold.edge`` (one trajectory per sample), the catalog ``nestful.edge`` and
    ``tools.py`` into ``out``."""
    _all(split)
    cases = load_cases(src)
    out.mkdir(parents=True, exist_ok=True)
    catalog = parse_module(Source.from_path(CATALOG))
    files = {
        out / "nestful.edge": formatted(catalog, str(CATALOG)),
        out / "gold.edge": formatted(program(cases, PLATFORM, HEADER), "gold.edge"),
        out / "tools.py": TOOLS_FILE,
    }
    write_files(files)
    return Written.of("nestful", out, list(files), cases)


def check(src: Path, out: Path, split: str = "all") -> Reproduced:
    """Run ``out/gold.edge`` on the shipped tools; each answer against the sample's gold
    answer under NESTFUL's rule."""
    _all(split)
    cases = {c.name: c for c in load_cases(src)}
    rep = Reproduced(suite="nestful", what="answers")
    results = {r.trajectory: r for r in run_file(out / "gold.edge", TOOLS)}
    for name, case in cases.items():
        r = results.get(name)
        if r is None:
            rep.add(case.case_id, "no trajectory in gold.edge")
        elif not r.ok:
            rep.add(case.case_id, failure(r))
        elif not answers_match(r.answer, case.gold_answer):
            rep.add(case.case_id, f"answer {r.answer!r} != gold {case.gold_answer!r}")
        else:
            rep.add(case.case_id, None)
    return rep
