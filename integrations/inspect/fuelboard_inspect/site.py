"""A Fuelboard site as the integration reads it: its public API (cases, their kits) and, with an
operator's token, its submissions endpoint. Plain HTTP (httpx), no Django."""

from __future__ import annotations

import io
import json
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

import httpx

FINAL = {"scored", "build_failed", "invalid_module", "error"}


class SiteError(Exception):
    """What the site said (or why it could not be asked), in one line."""


@dataclass(frozen=True)
class Kit:
    """A version's kit for one variant, unpacked: the run root's files, the contract, the meter."""

    case: str
    version: str
    variant: str
    folder: Path  # the unpacked kit: README.md, run/, meter/
    first_published_at: str

    @property
    def run_files(self) -> dict[str, bytes]:
        root = self.folder / "run"
        return {path.relative_to(root).as_posix(): path.read_bytes() for path in sorted(root.rglob("*"))
                if path.is_file()}

    @property
    def prompt(self) -> str:
        return (self.folder / "run" / "PROMPT.md").read_text("utf-8")

    @property
    def contract(self) -> dict:
        return json.loads((self.folder / "meter" / "contract.json").read_text("utf-8"))


class Site:
    def __init__(self, url: str, token: str | None = None, timeout: float = 60.0):
        self.url = url.rstrip("/")
        self.token = token
        self.client = httpx.Client(timeout=timeout, follow_redirects=True)

    def _get(self, path: str, **params) -> httpx.Response:
        try:
            answer = self.client.get(self.url + path if path.startswith("/") else path, params=params or None)
        except httpx.HTTPError as error:
            raise SiteError(f"{self.url} cannot be reached: {error}") from None
        if answer.status_code >= 400:
            raise SiteError(f"{self.url}{path} answered {answer.status_code}: {_detail(answer)}")
        return answer

    def cases(self, *, difficulty: str | None = None, tag: str | None = None) -> list[dict]:
        """Every case the site shows (its latest published version), following the pages."""
        found, path = [], "/api/v1/cases/"
        params = {key: value for key, value in (("difficulty", difficulty), ("tag", tag),
                                                 ("page_size", 200)) if value}
        while path:
            document = self._get(path, **params).json()
            found.extend(document["results"])
            path, params = document["next"], {}
        return found

    def case(self, slug: str) -> dict:
        return self._get(f"/api/v1/cases/{slug}/").json()

    def kit(self, url: str, folder: Path) -> None:
        """Download a kit and unpack it into `folder` (made afresh), never outside it."""
        data = self._get(url).content
        folder.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for member in archive.infolist():
                target = (folder / member.filename).resolve()
                if not target.is_relative_to(folder.resolve()) or member.is_dir():
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(archive.read(member))

    def submit(self, *, case: str, version: str, variant: str, name: str, source: bytes, run: dict) -> dict:
        """Send an entry (a packed source) with its run fields; the entry's document."""
        if not self.token:
            raise SiteError("no operator token: give the task token=… (manage.py api_token create NAME)")
        try:
            answer = self.client.post(
                self.url + "/api/v1/submissions/", headers={"Authorization": f"Bearer {self.token}"},
                data={"case": case, "version": version, "variant": variant, "name": name, "meta": json.dumps(run)},
                files={"source": ("workspace.tar.gz", source, "application/gzip")})
        except httpx.HTTPError as error:
            raise SiteError(f"{self.url} cannot be reached: {error}") from None
        if answer.status_code not in (200, 202):
            raise SiteError(f"the site refused the entry ({answer.status_code}): {_detail(answer)}")
        return answer.json()

    def wait(self, submission: int, seconds: float, every: float = 2.0) -> dict:
        """The entry's document once it is in a final state; SiteError after `seconds`."""
        deadline = time.monotonic() + seconds
        while True:
            document = self._get(f"/api/v1/submissions/{submission}/").json()
            if document["status"] in FINAL:
                return document
            if time.monotonic() > deadline:
                raise SiteError(f"entry #{submission} was still {document['status']} after {seconds:g} s "
                                "(is a task worker running?)")
            time.sleep(every)


def _detail(answer: httpx.Response) -> str:
    try:
        document = answer.json()
    except ValueError:
        return answer.text[:200].strip() or answer.reason_phrase
    if isinstance(document, dict):
        return str(document.get("detail") or document.get("title") or document)[:300]
    return str(document)[:300]
