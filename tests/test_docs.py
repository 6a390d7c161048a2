"""The documentation's code stays true: every Python snippet of the testing guide runs (the
``edge`` blocks: ``tests/docs/test_doc_blocks.py``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "docs" / "language.md", ROOT / "docs" / "testing.md", ROOT / "docs" / "graph.md",
        ROOT / "docs" / "synth.md", ROOT / "README.md"]


def _blocks(lang: str) -> list[tuple[str, int, str]]:
    out = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for i, m in enumerate(re.finditer(rf"```{lang}\n(.*?)```", text, re.S)):
            out.append((doc.name, i, m.group(1)))
    return out


PYTHON = [b for b in _blocks("python") if b[0] == "testing.md"]


@pytest.mark.parametrize("block", PYTHON, ids=[f"{d}#{i}" for d, i, _ in PYTHON])
def test_testing_guide_examples_run(block: tuple[str, int, str]) -> None:
    _, _, code = block
    code = code.replace(
        "@given(", "@__import__('hypothesis').settings(max_examples=10, deadline=None)\n@given("
    )
    ns: dict[str, object] = {}
    exec(compile(code, "docs/testing.md", "exec"), ns)
    tests = [v for k, v in ns.items() if k.startswith("test_") and callable(v)]
    assert tests
    for t in tests:
        t()


#: "ties … to the X": where a paragraph says a tie goes
_TIE_RULE = re.compile(r"\bties?\b[^.;:]{0,40}?\bto the \*?(\w+)")


@pytest.mark.parametrize("para, ok", [
    ("`most_frequent` ties go to the first record", False),
    ("`most_frequent` breaks ties … and ties go to the smallest value", True),
    ("a broken `most_frequent` tie reaches the answer", True),
    ("the perturbation: `most_frequent` ties to the largest value", True),
])
def test_the_tie_rule_check_itself(para: str, ok: bool) -> None:
    assert _says_smallest(para) == ok


def _says_smallest(para: str) -> bool:
    """False when ``para`` states that ``most_frequent`` ties go anywhere but the smallest value
    (a paragraph about the perturbation check, which departs from the rule on purpose, aside)."""
    if "most_frequent" not in para or "perturb" in para:
        return True
    return all(m.group(1) == "smallest" for m in _TIE_RULE.finditer(para))


def test_docs_say_most_frequent_ties_go_to_the_smallest_value() -> None:
    # the language (docs/language.md, tests/reduce/test_reducers.py) breaks a frequency tie by the
    # smallest value; no paragraph of the docs may say that its ties go anywhere else
    for doc in DOCS:
        for para in doc.read_text(encoding="utf-8").split("\n\n"):
            assert _says_smallest(para), f"{doc.name}: {para.strip()[:120]}"
