"""The runtime's commands: ``run`` and ``world serve``."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from ..core.runsettings import RunSettings
from .common import (
    EXIT_ERRORS,
    EXIT_OK,
    UsageError,
    close_backend,
    compile_file,
    dump_json,
    fault_plan,
    make_backend,
    print_diagnostics,
)
from .progress import progress_for

if TYPE_CHECKING:
    from ..plan.model import Plan
    from ..runtime.backends import Backend
    from ..runtime.perturb import DeterminacyCheck
    from ..runtime.result import RunResult


def cmd_world_serve(args: argparse.Namespace) -> int:
    """``edgedsl world serve``: the simulated platforms as an HTTP server on 127.0.0.1."""
    from ..world.limits import Limits
    from ..world.serve import serve

    serve(host=args.host, port=args.port, seed=args.seed, faults=fault_plan(args.faults),
          limits=Limits(body_bytes=args.max_body))
    return EXIT_OK


def _determinacy_checks(plan: Plan, results: list[RunResult], backend: Backend,
                        settings: dict[str, int]) -> dict[str, DeterminacyCheck]:
    """The perturbation check of every trajectory that ran (its run as the baseline), under
    the run's ``phi`` and ``max_pages`` (:func:`apply_run_settings`)."""
    from ..runtime.executor import run_sync
    from ..runtime.perturb import check_determinacy

    return {res.trajectory: run_sync(check_determinacy(
        plan, res.trajectory, backend, baseline=res, phi=settings["phi"],
        max_pages=settings["max_pages"]))
        for res in results}


def _check_text(check: DeterminacyCheck) -> str:
    """One line per perturbation: its outcome, what it changed, the answer it gave."""
    lines = ["determinacy: " + ("stable" if check.stable else
                                "CHANGED by " + ", ".join(check.changed_by))]
    for p in check.perturbations:
        what = f" ({p.detail})" if p.detail else ""
        got = f": {dump_json(p.answer, indent=False)}" if p.outcome == "changed" else \
            f": {p.code}" if p.outcome == "failed" else ""
        lines.append(f"  {p.name:<10} {p.outcome}{what}{got}")
    return "\n".join(lines)


def apply_run_settings(args: argparse.Namespace, stated: RunSettings) -> dict[str, int]:
    """The file's ``run { … }`` settings under the command's options: an option given wins (with
    a ``W010`` warning on stderr when it contradicts the file); a setting not given takes the
    file's value, else the default. Sets ``args.seed`` for the world backend; returns the
    runtime's ``phi`` and ``max_pages``."""
    from ..runtime.executor import DEFAULT_MAX_PAGES

    on_world = (args.backend or ("python" if args.tools else "store" if args.store
                                 else "world")) == "world"
    out: dict[str, int] = {}
    for name, option, default in (("seed", "--seed", 0), ("phi", "--phi", 5),
                                  ("max_pages", "--max-pages", DEFAULT_MAX_PAGES)):
        given, filed = getattr(args, name), getattr(stated, name)
        if name == "seed" and not on_world:
            filed = None  # only the world has a seed
        if given is not None and filed is not None and given != filed:
            sys.stderr.write(
                f"edgedsl: warning: W010: {option} {given} overrides the file's "
                f"`run {{ {name}: {filed} }}`; the answers may differ from the ones it was "
                "written with\n")
        value = given if given is not None else filed if filed is not None else default
        if name == "seed":
            args.seed = value
        else:
            out[name] = value
    return out


def cmd_run(args: argparse.Namespace) -> int:
    """``edgedsl run FILE|PLAN.json``: run trajectories, print answers and a trace summary."""
    from ..runtime.executor import run_plan_sync
    from ..runtime.progress import SILENT
    from ..runtime.trace import trace_summary

    compiled = compile_file(args)
    if compiled is None:
        return EXIT_ERRORS
    plan, sources = compiled
    names = [t.name for t in plan.trajectories]
    if args.trajectory and args.trajectory not in names:
        from ..core.diagnostics import did_you_mean

        hint = did_you_mean(args.trajectory, names)
        raise UsageError(
            f"no trajectory `{args.trajectory}`"
            + (f"; did you mean `{hint[0]}`?" if hint else f"; the file has: {', '.join(names)}")
        )
    settings = apply_run_settings(args, plan.run)
    backend = make_backend(args)
    progress = progress_for(sys.stderr, args.trajectory or Path(args.file).name,
                            quiet=args.quiet)
    try:
        with progress or contextlib.nullcontext():
            results = run_plan_sync(plan, backend, trajectory=args.trajectory,
                                    progress=progress or SILENT, **settings)
        checks = (_determinacy_checks(plan, results, backend, settings) if args.determinacy
                  else {})
    finally:  # also on failure or Ctrl-C: what was recorded is written
        close_error = close_backend(backend)
    status = EXIT_OK
    if any(not c.stable for c in checks.values() if c.ok):
        status = EXIT_ERRORS
    if close_error:
        sys.stderr.write(f"edgedsl: error: closing the backend: {close_error}\n")
        status = EXIT_ERRORS
    traces = []
    for res in results:
        if res.trace is not None:
            traces.append(res.trace.model_dump(mode="json"))
        if not res.ok:
            status = EXIT_ERRORS
        check = checks.get(res.trajectory)
        if args.json:
            out = res.to_json()
            if check is not None:
                out["perturbations"] = [p.model_dump(mode="json", exclude_none=True)
                                        for p in check.perturbations]
                out["stable"] = check.stable
            sys.stdout.write(dump_json(out, indent=False) + "\n")
            continue
        mark = "ok" if res.ok else "FAILED"
        sys.stdout.write(f"== {res.trajectory} [{mark}]\n")
        if res.ok:
            sys.stdout.write("answer: " + dump_json(res.answer) + "\n")
            if res.say:
                sys.stdout.write(res.say + "\n")
        if res.trace is not None:
            sys.stdout.write(trace_summary(res.trace) + "\n")
        if check is not None and check.ok:
            sys.stdout.write(_check_text(check) + "\n")
        if res.diagnostics or res.warnings:
            print_diagnostics([*res.diagnostics, *res.warnings], sources, as_json=False)
    if args.trace:
        Path(args.trace).write_bytes(
            orjson.dumps(traces if len(traces) != 1 else traces[0], option=orjson.OPT_INDENT_2)
        )
    return status
