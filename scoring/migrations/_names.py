"""What the name migrations share: every stored submitter name given the skeletons the rules of
its day give it (lib.text.name_skeletons), owned names first, then the oldest; where two names can
be taken for each other, both keep their rows and owners, the first keeps the look, and each
such group is printed for staff to settle. Nothing is changed or removed silently."""

import sys


def hold_skeletons(apps) -> None:
    from lib.text import name_skeletons

    SubmitterName = apps.get_model("scoring", "SubmitterName")
    NameSkeleton = apps.get_model("scoring", "NameSkeleton")
    held: dict[str, object] = {skeleton: holder for skeleton, holder in
                               ((row.skeleton, row.name) for row in NameSkeleton.objects.select_related("name"))}
    clashes: dict[int, list] = {}
    for row in sorted(SubmitterName.objects.select_related("owner"), key=lambda row: (row.owner_id is None, row.pk)):
        for skeleton in sorted(name_skeletons(row.name)):
            first = held.get(skeleton)
            if first is None:
                held[skeleton] = row
                NameSkeleton.objects.create(skeleton=skeleton, name=row)
            elif first.pk != row.pk:
                clashes.setdefault(first.pk, [first])
                if row not in clashes[first.pk]:
                    clashes[first.pk].append(row)
    for group in clashes.values():
        said = ", ".join(f"{row.name!r} ({_owner(row)})" for row in group)
        sys.stdout.write(f"\n  submitter names that can be taken for each other (each kept as it is; the first keeps "
                         f"the look, so no new name can take it): {said}")


def _owner(row) -> str:
    return row.owner.username if row.owner_id else "no owner"


def report_refused(apps) -> None:
    """Print every stored name today's rules would refuse for a new one (each kept as it is)."""
    from lib.text import name_problem, refused_character

    SubmitterName = apps.get_model("scoring", "SubmitterName")
    for row in SubmitterName.objects.select_related("owner").order_by("pk"):
        refused = refused_character(row.name)
        problem = name_problem(row.name) or (refused and f"{refused} is refused")
        if problem:
            sys.stdout.write(f"\n  a submitter name the rules now refuse for a new name (kept as it is): "
                             f"{row.name!r} ({_owner(row)}): {problem}")
