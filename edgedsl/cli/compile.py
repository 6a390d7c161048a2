"""The compiler's commands: ``parse``, ``check``, ``fmt``, ``compile`` and ``explain``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..core.diagnostics import CompileError, Diagnostic
from ..core.source import Source
from .common import (
    EXIT_ERRORS,
    EXIT_OK,
    UsageError,
    compile_file,
    dump_json,
    load_graph_file,
    print_diagnostics,
    read_source_file,
    search_paths,
)


def cmd_parse(args: argparse.Namespace) -> int:
    """``edgedsl parse FILE``: the AST as JSON (``--tree`` for the lark tree)."""
    from ..syntax.build import build
    from ..syntax.parser import parse
    from .dump import to_jsonable

    src = read_source_file(args.file)
    try:
        parsed = parse(src)
        if args.tree:
            sys.stdout.write(parsed.tree.pretty())
            return EXIT_OK
        module = build(parsed)
    except CompileError as err:
        print_diagnostics(err.diagnostics, {src.name: src}, as_json=args.json)
        return EXIT_ERRORS
    sys.stdout.write(dump_json(to_jsonable(module, spans=not args.no_spans)) + "\n")
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    """``edgedsl check FILE…``: diagnostics (with ``W008`` from G*); ``--ir`` prints the IR."""
    from ..api import check
    from ..check.evidence import has_junctions
    from .dump import to_jsonable

    status = EXIT_OK
    all_diags: list[Diagnostic] = []
    sources: dict[str, Source] = {}
    evidence = None  # --graph: read once, up front (a missing or broken file is a usage error)
    if args.graph is not None and not args.no_graph:
        from ..recipe.graph.evidence import edge_evidence

        evidence = edge_evidence(load_graph_file(args.graph), f"G* {args.graph}", args.graph)
    for path in args.files:
        try:
            src = read_source_file(path)
            sources[src.name] = src
            result = check(src, search_paths=search_paths(args), phi=args.phi)
        except CompileError as err:
            all_diags.extend(err.diagnostics)
            status = EXIT_ERRORS
            continue
        all_diags.extend(result.diagnostics)
        if not args.no_graph and has_junctions(result.program):  # else no recipe import
            from ..recipe.graph.evidence import junction_warnings

            all_diags.extend(junction_warnings(
                result.program, [m for m in result.sources if m != src.name], evidence))
        if args.ir:
            sys.stdout.write(dump_json(to_jsonable(result.program.trajectories)) + "\n")
    print_diagnostics(all_diags, sources, as_json=args.json)
    if not args.json and status == EXIT_OK and not args.ir:
        n_warn = sum(1 for d in all_diags if d.severity == "warning")
        suffix = f" ({n_warn} warning{'s' if n_warn != 1 else ''})" if n_warn else ""
        sys.stderr.write(
            f"ok: {len(args.files)} file{'s' if len(args.files) != 1 else ''}{suffix}\n"
        )
    return status


def cmd_fmt(args: argparse.Namespace) -> int:
    """``edgedsl fmt FILE…|- [--check] [--diff]``: rewrite files in the canonical layout; ``-``
    reads standard input and writes the formatted text to standard output; ``--diff`` writes
    nothing but a unified diff of what would change (exit 1 when something would)."""
    from ..syntax.fmt import STDIN, format_bytes, format_files, format_path

    if "-" in args.files:
        if len(args.files) > 1:
            raise UsageError("`fmt -` formats standard input alone; name no other file")
        done = format_bytes(sys.stdin.buffer.read(), STDIN)
        if done.diagnostics or done.formatted is None:
            seen = {} if done.text is None else {STDIN: Source(STDIN, done.text)}
            print_diagnostics(done.diagnostics, seen, as_json=False)
            return EXIT_ERRORS
        if args.diff:
            sys.stdout.write(done.diff())
        elif not args.check:
            sys.stdout.write(done.formatted)
        return EXIT_ERRORS if (args.check or args.diff) and done.changed else EXIT_OK
    for p in args.files:
        if not Path(p).is_file():
            raise UsageError(f"no such file: {p}")
    if args.diff:
        results = [format_path(Path(p)) for p in args.files]
        diags = [d for r in results for d in r.diagnostics]
        for r in results:
            sys.stdout.write(r.diff())
        if diags:
            print_diagnostics(diags, {}, as_json=False)
        return EXIT_ERRORS if diags or any(r.changed for r in results) else EXIT_OK
    changed, diags = format_files([Path(p) for p in args.files], check=args.check)
    if diags:
        print_diagnostics(diags, {}, as_json=False)
        return EXIT_ERRORS
    for p in changed:
        verb = "would reformat" if args.check else "reformatted"
        sys.stderr.write(f"{verb} {p}\n")
    if args.check and changed:
        return EXIT_ERRORS
    sys.stderr.write(
        f"{len(args.files) - len(changed)} file(s) already formatted"
        + (f", {len(changed)} reformatted" if changed and not args.check else "")
        + "\n"
    )
    return EXIT_OK


def cmd_compile(args: argparse.Namespace) -> int:
    """``edgedsl compile FILE [-o plan.json] [--graph dot|mermaid]``."""
    from ..plan.model import plan_to_json

    compiled = compile_file(args)
    if compiled is None:
        return EXIT_ERRORS
    plan, _ = compiled
    if args.graph:
        from ..plan.draw import to_dot, to_mermaid

        draw = to_dot if args.graph == "dot" else to_mermaid
        text = draw(plan, args.trajectory)
        if args.output:
            Path(args.output).write_text(text, encoding="utf-8")
        else:
            sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return EXIT_OK
    blob = plan_to_json(plan)
    if args.output:
        Path(args.output).write_bytes(blob)
        sys.stderr.write(f"wrote {args.output}\n")
    else:
        sys.stdout.write(blob.decode() + "\n")
    return EXIT_OK


def cmd_explain(args: argparse.Namespace) -> int:
    """``edgedsl explain CODE``: the long explanation of a diagnostic code."""
    from ..core.codes import CODES, explain

    code = args.code.upper()
    if code not in CODES:
        from ..core.diagnostics import did_you_mean

        hint = did_you_mean(code, CODES)
        raise UsageError(
            f"unknown code `{args.code}`" + (f"; did you mean `{hint[0]}`?" if hint else "")
        )
    sys.stdout.write(explain(code).rstrip() + "\n")
    return EXIT_OK
