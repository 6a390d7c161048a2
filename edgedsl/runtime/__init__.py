"""The runtime: executing plans; relations live in DuckDB (:mod:`edgedsl.runtime.duck`)."""

from .backends import (
    Backend,
    Response,
    ToolFailure,
    load_python_tools,
    make_backend,
    register_backend,
)
from .executor import run, run_plan, run_plan_sync, run_trajectory
from .python_backend import PythonBackend
from .result import RunResult
from .store import Store
from .store_record import RecordingBackend
from .store_replay import StoreBackend
from .trace import Trace, trace_summary

__all__ = [
    "Backend",
    "PythonBackend",
    "RecordingBackend",
    "Response",
    "RunResult",
    "Store",
    "StoreBackend",
    "ToolFailure",
    "Trace",
    "load_python_tools",
    "make_backend",
    "register_backend",
    "run",
    "run_plan",
    "run_plan_sync",
    "run_trajectory",
    "trace_summary",
]
