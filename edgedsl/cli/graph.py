"""``edgedsl graph build | refine | report | show`` (see ``docs/graph.md``).

Every command works on a fresh install with no option: the ten-platform catalog of ``stdlib/``
and the world backend. Data goes to stdout (``--json`` wherever a command prints data), progress
and notes to stderr. Exit codes as everywhere: 0 ok, 1 failure, 2 usage.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from ..core.resources import stdlib_modules
from .args import non_negative, non_negative_int, positive, positive_int, probability
from .common import (
    EXIT_ERRORS,
    EXIT_OK,
    add_backend_args,
    add_llm_args,
    close_quietly,
    load_catalog_modules,
    load_graph_file,
    open_backend,
    usage_error,
)

__all__ = ["DEFAULT_MODULES", "add_graph_parser", "default_modules"]


def default_modules() -> list[str]:
    """The ten-platform catalog: every ``stdlib/*.edge`` module except the shared code types."""
    return stdlib_modules()


DEFAULT_MODULES: tuple[str, ...] = ()
"""Empty: :func:`default_modules` is read when a command runs."""


def _progress(label: str) -> Callable[..., None]:
    """A progress printer: one line rewritten in place on a terminal, a line each otherwise."""
    tty = sys.stderr.isatty()

    def show(*args: Any) -> None:
        if label == "refine":
            stats, total = args
            text = (f"iteration {stats.iteration}/{total}: {stats.paths} paths, pass "
                    f"{100 * stats.pass_rate:5.1f}%, steps {100 * stats.step_rate:5.1f}%, "
                    f"{stats.edges} edges kept ({stats.pruned} pruned, {stats.new_edges} tried "
                    "for the first time)")
        else:
            done, total = args
            text = f"{label}: {done}/{total} tools"
        sys.stderr.write(f"\r{text}   " if tty else f"{text}\n")
        sys.stderr.flush()
    return show


# ---------------------------------------------------------------- build


def cmd_graph_build(args: argparse.Namespace) -> int:
    """``graph build``: candidate edges with priors (and observed defaults) → G."""
    from ..recipe.graph.build import K_CODE, build_candidates
    from ..recipe.graph.model import CatalogRef, save_graph
    from ..recipe.graph.observe import ValuePool, node_defaults
    from ..recipe.graph.probe import probe

    modules = args.modules.split(",") if args.modules else default_modules()
    catalog = load_catalog_modules(modules, args.search_path)
    ref = CatalogRef(modules=modules, search_paths=[str(Path(p).resolve())
                                                    for p in args.search_path])
    scorer = _scorer(args)
    k_code = K_CODE if args.k_code is None else args.k_code
    graph = build_candidates(catalog, catalog_ref=ref, k_same=args.k_same,
                             k_cross=args.k_cross, k_code=k_code, scorer=scorer)
    summary: dict[str, Any] = {"tools": len(graph.tools), "edges": len(graph.edges)}
    if not args.no_probe:
        backend = open_backend(args)
        pool = ValuePool()
        try:
            rep = asyncio.run(probe(graph, catalog, backend, pool, seed=args.seed,
                                    progress=_progress("probe")))
        finally:
            close_quietly(backend)
        if sys.stderr.isatty():
            sys.stderr.write("\n")
        for t in graph.tools:
            t.defaults = node_defaults(t, pool, catalog.code_types)
        summary.update(probed=len(rep.called), answered=len(rep.answered),
                       observed_values=rep.values, uncallable=len(rep.uncallable))
    graph.config = {**graph.config, "probe": not args.no_probe, "probe_seed": args.seed}
    save_graph(graph, args.output)
    if args.json:
        sys.stdout.write(orjson.dumps({"output": args.output, **summary}).decode() + "\n")
    else:
        sys.stdout.write(f"wrote {args.output}: " + ", ".join(f"{v} {k.replace('_', ' ')}"
                                                              for k, v in summary.items())
                         + "\n")
    return EXIT_OK


def _scorer(args: argparse.Namespace) -> Any:
    """The chat-model scorer when ``--llm-url``/``--llm-model`` are given, else None (the
    heuristic)."""
    from ..recipe.graph.model_prior import ChatModelScorer
    from ..recipe.llm import LLMClient, LLMConfig

    try:
        config = LLMConfig.from_flags(args.llm_url, args.llm_model, key_env=args.llm_key_env)
    except ValueError as exc:
        raise usage_error(str(exc)) from None
    return None if config is None else ChatModelScorer(LLMClient(config))


# ---------------------------------------------------------------- refine


def cmd_graph_refine(args: argparse.Namespace) -> int:
    """``graph refine G.json -o GSTAR.json``: refinement by execution → G*."""
    from ..recipe.graph.args import pool_from_graph
    from ..recipe.graph.beta import Evidence, PruneRule
    from ..recipe.graph.model import save_graph
    from ..recipe.graph.refine import RefineConfig, refine

    graph = load_graph_file(args.graph)
    catalog = load_catalog_modules(graph.catalog.modules, graph.catalog.search_paths)
    cfg = RefineConfig(iterations=args.iterations, paths=args.paths, epsilon=args.epsilon,
                       strength=args.strength, seed=args.seed,
                       evidence=Evidence(environmental=args.env_weight),
                       prune=PruneRule(theta=args.theta, delta=args.delta, n_min=args.n_min),
                       min_trials=args.min_trials, directed=args.directed)
    out = Path(args.output)
    ckpt = out.with_name(out.name + ".ckpt")
    if ckpt.exists() and not args.resume:
        sys.stderr.write(f"note: starting afresh; {ckpt} holds an earlier run (use --resume to "
                         "continue it)\n")
        ckpt.unlink()
    pool = pool_from_graph(graph)  # defaults observed by `graph build` seed the pool
    backend = open_backend(args)
    try:
        gstar = asyncio.run(refine(graph, catalog, backend, cfg, pool=pool, checkpoint=ckpt,
                                   progress=_progress("refine")))
    except KeyboardInterrupt:
        sys.stderr.write(f"\ninterrupted; `--resume` continues from {ckpt}\n")
        return EXIT_ERRORS
    finally:
        close_quietly(backend)
    if sys.stderr.isatty():
        sys.stderr.write("\n")
    save_graph(gstar, out)
    ckpt.unlink(missing_ok=True)
    its = gstar.iterations
    summary = {"output": str(out), "iterations": len(its), "stopped": gstar.config.get("stopped"),
               "edges": len(gstar.edges), "pruned": len(gstar.pruned),
               "pass_rate": [its[0].pass_rate, its[-1].pass_rate] if its else None}
    if args.json:
        sys.stdout.write(orjson.dumps(summary).decode() + "\n")
    else:
        sys.stdout.write(f"wrote {out}: {len(gstar.edges)} edges kept, {len(gstar.pruned)} "
                         f"pruned, {len(its)} iterations ({summary['stopped']}; "
                         f"{gstar.config.get('below_min_trials')} reachable edges unsettled, "
                         f"{gstar.config.get('given_up')} given up, "
                         f"{gstar.config.get('unreachable')} unreachable)\n")
    return EXIT_OK


# ---------------------------------------------------------------- report


def cmd_graph_report(args: argparse.Namespace) -> int:
    """``graph report GSTAR.json``: fresh executions of skeleton, G* and pruned edges."""
    from ..recipe.graph.report import graph_report, plot_svg, render_report

    graph = load_graph_file(args.graph)
    if graph.stage != "refined":
        raise usage_error(f"{args.graph} is a candidate graph; refine it first "
                     "(`edgedsl graph refine`)")
    catalog = load_catalog_modules(graph.catalog.modules, graph.catalog.search_paths)
    backend = open_backend(args)
    try:
        rep = asyncio.run(graph_report(graph, catalog, backend, runs=args.runs,
                                       max_edges=args.max_edges, seed=args.report_seed))
    finally:
        close_quietly(backend)
    if args.plot:
        Path(args.plot).write_text(plot_svg(rep.iterations, title=f"refinement of "
                                            f"{Path(args.graph).name}"), encoding="utf-8")
        sys.stderr.write(f"wrote {args.plot}\n")
    if args.json:
        sys.stdout.write(rep.model_dump_json() + "\n")
    else:
        sys.stdout.write(render_report(rep) + "\n")
    return EXIT_OK


# ---------------------------------------------------------------- show


def cmd_graph_show(args: argparse.Namespace) -> int:
    """``graph show G.json TOOL``: one tool's neighbourhood."""
    from ..core.diagnostics import did_you_mean
    from ..recipe.graph.show import neighbourhood, render_neighbourhood

    graph = load_graph_file(args.graph)
    names = [t.name for t in graph.tools]
    if args.tool not in names:
        hint = did_you_mean(args.tool, names)
        raise usage_error(f"no tool `{args.tool}` in {args.graph}"
                     + (f"; did you mean `{hint[0]}`?" if hint else ""))
    view = neighbourhood(graph, args.tool)
    if args.json:
        sys.stdout.write(orjson.dumps(view).decode() + "\n")
    else:
        sys.stdout.write(render_neighbourhood(view) + "\n")
    return EXIT_OK


# ---------------------------------------------------------------- parsers


def add_graph_parser(sub: Any) -> None:
    """Add ``graph`` and its commands to the CLI's subparsers."""
    sp = sub.add_parser("graph", help="EDGE phase A: the tool-dependency graph G and G*")
    gsub = sp.add_subparsers(dest="graph_command", required=True, metavar="COMMAND")

    p = gsub.add_parser("build", help="candidate edges with feasibility priors → G")
    p.add_argument("-o", "--output", default="G.json", help="output file (default G.json)")
    p.add_argument("--modules", metavar="A,B,…",
                   help="catalog modules (default: the ten platforms of stdlib/)")
    p.add_argument("--search-path", metavar="DIR", action="append", default=[],
                   help="also look for modules here (repeatable)")
    p.add_argument("--k-same", type=non_negative_int, default=15,
                   help="targets per tool, same domain (15)")
    p.add_argument("--k-cross", type=non_negative_int, default=10,
                   help="targets per tool, other domains (10)")
    p.add_argument("--k-code", type=non_negative_int, default=None,
                   help="more targets per tool, other domains, taking a code type its fields "
                        "carry (default 20; docs/graph.md, \"Code joins\")")
    p.add_argument("--no-probe", action="store_true",
                   help="do not call tools to observe default values")
    add_llm_args(p, "score candidates with a chat model")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    add_backend_args(p)
    p.set_defaults(func=cmd_graph_build)

    p = gsub.add_parser("refine", help="refine G by execution → G*")
    p.add_argument("graph", metavar="G.json")
    p.add_argument("-o", "--output", default="GSTAR.json", help="output (default GSTAR.json)")
    p.add_argument("--iterations", type=positive_int, default=100,
                   help="at most this many (100)")
    p.add_argument("--paths", type=positive_int, default=16, help="paths per iteration (16)")
    p.add_argument("--epsilon", type=probability, default=0.2,
                   help="exploration floor ε (0.2)")
    p.add_argument("--strength", type=positive, default=2.0, help="prior strength α+β (2)")
    p.add_argument("--theta", type=probability, default=0.3, help="prune threshold θ (0.3)")
    p.add_argument("--delta", type=probability, default=0.1,
                   help="prune when P(p > θ) < δ (0.1)")
    p.add_argument("--n-min", type=positive_int, default=3, help="trials before pruning (3)")
    p.add_argument("--env-weight", type=non_negative, default=0.0,
                   help="failure evidence of an environmental failure (0: none)")
    p.add_argument("--min-trials", type=positive_int, default=3,
                   help="informative trials every reachable edge needs before convergence (3)")
    p.add_argument("--directed", type=probability, default=0.75,
                   help="share of paths aimed at unsettled reachable edges (0.75)")
    p.add_argument("--resume", action="store_true",
                   help="continue an interrupted run from OUTPUT.ckpt")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    add_backend_args(p)
    p.set_defaults(func=cmd_graph_refine)

    p = gsub.add_parser("report", help="success rates of skeleton, G* and pruned edges")
    p.add_argument("graph", metavar="GSTAR.json")
    p.add_argument("--runs", type=positive_int, default=2, help="fresh executions per edge (2)")
    p.add_argument("--max-edges", type=positive_int, default=300,
                   help="edges sampled per set (300)")
    p.add_argument("--report-seed", type=int, default=1,
                   help="seed of the fresh executions (1; refinement's default is 0)")
    p.add_argument("--plot", metavar="FILE.svg", help="draw pass and step rates per iteration")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    add_backend_args(p)
    p.set_defaults(func=cmd_graph_report)

    p = gsub.add_parser("show", help="one tool's neighbourhood in G or G*")
    p.add_argument("graph", metavar="G.json")
    p.add_argument("tool", metavar="TOOL", help="a qualified tool name, e.g. dart.company")
    p.add_argument("--json", action="store_true", help="print the view as JSON")
    p.set_defaults(func=cmd_graph_show)
