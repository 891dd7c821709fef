"""The modules entries ran, by digest: kept so that once a version is retired anyone can fetch an
entry's module and measure it again (docs/retiring.md). One row per distinct module, however many
entries ran it."""

from __future__ import annotations

from django.db import models


class StoredModule(models.Model):
    digest = models.CharField(max_length=64, primary_key=True)  # SHA-256 of `content`, as Submission.module_digest
    content = models.BinaryField()
    size = models.PositiveBigIntegerField()
    stored_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"module {self.digest[:12]} ({self.size:,} bytes)"

    @classmethod
    def keep(cls, digest: str, content: bytes) -> None:
        """Keep a module (nothing happens when it is kept already)."""
        cls.objects.get_or_create(digest=digest, defaults={"content": content, "size": len(content)})
