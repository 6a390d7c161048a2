"""Reports of a scored run: text tables per axis, platform and structure, and an SVG chart.

:func:`render_summary` prints the run's headline (pass@1 and pass@k with their 95 % bootstrap
intervals, the mean of each axis), the end reasons, and one table per platform and per structure
(tasks, episodes, pass@1, pass@k, RESPONSE, ENVIRONMENT, ACTION); with a model judge, its
model and the count of each verdict. :func:`render_svg` draws the
same per-group figures as grouped horizontal bars, one panel per grouping, in plain SVG (no
plotting dependency: a few rectangles and labels).
"""

from __future__ import annotations

from html import escape

from .score.summary import Estimate, GroupRow, Summary

__all__ = ["render_summary", "render_svg"]

_AXES = (("pass@1", "pass_at_1"), ("RESPONSE", "response"), ("ENVIRONMENT", "environment"),
         ("ACTION", "action"))
_COLOURS = ("#4c72b0", "#55a868", "#c44e52", "#8172b2")


def _est(e: Estimate | None) -> str:
    return "—" if e is None else f"{e.value:.3f} [{e.lo:.3f}, {e.hi:.3f}]"


def _table(title: str, rows: list[GroupRow], k: int) -> list[str]:
    pk_head = f"pass@{k}" if k > 1 else "pass@k"
    head = f"{title:<16} {'tasks':>5} {'eps':>5} {'pass@1':>7} {pk_head:>7} " \
           f"{'RESP':>6} {'ENV':>6} {'ACTION':>6}"
    out = [head, "-" * len(head)]
    for r in rows:
        pk = "—" if r.pass_at_k is None or k == 1 else f"{r.pass_at_k:.3f}"
        out.append(f"{r.group:<16} {r.tasks:>5} {r.episodes:>5} {r.pass_at_1:>7.3f} {pk:>7} "
                   f"{r.response:>6.3f} {r.environment:>6.3f} {r.action:>6.3f}")
    return out


def render_summary(s: Summary) -> str:
    """The run's report as text (module docstring)."""
    lines = [f"agent {s.agent}: {s.tasks} tasks, {s.episodes} episodes (k = {s.k}), "
             f"bundle {s.bundle_hash[:12]}",
             f"pass@1       {_est(s.pass_at_1)}"]
    if s.k > 1:
        lines.append(f"pass@{s.k:<7} {_est(s.pass_at_k)}")
    lines += [f"RESPONSE     {_est(s.response)}", f"ENVIRONMENT  {_est(s.environment)}",
              f"ACTION       {_est(s.action)}",
              "end reasons  " + ", ".join(f"{r} {n}" for r, n in s.end_reasons.items())]
    if s.judge is not None:
        verdicts = ", ".join(f"{v} {n}" for v, n in s.judge_verdicts.items()) or "none asked"
        lines.append(f"judge        {s.judge.get('model', '?')}: {verdicts}")
    if s.incomplete:
        lines.append(f"incomplete   {len(s.incomplete)} task(s) with fewer than {s.k} rollouts "
                     f"(left out of pass@{s.k})")
    lines += ["", *_table("platform", s.by_platform, s.k), "",
              *_table("structure", s.by_structure, s.k)]
    return "\n".join(lines)


def _panel(title: str, rows: list[GroupRow], y0: float, width: float) -> tuple[list[str], float]:
    label_w, bar_h, gap = 130.0, 7.0, 8.0
    plot_w = width - label_w - 60.0
    out = [f'<text x="10" y="{y0 + 14:.0f}" font-weight="bold">{escape(title)}</text>']
    y = y0 + 26.0
    for r in rows:
        out.append(f'<text x="10" y="{y + 2 * bar_h:.1f}">{escape(r.group)} '
                   f'({r.tasks})</text>')
        for i, (_, attr) in enumerate(_AXES):
            v = float(getattr(r, attr))
            w = max(0.0, min(1.0, v)) * plot_w
            out.append(f'<rect x="{label_w:.0f}" y="{y + i * bar_h:.1f}" width="{w:.1f}" '
                       f'height="{bar_h - 1:.0f}" fill="{_COLOURS[i]}"/>')
            out.append(f'<text x="{label_w + w + 3:.1f}" y="{y + i * bar_h + bar_h - 1:.1f}" '
                       f'font-size="7">{v:.2f}</text>')
        y += len(_AXES) * bar_h + gap
    return out, y


def render_svg(s: Summary, *, width: int = 640) -> str:
    """The per-platform and per-structure figures of a run as one SVG document."""
    body: list[str] = []
    legend = [f'<rect x="{10 + i * 110}" y="8" width="10" height="10" fill="{c}"/>'
              f'<text x="{24 + i * 110}" y="17">{name}</text>'
              for i, ((name, _), c) in enumerate(zip(_AXES, _COLOURS, strict=True))]
    body += legend
    y = 28.0
    for title, rows in ((f"by platform — {s.agent}, pass@1 {s.pass_at_1.value:.3f}",
                         s.by_platform), ("by structure", s.by_structure)):
        part, y = _panel(title, rows, y, float(width))
        body += part
    height = int(y + 10)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="10">\n'
            f'<rect width="100%" height="100%" fill="white"/>\n'
            + "\n".join(body) + "\n</svg>\n")
