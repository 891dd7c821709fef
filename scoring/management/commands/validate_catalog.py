"""`manage.py validate_catalog [PATH] [--strict]`: check a catalog, a case folder or a version
folder against the catalog rules, and every input against its version's own validator (run in the
build sandbox, scoring/workbench/reproduce.py). Writes nothing."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings

from catalog.importer import file_limits
from catalog.manifest import catalog_root, scan_catalog
from catalog.manifest.remembered import remembering
from engine.builds import SandboxUnavailable
from lib.commands import SiteCommand
from scoring.workbench.folder import FolderVersion
from scoring.workbench.reproduce import VALIDATOR, check_folder


class Command(SiteCommand):
    help = ("Check every manifest of a catalog tree (or of one case folder or version folder) against the catalog "
            "rules, and every input against its version's own validator (validator/validate.py, run in the build "
            "sandbox). Writes nothing. Errors make it exit 1; warnings (names a template uses that the site's "
            "context lacks, an answer schema that bounds values, validators that could not be run) do not, unless "
            "--strict.")

    def add_arguments(self, parser):
        parser.add_argument("path", nargs="?", help="a catalog, a case folder or a version folder (default: "
                                                    "settings.CATALOG_DIR)")
        parser.add_argument("--strict", action="store_true", help="treat warnings as errors")

    def handle(self, *args, **options):
        path = Path(options["path"] or settings.CATALOG_DIR).resolve()
        root = catalog_root(path)
        # The whole catalog is read: versions are checked against each other (held-out data, slugs).
        with remembering(Path(settings.VAR_DIR) / "workbench" / "checked-documents"):
            scan = scan_catalog(root, limits=file_limits())

        def chosen(where: str) -> bool:
            folder = (root / where).resolve() if where else root
            return folder.is_relative_to(path) or (path.is_relative_to(folder) and folder != root)

        versions = [source for source in scan.versions if source.path.resolve().is_relative_to(path)]
        errors = [str(error) for error in scan.errors if chosen(error.version)]
        warnings = [str(warning) for warning in scan.warnings if chosen(warning.version)]
        for source in versions:
            if VALIDATOR not in dict(source.files):
                continue
            try:
                found = check_folder(FolderVersion(source), generate=False)
            except SandboxUnavailable as unavailable:
                warnings.append(f"{source.label}: the input validator was not run: {unavailable}")
                continue
            errors.extend(f"{source.label}: {error}" for error in found.errors)
        for error in errors:
            self.stdout.write(error)
        for warning in warnings:
            self.stdout.write(f"warning: {warning}")
        cases = {source.manifest.slug for source in versions}
        labels = [label for label in scan.labels if (root / label).resolve().is_relative_to(path)]
        if errors or (options["strict"] and warnings):
            bad = len(set(labels) - {source.label for source in versions}) + len(
                {error.split(":", 1)[0] for error in errors} & {source.label for source in versions})
            counts = f"{len(errors)} error(s)" + (f", {len(warnings)} warning(s)" if warnings else "")
            extra = " (--strict: warnings count as errors)" if options["strict"] and warnings else ""
            self.stderr.write(f"{counts}{extra}; {bad} of {len(labels)} version folder(s) invalid")
            raise SystemExit(1)
        suffix = f", {len(warnings)} warning(s)" if warnings else ""
        self.stdout.write(f"OK: {len(versions)} version(s) of {len(cases)} case(s) in {path}{suffix}")
