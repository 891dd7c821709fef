"""Operators: the accounts that submit entries over the API, their tokens, and the names they own."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import timedelta

from django.conf import settings
from django.db import models, transaction
from django.utils import timezone

from lib.locking import lock_rows
from lib.text import name_key, name_skeletons

TOKEN_PREFIX = "fbt"


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


class ApiTokenQuerySet(models.QuerySet):
    def live(self) -> "ApiTokenQuerySet":
        return self.filter(revoked_at__isnull=True, user__is_active=True)

    def authenticate(self, presented: str) -> "ApiToken | None":
        """The live token `presented` is, or None. A malformed one costs no query; a well-formed
        one one indexed lookup by its public id, then a constant-time comparison of the digest."""
        parts = presented.split("_", 2)
        if len(parts) != 3 or parts[0] != TOKEN_PREFIX or len(parts[1]) != 12 or not 40 <= len(parts[2]) <= 64:
            return None
        found = self.live().select_related("user").filter(key_id=parts[1]).first()
        if found is None or not hmac.compare_digest(found.digest, _digest(parts[2])):
            return None
        return found


class ApiToken(models.Model):
    """An operator's key to the submissions API: shown once when made, kept only as a digest.

    The token is `fbt_<key_id>_<secret>`: the key id (public: lists, revocation) finds the row,
    the secret (32 random bytes) is compared with the stored SHA-256 in constant time."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    key_id = models.CharField(max_length=12, unique=True, editable=False)
    digest = models.CharField(max_length=64, editable=False)
    label = models.CharField(max_length=100, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True, editable=False)
    # Writes counted in the current hour (API_REQUESTS_PER_HOUR), whatever came of them.
    window_started_at = models.DateTimeField(null=True, blank=True, editable=False)
    window_requests = models.PositiveIntegerField(default=0, editable=False)

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = "API token"

    def __str__(self) -> str:
        return f"{self.key_id} ({self.user.get_username()}{': ' + self.label if self.label else ''})"

    @classmethod
    def issue(cls, user, label: str = "") -> tuple["ApiToken", str]:
        """A new token for `user`: the row, and the token itself (never stored, shown once)."""
        key_id, secret = secrets.token_hex(6), secrets.token_urlsafe(32)
        token = cls.objects.create(user=user, key_id=key_id, digest=_digest(secret), label=label)
        return token, f"{TOKEN_PREFIX}_{key_id}_{secret}"

    def revoke(self) -> None:
        if self.revoked_at is None:
            self.revoked_at = timezone.now()
            self.save(update_fields=["revoked_at"])

    def used(self) -> None:
        """Note the use (at most once a minute: a poll loop is not a write per request)."""
        now = timezone.now()
        if self.last_used_at is None or (now - self.last_used_at).total_seconds() > 60:
            ApiToken.objects.filter(pk=self.pk).update(last_used_at=now)

    def spend_request(self, per_hour: int) -> int | None:
        """Count one write against `per_hour` in the token's current hour: None when it may go
        ahead, else the seconds until it may (the count is kept even when the request is then
        refused for another reason: a refused request costs the server too)."""
        now = timezone.now()
        with transaction.atomic():
            found = lock_rows(ApiToken.objects.filter(pk=self.pk).only("window_started_at", "window_requests"))[0]
            if not found:  # revoked since it was checked: this request was let in before that
                return None
            row = found[0]
            if row.window_started_at is None or now - row.window_started_at >= timedelta(hours=1):
                row.window_started_at, row.window_requests = now, 0
            if row.window_requests >= per_hour:
                return max(int((row.window_started_at + timedelta(hours=1) - now).total_seconds()) + 1, 1)
            row.window_requests += 1
            row.save(update_fields=["window_started_at", "window_requests"])
        return None


class SubmitterName(models.Model):
    """Who a submitter name belongs to. The first operator to submit under a new name owns it on
    the whole site; a name used before (from the shell, or before operators) has no owner until
    staff give it one, and no token may take it.

    Names that differ only in case, spacing or letter forms are one name: `key`
    (lib.text.name_key) is unique, so "Alice", "alice" and "ａｌｉｃｅ" are one row. Names that can
    be taken for each other are held apart by their skeletons (NameSkeleton): a new name that
    looks like one already here ("аlice" with a Cyrillic а, "aIice") is refused."""

    name = models.CharField(max_length=100, unique=True)
    key = models.CharField(max_length=400, unique=True, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="submitter_names")
    claimed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs):
        self.key = name_key(self.name)
        if kwargs.get("update_fields") is not None and "name" in kwargs["update_fields"]:
            kwargs["update_fields"] = {*kwargs["update_fields"], "key"}
        super().save(*args, **kwargs)


class NameSkeleton(models.Model):
    """One way a submitter name looks (lib.text.name_skeletons), held by that name alone: a unique
    index, so two operators cannot take look-alike names even at the same moment. Names that looked
    alike before skeletons were kept (migration 0015 reports them) keep their rows; the
    skeleton they share stays with the first."""

    skeleton = models.CharField(max_length=1000, unique=True)
    name = models.ForeignKey(SubmitterName, on_delete=models.CASCADE, related_name="skeletons")

    def __str__(self) -> str:
        return f"{self.name}: {self.skeleton}"

    @classmethod
    def look_alikes(cls, name: str) -> "models.QuerySet[NameSkeleton]":
        """The rows of other names that `name` can be taken for (its own row's not counted)."""
        return cls.objects.filter(skeleton__in=name_skeletons(name)).exclude(name__key=name_key(name)).select_related(
            "name")

    @classmethod
    def hold(cls, submitter_name: SubmitterName) -> None:
        """Give the name its skeletons. Raises IntegrityError when another name holds one (the caller's
        transaction must then be given up)."""
        for skeleton in sorted(name_skeletons(submitter_name.name)):
            cls.objects.get_or_create(skeleton=skeleton, name=submitter_name)


class IdempotentRequest(models.Model):
    """A submission request sent with an `Idempotency-Key`: the same key and body again get the
    first answer (a client may retry a request whose answer it lost). Kept IDEMPOTENCY_KEEP long."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=200)
    request_digest = models.CharField(max_length=64)
    submission = models.ForeignKey("scoring.Submission", on_delete=models.CASCADE, related_name="+")
    status = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="one_answer_per_key")]


IDEMPOTENCY_KEEP = timedelta(hours=24)
