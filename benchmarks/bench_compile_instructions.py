"""Compile cost in instructions per file, under callgrind: a figure that load does not move.

Wall-clock compile throughput on a shared machine varies by up to 2× between passes of the same
code (``bench_compile.py``); the number of instructions executed does not. This script runs
itself under ``valgrind --tool=callgrind --instr-atstart=no`` once per stage; the child warms
up on 100 files of the ``bench_compile`` corpus, switches instrumentation on
(``callgrind_control -i on``), runs the stage over the next ``--n`` files, switches it off, and
the parent prints the instructions callgrind collected per file. Stages: ``all`` (what
``edgedsl.compile`` does), ``parse`` (parse + build), ``check``, ``plan``, and ``loop`` (the
fused lex + LALR loop with a builder doing nothing: the parser's own cost) and ``lark`` (lark's
own parse-only, building its tree: the baseline of ``bench_compile.py``; ``lark / all`` is the
compile ratio in instructions)::

    python benchmarks/bench_compile_instructions.py [--n 100] [--stages all,parse,check,plan]

Needs valgrind (with ``callgrind_control``) on the PATH; about 20 s per stage.
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

STAGES = ("all", "parse", "check", "plan", "loop", "lark")


def child(stage: str, n: int) -> None:
    """Run ``stage`` over ``n`` files with callgrind's instrumentation on (under valgrind)."""
    import bench_compile as bc

    from edgedsl.api import compile as compile_source
    from edgedsl.check import check
    from edgedsl.plan.compile import compile_program
    from edgedsl.syntax.build import parse_module
    from edgedsl.syntax.parser import _new_lark, direct_parser, rule_names

    with tempfile.TemporaryDirectory() as tmp:
        sources = bc.write_corpus(Path(tmp), 100 + n)
        for s in sources[:100]:  # warm: parsers built, modules and catalogs memoised
            compile_source(s)
        work = sources[100:]
        modules = [parse_module(s) for s in work]
        programs = [check(m, s).program for m, s in zip(modules, work, strict=True)]

        class Nothing:
            """A builder whose every rule method returns None."""

            def comment(self, tok: object) -> object:
                return tok

        for name in rule_names():
            setattr(Nothing, name, lambda self, children: None)
        loop = direct_parser(Nothing())
        texts = [s.text for s in work]
        # lark's own parser as `parse` builds it, made and warmed before instrumentation: its
        # contextual lexer compiles each state's scanner on first use, and ``re``'s cache (512
        # patterns) does not keep them all once the rest of edgedsl is loaded, so an unwarmed
        # instance counted about 1.6 M instructions per file of regular-expression compiling
        lark = _new_lark(propagate_positions=True, maybe_placeholders=True)
        for s in sources[:100]:
            lark.parse(s.text)
        control = ["callgrind_control", "-i"]
        # what warming up left alive is not traversed by the collections the stage triggers
        gc.collect()
        gc.freeze()
        subprocess.run([*control, "on", str(os.getpid())], check=True, capture_output=True)
        if stage == "all":
            for s in work:
                compile_source(s)
        elif stage == "parse":
            for s in work:
                parse_module(s)
        elif stage == "check":
            for m, s in zip(modules, work, strict=True):
                check(m, s)
        elif stage == "plan":
            for p in programs:
                compile_program(p)
        elif stage == "lark":
            for t in texts:
                lark.parse(t)
        else:
            for t in texts:
                loop(t)
        subprocess.run([*control, "off", str(os.getpid())], check=True, capture_output=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100, help="files per stage (default 100)")
    ap.add_argument("--stages", default="all,parse,check,plan",
                    help=f"comma-separated, of {', '.join(STAGES)}")
    ap.add_argument("--child", choices=STAGES, help=argparse.SUPPRESS)
    ap.add_argument("--smoke", action="store_true",
                    help="the smallest size: the benchmark smoke test")
    args = ap.parse_args()
    if args.smoke:
        args.n, args.stages = 5, "parse"
    if args.child:
        child(args.child, args.n)
        return
    stages = [s.strip() for s in args.stages.split(",") if s.strip()]
    bad = [s for s in stages if s not in STAGES]
    if bad or not stages:
        ap.error(f"unknown stages {bad}; choose from {', '.join(STAGES)}")
    missing = [t for t in ("valgrind", "callgrind_control") if shutil.which(t) is None]
    if missing:
        sys.exit(f"needs {' and '.join(missing)} on the PATH (valgrind's callgrind)")
    for stage in stages:
        out = subprocess.run(
            ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--callgrind-out-file=/dev/null",
             sys.executable, __file__, "--child", stage, "--n", str(args.n)],
            capture_output=True, text=True)
        m = re.search(r"Collected : (\d+)", out.stderr)
        if out.returncode != 0 or m is None:
            sys.exit(f"{stage}: callgrind failed (exit {out.returncode}):\n{out.stderr[-2000:]}")
        print(f"{stage:6s} {int(m.group(1)) / args.n / 1e6:7.3f} M instructions per file")


if __name__ == "__main__":
    main()
