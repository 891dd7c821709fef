"""`manage.py check_case [PATH] [--solutions DIR] [--json] [--strict] [--table] [--write-expected]`:
prove a case sound with its own solutions before it is published (scoring/workbench/)."""

from __future__ import annotations

import json
from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError

from catalog.importer import file_limits
from catalog.manifest import catalog_root, scan_catalog, version_sort_key
from catalog.manifest.remembered import remembering
from engine.builds import SandboxUnavailable
from engine.progress import ScoringProgress
from lib.commands import BUILD_CHECKS, SiteCommand
from scoring.workbench.checking import Builds, check_version
from scoring.workbench.expected import WriteRefused, write_expected
from scoring.workbench.folder import FolderVersion
from scoring.workbench.report import as_document, as_table, as_text
from scoring.workbench.solutions import case_solutions


class Progress(ScoringProgress):
    """A line per build and per run, to stderr (stdout carries the report, or the JSON document)."""

    def __init__(self, out, label: str):
        self.out, self.label = out, label

    def building(self, command: str) -> None:
        self.out.write(f"  {self.label}: building ({command})")

    def running(self, count: int) -> None:
        self.out.write(f"  {self.label}: running {count} inputs")


class Command(SiteCommand):
    requires_system_checks = BUILD_CHECKS  # the others: `manage.py check` (lib/commands.py)
    help = ("Check a case with its own solutions before it is published: everything validate_catalog checks, "
            "then each solution under <solutions>/<slug>/<verdict>/ built and run on every input of each "
            "version found under PATH (a version folder, a case folder, or a catalog), with the real limits. "
            "Errors (exit 1): an input the version's validator refuses, a generator that does not reproduce its "
            "checksum list, a verdict other than its folder's, an expected answer the reference does not give, no "
            "reference, a run that does not repeat. Warnings (exit 1 with --strict): no validator or checksum list, "
            "no headroom, a loose limit, a verdict that flips at 1.5× the limit, a wrong answer no smoke input "
            "catches, what validate_catalog warns of; on a version a later one supersedes they are notes. Suggests "
            "a fuel limit and a memory cap from the measurements.")

    def add_arguments(self, parser):
        parser.add_argument("path", nargs="?", help="a version folder, a case folder or a catalog (default: "
                                                    "settings.CATALOG_DIR)")
        parser.add_argument("--solutions", help="where the solutions are (default: solutions/ beside the catalog)")
        parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")
        parser.add_argument("--strict", action="store_true", help="treat warnings as errors (exit 1)")
        parser.add_argument("--table", action="store_true",
                            help="print the Markdown table of the cases' latest versions (fastest accepted, slow "
                                 "solution, fuel limit) that the manual shows")
        parser.add_argument("--write-expected", action="store_true",
                            help="first write every expected answer from the reference solution (a version not "
                                 "yet imported only)")

    def handle(self, *args, **options):
        path = Path(options["path"] or settings.CATALOG_DIR).resolve()
        if not path.is_dir():
            raise CommandError(f"{path} is not a folder: name a version folder, a case folder or a catalog")
        root = catalog_root(path)
        solutions_dir = Path(options["solutions"]).resolve() if options["solutions"] else root.parent / "solutions"
        log = self.stderr if options["json"] or options["table"] else self.stdout
        builds = Builds()
        try:
            if options["write_expected"]:
                self._write(path, root, solutions_dir, builds, log)
            checks, problems = self._check(path, root, solutions_dir, builds, log)
        except SandboxUnavailable as unavailable:
            raise CommandError(f"the solutions cannot be built here: {unavailable}") from None
        if options["json"]:
            self.stdout.write(json.dumps(as_document(checks, problems), indent=2))
        elif options["table"]:
            self.stdout.write(as_table(as_document(checks, problems), self.manifests, self.version_names))
        else:
            for check in checks:
                self.stdout.write("\n".join(as_text(check)))
            for problem in problems:
                self.stdout.write("\n".join([problem["folder"], *(f"  error: {error}" for error in problem["errors"])]))
        errors = sum(len(check.errors) for check in checks) + sum(len(problem["errors"]) for problem in problems)
        warnings = sum(len(check.warnings) for check in checks)
        notes = sum(len(check.notes) for check in checks)
        summary = (f"{len(checks) + len(problems)} version(s): {errors} error(s), {warnings} warning(s)"
                   + (f", {notes} note(s) on superseded versions" if notes else ""))
        if errors or (options["strict"] and warnings):
            raise CommandError(summary + (" (--strict: warnings count as errors)" if not errors else ""),
                               returncode=1)
        log.write(summary)

    def _versions(self, path: Path, root: Path) -> tuple[list[FolderVersion], list[dict]]:
        with remembering(Path(settings.VAR_DIR) / "workbench" / "checked-documents"):
            scan = scan_catalog(root, limits=file_limits())
        latest: dict[str, str] = {}
        for source in scan.versions:
            slug = source.manifest.slug
            if slug not in latest or version_sort_key(source.version) > version_sort_key(latest[slug]):
                latest[slug] = source.version
        self.latest = latest
        self.manifests = {(source.manifest.slug, source.version): source.manifest for source in scan.versions}
        self.version_names: dict[str, list[str]] = {}
        for source in sorted(scan.versions, key=lambda source: version_sort_key(source.version)):
            self.version_names.setdefault(source.manifest.slug, []).append(source.version)
        chosen = [FolderVersion(source) for source in scan.versions if source.path.resolve().is_relative_to(path)]
        problems: dict[str, list[str]] = {}
        for error in scan.errors:
            where = (root / error.version).resolve() if error.version else root
            if where.is_relative_to(path) or path.is_relative_to(where):
                problems.setdefault(str(where), []).append(str(error))
        if not chosen and not problems:
            raise CommandError(f"no version folder under {path}")
        return chosen, [{"folder": folder, "errors": errors} for folder, errors in sorted(problems.items())]

    def _check(self, path, root, solutions_dir, builds, log):
        versions, problems = self._versions(path, root)
        checks = []
        for version in versions:
            solutions = case_solutions(solutions_dir, version.slug)
            log.write(f"{version.label}: {len(solutions.for_version(version.version))} solution(s)")
            check = check_version(version, solutions, builds, lambda solution: Progress(log, solution.name),
                                  latest=self.latest[version.slug] == version.version)
            check.errors[:0] = solutions.problems
            checks.append(check)
        return checks, problems

    def _write(self, path, root, solutions_dir, builds, log) -> None:
        versions, problems = self._versions(path, root)
        if problems:
            raise CommandError("the folder does not validate, so nothing was written:\n"
                               + "\n".join(error for problem in problems for error in problem["errors"]))
        for version in versions:
            try:
                written = write_expected(version, case_solutions(solutions_dir, version.slug), builds,
                                         lambda solution: Progress(log, solution.name))
            except WriteRefused as refused:
                raise CommandError(str(refused)) from None
            log.write(f"{version.label}: wrote {len(written)} expected answer(s) from the reference")
