"""Every command reads source files the same way (issue 16, item 13, the encoding part).

A file that is not UTF-8 is bad input: ``E000`` at the first byte that does not decode, exit 1,
from ``parse``, ``check``, ``fmt``, ``compile`` and ``run`` alike (``fmt`` said E000 and the
others exit 2), and for a ``use``d module. A UTF-8 byte-order mark at the start of a file or
of a used module is accepted and ignored (it was ``E001``), with every span as in the same file
without it; ``fmt`` keeps it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from edgedsl import api
from edgedsl.cli import main
from edgedsl.core.diagnostics import CompileError
from edgedsl.core.source import Source

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
BOM = b"\xef\xbb\xbf"
COMMANDS = [["parse"], ["parse", "--tree"], ["check"], ["check", "--json"], ["fmt"],
            ["fmt", "--check"], ["compile"], ["run"], ["run", "--json"]]


def _edgedsl(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python -m edgedsl *args`` in a new process (the slow tier's tests)."""
    return subprocess.run([sys.executable, "-m", "edgedsl", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd)


Cli = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    """``edgedsl *args`` through :func:`edgedsl.cli.main` in this process, in directory
    ``cwd``: the exit code and both streams, as :func:`_edgedsl` gives them (a new interpreter
    per command cost ~0.8 s of CPU each; ``test_cli`` runs ``python -m edgedsl`` itself)."""

    def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        monkeypatch.chdir(cwd)
        capsys.readouterr()
        code = main(list(args))
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(["edgedsl", *args], code, out, err)

    return run


def _project(tmp_path: Path, main: bytes) -> Path:
    """``main.edge`` holding ``main`` beside a copy of the ``fin`` catalog module."""
    shutil.copy(EX / "fin.edge", tmp_path / "fin.edge")
    path = tmp_path / "main.edge"
    path.write_bytes(main)
    return path


SAMSUNG = (EX / "samsung_filing.edge").read_bytes()
# line 3, column 11 of the file: a byte that starts no UTF-8 sequence, inside a comment
NOT_UTF8 = b"use fin\n\n# comment \xff\xfe\n" + SAMSUNG.split(b"\n", 2)[2]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_file_that_is_not_utf8_is_e000_exit_1(command: list[str], tmp_path: Path,
                                                cli: Cli) -> None:
    path = _project(tmp_path, NOT_UTF8)
    proc = cli(*command, str(path), cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    if "--json" in command:
        (d,) = json.loads(proc.stdout)
        assert d["code"] == "E000"
        assert (d["labels"][0]["span"]["line"], d["labels"][0]["span"]["col"]) == (3, 11)
    else:
        assert proc.stderr.startswith("error[E000]: "), proc.stderr
        assert f"--> {path}:3:11" in proc.stderr
        assert "3 | # comment \ufffd\ufffd" in proc.stderr  # the line, quoted
        assert "save it as UTF-8" in proc.stderr
    assert path.read_bytes() == NOT_UTF8  # fmt left it alone


@pytest.mark.slow
def test_check_goes_on_with_the_other_files(tmp_path: Path) -> None:
    bad = _project(tmp_path, NOT_UTF8)
    good = tmp_path / "good.edge"
    good.write_bytes(SAMSUNG)
    proc = _edgedsl("check", str(bad), str(good), "--json", cwd=tmp_path)
    assert proc.returncode == 1
    assert [d["code"] for d in json.loads(proc.stdout)] == ["E000"]
    assert _edgedsl("check", str(good), cwd=tmp_path).returncode == 0


@pytest.mark.parametrize("command", ["check", "compile", "run"])
def test_a_used_module_that_is_not_utf8_is_e000_exit_1(command: str, tmp_path: Path,
                                                        cli: Cli) -> None:
    path = _project(tmp_path, SAMSUNG)
    (tmp_path / "fin.edge").write_bytes(b"# \xc3\x28 bad\n" + (EX / "fin.edge").read_bytes())
    proc = cli(command, str(path), cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.startswith("error[E000]: "), proc.stderr
    assert f"--> {path}:2:5" in proc.stderr  # the `use`
    assert f"::: {tmp_path / 'fin.edge'}:1:3" in proc.stderr  # the byte in the module
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("command", [["parse"], ["check"], ["fmt", "--check"], ["compile"],
                                     ["run"]], ids=" ".join)
def test_a_byte_order_mark_is_ignored(command: list[str], tmp_path: Path, cli: Cli) -> None:
    path = _project(tmp_path, BOM + SAMSUNG)
    tools = ["--tools", str(EX / "tools.py")] if command == ["run"] else []
    proc = cli(*command, str(path), *tools, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.slow
def test_bom_spans_are_those_of_the_file_without_it(tmp_path: Path) -> None:
    text = SAMSUNG.replace(b"pages all", b"pages all\n  oops = dart.nope()")
    (tmp_path / "plain").mkdir()
    (tmp_path / "bom").mkdir()
    plain = _project(tmp_path / "plain", text)
    bom = _project(tmp_path / "bom", BOM + text)
    outs = []
    for path in (plain, bom):
        proc = _edgedsl("check", str(path), "--json", cwd=path.parent)
        assert proc.returncode == 1
        outs.append([(d["code"], {k: v for k, v in label["span"].items() if k != "file"})
                     for d in json.loads(proc.stdout) for label in d["labels"]])
    assert outs[0] == outs[1]
    assert outs[0][0][0] == "E111", outs


@pytest.mark.slow
def test_bom_parse_output_is_the_same(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    (tmp_path / "bom").mkdir()
    plain = _edgedsl("parse", str(_project(tmp_path / "plain", SAMSUNG)), cwd=tmp_path)
    bom = _edgedsl("parse", str(_project(tmp_path / "bom", BOM + SAMSUNG)), cwd=tmp_path)
    assert plain.returncode == bom.returncode == 0
    assert plain.stdout == bom.stdout


@pytest.mark.slow
def test_fmt_keeps_the_byte_order_mark(tmp_path: Path) -> None:
    path = _project(tmp_path, BOM + b"use fin\ntrajectory t \"q\" {   a = dart.corp_code( "
                    b"corp_name : \"x\" )\nanswer count(a) }\n")
    assert _edgedsl("fmt", str(path), cwd=tmp_path).returncode == 0
    data = path.read_bytes()
    assert data.startswith(BOM) and not data[3:].startswith(BOM)
    assert b"  a = dart.corp_code(corp_name: \"x\")\n" in data
    assert _edgedsl("fmt", "--check", str(path), cwd=tmp_path).returncode == 0


@pytest.mark.slow
def test_a_used_module_with_a_byte_order_mark(tmp_path: Path) -> None:
    path = _project(tmp_path, SAMSUNG)
    fin = tmp_path / "fin.edge"
    fin.write_bytes(BOM + fin.read_bytes())
    assert _edgedsl("check", str(path), cwd=tmp_path).returncode == 0
    fin.write_bytes(BOM + b"platform x {\n  tool t () -> [Nope]\n}\n" + fin.read_bytes()[3:])
    proc = _edgedsl("check", str(path), cwd=tmp_path)
    assert proc.returncode == 1
    assert f"--> {fin}:2:17" in proc.stderr, proc.stderr  # `Nope`, counted without the mark


def test_the_api_reads_files_the_same_way(tmp_path: Path) -> None:
    bad = _project(tmp_path, NOT_UTF8)
    for stage in (api.parse, api.check, api.compile):
        with pytest.raises(CompileError) as info:
            stage(bad)
        (d,) = info.value.diagnostics
        assert d.code == "E000" and d.span is not None and (d.span.line, d.span.col) == (3, 11)
    good = _project(tmp_path, BOM + SAMSUNG)
    assert api.parse(good) == api.parse(SAMSUNG.decode("utf-8"))
    assert not Source.from_path(good).text.startswith("\ufeff")
