"""The report's charts as inline SVG: box plots of per-query values and bar charts, one row per system.

The markup is written here, so the page needs no script or file; text from the rows (setting names) is
escaped where it enters, and a chart is returned as `Markup` for the HTML template to insert as it is.

Each chart's value axis runs from 0 to a round number just above its largest value (a judged@10 of 0.09 is
drawn on 0-0.1, not 0-1), and its label column is as wide as its longest label in the page's monospace font,
so no label is cut. A system keeps one colour in every chart of a report (`colours`).

Hand-written rather than a plotting library: the charts are a few dozen SVG elements each, and a library
(matplotlib, plotly) would add a heavy dependency, or a script, to a page that must open offline as it is.
"""
from __future__ import annotations

import colorsys
import math
from typing import Callable

import numpy as np
from markupsafe import Markup, escape

# Okabe-Ito's eight (distinguishable for most colour-vision deficiencies), then twelve more distinct hues
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000",
           "#8C564B", "#7F7F7F", "#17BECF", "#BCBD22", "#9467BD", "#393B79", "#843C39", "#637939",
           "#7B4173", "#E7969C", "#3B9AB2", "#A55194")
ROW_H, PLOT_W, AXIS_H = 22, 280, 26
MONO_W = 6.7  # advance of an 11 px glyph of the label font (DejaVu Sans Mono: 0.602 em), rounded up
TEXT_W = 6.6  # widest average advance of an 11 px glyph of the page's sans-serif, for the figures at the right
PAD = 10  # between the chart's edge and a label


def short_label(setting: str) -> str:
    """A chart row's label: the setting without the "sounding.bm25." most rows share (the full name is its
    tooltip)."""
    return setting.removeprefix("sounding.bm25.")


def nice_axis(top: float) -> list[float]:
    """Ticks from 0 to a round number at or just above `top`: steps of 1, 2, 2.5 or 5 times a power of ten,
    four or five of them."""
    if not math.isfinite(top) or top <= 0:
        return [0.0, 0.25, 0.5, 0.75, 1.0]
    magnitude = 10 ** math.floor(math.log10(top / 4))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude * 4 >= top * (1 - 1e-12))
    n = math.ceil(top / step - 1e-9)
    return [round(i * step, 12) for i in range(n + 1)]


class _Frame:
    """A chart's geometry: a label column sized to its labels, the plot, and room for figures at the right."""

    def __init__(self, labels: list[str], top: float, right_chars: int):
        self.label_w = math.ceil(MONO_W * max(map(len, labels), default=1) + 2 * PAD)
        self.ticks = nice_axis(top)
        self.top = self.ticks[-1]
        self.right = math.ceil(TEXT_W * right_chars + PAD)
        self.width = self.label_w + PLOT_W + self.right
        self.bottom = ROW_H * len(labels) + 4
        self.height = self.bottom + AXIS_H

    def x(self, v: float) -> float:
        return self.label_w + PLOT_W * min(max(v / self.top, 0.0), 1.0)

    def axis(self) -> list[str]:
        out = []
        for t in self.ticks:
            out.append(f'<line x1="{self.x(t):.1f}" y1="2" x2="{self.x(t):.1f}" y2="{self.bottom}" class="grid"/>')
            out.append(f'<text x="{self.x(t):.1f}" y="{self.bottom + 14}" text-anchor="middle" '
                       f'class="tick">{t:g}</text>')
        return out

    def label(self, y: float, setting: str) -> str:
        return (f'<g><title>{escape(setting)}</title><text x="{self.label_w - PAD:.1f}" y="{y + 4:.1f}" '
                f'text-anchor="end" class="label">{escape(short_label(setting))}</text></g>')

    def svg(self, parts: list[str], label: str) -> Markup:
        """The chart as markup for the page: every part is numbers formatted here or text escaped here."""
        return Markup(f'<svg width="{self.width}" height="{self.height}" viewBox="0 0 {self.width} {self.height}" '
                      f'role="img" aria-label="{escape(label)}">' + "".join(parts) + "</svg>")


def boxplot_svg(series: list[tuple[str, np.ndarray, str]], measure: str = "nDCG@10") -> Markup:
    """Horizontal box plots, one row per (setting, per-query values >= 0, colour)."""
    top = max((float(v.max()) for _, v, _ in series if len(v)), default=1.0)
    notes = [f"n={len(v)}, {np.mean(v == 0):.0%} at 0" for _, v, _ in series]
    frame = _Frame([short_label(s) for s, _, _ in series], top, max(map(len, notes), default=0))
    parts = frame.axis()
    for i, ((name, v, color), note) in enumerate(zip(series, notes)):
        y = 4 + i * ROW_H + ROW_H / 2
        parts.append(frame.label(y, name))
        parts.append(_box(v, y, frame.x, frame.top, color))
        parts.append(f'<text x="{frame.x(frame.top) + PAD:.1f}" y="{y + 4:.1f}" class="tick">{note}</text>')
    return frame.svg(parts, f"box plots of per-query {measure}")


def _box(v: np.ndarray, y: float, x: Callable[[float], float], top: float, color: str) -> str:
    q1, med, q3 = np.percentile(v, [25, 50, 75])
    iqr = q3 - q1
    inside = v[(v >= q1 - 1.5 * iqr) & (v <= q3 + 1.5 * iqr)]
    lo, hi = inside.min(), inside.max()
    # outliers de-duplicated at half-pixel resolution: thousands of queries must not mean thousands of dots
    outliers = np.unique(np.round(v[(v < lo) | (v > hi)] / top * PLOT_W * 2))
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
    p += [f'<circle cx="{x(o / (PLOT_W * 2) * top):.1f}" cy="{y:.1f}" r="1.8" fill="{color}"/>' for o in outliers]
    m = x(float(v.mean()))
    p.append(f'<path d="M{m:.1f} {y - 5:.1f} L{m + 4:.1f} {y:.1f} L{m:.1f} {y + 5:.1f} L{m - 4:.1f} {y:.1f} Z" '
             f'fill="#111" fill-opacity="0.8"/></g>')
    return "".join(p)


def bar_svg(bars: list[tuple[str, float | None, str]], measure: str) -> Markup:
    """Horizontal bars, one row per (setting, value >= 0 or None, colour), the value written at the bar's end."""
    top = max((v for _, v, _ in bars if v is not None), default=1.0)
    frame = _Frame([short_label(s) for s, _, _ in bars], top, right_chars=7)
    parts = frame.axis()
    for i, (name, v, color) in enumerate(bars):
        y = 4 + i * ROW_H + ROW_H / 2
        parts.append(frame.label(y, name))
        if v is None:
            parts.append(f'<text x="{frame.x(0) + 4:.1f}" y="{y + 4:.1f}" class="tick">not run</text>')
            continue
        parts.append(f'<rect x="{frame.x(0):.1f}" y="{y - ROW_H * 0.35:.1f}" '
                     f'width="{max(frame.x(v) - frame.x(0), 0.5):.1f}" height="{ROW_H * 0.7:.1f}" fill="{color}">'
                     f'<title>{escape(name)}: {v:.4f}</title></rect>')
        parts.append(f'<text x="{frame.x(v) + 4:.1f}" y="{y + 4:.1f}" class="tick">{v:.4f}</text>')
    return frame.svg(parts, f"bar chart of {measure}")


def colours(names: list[str]) -> dict[str, str]:
    """One colour per name, in order: PALETTE's twenty, then hues spaced by the golden angle."""
    out = {}
    for i, n in enumerate(dict.fromkeys(names)):
        if i < len(PALETTE):
            out[n] = PALETTE[i]
        else:
            r, g, b = colorsys.hls_to_rgb((i * 0.618033988749895) % 1.0, 0.42, 0.65)
            out[n] = f"#{round(r * 255):02X}{round(g * 255):02X}{round(b * 255):02X}"
    return out
