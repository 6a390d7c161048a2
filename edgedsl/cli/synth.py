"""``edgedsl synth``: run, stats, export, audit (EDGE phase B on the command line).

``synth run`` works on a fresh install: its defaults are the G* shipped with edgedsl
(:func:`edgedsl.recipe.graph.evidence.default_graph_path`, refined on the world over the
ten-platform catalog) and the world backend; the re-solve stage runs on a second, fresh world.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import orjson

from .common import (
    EXIT_ERRORS,
    EXIT_OK,
    add_backend_args,
    add_llm_args,
    add_ray_arg,
    check_ray,
    close_quietly,
    load_catalog_modules,
    load_graph_file,
    make_backend,
    open_backend,
    print_model,
    usage_error,
)

__all__ = ["add_synth_parser"]


def _pairs(text: str | None, what: str, key: type = str) -> dict[Any, float] | None:
    if not text:
        return None
    out: dict[Any, float] = {}
    for part in text.split(","):
        k, sep, v = part.partition("=")
        try:
            if not sep:
                raise ValueError
            out[key(k.strip())] = float(v)
        except ValueError:
            raise usage_error(f"--{what}: expected NAME=SHARE,…, got {part!r}") from None
    return out


def _progress(report: Any) -> None:
    tty = sys.stderr.isatty()
    rejected = sum(report.filters.dropped.values())
    text = (f"synth: {report.written}/{report.requested} written, {report.attempts} attempts "
            f"({rejected} rejected), {report.calls} calls, {report.seconds:.0f} s")
    sys.stderr.write(f"\r{text}   " if tty else f"{text}\n")
    sys.stderr.flush()


def _render_report(rep: Any, out: str) -> str:
    lines = [f"wrote {rep.written} trajectories to {out}/ ({rep.attempts} attempts, "
             f"{rep.seconds:.1f} s, {rep.calls} calls + {rep.memo_hits} from memory)",
             "structures:  " + ", ".join(f"{k} {rep.structures.get(k, 0)}/{q}"
                                         for k, q in rep.quotas.items())]
    if rep.skipped:
        lines.append("skipped: " + ", ".join(f"{r} {c}" for r, c in sorted(rep.skipped.items())))
    for stage, reasons in rep.filters.rejections.items():
        lines.append(f"rejected at {stage}: " + ", ".join(f"{r} {c}" for r, c in
                                                          sorted(reasons.items())))
    return "\n".join(lines)


def cmd_synth_run(args: argparse.Namespace) -> int:
    """``edgedsl synth run``."""
    from ..core.pool import PoolError
    from ..recipe.graph.evidence import default_graph_path
    from ..recipe.llm import LLMClient, LLMConfig
    from ..recipe.synth.pipeline import SynthConfig, synthesize

    graph = load_graph_file(args.graph or str(default_graph_path()))
    if graph.stage != "refined":
        sys.stderr.write("warning: the graph is not refined (G, not G*): edges are sampled on "
                         "their priors\n")
    catalog = load_catalog_modules(graph.catalog.modules, graph.catalog.search_paths)
    knobs: dict[str, Any] = {"n": args.n, "seed": args.seed, "phi": args.phi,
                             "batch": args.batch, "max_attempts": args.max_attempts,
                             "resolve": not args.no_resolve, "templates": args.templates}
    # the knobs given on the command line; the others keep SynthConfig's defaults
    given: dict[str, Any] = {
        "mix": _pairs(args.mix, "mix"), "lengths": _pairs(args.lengths, "lengths", int),
        "tail": _pairs(args.tail, "tail", int), "combos": _pairs(args.combos, "combos"),
        **{k: getattr(args, k) for k in ("width", "single", "narrow_fans", "restarts", "tries",
                                         "entity_weight", "read_pages")}}
    knobs.update({k: v for k, v in given.items() if v is not None})
    try:
        cfg = SynthConfig(**knobs)
    except ValueError as exc:
        errors = getattr(exc, "errors", None)  # a pydantic ValidationError: name the option
        if callable(errors) and errors():
            first = errors()[0]
            where = str(first["loc"][0]).replace("_", "-") if first.get("loc") else "knobs"
            raise usage_error(f"--{where}: {first['msg']}") from None
        raise usage_error(str(exc).splitlines()[0]) from None
    if args.templates and not Path(args.templates).is_dir():
        raise usage_error(f"--templates: no such directory: {args.templates}")
    try:
        llm_cfg = LLMConfig.from_flags(args.llm_url, args.llm_model, key_env=args.llm_key_env)
    except ValueError as exc:
        raise usage_error(str(exc)) from None
    llm = LLMClient(llm_cfg) if llm_cfg is not None else None
    from functools import partial


    check_ray(args)
    workers = args.workers if args.workers is not None else (
        None if args.ray is not None else min(2, os.cpu_count() or 1))
    if workers is not None and workers < 1:
        raise usage_error("--workers must be at least 1")
    make = partial(make_backend, args)
    backend = open_backend(args)
    try:
        rep = asyncio.run(synthesize(graph, catalog, backend, args.output, cfg,
                                     fresh=make, llm=llm, workers=workers, ray=args.ray,
                                     backend_factory=make, progress=_progress))
    except KeyboardInterrupt:
        sys.stderr.write(f"\ninterrupted; what was accepted so far is in {args.output}/\n")
        return EXIT_ERRORS
    except (ValueError, PoolError) as exc:
        raise usage_error(str(exc)) from None
    finally:
        close_quietly(backend)
    sys.stderr.write("\n" if sys.stderr.isatty() else "")
    print_model(rep, args.json, lambda: _render_report(rep, args.output))
    return EXIT_OK if rep.written else EXIT_ERRORS


def cmd_synth_stats(args: argparse.Namespace) -> int:
    """``edgedsl synth stats DIR``."""
    from ..recipe.synth.corpus import load_corpus
    from ..recipe.synth.stats import corpus_stats, render_stats
    from ..recipe.synth.trust import render_trust, trust_stats

    if not Path(args.directory).is_dir():
        raise usage_error(f"no such directory: {args.directory}")
    corpus = load_corpus(args.directory, backend=args.backend or "world", seed=args.seed)
    for file, reason in corpus.problems:
        sys.stderr.write(f"warning: {file}: {reason}\n")
    stats = corpus_stats(corpus.records)
    from ..recipe.graph.evidence import default_graph_path

    graph = load_graph_file(str(default_graph_path()))  # the catalog of the shipped G*
    catalog = load_catalog_modules(graph.catalog.modules, graph.catalog.search_paths)
    trust = trust_stats(corpus.records, catalog)
    if args.json:
        data = {**stats.model_dump(mode="json"), "trust": trust.model_dump(mode="json")}
        sys.stdout.write(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        print(render_stats(stats))
        print()
        print(render_trust(trust))
    return EXIT_OK if corpus.records else EXIT_ERRORS


def cmd_synth_export(args: argparse.Namespace) -> int:
    """``edgedsl synth export DIR --format F -o FILE``."""
    from ..recipe.synth.export import ExportError, export

    try:
        summary = export(args.directory, args.format, args.output,
                         tools_per_task=args.tools_per_task, seed=args.seed)
    except ExportError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_ERRORS
    print(f"wrote {summary.count} {summary.format} items to {summary.path} "
          f"({summary.bytes:,} bytes)")
    return EXIT_OK


def cmd_synth_audit(args: argparse.Namespace) -> int:
    """``edgedsl synth audit TRAIN EVAL``."""
    from ..recipe.synth.audit import audit_dirs, render_audit

    for d in (args.train, args.eval):
        if not Path(d).is_dir():
            raise usage_error(f"no such directory: {d}")
    report = audit_dirs(args.train, args.eval)
    print_model(report, args.json, lambda: render_audit(report))
    return EXIT_OK


def add_synth_parser(sub: Any) -> None:
    """Add ``synth`` and its commands to the CLI's subparsers."""
    sp = sub.add_parser("synth", help="EDGE phase B: synthesize trajectories from G*")
    ssub = sp.add_subparsers(dest="synth_command", required=True, metavar="COMMAND")

    p = ssub.add_parser("run", help="synthesize, filter and write trajectories")
    p.add_argument("-n", type=int, default=100, help="trajectories to write (100)")
    p.add_argument("-o", "--output", default="synth", help="output directory (synth/)")
    p.add_argument("--graph", metavar="GSTAR.json",
                   help="the refined graph (default: the G* shipped with edgedsl)")
    p.add_argument("--phi", type=int, default=5, help="fan-out budget φ (5)")
    p.add_argument("--width", type=int,
                   help="values a narrowing keeps, comparison arms, group branches: at most "
                        "this many (≤ φ; 2)")
    p.add_argument("--mix", metavar="TYPE=SHARE,…",
                   help="structure mix, e.g. Seq=1,Sem=1 (default: the recipe's)")
    p.add_argument("--lengths", metavar="EDGES=WEIGHT,…",
                   help="chain lengths in edges (default 2=0.2,3=0.35,4=0.3,5=0.15)")
    p.add_argument("--tail", metavar="EDGES=WEIGHT,…",
                   help="edges a chain grows after a parallel group or a comparison's winner "
                        "(sequential calls; default 1=0.3,2=0.5,3=0.2; 0=1: none)")
    p.add_argument("--single", type=float, metavar="P",
                   help="chance that a narrowing of more than φ values hands on one value "
                        "(a sequential call) rather than several, a fan of parallel calls "
                        "(0 … 1; 0.9)")
    p.add_argument("--narrow-fans", type=float, metavar="P",
                   help="chance that a hand-off of 2 … φ values, a fan by the recipe's "
                        "typing, is narrowed to one value by a drv instead (0 … 1; 0)")
    p.add_argument("--restarts", type=int, metavar="K",
                   help="a Seq, Fan or Drv chain that ends short of its drawn length is grown "
                        "again from another root up to K times, the longest kept (2)")
    p.add_argument("--tries", type=int, metavar="K",
                   help="edges run per step before the step gives up (3)")
    p.add_argument("--entity-weight", type=float, metavar="W",
                   help="added to the draw of an edge handing off an entity identifier "
                        "(a company, school, bill, statute, district, route; 0.2; 0: off)")
    p.add_argument("--read-pages", type=int, metavar="K",
                   help="pages a draft may read of one call (`pages all` within this budget; "
                        "a call whose whole result needs more is passed over; 1 … 50; 25)")
    p.add_argument("--combos", metavar="NAME=WEIGHT,…",
                   help="weights of the compositions a Mixed trajectory tries: cmp+chain, "
                        "chain+sem, chain+cond, fan+sem, drv+fan (default cmp+chain=1,"
                        "chain+sem=1,chain+cond=2,fan+sem=0.1,drv+fan=0.5)")
    p.add_argument("--batch", type=int, default=32,
                   help="attempts scheduled together, split across the workers (32)")
    p.add_argument("--workers", type=int,
                   help="processes running attempts (default: 2, or 1 on a single core; "
                   "with --ray: one per CPU of the cluster)")
    add_ray_arg(p, "the attempts")
    p.add_argument("--max-attempts", type=int, help="give up after this many (25 × N)")
    p.add_argument("--no-resolve", action="store_true",
                   help="skip the re-solve filter (recompile and rerun on a fresh world)")
    p.add_argument("--templates", metavar="DIR",
                   help="query templates overriding the shipped ones, file by file")
    add_llm_args(p, "paraphrase queries and check tasks with a chat model")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    add_backend_args(p)
    p.set_defaults(func=cmd_synth_run)

    p = ssub.add_parser("stats", help="the recipe's statistics of a directory of trajectories")
    p.add_argument("directory", metavar="DIR")
    p.add_argument("--backend", metavar="NAME",
                   help="runs .edge files without a record here (default: world)")
    p.add_argument("--seed", type=int, default=None,
                   help="the world's seed (default: each file's `run { seed }`, else 0)")
    p.add_argument("--json", action="store_true", help="print the statistics as JSON")
    p.set_defaults(func=cmd_synth_stats)

    p = ssub.add_parser("export", help="training data: SFT chat JSONL, RL parquet, steps")
    p.add_argument("directory", metavar="DIR")
    p.add_argument("--format", required=True, choices=("sft", "rl", "steps"))
    p.add_argument("-o", "--output", required=True, metavar="FILE")
    p.add_argument("--tools-per-task", type=int, default=8,
                   help="tools exposed per task, distractors included (8)")
    p.add_argument("--seed", type=int, default=0, help="seed of the distractor choice (0)")
    p.set_defaults(func=cmd_synth_export)

    p = ssub.add_parser("audit", help="contamination audit of a training set against an "
                                      "evaluation set")
    p.add_argument("train", metavar="TRAIN")
    p.add_argument("eval", metavar="EVAL")
    p.add_argument("--json", action="store_true", help="print the audit as JSON")
    p.set_defaults(func=cmd_synth_audit)
