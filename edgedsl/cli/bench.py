"""``edgedsl bench``: make, run, score, report (agent evaluation on the command line).

``bench make DIR… -o BUNDLE`` builds a bundle from ``.edge`` files (tasks whose gold answer is
not determined are refused, each with its reason, on stderr); ``bench run BUNDLE --agent NAME
-o RESULTS`` runs k rollouts per task into a results directory and scores them; ``bench score
RESULTS`` re-scores a results directory without re-running; ``bench report RESULTS`` prints the
tables (``--json``: the summary as JSON; ``--plot FILE.svg``: the chart). ``bench run`` and
``bench score`` take ``--judge-url URL --judge-model NAME [--judge-key-env VAR]``: a model judge
for the free-text answers the typed comparison fails (off unless given).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import orjson

from .args import positive_int, seconds
from .common import EXIT_ERRORS, EXIT_OK, add_ray_arg, check_ray, print_model, usage_error

__all__ = ["add_bench_parser"]


def _backend_options(args: argparse.Namespace, snapshot: str | None) -> dict[str, Any]:
    """The options of the fresh backend each episode gets (JSON: they go into ``meta.json``)."""
    if args.backend == "world":
        if args.store:
            raise usage_error("--store is for `--backend store`")
        if args.faults:
            try:
                return {"faults": orjson.loads(Path(args.faults).read_bytes())}
            except (OSError, orjson.JSONDecodeError) as exc:
                raise usage_error(f"cannot read the fault plan {args.faults}: {exc}") from None
        return {}
    if args.backend == "store":
        path = args.store or snapshot
        if not path:
            raise usage_error("the store backend needs `--store FILE` (or a bundle made with "
                              "--snapshot)")
        return {"path": str(path), "strict": not args.no_strict}
    if args.backend == "http":
        return {}
    raise usage_error(f"unknown backend `{args.backend}`; bench runs on world, store or http")


def cmd_bench_make(args: argparse.Namespace) -> int:
    """``edgedsl bench make DIR… -o BUNDLE``."""
    from ..bench.bundle import BundleError, make_bundle, read_budgets, save_bundle

    def progress(name: str) -> None:
        if not args.quiet:
            sys.stderr.write(f"  ok {name}\n")

    try:
        budgets = read_budgets(args.budgets) if args.budgets else None
        bundle = make_bundle(args.paths, seed=args.seed, tools_per_task=args.tools_per_task,
                             snapshot=args.snapshot, progress=progress, budgets=budgets)
    except BundleError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_ERRORS
    for r in bundle.refused:
        where = f"{r.file}" + (f" `{r.trajectory}`" if r.trajectory else "")
        sys.stderr.write(f"refused {where}: {r.reason}: {r.detail}\n")
    sealed = save_bundle(bundle, args.output)
    mean = (sum(len(t.tools) for t in sealed.tasks) / len(sealed.tasks)) if sealed.tasks else 0
    print(f"wrote {len(sealed.tasks)} tasks ({len(sealed.refused)} refused, {mean:.2f} tools "
          f"exposed per task) to {args.output}, hash {sealed.hash[:12]}")
    return EXIT_OK if sealed.tasks else EXIT_ERRORS


def _chat_options(args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, Any]]:
    """The chat agents' options given (``--base-url``, ``--model``, ``--temperature``,
    ``--key-env``, ``--mistakes``) and what ``meta.json`` records of them (no key, no
    credentials in the URL); UsageError when they are given to another agent."""
    from ..bench.agents.chat import CHAT_AGENTS, ChatAgentConfig

    given = {k: v for k, v in (("base_url", args.base_url), ("model", args.model),
                               ("temperature", args.temperature), ("key_env", args.key_env),
                               ("mistakes", args.mistakes), ("mcp_url", args.mcp_url),
                               ("mcp_command", args.mcp_command)) if v is not None}
    mcp: dict[str, Any] = {k: given.pop(k) for k in ("mcp_url", "mcp_command") if k in given}
    if mcp and args.agent != "mcp":
        flags = ", ".join(f"--{k.replace('_', '-')}" for k in mcp)
        raise usage_error(f"{flags}: only the mcp agent takes these")
    if args.agent not in CHAT_AGENTS:
        if given:
            flags = ", ".join(f"--{k.replace('_', '-')}" for k in given)
            raise usage_error(f"{flags}: only the {' and '.join(CHAT_AGENTS)} agents take "
                              "these")
        return {}, {}
    try:
        if mcp:
            from ..bench.agents.mcp import McpServerSpec

            McpServerSpec(mcp.get("mcp_url"), mcp.get("mcp_command"))
        return {**given, **mcp}, {**ChatAgentConfig.of(given).describe(), **mcp}
    except ValueError as exc:
        raise usage_error(str(exc)) from None


def _judge(args: argparse.Namespace) -> Any:
    """The :class:`~edgedsl.bench.score.judge.JudgeConfig` of ``--judge-url`` and
    ``--judge-model`` (None when neither is given); UsageError when only one is, or when the
    endpoint is not valid."""
    from ..bench.score.judge import JudgeConfig
    from ..recipe.llm import DEFAULT_KEY_ENV

    if args.judge_url is None and args.judge_model is None:
        if args.judge_key_env is not None:
            raise usage_error("--judge-key-env needs --judge-url and --judge-model")
        return None
    if args.judge_url is None or args.judge_model is None:
        given, missing = ("--judge-url", "--judge-model") if args.judge_model is None else \
            ("--judge-model", "--judge-url")
        raise usage_error(f"{given} needs {missing} as well")
    config = JudgeConfig(base_url=args.judge_url, model=args.judge_model,
                         key_env=args.judge_key_env or DEFAULT_KEY_ENV)
    try:
        config.llm()
    except ValueError as exc:
        raise usage_error(f"judge: {exc}") from None
    return config


def cmd_bench_run(args: argparse.Namespace) -> int:
    """``edgedsl bench run BUNDLE --agent NAME -o RESULTS``."""
    from ..bench.agents.base import make_agent
    from ..bench.bundle import BundleError, load_bundle
    from ..bench.report import render_summary
    from ..bench.runner import RunError, run_bench
    from ..bench.score import score_episode
    from ..bench.toolbox import Budgets
    from ..core.pool import Parallel, PoolError

    check_ray(args)
    judge = _judge(args)
    try:
        bundle = load_bundle(args.bundle)
    except BundleError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_ERRORS
    options = _backend_options(args, bundle.snapshot)
    chat, agent_options = _chat_options(args)
    try:
        agent = make_agent(args.agent, bundle, **chat)
    except ValueError as exc:
        raise usage_error(str(exc)) from None
    budgets = Budgets(calls=args.max_calls, seconds=args.time_budget)

    def progress(ep: Any, done: int, total: int) -> None:
        if not args.quiet:
            mark = "pass" if score_episode(ep).passed else "fail"
            sys.stderr.write(f"  [{done}/{total}] {ep.task_id} #{ep.rollout} {ep.end_reason} "
                             f"{mark}\n")

    try:
        summary = run_bench(bundle, agent, out=args.output, k=args.k, seed=args.seed,
                            backend=args.backend, backend_options=options, budgets=budgets,
                            concurrency=args.concurrency, bundle_path=str(args.bundle),
                            tasks=args.task or None, progress=progress,
                            agent_options=agent_options, agent_args=chat,
                            parallel=Parallel(workers=args.workers, ray=args.ray),
                            judge=judge)
    except (RunError, KeyError, PoolError) as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_ERRORS
    print(render_summary(summary))
    return EXIT_OK


def _scored(results: str, judge: Any = None) -> Any:
    """The summary of scoring ``results`` again (with the model ``judge`` if one is given), or
    None after printing why it cannot be read."""
    from ..bench.episode import EpisodeFileError
    from ..bench.score.summary import score_results

    try:
        return score_results(results, judge=judge)[1]
    except EpisodeFileError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return None


def cmd_bench_score(args: argparse.Namespace) -> int:
    """``edgedsl bench score RESULTS``."""
    from ..bench.report import render_summary

    summary = _scored(args.results, _judge(args))
    if summary is None:
        return EXIT_ERRORS
    print(render_summary(summary))
    return EXIT_OK


def cmd_bench_report(args: argparse.Namespace) -> int:
    """``edgedsl bench report RESULTS [--json] [--plot FILE.svg]``."""
    from ..bench.report import render_summary, render_svg
    from ..bench.score.summary import read_summary

    try:
        summary = read_summary(args.results)
    except FileNotFoundError:
        summary = _scored(args.results)
        if summary is None:
            return EXIT_ERRORS
    if args.plot:
        Path(args.plot).write_text(render_svg(summary), encoding="utf-8")
    print_model(summary, args.json, lambda: render_summary(summary))
    return EXIT_OK


def _add_judge_args(p: argparse.ArgumentParser) -> None:
    """``--judge-url``, ``--judge-model``, ``--judge-key-env`` (the optional model judge)."""
    p.add_argument("--judge-url", metavar="URL",
                   help="a model judge for free-text answers the typed comparison fails: its "
                   "OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (off by default)")
    p.add_argument("--judge-model", metavar="NAME", help="the judge's model name")
    p.add_argument("--judge-key-env", metavar="VAR", default=None,
                   help="the variable holding the judge endpoint's key (default "
                   "EDGEDSL_LLM_KEY; none set: no Authorization header)")


def add_bench_parser(sub: Any) -> None:
    """Add ``bench`` and its commands to the CLI's subparsers."""
    sp = sub.add_parser("bench", help="evaluate agents: bundles, runs, scores, reports")
    bsub = sp.add_subparsers(dest="bench_command", required=True, metavar="COMMAND")

    p = bsub.add_parser("make", help="build a task bundle from .edge files")
    p.add_argument("paths", nargs="+", metavar="DIR", help=".edge files or directories")
    p.add_argument("-o", "--output", required=True, metavar="BUNDLE")
    p.add_argument("--seed", type=int, default=0, help="the world's seed (default 0)")
    p.add_argument("--tools-per-task", type=float, default=7.5, metavar="K",
                   help="mean number of tools exposed per task (default 7.5)")
    p.add_argument("--snapshot", metavar="STORE",
                   help="record the gold runs into this store, for `run --backend store`")
    p.add_argument("--budgets", metavar="FILE.json",
                   help='tasks\' own budgets: {"TASK": {"calls": N, "seconds": S}, …} '
                   "(the others take the run's --max-calls and --time-budget)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    p.set_defaults(func=cmd_bench_make)

    p = bsub.add_parser("run", help="run an agent on a bundle into a results directory")
    p.add_argument("bundle", metavar="BUNDLE")
    p.add_argument("--agent", required=True, metavar="NAME",
                   help="oracle | first-page | first-record | openai | mcp (or a registered "
                   "agent)")
    p.add_argument("-o", "--output", required=True, metavar="RESULTS")
    p.add_argument("--k", type=positive_int, default=1, help="rollouts per task (default 1)")
    p.add_argument("--seed", type=int, default=0, help="the run's seed (default 0)")
    p.add_argument("--backend", default="world", metavar="NAME",
                   help="world | store | http (default world)")
    p.add_argument("--store", metavar="FILE", help="store backend: the recorded responses")
    p.add_argument("--no-strict", action="store_true", help="store backend: tolerate misses")
    p.add_argument("--faults", metavar="PLAN.json", help="world backend: a fault plan")
    p.add_argument("--max-calls", type=positive_int, default=50, metavar="N",
                   help="tool calls per episode (default 50)")
    p.add_argument("--time-budget", type=seconds, default=120.0, metavar="SECONDS",
                   help="wall time per episode (default 120)")
    p.add_argument("--concurrency", type=positive_int, default=2, metavar="N",
                   help="episodes at a time in this process (default 2)")
    p.add_argument("--workers", type=positive_int, default=None, metavar="N",
                   help="run the episodes in N worker processes (with --ray: N Ray actors, "
                   "default one per CPU of the cluster)")
    add_ray_arg(p, "the episodes")
    p.add_argument("--task", action="append", metavar="ID", help="only this task (repeatable)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    p.add_argument("--base-url", metavar="URL",
                   help="openai, mcp: the OpenAI-compatible endpoint, e.g. "
                   "http://127.0.0.1:8000/v1")
    p.add_argument("--model", metavar="NAME", help="openai, mcp: the model's name")
    p.add_argument("--temperature", type=float, default=None,
                   help="openai, mcp: the sampling temperature (default 0)")
    p.add_argument("--key-env", metavar="VAR", default=None,
                   help="openai, mcp: the variable holding the endpoint's key "
                   "(default EDGEDSL_LLM_KEY; none set: no Authorization header)")
    p.add_argument("--mistakes", type=int, default=None, metavar="N",
                   help="openai, mcp: mistaken calls fed back before the next one ends the "
                   "episode (default 0)")
    p.add_argument("--mcp-url", metavar="URL",
                   help="mcp: attach to this external MCP server (streamable HTTP, e.g. "
                   "http://127.0.0.1:8765/mcp) instead of one in process")
    p.add_argument("--mcp-command", metavar="COMMAND",
                   help='mcp: attach to an MCP server over stdio, started per episode (e.g. '
                   '"edgedsl mcp serve --platform dart")')
    _add_judge_args(p)
    p.set_defaults(func=cmd_bench_run)

    p = bsub.add_parser("score", help="re-score a results directory without re-running")
    p.add_argument("results", metavar="RESULTS")
    _add_judge_args(p)
    p.set_defaults(func=cmd_bench_score)

    p = bsub.add_parser("report", help="tables per axis, platform and structure")
    p.add_argument("results", metavar="RESULTS")
    p.add_argument("--json", action="store_true", help="the summary as JSON")
    p.add_argument("--plot", metavar="FILE.svg", help="also draw the tables as an SVG chart")
    p.set_defaults(func=cmd_bench_report)
