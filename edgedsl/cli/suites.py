"""``edgedsl import nestful|tau2|bfcl SRC -o OUT [--split S] [--check] [--json]``: third-party
suites written as ``.edge`` programs and catalogs, and how much of their gold they reproduce.

Exit codes as everywhere: 0 ok (a share below 100% is still 0), 1 the suite's files cannot be
read, 2 usage.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .common import EXIT_ERRORS, EXIT_OK, dump_json, usage_error

__all__ = ["add_import_parser"]


def cmd_import(args: argparse.Namespace) -> int:
    """Write the suite into ``-o``; with ``--check``, run what was written and print the
    reproduced share."""
    from ..suites.model import SuiteError
    from ..suites.registry import SUITES

    suite = SUITES[args.suite]
    split = args.split or suite.splits[0]
    if split not in suite.splits:
        raise usage_error(f"--split: {suite.name} has the splits {', '.join(suite.splits)}")
    src, out = Path(args.src), Path(args.output)
    try:
        written = suite.write(src, out, split)
        checked = suite.check(src, out, split) if args.check else None
    except (SuiteError, OSError) as err:
        sys.stderr.write(f"edgedsl: error: {err}\n")
        return EXIT_ERRORS
    if args.json:
        data = {"suite": suite.name, "split": split, "out": str(out), "cases": written.cases,
                "files": len(written.files), "references": written.refs,
                "nested_literals": written.literals_left,
                "nested_literals_in_lists": written.literals_in_lists,
                "not_written": [{"case": c, "problem": p} for c, p in written.skipped]}
        if checked is not None:
            data["check"] = checked.as_json()
        print(dump_json(data))
        return EXIT_OK
    print(f"{written.summary()} (split {split})")
    for case, why in written.skipped:
        print(f"  not written: {case}: {why}")
    if written.literals_left:
        print(f"  {written.literals_left} values left literal that an earlier output holds, "
              "nested where no record field lifts them "
              f"({written.literals_in_lists} inside list or object arguments)")
    if checked is not None:
        print(checked.summary())
        for case, problem in checked.misses:
            print(f"  {case}: {problem}")
    return EXIT_OK


def add_import_parser(sub: argparse._SubParsersAction) -> None:
    """The ``import`` command."""
    from ..suites.registry import SUITES

    sp = sub.add_parser("import", help="write a third-party suite as .edge programs and "
                                       "check that they reproduce its gold")
    sp.add_argument("suite", choices=sorted(SUITES),
                    help="; ".join(f"{s.name}: {s.title}" for s in SUITES.values()))
    sp.add_argument("src", help="the suite's folder (e.g. shared/external/tau2)")
    sp.add_argument("-o", "--output", required=True, metavar="OUT", help="folder to write")
    sp.add_argument("--split", help="which cases (tau2, bfcl: train (default), test — held "
                                    "out —, all; nestful: all)")
    sp.add_argument("--check", action="store_true",
                    help="run the written programs and print the reproduced share")
    sp.add_argument("--json", action="store_true", help="print the outcome as JSON")
    sp.set_defaults(func=cmd_import)
