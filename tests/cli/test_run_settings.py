"""The ``run { … }`` header: ``edgedsl run FILE`` uses the file's world seed, φ and max pages
when no option is given; an option that contradicts the file wins with a ``W010`` warning."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from edgedsl.api import check, compile, run
from edgedsl.cli import main
from edgedsl.core.runsettings import RunSettings

# the answer depends on the world's seed: 서울관철초등학교 on seed 0, 서울북성초등학교 on seed 1
BODY = """\
trajectory oldest "서울 학교 목록의 첫 쪽에서 가장 먼저 세워진 학교의 이름은?" {
  schools = neis.schools(ATPT_OFCDC_SC_CODE: "B10") pages 1
  oldest = drv schools | min FOND_YMD
  answer oldest.SCHUL_NM
}
"""


def _file(tmp_path: Path, header: str = "") -> Path:
    path = tmp_path / "oldest.edge"
    path.write_text("use neis\n\n" + header + BODY, encoding="utf-8")
    return path


def _answer(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[object, str]:
    assert main(["run", *argv, "--json"]) == 0
    out, err = capsys.readouterr()
    return orjson.loads(out.splitlines()[0])["answer"], err


def test_the_file_seed_is_the_world_seed(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    bare = _file(tmp_path)
    on_0, _ = _answer(capsys, str(bare))
    on_1, _ = _answer(capsys, str(bare), "--seed", "1")
    assert on_0 != on_1  # the answer is seed-dependent, so the test can fail
    headed = _file(tmp_path, "run {\n  seed: 1\n}\n\n")
    got, err = _answer(capsys, str(headed))
    assert got == on_1 and err == ""
    got, err = _answer(capsys, str(headed), "--seed", "1")  # agreeing: no warning
    assert got == on_1 and err == ""


def test_a_contradicting_seed_wins_with_a_warning(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    on_0, _ = _answer(capsys, str(_file(tmp_path)))
    got, err = _answer(capsys, str(_file(tmp_path, "run { seed: 1 }\n")), "--seed", "0")
    assert got == on_0
    assert "W010" in err and "--seed 0" in err and "seed: 1" in err


def test_the_plan_carries_the_settings(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    src = _file(tmp_path, "run { seed: 1, max_pages: 7 }\n")
    plan_path = tmp_path / "oldest.plan.json"
    assert main(["compile", str(src), "-o", str(plan_path)]) == 0
    capsys.readouterr()
    data = orjson.loads(plan_path.read_bytes())
    assert data["run"] == {"seed": 1, "phi": None, "max_pages": 7}
    from_plan, _ = _answer(capsys, str(plan_path))
    from_text, _ = _answer(capsys, str(src))
    with_flag, _ = _answer(capsys, str(_file(tmp_path)), "--seed", "1")
    assert from_plan == from_text == with_flag


def test_api_run_on_the_world_uses_the_plan_seed(tmp_path: Path) -> None:
    plan = compile(_file(tmp_path, "run { seed: 1 }\n").read_text(encoding="utf-8"))
    bare = compile(_file(tmp_path).read_text(encoding="utf-8"))
    (headed,), (seed0,) = run(plan, "world"), run(bare, "world")
    assert headed.ok and seed0.ok and headed.answer != seed0.answer


def test_store_and_python_backends_ignore_the_seed(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    root = Path(__file__).resolve().parents[2] / "examples"
    text = (root / "samsung_filing.edge").read_text(encoding="utf-8")
    path = tmp_path / "samsung_filing.edge"
    path.write_text("run { seed: 9 }\n\n" + text, encoding="utf-8")
    assert main(["run", str(path), "--lib", str(root), "--tools", str(root / "tools.py"),
                 "--seed", "3", "--json"]) == 0
    assert "W010" not in capsys.readouterr().err  # no world, no seed to contradict


def test_phi_of_the_header_is_the_checker_phi() -> None:
    text = """\
use assembly

run { phi: 2 }

trajectory t "q" {
  bills = assembly.bills(AGE: "22") pages 1
  ppsr = assembly.proposers(BILL_ID: fan(3) bills.BILL_ID) pages 1
  answer count(ppsr)
}
"""
    with pytest.raises(Exception) as err:
        check(text)
    assert "E2" in str(err.value) and "φ = 2" in str(err.value)
    lifted = check(text, phi=5)  # an explicit φ is the caller's
    assert lifted.program.settings == RunSettings(phi=2)
