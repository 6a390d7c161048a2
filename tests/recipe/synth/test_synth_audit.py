"""The contamination audit over parsed trajectories (no runs): exact values on a small split of
the shipped world chains, properties over random splits, the rendered report."""

from __future__ import annotations

import shutil
import unicodedata
from pathlib import Path

import orjson
from hypothesis import given
from hypothesis import strategies as st

from edgedsl.api import parse
from edgedsl.recipe.synth.audit import AuditReport, audit, audit_dirs, normalise_query, render_audit
from edgedsl.syntax import nodes

ROOT = Path(__file__).resolve().parents[3]
WORLD = ROOT / "examples" / "world"
ALL: list[nodes.Trajectory] = [t for p in sorted(WORLD.glob("*.edge"))
                               for t in parse(p).trajectories]


def example(prefix: str) -> nodes.Trajectory:
    (path,) = sorted(WORLD.glob(f"{prefix}_*.edge"))
    (t,) = parse(path).trajectories
    return t


def test_normalise_query() -> None:
    q = "삼성전자의  종가는?\n"
    assert normalise_query(unicodedata.normalize("NFD", q)) == "삼성전자의 종가는?"
    assert normalise_query(" a\tb \u3000c ") == "a b c"


def test_exact_values_on_a_small_split() -> None:
    t02, t03, t04 = example("02"), example("03"), example("04")
    # the query of 02, decomposed (NFD) and with extra spaces; one seen dependency edge
    query = "  " + unicodedata.normalize("NFD", t02.query).replace(" ", "   ") + " "
    assert query != t02.query
    twin = parse(f"""use dart, fsc
trajectory twin {orjson.dumps(query).decode()} {{
  company = dart.company(corp_code: "00164779")
  outline = fsc.corp_outline(crno: seq company.jurir_no) pages 1
  answer outline.crno
}}""").trajectories[0]
    r = audit([t02, t03], [t04, twin])
    assert (r.train_tasks, r.eval_tasks) == (2, 2)
    assert r.duplicates == [query]  # listed as the evaluation set spells it
    # eval tools: fsc.stock_prices, fsc.listed_items, fsc.corp_outline, dart.multi_accounts,
    # dart.company — the training set calls stock_prices (03), corp_outline and company (02)
    assert (r.tool_overlap_count, r.tool_overlap_total, r.tool_overlap_share) == (3, 5, 0.6)
    d = r.dependency
    # train: 02 has 3 edges, 03 has 2; eval: 04's 4 edges (all new) + the twin's 1 (seen)
    assert (d.train_edges, d.eval_edges, d.shared_edges) == (5, 5, 1)
    assert d.jaccard == 1 / 9
    assert (d.eval_occurrences, d.unseen_occurrences, d.unseen_share) == (5, 4, 0.8)
    a = r.adjacency
    assert (a.eval_occurrences, a.unseen_occurrences, a.unseen_share) == (5, 4, 0.8)
    text = render_audit(r)
    assert "60.0% (3/5)" in text and "62.2% (135/217)" in text
    assert "0.111" in text and "80.0% (4/5)" in text and "95.6%" in text
    assert f"duplicate: {query}" in text


def test_self_audit_of_the_world_examples() -> None:
    r = audit_dirs(WORLD, WORLD)
    n = len(ALL)
    assert (r.train_tasks, r.eval_tasks) == (n, n) == (18, 18)
    assert r.duplicates == [t.query for t in ALL]
    assert r.tool_overlap_share == 1.0 and r.tool_overlap_count == r.tool_overlap_total
    assert r.dependency.jaccard == 1.0 and r.dependency.unseen_share == 0.0
    assert r.adjacency.jaccard == 1.0 and r.adjacency.unseen_share == 0.0
    assert r.problems == []
    assert AuditReport.model_validate_json(r.model_dump_json()) == r


def test_unparsable_files_are_problems(tmp_path: Path) -> None:
    shutil.copy(WORLD / "02_two_bridges.edge", tmp_path / "02.edge")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "broken.edge").write_text('trajectory t "q" { x = }', encoding="utf-8")
    r = audit_dirs(WORLD, tmp_path)
    assert r.eval_tasks == 1 and len(r.duplicates) == 1
    ((where, why),) = r.problems
    assert where == "eval/sub/broken.edge" and why.startswith("E0")
    assert "problem: eval/sub/broken.edge: E0" in render_audit(r)


def test_empty_sets_give_no_ratio() -> None:
    r = audit([], [])
    assert r.tool_overlap_share is None and r.dependency.jaccard is None
    assert r.adjacency.unseen_share is None
    assert "—" in render_audit(r)


split = st.lists(st.sampled_from(range(len(ALL))), unique=True, max_size=len(ALL))


@given(split, split)
def test_properties_of_random_splits(a: list[int], b: list[int]) -> None:
    train, ev = [ALL[i] for i in a], [ALL[i] for i in b]
    r = audit(train, ev)
    for e in (r.dependency, r.adjacency):
        assert 0 <= e.unseen_occurrences <= e.eval_occurrences
        if e.jaccard is not None:
            assert 0.0 <= e.jaccard <= 1.0
    # the Jaccard index is symmetric; the unseen share is not
    back = audit(ev, train)
    assert back.dependency.jaccard == r.dependency.jaccard
    if set(b) <= set(a):  # everything evaluated was trained on
        assert r.duplicates == [t.query for t in ev]
        assert r.dependency.unseen_occurrences == r.adjacency.unseen_occurrences == 0
        assert r.tool_overlap_count == r.tool_overlap_total
    if not set(a) & set(b):  # the world chains ask different questions
        assert r.duplicates == []
