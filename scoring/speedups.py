"""Figures against the reference entries (scoring/references.py), over a set of cases: what the
standings and the agents matrix show beside their score. A case with no reference counts in none.

- **fast_p** (agents): KernelBench's figure, over trials. For each case in scope with a reference,
  the share of the agent's trials on it that solved it at least p times as cheaply as the reference
  (the reference's fuel ÷ the trial's ≥ p: `≥`, not KernelBench's `>`, since equal fuel is common
  here), an untried case counting 0; averaged over those cases.
- **fast_p@k** (agents): the chance that at least one of k trials on a case does so, estimated
  without bias as pass@k is from n trials of which c did (1 − C(n−c, k) ÷ C(n, k)); a case with
  fewer than k trials has the missing ones counted as failed; averaged over the cases. k = FAST_K.
- **fast_p** (standings): the share of the cases with a reference that the submitter's best entry
  solved at least p times as cheaply as the reference.
- **speedup** (geometric mean): of the reference's fuel ÷ the best entry's, over the cases solved
  that have a reference; one case far off cannot dominate it as it would an arithmetic mean.
- **harmonic speedup**: AlgoTune's whole-set score, the harmonic mean over every case with a
  reference of the best entry's speedup, a case not solved (or not tried) counting as 1×.

p runs over FAST_P. Counts are kept per p (`{"1": …, "1.5": …}`, p_key); a share is a count ÷ the
scope's cases with a reference. In SQL, "at least p times as cheap" is `fuel × 10p ≤ reference ×
10`: whole numbers, exact.
"""

from __future__ import annotations

import math

from django.db.models import Count, F, FloatField, Q, Sum
from django.db.models.functions import Cast, Greatest, Ln
from django.db.models.lookups import LessThanOrEqual

from lib.errors import DomainError

FAST_P = (0.5, 0.8, 1.0, 1.5, 2.0, 5.0, 10.0)
DEFAULT_P = 2.0
FAST_K = 3  # the trials fast_p@k is estimated for


class BadP(DomainError):
    """A `?p=` that is not one of FAST_P (code `bad_p`)."""


def p_key(p: float) -> str:
    """1.0 → "1", 1.5 → "1.5": the key of p in a figures' counts."""
    return f"{p:g}"


FAST_KEYS = tuple(p_key(p) for p in FAST_P)


def parse_p(value: str | None) -> float:
    """A page's or the API's `?p=` (default DEFAULT_P). Raises BadP."""
    if value is None or not value.strip():
        return DEFAULT_P
    try:
        p = float(value)
    except ValueError:
        p = math.nan
    if p not in FAST_P:
        raise BadP("bad_p", f"p must be one of {', '.join(p_key(choice) for choice in FAST_P)}")
    return p


def share(counts: dict | None, p: float, cases: int) -> float | None:
    """fast_p from the counts and the scope's cases with a reference (None: no such case)."""
    return (counts or {}).get(p_key(p), 0) / cases if cases else None


def geometric_mean(log_sum: float, cases: int) -> float | None:
    return math.exp(log_sum / cases) if cases else None


def harmonic_mean(inverse_sum: float, solved: int, cases: int) -> float | None:
    """Over `cases` with a reference: `solved` of them with speedups whose inverses sum to
    `inverse_sum` (the best fuel ÷ the reference's), the others at 1× (None: no such case)."""
    return cases / (inverse_sum + (cases - solved)) if cases else None


def at_k(trials: int, successes: int, k: int = FAST_K) -> float:
    """The chance that at least one of k trials succeeds, from `trials` of which `successes` did:
    the unbiased estimator 1 − C(n−c, k) ÷ C(n, k); with fewer than k trials, the missing ones
    count as failed (so: whether any succeeded)."""
    if trials < k:
        return 1.0 if successes else 0.0
    return 1.0 - math.comb(trials - successes, k) / math.comb(trials, k)


def aggregates(fuel: str, reference: str, solved: Q) -> dict:
    """The aggregates of a grouped query over entries (or cells): `fuel` and `reference` name their
    fuel and their version's reference fuel, `solved` which of them solved the case. Keys:
    reference_solved, speedup_logs, inverse_speedups and fast_<i> (the i-th of FAST_P)."""
    compared = solved & Q(**{f"{reference}__isnull": False})
    ratio = Cast(Greatest(F(reference), 1), FloatField()) / Cast(Greatest(F(fuel), 1), FloatField())
    inverse = Cast(Greatest(F(fuel), 1), FloatField()) / Cast(Greatest(F(reference), 1), FloatField())
    return {
        "reference_solved": Count("pk", filter=compared),
        "speedup_logs": Sum(Ln(ratio), filter=compared),
        "inverse_speedups": Sum(inverse, filter=compared),
        **{f"fast_{index}": Count("pk", filter=compared & Q(LessThanOrEqual(F(fuel) * round(p * 10),
                                                                           F(reference) * 10)))
           for index, p in enumerate(FAST_P)},
    }


def counts_of(row: dict) -> dict[str, int]:
    """The fast_p counts of a row of `aggregates()`."""
    return {p_key(p): row[f"fast_{index}"] or 0 for index, p in enumerate(FAST_P)}


def fast_shares(counts: dict | None, cases: int) -> dict[str, float | None]:
    """Every fast_p of the counts, keyed as FAST_P's keys ("1", "1.5", …), rounded for a document."""
    return {p_key(p): round(found, 6) if (found := share(counts, p, cases)) is not None else None for p in FAST_P}
