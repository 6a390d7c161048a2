"""edgedsl: a declarative dataflow language, compiler and runtime for multi-step tool-calling
trajectories over public APIs.

The staged API mirrors the compiler's stages (see ARCHITECTURE.md)::

    import edgedsl
    module = edgedsl.parse(text)           # text  → AST
    result = edgedsl.check(text)           # AST   → IR (+ warnings)
    plan   = edgedsl.compile(text)         # IR    → Plan
    runs   = edgedsl.run(plan, backend)    # Plan  → answers and traces
    text2  = edgedsl.format(module)        # AST   → canonical text
"""

from __future__ import annotations

# Import the `check` subpackage before binding the `check` function: importing a submodule
# sets the package attribute of the same name, which would otherwise shadow the function.
from . import check as _check_package  # noqa: F401
from .api import check, compile, format, parse, read_source, run
from .core.diagnostics import CompileError, Diagnostic

__version__ = "0.1.0"

__all__ = [
    "CompileError",
    "Diagnostic",
    "__version__",
    "check",
    "compile",
    "format",
    "parse",
    "read_source",
    "run",
]
