"""The request-body limit through a real ``edgedsl world serve --max-body`` on 127.0.0.1 (a
child process): an oversized body — streamed, or declared by ``Content-Length`` — is answered
413 in the family's envelope, the server does not read it (its peak memory does not grow by the
body's size) and keeps answering afterwards. Linux only (the server's memory is read from
``/proc``)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import orjson
import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(),
                                reason="reads the server's memory from /proc")

LIMIT = 64 << 10
BASE = "/portal/openapi/"
REGIST = BASE + "lgsltpaOpnRegist?Type=json&KEY=k"
CHUNK = 64 << 10
HUGE = 256 << 20


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[subprocess.Popen[bytes],
                                                                     str]]:
    """``edgedsl world serve --max-body 65536`` on a free port of 127.0.0.1 (a few tries: the
    port is free when chosen, another process may take it before the server binds it)."""
    log = tmp_path_factory.mktemp("serve") / "stderr.txt"
    for _ in range(3):
        port = _free_port()
        with log.open("wb") as err:
            proc = subprocess.Popen(
                [sys.executable, "-m", "edgedsl", "world", "serve", "--port", str(port),
                 "--max-body", str(LIMIT)], stdout=subprocess.DEVNULL, stderr=err)
        deadline = time.monotonic() + 60
        while proc.poll() is None and not _listening(port) and time.monotonic() < deadline:
            time.sleep(0.05)
        if proc.poll() is None and _listening(port):
            break
        proc.kill()
        proc.wait()
    else:
        pytest.fail(f"edgedsl world serve did not start: {log.read_text()}")
    try:
        yield proc, f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _memory(proc: subprocess.Popen[bytes]) -> dict[str, int]:
    """The process's resident memory now and at its peak (``VmRSS``, ``VmHWM``), bytes."""
    out = {}
    for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            out[name] = int(value.split()[0]) * 1024
    return out


def _notice_bill(base: str) -> str:
    r = httpx.get(base + BASE + "nknalejkafmvgzmpt",
                  params={"KEY": "k", "Type": "json", "pSize": "1"}, timeout=60)
    return str(r.json()["nknalejkafmvgzmpt"][1]["row"][0]["BILL_ID"])


def _healthy(base: str, bill: str) -> None:
    """The server answers a read and a write."""
    r = httpx.get(base + BASE + "lgsltpaOpnList",
                  params={"KEY": "k", "Type": "json", "BILL_ID": bill}, timeout=60)
    assert r.status_code == 200
    w = httpx.post(base + REGIST, data={"BILL_ID": bill, "WRTR_NM": "홍길동", "SBJCT": "s",
                                        "CN": "c", "AGRE_DSAGRE": "찬성"}, timeout=60)
    assert w.status_code == 200 and "lgsltpaOpnRegist" in w.json()


class Offered:
    """A streamed body of ``total`` bytes (one chunk object sent again and again); ``sent``
    counts the chunks the client took to send."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.sent = 0
        self._chunk = b"x" * CHUNK

    def __iter__(self) -> Iterator[bytes]:
        for _ in range(self.total // CHUNK):
            self.sent += 1
            yield self._chunk


def test_the_flag_sets_the_limit(served: tuple[subprocess.Popen[bytes], str]) -> None:
    _, base = served
    bill = _notice_bill(base)
    form = {"BILL_ID": bill, "WRTR_NM": "홍길동", "SBJCT": "s", "AGRE_DSAGRE": "찬성"}
    under = httpx.post(base + REGIST, data={**form, "CN": "c", "pad": "x" * (60 << 10)},
                       timeout=60)
    assert under.status_code == 200
    over = httpx.post(base + REGIST, data={**form, "CN": "c", "pad": "x" * (100 << 10)},
                      timeout=60)  # well under the default 1 MiB: refused by the flag's limit
    assert over.status_code == 413
    assert over.json()["RESULT"]["CODE"] == "ERROR-413"
    assert "65,536 bytes" in over.json()["RESULT"]["MESSAGE"]


def test_an_oversized_streamed_body_is_refused_unread_and_the_server_stays_healthy(
        served: tuple[subprocess.Popen[bytes], str]) -> None:
    proc, base = served
    bill = _notice_bill(base)
    _healthy(base, bill)  # warm: the datasets these calls use are built
    before = _memory(proc)
    body = Offered(HUGE)
    # the server answers and closes while the client still writes; httpx reads the answer
    r = httpx.post(base + REGIST, content=body, timeout=60)
    assert r.status_code == 413 and r.headers["connection"] == "close"
    assert orjson.loads(r.content)["RESULT"]["CODE"] == "ERROR-413"
    # the client could write no more than the socket buffers hold once the server stopped
    assert body.sent * CHUNK < HUGE // 4
    after = _memory(proc)
    assert after["VmHWM"] - before["VmHWM"] < 32 << 20, (before, after)
    assert proc.poll() is None
    _healthy(base, bill)


def test_a_declared_length_over_the_limit_is_answered_before_the_body(
        served: tuple[subprocess.Popen[bytes], str]) -> None:
    proc, base = served
    bill = _notice_bill(base)
    _healthy(base, bill)
    before = _memory(proc)
    port = int(base.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(f"POST {REGIST} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  f"Content-Type: application/x-www-form-urlencoded\r\n"
                  f"Content-Length: {300 << 20}\r\n\r\n".encode())
        s.sendall(b"x" * CHUNK)  # a first chunk; the rest is never sent
        head = b""
        while b"\r\n\r\n" not in head:
            got = s.recv(65536)
            if not got:
                break
            head += got
    assert head.startswith(b"HTTP/1.1 413"), head[:200]
    assert b"connection: close" in head.lower()
    after = _memory(proc)
    assert after["VmHWM"] - before["VmHWM"] < 32 << 20, (before, after)
    _healthy(base, bill)


@pytest.mark.parametrize("bad", ["0", "-5"])
def test_a_max_body_that_is_not_positive_is_a_usage_error(
        bad: str, capsys: pytest.CaptureFixture[str]) -> None:
    from edgedsl.cli import main

    assert main(["world", "serve", "--max-body", bad]) == 2
    assert f"argument --max-body: {int(bad)} is not positive" in capsys.readouterr().err


def test_a_long_url_is_414_in_the_envelope(
        served: tuple[subprocess.Popen[bytes], str]) -> None:
    _, base = served
    url = base + BASE + "nwvrqwxyaytdsfvhu"
    r = httpx.get(url, params={"KEY": "k", "Type": "json", "HG_NM": "x" * (10 << 10)},
                  timeout=60)
    assert r.status_code == 414 and r.json()["RESULT"]["CODE"] == "ERROR-413"
    # a 1 MiB request line (longer than httpx sends): the app's 414, or uvicorn's own 400 for
    # a request head it will not parse
    port = int(base.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(f"GET {BASE}nwvrqwxyaytdsfvhu?KEY=k&Type=json&HG_NM=".encode()
                  + b"x" * (1 << 20) + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        head = s.recv(64)
    assert head.startswith((b"HTTP/1.1 400", b"HTTP/1.1 414")), head
    assert httpx.get(url, params={"KEY": "k", "Type": "json", "pSize": "1"},
                     timeout=60).status_code == 200
