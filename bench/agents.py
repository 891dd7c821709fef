"""The agents matrix at 10 and at 1,000 agents × 1,000 cases, page cache off.

A page of /agents/ is a slice of stored rows (AgentLine, AgentCell), so its time should grow with
what it shows, not with the number of agents: the page, its API twin, the cheapest-first order
and one harness's agents are each timed in-process (the median of repeated requests) with 10
agents' trials on 1,000 cases, with 50 (a full page of agents), then with 1,000 (a million
trials), each after a refresh of the matrix. Target: from 50 to 1,000 agents, the same rows shown,
each ≤ 2×; from 10 (a fifth of the rows shown) it is reported too. The refresh itself (a
background job) is timed.

`--postgres` runs it against the server DATABASE_URL names.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import time

from _django import setup
from standings import median_ms, settle

PAGES = {"page": "/agents/", "api": "/api/v1/agents/", "by_cost": "/agents/?sort=cost",
         "one_harness": "/agents/?harness=harness-1"}


def main() -> dict:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--postgres", action="store_true", help="use the server DATABASE_URL names")
    parser.add_argument("--cases", type=int, default=1_000)
    parser.add_argument("--small", type=int, default=10)
    parser.add_argument("--full", type=int, default=50, help="agents for a full page (the pages show 50)")
    parser.add_argument("--large", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    workdir = setup(os.environ["DATABASE_URL"] if args.postgres else None)
    from django.conf import settings
    from django.test import Client

    from scoring.agents import refresh
    from tests.factories import make_cases, make_many_trials

    settings.PAGE_CACHE_SECONDS = 0
    versions = make_cases(args.cases, prefix="agents")
    client = Client(SERVER_NAME="localhost")
    timings: dict[str, dict] = {name: {} for name in PAGES}
    refreshes = {}
    made = 0
    for size in sorted({args.small, args.full, args.large}):
        started = time.monotonic()
        make_many_trials(versions, made, size - made)
        made = size
        settle()
        setup_s = time.monotonic() - started
        refreshes[size] = {"setup_s": setup_s, "refresh_s": refresh()}
        settle()
        for name, url in PAGES.items():
            timings[name][size] = median_ms(client, url, args.repeat)
    result = {
        "cases": args.cases, "small": args.small, "full": args.full, "large": args.large, "refreshes": refreshes,
        "database": "postgresql" if args.postgres else "sqlite",
        "pages": {name: {"small_ms": found[args.small], "full_ms": found[args.full], "large_ms": found[args.large],
                         "ratio": found[args.large] / found[args.full],
                         "ratio_from_small": found[args.large] / found[args.small]} for name, found in timings.items()},
    }
    shutil.rmtree(workdir, ignore_errors=True)
    print(json.dumps(result) if args.json else json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
