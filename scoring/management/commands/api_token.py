"""`manage.py api_token create USERNAME [--label L]`, `list [USERNAME]`, `revoke TOKEN_ID`."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management.base import CommandError

from lib.commands import SiteCommand
from scoring.models import ApiToken


def grant_submitting(user) -> None:
    user.user_permissions.add(Permission.objects.get(content_type__app_label="scoring", codename="submit_entry"))


class Command(SiteCommand):
    help = ("Make, list and revoke operators' API tokens (for POST /api/v1/submissions/, and with --review for "
            "POST /api/v1/submissions/ID/reviews/).")

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True)
        create = actions.add_parser("create",
                                    help="a token for USERNAME (made if missing, never staff); prints it last")
        create.add_argument("username")
        create.add_argument("--label", default="", help="what the token is for (shown in lists)")
        create.add_argument("--review", action="store_true",
                            help="the account may also record review reads of entries (POST …/reviews/)")
        listing = actions.add_parser("list", help="every token (of USERNAME), never the tokens themselves")
        listing.add_argument("username", nargs="?")
        revoke = actions.add_parser("revoke", help="the token TOKEN_ID stops working at once")
        revoke.add_argument("token_id")

    def handle(self, *args, **options):
        getattr(self, f"_{options['action']}")(options)

    def _create(self, options) -> None:
        User = get_user_model()
        username, label = options["username"].strip(), options["label"].strip()
        if not username or len(username) > 150:
            raise CommandError("a username is 1 to 150 characters")
        if len(label) > 100:
            raise CommandError("--label is at most 100 characters")
        user = User.objects.filter(username=username).first()
        if user is not None and (user.is_staff or user.is_superuser):
            raise CommandError(f"{username} is a staff account: a token stands for an operator, never for staff "
                               f"(make one for another account, e.g. {username}-harness)")
        user, made = User.objects.get_or_create(username=username)
        if made:
            user.set_unusable_password()  # an operator signs in with tokens, never a password
            user.save()
        grant_submitting(user)
        if options["review"]:
            user.user_permissions.add(Permission.objects.get(content_type__app_label="scoring",
                                                             codename="review_entry"))
        token, secret = ApiToken.issue(user, label)
        self.stderr.write(f"{'made account ' + username + ', ' if made else ''}token {token.key_id} for {username}: "
                          "it is shown this once and cannot be read again")
        self.stdout.write(secret)

    def _list(self, options) -> None:
        tokens = ApiToken.objects.select_related("user").order_by("user__username", "created_at")
        if options["username"]:
            tokens = tokens.filter(user__username=options["username"])
        for token in tokens:
            state = f"revoked {token.revoked_at:%Y-%m-%d %H:%M}" if token.revoked_at else "live"
            used = f"{token.last_used_at:%Y-%m-%d %H:%M}" if token.last_used_at else "never"
            self.stdout.write(f"{token.key_id}  {token.user.get_username():<20} {state:<22} used {used:<17} "
                              f"made {token.created_at:%Y-%m-%d}  {token.label}")

    def _revoke(self, options) -> None:
        token = ApiToken.objects.filter(key_id=options["token_id"]).first()
        if token is None:
            raise CommandError(f"no token {options['token_id']!r} (api_token list shows them)")
        token.revoke()
        self.stdout.write(f"revoked {token.key_id} of {token.user.get_username()}")
