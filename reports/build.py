"""Which report a directory gets, and the report of one or more runs: ``build_report``."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from meeplab.analysis.compare import bot_order, grid_params, sweep_param, unique_labels
from meeplab.analysis.ladder import is_ladder
from meeplab.analysis.load import load_run
from meeplab.analysis.options import is_options
from meeplab.analysis.stats import run_stats
from meeplab.sim.core.errors import MeeplabError

from . import charts
from .compare import comparison_section, overview_section, sweep_section
from .confirm import confirm_section
from .fair import fair_section
from .format import slug
from .ladder import build_ladder_report
from .options import build_options_report
from .quality import quality_section
from .runs import run_section
from .sequential import sprt_section
from .sweep2 import grid_section
from .template import now, output_path, render_page, write_page
from .views import Section

#: reports of this many runs or more fold each run's charts and tables under its key findings (a sweep of many values
#: would otherwise be dozens of screens)
FOLD_FROM = 3


def build_report(
    paths: list[str | Path],
    out: str | Path,
    title: str | None = None,
    confirm: dict | None = None,
    answer: dict | None = None,
) -> Path:
    """Write one self-contained HTML report for the run directories ``paths`` to ``out``.

    With several runs the first is the baseline of the comparison section. ``confirm``: a strong-bot confirmation of
    the what-if (the record of ``OUT/confirm.json``), shown after the overview; ``answer``:
    ``meeplab fair``'s record (``OUT/fair.json``), its answer shown first. Returns the path written. Bad inputs
    raise :class:`MeeplabError` naming the path."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    paths = list(paths)
    if not paths:
        raise MeeplabError("report: no run directories given")
    if len(paths) == 1 and is_ladder(paths[0]):  # meeplab ladder's directory: its own report
        return build_ladder_report(paths[0], out, title)
    if len(paths) == 1 and is_options(paths[0]):  # meeplab options' directory: its own report
        return build_options_report(paths[0], out, title)
    out = output_path(Path(out))
    runs = [load_run(p) for p in paths]
    stats = [run_stats(r) for r in runs]
    labels = unique_labels(runs)
    anchors: list[str] = []
    for lab in labels:
        a = "run-" + slug(lab)
        while a in anchors:
            a += "-x"
        anchors.append(a)
    colors = charts.colors_for(bot_order(runs, stats))

    games = sorted({r.title for r in runs})
    if title is None:
        title = (
            f"{' / '.join(games)} balance report"
            if len(runs) == 1
            else (f"{' / '.join(games)}: {len(runs)} runs compared")
        )
    subtitle = (
        f"{len(runs)} run{'s' if len(runs) > 1 else ''} · "
        f"{sum(int(s.games['games'].sum()) for s in stats):,} games · generated {now()}"
    )

    sweep = sweep_param(runs) if len(runs) > 1 else None
    grid = grid_params(runs) if len(runs) > 2 and not sweep else None
    toc: list[tuple[str, str]] = []
    sections: list[Section] = []
    if len(runs) > 1:
        toc.append(("comparison", "Comparison"))
        if sweep:
            toc.append(("sweep", f"Sweep: {sweep}"))
        if grid:
            toc.append(("sweep2", f"Sweep: {grid[0]} × {grid[1]}"))
        if answer is not None:
            toc.insert(0, ("fair", f"Fairest {answer.get('param', '')}"))
            sections.append(fair_section(answer))
        sections.append(overview_section(runs, stats, labels, anchors))
        if confirm is not None:
            toc.insert(0, ("confirm", f"Confirmed with {confirm['bot']}"))
            sections.append(confirm_section(confirm))
    toc += list(zip(anchors, labels))
    if len(runs) > 1:  # the comparison first: it is what a multi-run report is for
        seq = [(i, r.meta["sprt"]) for i, r in enumerate(runs) if i and isinstance(r.meta.get("sprt"), dict)]
        if seq:  # compare --until-significant: the sequential test's verdict leads
            toc.insert(0, ("sequential", "Sequential test"))
            sections += [sprt_section(rec, labels[0], labels[i]) for i, rec in seq]
        sections.append(comparison_section(runs, stats, labels, colors))
        if sweep:
            sections.append(sweep_section(runs, stats, labels, sweep, colors))
        if grid:
            sections.append(grid_section(runs, stats, labels, grid))
    for run, st, lab, a in zip(runs, stats, labels, anchors):
        sections.append(replace(run_section(run, st, lab, a, colors), folded=len(runs) >= FOLD_FROM))
        qs = quality_section(run.path, a + "-quality")  # meeplab quality's data in the run directory
        if qs is not None:
            toc.append((qs.anchor, "Is it a good game?"))
            sections.append(qs)
    doc = render_page(
        title,
        subtitle,
        toc if len(toc) > 1 else [],
        sections,
        "meeplab balance report · win rates count a k-way shared first place as 1/k · intervals are 95%",
    )
    return write_page(out, doc)
