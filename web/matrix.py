"""The agents matrix's rows and its chart's points as HTML, written here rather than in the
template: a page holds up to 50 agents × 20 cases and 100 points, and the template language costs
ten times more per value, so the page would grow with its rows far beyond its fixed cost
(bench/agents.py: a page of 1,000 agents costs less than twice a page of 10). Every value below is
a number or escaped."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Callable
from urllib.parse import quote, urlencode

from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from scoring.speedups import FAST_K, harmonic_mean, p_key
from scoring.speedups import share as share_of
from web.templatetags.site import compact, rate, ratio, times, usd

NO_TRIAL = ('<td class="num matrix-cell"><span class="muted" aria-hidden="true">—</span>'
            '<span class="visually-hidden">no trial</span></td>')
VERIFIED = ' <span class="verified" aria-hidden="true" title="re-measured identically">✓</span>'


@dataclass(frozen=True)
class Column:
    """A case version shown as a column: its id, its name (escaped), and its leaderboard's link to
    one model's entries (escaped; the model's name, encoded, goes last)."""

    pk: int
    name: str
    link: str

    @classmethod
    def of(cls, version) -> "Column":
        query = urlencode({"version": version.version, "all": 1})
        return cls(version.pk, escape(version.name),
                   escape(f"{reverse('leaderboard', args=[version.case.slug])}?{query}&model="))


def agent_link(model: str, harness: str, path: Callable[[str], str]) -> str:
    """An agent's page, its harness as the filter (`path`: lib.urlparts.name_paths("agent"))."""
    return path(model) + (f"?{urlencode({'harness': harness})}" if harness else "")


def row_html(line, rank: int, matrix, columns: list[Column], cells: dict, path: Callable[[str], str]) -> SafeString:
    """One agent's row: its place, its figures, then its cells on these columns."""
    case_count = matrix.case_count()
    share, low, high = matrix.solved_share(line)
    against = ""
    if matrix.references:
        references, p = matrix.references, p_key(matrix.p)
        fast_1, fast_p = share_of(line.fast, 1.0, references), share_of(line.fast, matrix.p, references)
        once = share_of(line.fast_at_k, matrix.p, references)
        harmonic = harmonic_mean(line.inverse_speedups, line.reference_solved, references)
        solved = (f"{ratio(line.speedup)} where solved ({line.reference_solved})" if line.speedup is not None
                  else "none solved")
        against = (f'<td class="num"><strong>{ratio(harmonic)}</strong> <span class="cell-note">over all '
                   f'{references} · {solved}</span></td>'
                   f'<td class="num"><strong>{rate(fast_1)}</strong> at ≥1× <span class="cell-note">{rate(fast_p)} '
                   f'at ≥{p}× · {rate(once)} at ≥{p}× once in {FAST_K}</span></td>')
    harness = f'<br><span class="muted small">{escape(line.harness)}</span>' if line.harness else ""
    cost = line.mean_cost_usd
    if cost is None:
        cost_cell = '<span class="muted">not recorded</span>'
    else:
        over = f" over {line.cost_trials} of {line.trials} trials" if line.cost_trials != line.trials else ""
        cost_cell = f'{usd(cost)} <span class="cell-note">{usd(line.total_cost_usd)}{over}</span>'
    read, written = line.input_tokens_per_trial, line.output_tokens_per_trial
    tokens = (f"{compact(read)} · {compact(written)}" if read is not None or written is not None
              else '<span class="muted">—</span>')
    return mark_safe(
        f'<tr id="agent-{line.agent_id}"><th scope="row" class="agent-col name"><span class="rank">{rank}.</span> '
        f'<a href="{escape(agent_link(line.model, line.harness, path))}">{escape(line.model)}</a>{harness}</th>'
        f'<td class="num"><strong>{line.cases_solved}/{case_count}</strong> <span class="cell-note">{rate(share)} · '
        f'{rate(low)}–{rate(high)}</span></td>'
        f'<td class="num">{line.score:.3f}</td>{against}'
        f'<td class="num">{rate(line.pass_rate)} <span class="cell-note">{rate(line.pass_low)}–{rate(line.pass_high)} '
        f'· '
        f'{line.solved_trials}/{line.trials}</span></td>'
        f'<td class="num">{cost_cell}</td><td class="num">{tokens}</td>'
        f'{cells_html(columns, cells, line)}</tr>')


def cells_html(columns: list[Column], cells: dict, line) -> str:
    """One line's cells on these columns: solved/trials (a link to the model's entries on the
    case), the best fuel ÷ the case's best, and ✓ when that entry was re-measured identically."""
    model, model_link = escape(line.model), quote(line.model, safe="")
    parts = []
    for column in columns:
        cell = cells.get((line.agent_id, column.pk))
        if cell is None:
            parts.append(NO_TRIAL)
            continue
        share = cell.share
        verified = cell.verified == "identical"
        # The accessible name begins with what the cell shows (WCAG 2.5.3: a voice user says it).
        label = (f"{cell.solved}/{cell.trials}: {model} on {column.name}, {cell.solved} of {cell.trials} trials solved"
                 + (f", its best fuel {times(share)} the case's best" if share else "")
                 + (", re-measured identically" if verified else ""))
        parts.append(f'<td class="num matrix-cell"><a href="{column.link}{model_link}" aria-label="{label}">'
                     f'{cell.solved}/{cell.trials}</a>'
                     + (f' <span class="cell-note">{times(share)} the best</span>' if share else "")
                     + (VERIFIED if verified else "") + "</td>")
    return "".join(parts)


def points_html(chart, query: str) -> SafeString:
    """The chart's points, each a link to its agent's row (on the page of the matrix that holds it)."""
    parts = []
    for point in chart.points:
        said = f"{point.number}. {point.name}: score {point.score:.3f}, {usd(point.cost)} per trial"
        page = f"page={point.page}" if point.page > 1 else ""
        label = (f'<text class="chart-label point-label" x="{point.label_x}" y="{point.label_y}" '
                 f'text-anchor="{point.anchor}" aria-hidden="true">{escape(point.label)}</text>' if point.label else "")
        parts.append(
            f'<a href="?{escape(query)}{page}#agent-{point.agent_id}" '
            f'aria-label="{escape(said + (", on the Pareto front" if point.on_front else ""))}">'
            f'<circle class="chart-hit" cx="{point.x}" cy="{point.y}" r="12"/>'
            f'<circle class="chart-point{" front" if point.on_front else ""}" cx="{point.x}" cy="{point.y}" r="5">'
            f'<title>{escape(said)}</title></circle>{label}</a>')
    return mark_safe("".join(parts))
