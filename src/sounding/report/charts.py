"""The report's charts as inline SVG: box plots of per-query values and bar charts, one row per setting.

The markup is written here, so the page needs no script or file; text from the rows (setting names) is
escaped where it enters, and a chart is returned as `Markup` for the HTML template to insert as it is.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
from markupsafe import Markup, escape

# Okabe-Ito + Tableau hues: distinguishable for most colour-vision deficiencies
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000",
           "#8c564b", "#7f7f7f", "#17becf", "#bcbd22")
ROW_H, PLOT_W, AXIS_H, FONT_W = 22, 300, 26, 6.6  # FONT_W: rough width of a 11px glyph, for label room


def _frame(labels: list[str], right: int) -> tuple[int, int, int, Callable[[float], float]]:
    """(label width, total width, total height, x of a value in [0, 1]) for a chart with a row per label."""
    label_w = int(min(330, FONT_W * max(map(len, labels)) + 14))
    width = label_w + PLOT_W + right
    height = ROW_H * len(labels) + AXIS_H + 6
    return label_w, width, height, lambda v: label_w + PLOT_W * min(max(v, 0.0), 1.0)


def _axis(x: Callable[[float], float], top: int, bottom: int) -> list[str]:
    out = []
    for t in (0, 0.25, 0.5, 0.75, 1.0):
        out.append(f'<line x1="{x(t):.1f}" y1="{top}" x2="{x(t):.1f}" y2="{bottom}" class="grid"/>')
        out.append(f'<text x="{x(t):.1f}" y="{bottom + 14}" text-anchor="middle" class="tick">{t:g}</text>')
    return out


def _svg(width: int, height: int, parts: list[str], label: str) -> Markup:
    """The chart as markup for the page: every part is numbers formatted here or text escaped here."""
    return Markup(f'<svg width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
                  f'aria-label="{escape(label)}">' + "".join(parts) + "</svg>")


def _label(x: float, y: float, text: str) -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="end" class="label">{escape(text)}</text>'


def boxplot_svg(series: list[tuple[str, np.ndarray, str]]) -> Markup:
    """Horizontal box plots, one row per (label, values in [0, 1], colour)."""
    label_w, width, height, x = _frame([s for s, _, _ in series], right=120)
    bottom = ROW_H * len(series) + 4
    parts = _axis(x, 2, bottom)
    for i, (name, v, color) in enumerate(series):
        y = 4 + i * ROW_H + ROW_H / 2
        parts.append(_label(label_w - 8, y + 4, name))
        parts.append(_box(v, y, x, color))
        parts.append(f'<text x="{x(1) + 8:.1f}" y="{y + 4:.1f}" class="tick">n={len(v)}, '
                     f'{np.mean(v == 0):.0%} at 0</text>')
    return _svg(width, height, parts, "box plots of per-query nDCG@10")


def _box(v: np.ndarray, y: float, x: Callable[[float], float], color: str) -> str:
    q1, med, q3 = np.percentile(v, [25, 50, 75])
    iqr = q3 - q1
    inside = v[(v >= q1 - 1.5 * iqr) & (v <= q3 + 1.5 * iqr)]
    lo, hi = inside.min(), inside.max()
    # outliers de-duplicated at half-pixel resolution: thousands of queries must not mean thousands of dots
    outliers = np.unique(np.round(v[(v < lo) | (v > hi)] * PLOT_W * 2))
    h = ROW_H * 0.6
    tip = f"n={len(v)} mean={v.mean():.4f} median={med:.4f} q1={q1:.4f} q3={q3:.4f}"
    p = [f'<g><title>{tip}</title>',
         f'<line x1="{x(lo):.1f}" y1="{y:.1f}" x2="{x(hi):.1f}" y2="{y:.1f}" stroke="{color}"/>',
         f'<line x1="{x(lo):.1f}" y1="{y - h / 3:.1f}" x2="{x(lo):.1f}" y2="{y + h / 3:.1f}" stroke="{color}"/>',
         f'<line x1="{x(hi):.1f}" y1="{y - h / 3:.1f}" x2="{x(hi):.1f}" y2="{y + h / 3:.1f}" stroke="{color}"/>',
         f'<rect x="{x(q1):.1f}" y="{y - h / 2:.1f}" width="{max(x(q3) - x(q1), 1):.1f}" height="{h:.1f}" '
         f'fill="{color}" fill-opacity="0.25" stroke="{color}"/>',
         f'<line x1="{x(med):.1f}" y1="{y - h / 2:.1f}" x2="{x(med):.1f}" y2="{y + h / 2:.1f}" stroke="{color}" '
         f'stroke-width="2"/>']
    p += [f'<circle cx="{x(o / (PLOT_W * 2)):.1f}" cy="{y:.1f}" r="1.8" fill="{color}"/>' for o in outliers]
    m = x(float(v.mean()))
    p.append(f'<path d="M{m:.1f} {y - 5:.1f} L{m + 4:.1f} {y:.1f} L{m:.1f} {y + 5:.1f} L{m - 4:.1f} {y:.1f} Z" '
             f'fill="#111" fill-opacity="0.8"/></g>')
    return "".join(p)


def bar_svg(bars: list[tuple[str, float | None, str]]) -> Markup:
    """Horizontal bars, one row per (label, value in [0, 1] or None, colour), value written at the end."""
    label_w, width, height, x = _frame([s for s, _, _ in bars], right=60)
    bottom = ROW_H * len(bars) + 4
    parts = _axis(x, 2, bottom)
    for i, (name, v, color) in enumerate(bars):
        y = 4 + i * ROW_H + ROW_H / 2
        parts.append(_label(label_w - 8, y + 4, name))
        if v is None:
            parts.append(f'<text x="{x(0) + 4:.1f}" y="{y + 4:.1f}" class="tick">not run</text>')
            continue
        parts.append(f'<rect x="{x(0):.1f}" y="{y - ROW_H * 0.35:.1f}" width="{max(x(v) - x(0), 0.5):.1f}" '
                     f'height="{ROW_H * 0.7:.1f}" fill="{color}"><title>{escape(name)}: {v:.4f}</title></rect>')
        parts.append(f'<text x="{x(v) + 4:.1f}" y="{y + 4:.1f}" class="tick">{v:.4f}</text>')
    return _svg(width, height, parts, "bar chart of judged@10")


def colours(names: list[str]) -> dict[str, str]:
    """A colour per name, in order, from PALETTE (repeating after its 12 hues)."""
    return {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(names)}
