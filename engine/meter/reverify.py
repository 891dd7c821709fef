"""`python3 meter reverify BASE_URL SUBMISSION`: measure an entry of a retired version again, here,
from what the site publishes once a version is retired — the entry's document, the module it ran,
the version's held-out inputs and expected answers, and the version's contract (from its kit) —
and say whether every input gives the status and fuel the site stored: `identical`, or the first
difference.

Exit status: 0 identical, 1 a difference, 2 when nothing could be measured (the site cannot be
reached, the version is current, a download does not match its digest, another engine).
Standard library only besides the meter's own engine: it runs from an unpacked kit.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import lzma
import os
import re
import signal
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
import zlib
from typing import TextIO

from engine.kinds import Kind
from engine.measure import Item, inputs, measure_module
from engine.meter.contract import Contract, ContractError, parse_contract
from engine.meter.metering import check_engine
from engine.sandbox import ENGINE_DIGEST, WASMTIME_VERSION, InvalidModule, ModuleCache

IDENTICAL, DIFFERENT, REFUSED = 0, 1, 2
DOCUMENT_BYTES = 16 << 20  # an entry's or a version's JSON document
ARCHIVE_BYTES = 2 << 30  # a kit, or a version's held-out data, as downloaded and as unpacked in all
CHUNK = 1 << 20
READ_SECONDS = 120  # the longest the site may leave one read waiting
DOWNLOAD_SECONDS = 600  # one download, whole: a site sending a byte now and then is given up on too
MODULE_BYTES = 256 << 20  # the most a module is read, whatever the site's contract says
CONTRACT = "meter/contract.json"
MANIFEST = "manifest.json"


class Refused(Exception):
    """Nothing could be measured; the message says why."""


class _HttpOnly(urllib.request.HTTPRedirectHandler):
    """Redirects are followed only to http(s) addresses, checked before they are followed."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        if urllib.parse.urlsplit(newurl).scheme not in ("http", "https"):
            raise Refused(f"{req.what}: {req.full_url} led to {newurl!r}, not an http(s) address")
        followed = super().redirect_request(req, fp, code, msg, headers, newurl)
        if followed is not None:
            followed.what = req.what
        return followed


_opener = urllib.request.build_opener(_HttpOnly)


class _whole_download_within:
    """In the main thread (the command's), an alarm that ends the download after `seconds`
    whatever the site is doing — headers or chunk trailers sent a byte at a time included; elsewhere
    the deadline between reads is all there is."""

    def __init__(self, seconds: float, message: str):
        self.seconds, self.message = seconds, message
        self.armed = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")

    def _ring(self, signum, frame):
        raise Refused(self.message)

    def __enter__(self):
        if self.armed:
            self.previous = signal.signal(signal.SIGALRM, self._ring)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
        return self

    def __exit__(self, *exc):
        if self.armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous)
        return False


def fetch(url: str, limit: int, what: str) -> bytes:
    """The body at `url`, at most `limit` bytes, within DOWNLOAD_SECONDS. Raises Refused."""
    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        raise Refused(f"{what}: {url!r} is not an http(s) address")
    request = urllib.request.Request(url, headers={"Accept": "application/json, */*"})
    request.what = what
    chunks, size = [], 0
    deadline = time.monotonic() + DOWNLOAD_SECONDS
    try:
        with _whole_download_within(DOWNLOAD_SECONDS, f"{what}: {url} took more than {DOWNLOAD_SECONDS} s"), \
                _opener.open(request, timeout=READ_SECONDS) as answer:
            while chunk := answer.read1(CHUNK):  # read as it comes, never more than the limit at once
                size += len(chunk)
                if size > limit:
                    raise Refused(f"{what}: {url} sent more than {limit:,} bytes")
                if time.monotonic() > deadline:
                    raise Refused(f"{what}: {url} took more than {DOWNLOAD_SECONDS} s to send {size:,} bytes")
                chunks.append(chunk)
    except urllib.error.HTTPError as error:
        raise Refused(f"{what}: {url} answered {error.code} ({error.reason})") from None
    except (urllib.error.URLError, OSError, ValueError) as error:
        raise Refused(f"{what}: {url} cannot be reached ({getattr(error, 'reason', error)})") from None
    return b"".join(chunks)


def fetch_json(url: str, what: str) -> dict:
    try:
        document = json.loads(fetch(url, DOCUMENT_BYTES, what))
    except ValueError:
        raise Refused(f"{what}: {url} did not answer with JSON") from None
    if not isinstance(document, dict):
        raise Refused(f"{what}: {url} did not answer with a JSON object")
    return document


class Members:
    """A downloaded zip's members, read at most once each and within one budget for them all
    (a zip's sizes are its own claims: what is read is counted)."""

    def __init__(self, data: bytes, what: str, budget: int):
        self.what, self.budget = what, budget
        try:
            self.archive = zipfile.ZipFile(io.BytesIO(data))
        except (zipfile.BadZipFile, ValueError):
            raise Refused(f"{what} is not a zip") from None

    def read(self, name: str) -> bytes:
        # A member read again (two cases may share an input) counts against the budget again.
        try:
            info = self.archive.getinfo(name)
        except KeyError:
            raise Refused(f"{self.what} holds no {name}") from None
        chunks = []
        try:
            with self.archive.open(info) as stream:
                while chunk := stream.read(CHUNK):
                    self.budget -= len(chunk)
                    if self.budget < 0:
                        raise Refused(f"{self.what} unpacks to more than {ARCHIVE_BYTES:,} bytes")
                    chunks.append(chunk)
        except Refused:
            raise
        # What zipfile raises for a damaged member: NotImplementedError for a compression method it
        # does not support, RuntimeError for an encrypted one (as lib/unpack.py reads archives).
        except (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, NotImplementedError, RuntimeError,
                OSError, ValueError) as error:
            raise Refused(f"{self.what}: {name} cannot be read ({error})") from None
        return b"".join(chunks)


def published(base: str, number: int) -> tuple[dict, Contract, list[Item], bytes]:
    """The entry's document, its version's contract, the held-out inputs as the site ran them,
    and the module. Raises Refused."""
    api = base.rstrip("/") + "/api/v1/"
    entry = fetch_json(f"{api}submissions/{number}/", f"entry #{number}")
    case, version, variant = entry["case"], entry["version"], entry["variant"]
    detail = fetch_json(f"{api}cases/{urllib.parse.quote(case)}/?version={urllib.parse.quote(version)}",
                        f"{case} {version}")
    if not detail.get("retired_at"):
        raise Refused(f"{case} {version} is current: its held-out inputs and its entries' modules are published "
                      "only once it is retired")
    if not entry.get("module_url"):
        raise Refused(f"entry #{number} has no published module (it built none, or it was scored before the site "
                      "kept modules)")
    kits = [found["kit_url"] for found in detail["variants"] if found["slug"] == variant]
    if not kits:
        raise Refused(f"{case} {version} has no variant {variant}")
    kit = Members(fetch(kits[0], ARCHIVE_BYTES, "the kit"), "the kit", ARCHIVE_BYTES)
    try:
        contract = parse_contract(kit.read(CONTRACT).decode("utf-8"), CONTRACT)
    except UnicodeDecodeError:
        raise Refused(f"the kit's {CONTRACT} is not UTF-8") from None
    del kit  # only its contract was needed: its bytes go before the next download
    if (contract.case, contract.version, contract.variant) != (case, version, variant):
        raise Refused(f"the kit's contract is for {contract.case} {contract.version} ({contract.variant}), not for "
                      f"the entry's {case} {version} ({variant})")
    module = fetch(entry["module_url"], min(contract.module_bytes, MODULE_BYTES), "the module")
    if hashlib.sha256(module).hexdigest() != entry.get("module_sha256"):
        raise Refused(f"the module at {entry['module_url']} is not the one entry #{number} ran (its SHA-256 differs)")
    data = Members(fetch(detail["held_out_url"], ARCHIVE_BYTES, "the held-out data"), "the held-out data",
                   ARCHIVE_BYTES)
    try:
        manifest = json.loads(data.read(MANIFEST))
    except ValueError:
        raise Refused(f"the held-out data's {MANIFEST} is not JSON") from None
    runways = [(runway.input, runway.kind, runway.ceiling) for runway in contract.runways]
    listed = [(item["input"], item["kind"], int(item["ceiling"])) for item in manifest["inputs"]]
    if listed != runways:
        raise Refused("the held-out data lists other inputs, kinds or ceilings than the version's contract")
    items = []
    for item in manifest["inputs"]:
        given, expected = data.read(item["input"]), data.read(item["expected"])
        if (hashlib.sha256(given).hexdigest(), hashlib.sha256(expected).hexdigest()) != (
                item["input_sha256"], item["expected_sha256"]):
            raise Refused(f"the held-out data's {item['input']} does not match its manifest's SHA-256")
        items.append(Item(Kind(item["kind"]), item["input"], given, expected, int(item["ceiling"])))
    return entry, contract, items, module


def check_counted_by(entry: dict, contract: Contract) -> None:
    """Refuse unless this meter runs the engine that counted the entry (the entry names it: a
    version retired long ago was counted by the engine of its day, whatever the site runs now);
    an entry that names none is held to its contract's."""
    engine = entry.get("engine")
    if not engine:
        check_engine(contract)
        return
    found = re.fullmatch(r"(\d{1,4}\.\d{1,4}\.\d{1,4}) \(([0-9a-f]{12}|configuration not recorded)\)", str(engine)[:80])
    if found is None:
        raise Refused("the site names the engine that counted this entry in a form this meter does not know")
    release, configuration = found.groups()
    here = f"{WASMTIME_VERSION} ({ENGINE_DIGEST})"
    if release != WASMTIME_VERSION:
        raise Refused(f"the site counted this entry with wasmtime {engine}; this meter counts with {here}, whose "
                      f"counts could differ: measure it with that release (pip install wasmtime=={release} in the "
                      f"meter's environment)")
    if configuration not in (ENGINE_DIGEST, "configuration not recorded"):
        raise Refused(f"the site counted this entry with wasmtime {engine}, another engine configuration than this "
                      f"meter's ({ENGINE_DIGEST}): measure it with the kit of the site's code of that time")


def compare(entry: dict, outcomes: list[tuple[str, str, int | None]]) -> str | None:
    """The first input, in the version's order, whose status or fuel differs from what the site
    stored, in words; None when every one is the same."""
    stored = [(row["input"], row["status"], row["fuel"]) for row in entry["results"]]
    if [row[0] for row in stored] != [name for name, _, _ in outcomes]:
        return (f"the site stored results for other inputs ({len(stored)} of them, the version has "
                f"{len(outcomes)})")
    for (name, site_status, site_fuel), (_, status, fuel) in zip(stored, outcomes):
        if (site_status, site_fuel) != (status, fuel):
            return f"{name}: the site stored {site_status} with {_fuel(site_fuel)}, here {status} with {_fuel(fuel)}"
    return None


def _fuel(fuel: int | None) -> str:
    return "no fuel figure" if fuel is None else f"{fuel:,} fuel"


def reverify(base: str, number: int, *, threads: int, out: TextIO, err: TextIO, as_json: bool) -> int:
    try:
        entry, contract, items, module = published(base, number)
        check_counted_by(entry, contract)
    except (Refused, ContractError) as refused:
        err.write(f"meter reverify: {refused}\n")
        return REFUSED
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError, RecursionError) as damaged:
        err.write(f"meter reverify: the site's documents are not as expected ({damaged!r:.200})\n")
        return REFUSED
    limits = contract.limits
    cache = ModuleCache(None, compile_seconds=limits.compile_seconds, compile_memory_bytes=limits.compile_memory_bytes)
    err.write(f"measuring entry #{number} ({entry['case']} {entry['version']}) on {len(items)} held-out inputs\n")
    try:
        reading = measure_module(module, inputs(items, limits), contract.task, limits, cache=cache, threads=threads)
        outcomes = [(item.name, outcome.status.value, outcome.fuel)
                    for item, outcome in zip(items, reading.evaluation.outcomes, strict=True)]
        difference = compare(entry, outcomes)
    except InvalidModule as invalid:
        outcomes = []
        difference = (None if entry.get("status") == "invalid_module" else
                      f"the module is refused here: {invalid.message}")
    except (KeyError, TypeError, ValueError, OverflowError, RecursionError) as damaged:
        err.write(f"meter reverify: the entry's results are not as expected ({damaged!r:.200})\n")
        return REFUSED
    if as_json:
        out.write(json.dumps({"submission": number, "outcome": "different" if difference else "identical",
                              "difference": difference or "",
                              "results": [{"input": name, "status": status, "fuel": fuel}
                                          for name, status, fuel in outcomes]}) + "\n")
    else:
        out.write(f"different: {difference}\n" if difference else "identical\n")
    return DIFFERENT if difference else IDENTICAL


def reverify_main(argv: list[str], *, prog: str) -> int:
    parser = argparse.ArgumentParser(
        prog=prog, description="Measure an entry of a retired version again from what the site publishes (its "
                               "module, the version's held-out inputs and answers and its contract) and compare "
                               "every input's status and fuel with what the site stored.")
    parser.add_argument("base_url", help="the site, e.g. https://fuelboard.example.org")
    parser.add_argument("submission", type=int, help="the entry's number (#N)")
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                        help="inputs run at once (the figures do not depend on it; default: one per core)")
    args = parser.parse_args(argv)
    if args.threads < 1:
        parser.error("--threads must be at least 1")
    return reverify(args.base_url, args.submission, threads=args.threads, out=sys.stdout, err=sys.stderr,
                    as_json=args.json)
