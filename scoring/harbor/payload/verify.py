"""The verifier of an exported Harbor task: `tests/verify.py`, started by `tests/test.sh` once the
agent is done (docs/harbor.md). It needs Python and the fuel meter's requirements only (the
image's meter environment), nothing of the site, and it reads its files beside itself.

1. The workspace's `samples/` is put back as the run root was seeded (from `run/samples/` here):
   what is metered is the case's own samples, whatever the agent did to its copies.
2. `python3 meter check WORKSPACE` (`meter/` here: the kit's fuel meter and the version's
   contract) builds the workspace with the case's build command, offline as the site builds, and
   meters the module on every sample as the site measures an entry.
3. Without a token (FUELBOARD_TOKEN unset or empty), the reward is 1 when every sample passed and
   0 otherwise. With one, the workspace is sent to the site (FUELBOARD_URL) with the task's run
   record, naming the harness "harbor" (and the model FUELBOARD_MODEL, when set), under the
   submitter name FUELBOARD_NAME; it is followed until its job is over, and the reward is its
   speedup against the version's reference entry (1 without one) when it passed every held-out
   input, and 0 otherwise.

The reward goes to REWARDS/reward.txt, where Harbor reads it.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEEDED_AT = Path("/opt/fuelboard/seeded-at")  # when the image laid the run root out (the task's Dockerfile)
EXCLUDED_DIRECTORIES = {".git", "target"}  # what the site leaves out of a submitted folder (engine/builds/packing.py)
FINISHED_JOBS = ("done", "failed")
POLL_SECONDS = 5.0
POLL_FAILURES = 10  # polls that may fail in a row (the site restarting, the network) before it gives up
TIMEOUT_SECONDS = 120


class SiteError(Exception):
    """The site refused a request (its problem document's words) or could not be reached."""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="Meter a workspace on the case's samples, or score it on a "
                                                 "Fuelboard site, and write Harbor's reward.")
    parser.add_argument("--workspace", type=Path, required=True, help="the run root the agent worked in")
    parser.add_argument("--rewards", type=Path, required=True, help="the folder reward.txt is written to")
    args = parser.parse_args(argv)
    restore_samples(HERE / "run" / "samples", args.workspace / "samples")
    every_sample_passed = meter_check(args.workspace)
    token = os.environ.get("FUELBOARD_TOKEN", "")
    if token:
        reward = site_reward(os.environ.get("FUELBOARD_URL", "").rstrip("/"), token, args.workspace)
    else:
        reward = 1.0 if every_sample_passed else 0.0
    args.rewards.mkdir(parents=True, exist_ok=True)
    (args.rewards / "reward.txt").write_text(f"{reward:.17g}\n")  # 17 digits: the float itself
    print(f"reward: {reward:.17g}")
    return 0


def restore_samples(seeded: Path, samples: Path) -> None:
    if samples.is_symlink() or samples.is_file():
        samples.unlink()
    elif samples.exists():
        shutil.rmtree(samples)
    if seeded.is_dir():  # a version without samples seeds none, and the meter then has nothing to check
        shutil.copytree(seeded, samples)


def meter_check(workspace: Path) -> bool:
    """`python3 meter check WORKSPACE`, its table on this script's output: whether every sample passed."""
    environment = {**os.environ, "CARGO_NET_OFFLINE": "true"}
    done = subprocess.run([sys.executable, str(HERE / "meter"), "check", str(workspace)], env=environment)
    print(f"meter check: exit status {done.returncode} (0: every sample passed)", flush=True)
    return done.returncode == 0


def speedup(reference_fuel: int, fuel: int) -> float:
    """The site's speedup (scoring/boards/places.py `speedup`, a test holds them equal)."""
    return max(reference_fuel, 1) / max(fuel, 1)


def site_reward(url: str, token: str, workspace: Path) -> float:
    if not url:
        print("FUELBOARD_TOKEN is set but FUELBOARD_URL is empty: nothing was sent; reward 0")
        return 0.0
    try:
        entry = follow(url, submit(url, token, workspace))
        print(f"entry {entry['url']}: status {entry['status']}, passed {entry['passed']}, "
              f"total fuel {entry['total_fuel']}: {entry['message'] or 'no message'}")
        if not entry["passed"]:
            return 0.0
        board = get(url, f"/api/v1/cases/{quoted(entry['case'])}/leaderboard/?"
                         + urllib.parse.urlencode({"version": entry["version"], "page_size": 1}))
    except SiteError as error:
        print(f"the site: {error}; reward 0")
        return 0.0
    if board["reference_fuel"] is None:
        print("the version has no reference entry: the reward of a passed entry is 1")
        return 1.0
    return speedup(board["reference_fuel"], entry["total_fuel"])


def submit(url: str, token: str, workspace: Path) -> dict:
    """POST /api/v1/submissions/: the packed workspace, with the run record."""
    body, content_type = form({"name": os.environ.get("FUELBOARD_NAME") or "harbor"},
                              {"source": ("workspace.tar.gz", packed(workspace)), "record": ("record.json", record())})
    request = urllib.request.Request(f"{url}/api/v1/submissions/", data=body, method="POST", headers={
        "Authorization": f"Bearer {token}", "Content-Type": content_type, "Accept": "application/json"})
    entry = answer(request)
    print(f"sent: entry {entry['submission']} ({entry['case']} {entry['version']}, variant {entry['variant']})")
    return entry


def follow(url: str, entry: dict) -> dict:
    """The entry once its job is over: polled (as anyone reads it, without the token's requests)."""
    failures = 0
    while entry["job"] not in FINISHED_JOBS:
        time.sleep(POLL_SECONDS)
        try:
            entry = get(url, f"/api/v1/submissions/{int(entry['submission'])}/")
            failures = 0
        except SiteError:
            failures += 1
            if failures >= POLL_FAILURES:
                raise
    return entry


def get(url: str, path: str) -> dict:
    return answer(urllib.request.Request(url + path, headers={"Accept": "application/json"}))


def answer(request: urllib.request.Request) -> dict:
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:
        try:
            problem = json.loads(error.read())
            said = f"{problem.get('code', '')}: {problem.get('detail', '')}"
        except (ValueError, AttributeError):
            said = error.reason
        raise SiteError(f"{request.get_method()} {request.full_url}: {error.code} {said}") from None
    except (urllib.error.URLError, OSError, ValueError) as error:
        raise SiteError(f"{request.get_method()} {request.full_url}: {error}") from None


def record() -> bytes:
    """The task's run record (record.json here), with when the run root was laid out and the run's fields."""
    document = json.loads((HERE / "record.json").read_text())
    try:
        document["seeded_at"] = SEEDED_AT.read_text().strip()
    except OSError:  # outside the task's image: the time it is verified
        document["seeded_at"] = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    document["run"] = {"harness": "harbor"}
    if os.environ.get("FUELBOARD_MODEL"):
        document["run"]["model"] = os.environ["FUELBOARD_MODEL"]
    return json.dumps(document).encode("utf-8")


def packed(workspace: Path) -> bytes:
    """The workspace as a .tar.gz of one folder, without build products or version-control data."""

    def kept(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
        if any(part in EXCLUDED_DIRECTORIES for part in Path(info.name).parts[1:]):
            return None
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        return info

    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as compressed:
        with tarfile.open(fileobj=compressed, mode="w", format=tarfile.PAX_FORMAT) as archive:
            archive.add(workspace, arcname="workspace", filter=kept)
    return buffer.getvalue()


def form(fields: dict[str, str], files: dict[str, tuple[str, bytes]]) -> tuple[bytes, str]:
    """A multipart/form-data body (what `curl -F` sends) and its content type."""
    boundary = uuid.uuid4().hex
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode("utf-8")
             for name, value in fields.items()]
    for name, (filename, content) in files.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
                     f"Content-Type: application/octet-stream\r\n\r\n".encode("utf-8") + content + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode("utf-8"))
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def quoted(part: str) -> str:
    return urllib.parse.quote(part, safe="")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
