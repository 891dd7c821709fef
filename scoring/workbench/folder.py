"""A version folder as the site would import it, for measuring without importing it: the build,
the contract, the sandbox and the held-out inputs with their ceilings and answer caps, read from
the validated folder (catalog.manifest's VersionSource)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from catalog.manifest import VersionSource, fuel_ceiling
from catalog.metering import site_limits
from catalog.models import CaseVersion
from catalog.samples import workspace_samples
from engine.evaluate import EvaluationInput
from engine.kinds import Kind
from engine.measure import Item, inputs


@dataclass(frozen=True)
class FolderVersion:
    """What scoring reads of a CaseVersion, from its folder (the same field names)."""

    source: VersionSource

    @property
    def slug(self) -> str:
        return self.source.manifest.slug

    @property
    def version(self) -> str:
        return self.source.version

    @property
    def label(self) -> str:
        return f"{self.slug} {self.version}"

    @property
    def path(self) -> Path:
        return self.source.path

    @property
    def build_install(self) -> str:
        return self.source.manifest.build.install or ""

    @property
    def build_command(self) -> str:
        return self.source.manifest.build.build

    @property
    def build_module(self) -> str:
        return self.source.manifest.build.module

    @property
    def max_runtime_seconds(self) -> float:
        return float(self.source.manifest.max_runtime_hours * 3600)

    @property
    def contract_entry(self) -> str:
        return self.source.manifest.contract.entry

    @property
    def max_memory_bytes(self) -> int:
        return self.source.manifest.sandbox.max_memory_bytes

    @property
    def fuel_limit(self) -> int:
        return self.source.manifest.sandbox.fuel_limit

    def file(self, rel: str) -> bytes:
        return dict(self.source.files)[rel]

    @property
    def output_schema(self) -> bytes:
        return self.file(self.source.manifest.contract.output)

    def held_out(self, fuel_limit: int | None = None,
                 expected: dict[str, bytes] | None = None) -> list[EvaluationInput]:
        """Every held-out input in manifest order, its ceiling from `fuel_limit` (default: the
        manifest's) and its expected answer (from the folder unless given), assembled as every
        measurement assembles its inputs (engine.measure)."""
        limit, limits = self.fuel_limit if fuel_limit is None else fuel_limit, site_limits()
        return inputs((Item(Kind(case.kind), case.input, self.file(case.input),
                            (expected or {}).get(case.input, self.file(case.expected)),
                            fuel_ceiling(limit, case.fuel_runway), limits.answer_cap(len(self.file(case.expected))))
                       for case in self.source.manifest.cases), limits)

    def sample_inputs(self) -> list[EvaluationInput]:
        """The public samples of the workspace (catalog.samples), run as the site runs an entry's."""
        return inputs((Item(Kind.STRESS, sample.name, sample.input_bytes, sample.expected, self.fuel_limit)
                       for sample in workspace_samples(self.source.manifest.workspace, dict(self.source.files))),
                      site_limits())

    def imported(self) -> bool:
        """Whether the site holds this version (then it never changes)."""
        return CaseVersion.objects.filter(case__slug=self.slug, version=self.version).exists()
