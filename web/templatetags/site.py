"""Number formatting for fuel figures and limits."""

from __future__ import annotations

from datetime import datetime

from django import template
from django.utils.safestring import mark_safe

from lib.markup import render_markdown

register = template.Library()


@register.filter
def fuel(value) -> str:
    """12345678 → 12,345,678; None → —"""
    if value is None or value == "":
        return "—"
    return f"{int(value):,}"


@register.filter
def usd(value) -> str:
    """0.4213 → $0.42; under a cent → $0.0042 (two significant digits); None → —"""
    if value is None or value == "":
        return "—"
    value = float(value)
    if value and value < 0.01:
        return f"${value:.2g}"
    return f"${value:,.2f}"


@register.filter
def duration(value) -> str:
    """532.4 → 8 min 52 s; 42.5 → 42.5 s; None → —"""
    if value is None or value == "":
        return "—"
    seconds = float(value)
    if seconds < 60:
        return f"{seconds:.3g} s"
    minutes, rest = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return (f"{hours} h {minutes} min" if hours else f"{minutes} min {rest} s")


@register.filter
def compact(value) -> str:
    """12345678 → 12.3 M (for charts and tight columns)."""
    if value is None:
        return "—"
    value = int(value)
    for size, suffix in ((10**12, "T"), (10**9, "G"), (10**6, "M"), (10**3, "k")):
        if abs(value) >= size:
            return f"{value / size:.3g} {suffix}"
    return str(value)


@register.filter
def filesize(value) -> str:
    """268435456 → 256 MiB"""
    if value is None:
        return "—"
    value = int(value)
    for size, suffix in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if value >= size:
            amount = value / size
            return f"{amount:.0f} {suffix}" if amount == int(amount) else f"{amount:.1f} {suffix}"
    return f"{value} B"


@register.filter
def percent(value) -> str:
    if value is None:
        return "—"
    return f"{value:.1f}%" if value < 10 else f"{value:.0f}%"


@register.filter
def rate(value) -> str:
    """A share of one as a percentage: 0.625 → 62.5%, 0.04 → 4.0%; None → —"""
    if value is None or value == "":
        return "—"
    return percent(float(value) * 100)


@register.filter
def markdown(text: str) -> str:
    return mark_safe(render_markdown(text or ""))  # sanitised by render_markdown


@register.filter
def label(value) -> str:
    """fuel_exhausted → fuel exhausted"""
    return str(value or "—").replace("_", " ")


@register.filter
def ratio(value) -> str:
    """A speedup against a reference, the one thing "×" means here (higher is better): 12.5 →
    12.5×; under 1 it reads as the slowdown it is: 0.00626 → 160× slower; None → —"""
    if value is None or value == "":
        return "—"
    value = float(value)
    if value <= 0:
        return "—"
    if f"{value:.3g}" != "1" and value < 1:
        return f"{_figure(1 / value)}× slower"
    return f"{_figure(value)}×"


def _figure(value: float) -> str:
    """Three significant figures, in plain digits: 12.5, 2,250 (never 2.25e+03)."""
    return f"{round(value):,}" if value >= 1000 else f"{value:.3g}"


@register.filter
def times(value) -> str:
    """A ratio of fuel to fuel (more is worse), in words, never "×": 34.62 → 34.6 times, 1.0 →
    1 time; None → —"""
    if value is None or value == "":
        return "—"
    shown = _figure(float(value))
    return f"{shown} time" if shown == "1" else f"{shown} times"


@register.filter
def plain(value) -> str:
    """7.5 → 7.5, 60.0 → 60 (a setting's number as a person writes it)."""
    if value is None or value == "":
        return "—"
    return f"{float(value):g}"


@register.filter
def machine_time(value) -> str:
    """A `<time datetime>` value: an aware datetime, or an RFC 3339 string, as HTML's global date
    and time form, with at most three fraction digits (HTML allows no more); '' if it is none."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return ""
    if not isinstance(value, datetime):
        return ""
    return value.isoformat(timespec="milliseconds" if value.microsecond else "seconds")


@register.filter
def row_header(cell):
    """An admin change list's cell: its row header (`<th …>`) gets `scope="row"`."""
    text = str(cell)
    if text.startswith("<th") and "scope=" not in text.split(">", 1)[0]:
        return mark_safe('<th scope="row"' + text[3:])  # the admin built and escaped the cell
    return cell


@register.filter
def get(mapping, key):
    """mapping[key], or None: a template's lookup by a value it holds (a card's leader by its version)."""
    return mapping.get(key) if mapping else None
