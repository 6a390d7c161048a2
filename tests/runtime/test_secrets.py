"""Keys never leave the backend, in any form: the redactor (every form a service may echo a key
in), the HTTP backend over echoing endpoints, and the secret-leak probe — a key made of special
characters planted through ``EDGEDSL_KEY_LAW`` and a run against ``edgedsl world serve`` on
127.0.0.1 (``EDGEDSL_BASE_LAW``), whose law search echoes the query: stdout, stderr (with
``EDGEDSL_DEBUG=1``), the trace, every table of the store, ``store stats`` / ``export`` /
``drift`` and the diagnostics hold no form of the key.
"""

from __future__ import annotations

import asyncio
import html
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import duckdb
import orjson
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from edgedsl import cli
from edgedsl.plan.model import ToolSpec, validated
from edgedsl.runtime import redact
from edgedsl.runtime.backends import ToolFailure, import_file
from edgedsl.runtime.http import HttpBackend, HttpOptions, make_world_backend
from edgedsl.runtime.redact import MASK, Redactor
from edgedsl.world.app import make_app
from edgedsl.world.engine import World
from tests.loopback import serve_asgi

HERE = Path(__file__).parents[1]
FAKE = import_file(HERE / "world" / "fake_platform.py")
ECHO = import_file(HERE / "echo_platform.py")

KEY = "QvT7kWm2pX+a/b==&<>'\"열쇠"
"""The issue's key: letters, then ``+a/b==&<>'"``, and Korean text."""


def forms_of(key: str) -> set[str]:
    """Every form of ``key`` an encoder in use may write, computed by the encoders themselves
    (independent of the redactor's pattern)."""
    ascii_json = json.dumps(key)[1:-1]
    plain_json = json.dumps(key, ensure_ascii=False)[1:-1]
    forms = {
        key,
        ascii_json,
        plain_json,
        orjson.dumps(key).decode()[1:-1],
        ascii_json.replace("/", "\\/"),
        plain_json.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"),
        html.escape(key, quote=True),
        html.escape(key, quote=True).replace("&#x27;", "&apos;"),
        "".join(c if c.isascii() and c.isalnum() else f"&#{ord(c)};" for c in key),
        quote(key, safe=""),
        quote_plus(key),
        quote(quote(key, safe=""), safe=""),
    }
    return {f for f in forms if f}


def assert_hidden(text: str | bytes, key: str = KEY, where: str = "") -> None:
    """No form of ``key`` in ``text``."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    for form in forms_of(key):
        assert form not in text, f"{where}: the key stands in the output as {form!r}"


@pytest.fixture(autouse=True)
def _forget() -> Iterator[None]:
    redact.forget_all()
    yield
    redact.forget_all()


# ------------------------------------------------------------------ the redactor

ENCODERS = {
    "plain": lambda k: k,
    "json-ascii": lambda k: json.dumps(k)[1:-1],
    "json": lambda k: json.dumps(k, ensure_ascii=False)[1:-1],
    "php": lambda k: json.dumps(k)[1:-1].replace("/", "\\/"),
    "go": lambda k: json.dumps(k, ensure_ascii=False)[1:-1].replace("<", "\\u003c")
    .replace(">", "\\u003e").replace("&", "\\u0026"),
    "json-upper-hex": lambda k: json.dumps(k)[1:-1].replace("\\u", "\\U").upper()
    .replace("\\U", "\\u") if k.isascii() and not any(c.isalpha() for c in k) else
    json.dumps(k)[1:-1],
    "xml": lambda k: html.escape(k, quote=True),
    "xml-numeric": lambda k: "".join(c if c.isascii() and c.isalnum() else f"&#{ord(c)};"
                                     for c in k),
    "xml-hex": lambda k: "".join(c if c.isascii() and c.isalnum() else f"&#x{ord(c):X};"
                                 for c in k),
    "url": lambda k: quote(k, safe=""),
    "url-plus": quote_plus,
    "url-twice": lambda k: quote(quote(k, safe=""), safe=""),
    "url-lower": lambda k: "".join(f"%{b:02x}" if not (chr(b).isascii() and chr(b).isalnum())
                                   else chr(b) for b in k.encode()),
}

KEYS = st.text(st.characters(blacklist_categories=("Cs",)), min_size=6, max_size=40)


@given(key=KEYS, before=st.text(max_size=20), after=st.text(max_size=20),
       encoder=st.sampled_from(sorted(ENCODERS)))
@example(key=KEY, before="", after="", encoder="go")
@example(key="키-값/키+값 😀", before="a", after="b", encoder="json-ascii")
def test_every_written_form_of_a_key_is_masked(key: str, before: str, after: str,
                                               encoder: str) -> None:
    written = before + ENCODERS[encoder](key) + after
    r = Redactor([key])
    masked = r.text(written)
    assert r.text(masked) == masked  # nothing of the key is left to find
    assert MASK in masked
    assert r.bytes(written.encode()) == masked.encode()
    assert not r.found_in(masked) and r.found_in(written) and r.found_in(written.encode())


@given(key=KEYS, text=st.text(max_size=60))
def test_text_without_the_key_is_left_alone(key: str, text: str) -> None:
    r = Redactor([key])
    if not any(f in text for f in forms_of(key)) and not r.found_in(text):
        assert r.text(text) == text
    obj = {"a": [text, 1, None], "b": {"c": 2.5}}
    if not r.found_in(orjson.dumps(obj)):
        assert r.value(obj) is obj  # not copied


def test_a_key_in_cp949_bytes_is_masked() -> None:
    r = Redactor([KEY])
    body = ("<a>" + KEY + "</a>").encode("cp949")
    assert r.bytes(body) == b"<a>***</a>"


def test_nested_values_and_dict_keys_are_masked() -> None:
    r = Redactor([KEY, "other-secret"])
    out = r.value({"k" + KEY: [KEY, ("x", "other-secret!")], "n": 3})
    assert out == {"k***": ["***", ["x", "***!"]], "n": 3}


# ------------------------------------------------------------------ the HTTP backend

def spec(name: str, path: str, **kw: Any) -> ToolSpec:
    return validated(ToolSpec, {
        "qualname": f"dart.{name}", "name": name, "method": "GET", "path": path, "many": True,
        "at": "list", "paging": None, "declaration_hash": "h", "platform": "dart",
        "base": "https://opendart.fss.or.kr/api", "envelope": "dart", "secret": "crtfc_key",
        **kw})


def echo_backend() -> HttpBackend:
    world = World(modules=[FAKE, ECHO])
    return make_world_backend(world=world, keys={"dart": KEY},
                              options=HttpOptions(backoff=0.001, retries=0))


def call(be: HttpBackend, tool: ToolSpec, args: dict[str, object]) -> Any:
    async def go() -> Any:
        return await be.call(tool, dict(args), page=None)

    return asyncio.run(go())


@pytest.mark.parametrize("form", ["plain", "ascii", "php", "go"])
def test_a_key_echoed_in_json_is_hidden_from_records_and_raw_body(form: str) -> None:
    r = call(echo_backend(), spec("echo_forms", "/echo_forms.json"), {"form": form})
    assert r.records[0]["q"] == "x" and r.records[0]["echo"] == MASK
    assert_hidden(orjson.dumps(r.records), where=f"records ({form})")
    assert r.raw is not None and MASK.encode() in r.raw
    assert_hidden(r.raw, where=f"raw body ({form})")


@pytest.mark.parametrize("form", ["named", "numeric"])
def test_a_key_echoed_in_xml_is_hidden(form: str) -> None:
    r = call(echo_backend(), spec("echo_xml", "/echo_xml.xml"), {"form": form})
    assert r.records[0]["echo"] == MASK
    assert_hidden(orjson.dumps(r.records), where="records")
    assert_hidden(r.raw or b"", where="raw body")


@pytest.mark.parametrize("n", [1, 2000], ids=["one record", "a flat list"])
def test_a_key_inside_a_zip_hides_the_records_and_drops_the_body(n: int) -> None:
    # 2,000 records decode to a FlatTable (corpCode.xml's path): its text is searched, not
    # records built for the search
    r = call(echo_backend(), spec("echo_zip", "/echo_zip.xml", at=None), {"n": n})
    assert len(r) == n and r.records[0]["corp_name"] == MASK
    assert all(rec["corp_name"] == "x" for rec in r.records[1:])
    assert r.raw is None  # a compressed body cannot be masked in place: not kept


@pytest.mark.parametrize("tool", [spec("echo_refused", "/echo_refused.json"),
                                  spec("echo_page", "/echo_page.json")])
def test_a_key_echoed_in_a_failure_is_hidden_from_its_message(tool: ToolSpec) -> None:
    with pytest.raises(ToolFailure) as info:
        call(echo_backend(), tool, {})
    assert_hidden(info.value.message, where="failure message")
    assert_hidden(str(info.value), where="failure")


@pytest.mark.parametrize("pad", range(125, 160, 3))
def test_a_key_cut_off_at_the_end_of_a_message_leaves_no_part(pad: int) -> None:
    # a message quotes the first 160 characters of an HTML page: masked before it is cut
    with pytest.raises(ToolFailure) as info:
        call(echo_backend(), spec("echo_page", "/echo_page.json"), {"pad": pad, "form": "plain"})
    message = info.value.message
    assert message.endswith("…") or "***" in message
    for n in range(6, len(KEY) + 1):
        assert KEY[:n] not in message, f"{n} characters of the key survive"


def test_a_short_key_is_masked_by_its_backend_but_not_remembered() -> None:
    r = Redactor(["k7"])
    assert r.text("ak7b") == "a***b"
    redact.remember("k7")
    assert not redact.remembered() and redact.scrub("DuckDB k7") == "DuckDB k7"


def test_a_real_key_is_remembered_and_the_default_key_is_not() -> None:
    be = echo_backend()
    call(be, spec("echo_forms", "/echo_forms.json"), {})
    assert redact.scrub(f"x {KEY} y") == "x *** y"
    redact.forget_all()
    world = make_world_backend(world=World(modules=[FAKE, ECHO]))
    call(world, spec("echo_forms", "/echo_forms.json"), {})
    assert not redact.remembered()  # the world's public default key is nothing to hide


# ------------------------------------------------------------------ the secret-leak probe

PROGRAM = """use law

trajectory leak "열쇠로 법령을 찾는다" {{
  found = law.law_search(query: {query})
  answer {{ n: count(found), names: found.법령명한글 }}
  say "{{{{ n }}}}건"
}}
"""


def _edge_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _tables(path: Path) -> Iterator[tuple[str, str]]:
    """Every cell of every table of the store at ``path`` as text: (table, cell)."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        names = [r[0] for r in con.execute(
            "SELECT table_name FROM information_schema.tables").fetchall()]
        for name in names:
            quoted = '"' + name.replace('"', '""') + '"'
            for row in con.execute(f"SELECT * FROM {quoted}").fetchall():
                for cell in row:
                    if isinstance(cell, bytes):
                        yield name, cell.decode("utf-8", "replace")
                    elif cell is not None:
                        yield name, str(cell)
    finally:
        con.close()


def test_a_planted_key_reaches_no_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    prog = tmp_path / "leak.edge"
    prog.write_text(PROGRAM.format(query=_edge_string(KEY)), encoding="utf-8")
    store, trace = tmp_path / "rec.duckdb", tmp_path / "trace.json"
    with serve_asgi(make_app(World(seed=0))) as url:
        monkeypatch.setenv("EDGEDSL_KEY_LAW", KEY)
        monkeypatch.setenv("EDGEDSL_BASE_LAW", url + "/DRF")
        monkeypatch.setenv("EDGEDSL_DEBUG", "1")
        code = cli.main(["run", str(prog), "--backend", "http", "--record", str(store),
                         "--trace", str(trace)])
        out = capsys.readouterr()
        assert code == 0, out.err
        assert "== leak [ok]" in out.out
        code = cli.main(["run", str(prog), "--backend", "http", "--json"])
        json_out = capsys.readouterr()
        assert code == 0, json_out.err
        code = cli.main(["store", "drift", str(store), "--backend", "http", "--json"])
        drift = capsys.readouterr()
        assert code in (0, 1), drift.err
    for name, text in (("stdout", out.out), ("stderr", out.err), ("--json", json_out.out),
                       ("drift", drift.out + drift.err)):
        assert_hidden(text, where=name)
    assert_hidden(trace.read_bytes(), where="trace")
    cells = list(_tables(store))
    assert any(MASK in cell for _, cell in cells)  # the echoed key was recorded, masked
    for table, cell in cells:
        assert_hidden(cell, where=f"store table {table}")
    for argv in (["store", "stats", str(store), "--json"], ["store", "export", str(store)]):
        assert cli.main(argv) == 0
        shown = capsys.readouterr()
        assert_hidden(shown.out + shown.err, where=" ".join(argv[:2]))


def test_a_key_in_an_internal_error_is_hidden_from_stderr(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    prog = tmp_path / "leak.edge"
    prog.write_text(PROGRAM.format(query='"민법"'), encoding="utf-8")
    redact.remember(KEY)

    def broken(trace: Any) -> str:
        raise RuntimeError(f"cannot summarise a trace for key {KEY}")

    monkeypatch.setattr("edgedsl.runtime.trace.trace_summary", broken)
    monkeypatch.setenv("EDGEDSL_DEBUG", "1")
    assert cli.main(["run", str(prog)]) == 2
    err = capsys.readouterr().err
    assert "internal error (RuntimeError)" in err and "Traceback" in err
    assert_hidden(err, where="stderr")


@pytest.mark.slow
def test_a_planted_key_reaches_no_synthesized_file_or_export(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # synthesis over the http backend, every platform pointed at `world serve` with a key of
    # its own; the corpus (.edge files, task records, report) and the exports hold none. G* on
    # the four light platforms (tests/synth_world.py): four ways of sending a key (NEIS and the
    # Assembly `KEY`, the expressway corporation `key`, data.go.kr's `serviceKey` for the NEC)
    # at a fifth of the full G*'s cost
    from urllib.parse import urlsplit

    from edgedsl.check import load_catalog
    from edgedsl.recipe.graph.model import save_graph
    from edgedsl.runtime.http import base_env_var, key_env_var
    from tests.synth_world import light_graph

    catalog = load_catalog(["dart", "fsc", "neis", "law", "assembly", "nec", "ex", "bus",
                            "region", "seoul"])
    keys = {name: KEY + name for name, p in catalog.platforms.items() if p.base}
    corpus = tmp_path / "corpus"
    graph = tmp_path / "light.json"
    save_graph(light_graph(), graph)
    world = World(seed=0)
    with serve_asgi(make_app(world)) as url:
        for name, key in keys.items():
            monkeypatch.setenv(base_env_var(name), url + urlsplit(
                catalog.platforms[name].base or "").path)
            monkeypatch.setenv(key_env_var(name), key)
        code = cli.main(["synth", "run", "-n", "3", "-o", str(corpus), "--backend", "http",
                         "--workers", "1", "--graph", str(graph)])
        shown = capsys.readouterr()
        assert code == 0, shown.err
    assert len(world._known & set(keys.values())) >= 3  # the keys were really sent
    outputs = {f.name: f.read_bytes() for f in corpus.iterdir()}
    assert any(name.endswith(".edge") for name in outputs)
    for fmt in ("sft", "steps"):
        out = tmp_path / f"{fmt}.jsonl"
        assert cli.main(["synth", "export", str(corpus), "--format", fmt, "-o", str(out)]) == 0
        outputs[out.name] = out.read_bytes()
    shown_after = capsys.readouterr()
    outputs["stdout+stderr"] = (shown.out + shown.err + shown_after.out
                                + shown_after.err).encode()
    for name, data in outputs.items():
        for key in keys.values():
            assert_hidden(data, key, where=name)
