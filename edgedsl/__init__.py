"""edgedsl: a declarative dataflow language, compiler and runtime for multi-step tool-calling
trajectories over public APIs.

The staged API mirrors the compiler's stages (see ARCHITECTURE.md)::

    import edgedsl
    module = edgedsl.parse(text)           # text  → AST
    result = edgedsl.check(text)           # AST   → IR (+ warnings)
    plan   = edgedsl.compile(text)         # IR    → Plan
    runs   = edgedsl.run(plan, backend)    # Plan  → answers and traces
    text2  = edgedsl.format(module)        # AST   → canonical text

Importing the package is cheap: the names above are loaded on first use (PEP 562), so that
``import edgedsl.syntax.nodes`` or ``import edgedsl.core.codes`` loads neither lark nor the
checker.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

_LAZY: dict[str, str] = {
    "check": "api",
    "compile": "api",
    "format": "api",
    "parse": "api",
    "read_source": "api",
    "run": "api",
    "CompileError": "core.diagnostics",
    "Diagnostic": "core.diagnostics",
}


def __getattr__(name: str) -> Any:
    """A name of the staged API, imported from its module on first use."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


class _Package(types.ModuleType):
    """The package's module type: importing the ``check`` subpackage does not rebind
    ``edgedsl.check`` (the function of the staged API) to the subpackage."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "check" and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
