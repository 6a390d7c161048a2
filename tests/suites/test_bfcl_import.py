"""``edgedsl import bfcl``: BFCL multi-turn base train entries (0–149) written as trajectories,
run on BFCL's own simulator classes (PyPI bfcl-eval, installed with --no-deps) and compared
with the suite's replay: the public state after every turn. A representative subset in the
fast tier, all train entries in the slow tier; the held-out entries are never read."""

from __future__ import annotations

import json
import re
from importlib.util import find_spec
from pathlib import Path

import pytest

from edgedsl.api import read_source
from edgedsl.cli import main
from edgedsl.core.source import Source
from edgedsl.runtime.backends import load_python_tools
from edgedsl.suites import bfcl
from edgedsl.suites.bfcl_env import ELEMENTS, as_record
from edgedsl.suites.emit import formatted
from edgedsl.suites.model import SuiteError
from edgedsl.suites.outcome import run_file
from edgedsl.syntax import nodes as n
from edgedsl.syntax.build import parse_module

from . import BFCL_FAST, EXTERNAL, imported, needs

SRC = EXTERNAL / "bfcl"
pytestmark = needs["bfcl"]
simulators = pytest.mark.skipif(
    find_spec("bfcl_eval") is None,
    reason="the BFCL simulators are not installed: pip install --no-deps "
           "'bfcl-eval==2026.3.23' 'mpmath==1.3.0' (the README's test command does)")


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return imported(tmp_path_factory, "bfcl")


@simulators
def test_fast_subset_is_state_exact_after_every_turn(out: Path) -> None:
    rep = bfcl.check(SRC, out, only=BFCL_FAST)
    assert rep.misses == []
    assert rep.total >= 3 * len(BFCL_FAST)


@simulators
@pytest.mark.slow
def test_all_train_entries_are_state_exact_after_every_turn(out: Path) -> None:
    rep = bfcl.check(SRC, out)
    assert rep.total == 533  # turns of entries 0–149
    assert rep.share >= 0.95, rep.misses[:10]
    assert rep.misses == []  # measured: 533 of 533


def _gold(entry_id: str) -> dict:
    for line in (SRC / "derived" / "multi_turn_base_gold_execution.jsonl").open():
        row = json.loads(line)
        if row["id"] == entry_id:
            return row
    raise AssertionError(entry_id)


@simulators
def test_forwarded_values_are_references_in_the_ast(out: Path) -> None:
    """Each `seq` argument reads a field of an earlier call whose replayed result holds the
    gold argument's value; a text literal left equals no lifted field of an earlier result."""
    docs = bfcl.load_docs(SRC)
    refs = numbers = 0
    for entry_id in BFCL_FAST:
        [t] = parse_module(read_source(out / f"entry_{entry_id.rsplit('_', 1)[1]}.edge")
                           ).trajectories
        binds = [b for b in t.body if isinstance(b, n.Binding)]
        calls = [c for turn in _gold(entry_id)["turns"] for c in turn["calls"]]
        assert len(binds) == len(calls)
        for i, (b, c) in enumerate(zip(binds, calls, strict=True)):
            assert isinstance(b.node, n.Call) and b.node.tool == c["function"]
            records = [as_record(x["result"], bfcl.lifted(docs[x["class"]][x["function"]]))
                       for x in calls]
            earlier = {v for r in records[:i] for f, v in r.items() if f != "value"}
            for a in b.node.args:
                if a.name == "after":
                    assert isinstance(a.value, n.SeqArg)
                    assert a.value.ref.parts == (binds[i - 1].name, "step")
                elif isinstance(a.value, n.SeqArg):
                    j = [x.name for x in binds].index(a.value.ref.binding)
                    got = records[j][a.value.ref.field]
                    assert got == _arg(c, a.name)
                    refs += 1
                    numbers += isinstance(got, int)
                elif isinstance(a.value, n.StringLit):
                    assert a.value.value not in earlier, (entry_id, b.name, a.name)
    assert refs >= 3 and numbers >= 1  # texts and an order id a trade returned


def _arg(call: dict, name: str) -> object:
    return bfcl.call_arguments(call)[name]


@simulators
def test_arguments_come_from_the_call_text() -> None:
    """Entry 147: the replay's parsed `mentions` list was changed by a later `mention` call
    (the simulator kept the list object); the call's text is the gold."""
    call = _gold("multi_turn_base_147")["turns"][0]["calls"][1]
    assert call["kwargs"]["mentions"] == ["@industryexperts", "@technewsworld"]
    assert bfcl.call_arguments(call)["mentions"] == ["@industryexperts"]
    positional = {"call": "sort('final_report.pdf')", "class": "GorillaFileSystem",
                  "function": "sort"}
    assert bfcl.call_arguments(positional) == {"file_name": "final_report.pdf"}
    for bad in ("sort(__import__('os'))", "sort(x=open('f'))", "os.system('x')"):
        with pytest.raises(SuiteError):
            bfcl.call_arguments({**positional, "call": bad})


def test_catalogs_cover_every_documented_function() -> None:
    """(Built from the function docs alone: no simulator needed.)"""
    docs = bfcl.load_docs(SRC)
    modules = bfcl.catalog_modules(SRC)
    for cls, functions in docs.items():
        platform = bfcl.CLASSES[cls][1]
        text = formatted(modules[platform], f"{platform}.edge")
        [decl] = parse_module(Source(f"{platform}.edge", text)).items
        assert isinstance(decl, n.PlatformDecl)
        tools = {i.name: i for i in decl.items if isinstance(i, n.ToolDecl)}
        assert set(tools) == set(functions)
        for name, doc in functions.items():
            required = set(doc["parameters"].get("required") or [])
            params = {p.name: p for p in tools[name].params}
            assert set(params) == {*doc["parameters"].get("properties", {}), "after"}
            assert {p for p in params if p != "after"
                    and not params[p].type.optional} == required


def test_splits_keep_the_held_out_entries_apart() -> None:
    first_held_out = f"multi_turn_base_{max(bfcl.TRAIN) + 1}"
    assert bfcl.in_split("multi_turn_base_149", "train")
    assert not bfcl.in_split(first_held_out, "train")
    assert bfcl.in_split(first_held_out, "test")
    with pytest.raises(SuiteError, match="unknown split"):
        bfcl.in_split("multi_turn_base_0", "dev")
    with pytest.raises(SuiteError, match="not in the split"):
        bfcl.load_cases(SRC, "train", only=[first_held_out])


@simulators
@pytest.mark.slow
def test_the_command_writes_and_checks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", "bfcl", str(SRC), "-o", str(tmp_path), "--check"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "bfcl: 533/533 turns state-exact (100.0%)"


@simulators
def test_the_written_tools_run_an_entry(out: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`EDGEDSL_BFCL_ENTRY=entry_0 edgedsl run --backend python --tools OUT/tools.py …`."""
    monkeypatch.delenv("EDGEDSL_BFCL_ENTRY", raising=False)
    with pytest.raises(ValueError, match="EDGEDSL_BFCL_ENTRY"):
        load_python_tools(out / "tools.py")
    monkeypatch.setenv("EDGEDSL_BFCL_ENTRY", "entry_0")
    [result] = run_file(out / "entry_0.edge", load_python_tools(out / "tools.py"))
    assert result.ok and result.answer == 10  # the entry's 10 gold calls, in order


def test_list_elements_are_lifted_and_referenced() -> None:
    """A documented list of texts lifts its first elements (`watchlist_2`), so a symbol a
    watchlist or a directory listing answered is a reference; over the train entries almost
    every forwarded value is one (measured: 158 references, 5 texts left literal, 4 of them
    inside list arguments)."""
    doc = {"response": {"properties": {"watchlist": {"type": "array",
                                                     "items": {"type": "string"}},
                                       "count": {"type": "integer"}}}}
    fields = bfcl.lifted(doc)
    assert fields["count"] == "int" and fields["watchlist_1"] == "str"
    assert f"watchlist_{ELEMENTS}" in fields and f"watchlist_{ELEMENTS + 1}" not in fields
    rec = as_record({"watchlist": ["NVDA", "AAPL", 3], "count": 2}, fields)
    assert (rec["watchlist_1"], rec["watchlist_2"], rec["watchlist_3"], rec["watchlist_4"]) \
        == ("NVDA", "AAPL", None, None)
    assert rec["count"] == 2 and rec["value"]["watchlist"] == ["NVDA", "AAPL", 3]
    cases = bfcl.load_cases(SRC)
    element_refs = [(c.case_id, r) for c in cases for _, _, r in c.refs()
                    if re.fullmatch(r"(watchlist|stock_list|current_directory_content)_\d+",
                                    r.field)]
    assert len(element_refs) >= 40
    assert sum(len([r for r in c.refs() if r[1] != "after"]) for c in cases) >= 150
    assert sum(c.extra["nested"] for c in cases) <= 10
