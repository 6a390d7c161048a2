"""BFCL's eight multi-turn simulators as in-process tools (the classes of PyPI ``bfcl-eval``).

BFCL (Berkeley, Apache-2.0) defines its multi-turn gold by eight Python simulator classes
(file system, math, messages, posting, tickets, trading, travel, vehicle); the suite's data
ships only their function documentation. Rather than write eight stateful simulators a second
time, edgedsl runs the upstream classes, installed with ``pip install --no-deps
bfcl-eval==2026.3.23 mpmath`` (the package's own dependencies pull a model-serving stack the
simulators do not use). :class:`BfclEnv` loads an entry's ``initial_config`` into fresh
instances, as the upstream checker does, calls their methods with keyword arguments (never
``eval`` of a call text), and keeps the public state after every call (:meth:`BfclEnv.state`).
"""

from __future__ import annotations

import copy
import importlib
import inspect
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from .model import SuiteError
from .stateful import Environment

__all__ = ["CLASSES", "ELEMENTS", "PIN", "STATELESS", "BfclEnv", "as_record", "bfcl_tools",
           "element_field", "simulator_class"]

PIN = "bfcl-eval==2026.3.23"
"""The simulators' release the suite's replay was made with."""

_PREFIX = "bfcl_eval.eval_checker.multi_turn_eval.func_source_code"
CLASSES: dict[str, tuple[str, str]] = {
    "GorillaFileSystem": ("gorilla_file_system", "bfcl_fs"),
    "MathAPI": ("math_api", "bfcl_math"),
    "MessageAPI": ("message_api", "bfcl_message"),
    "TwitterAPI": ("posting_api", "bfcl_posting"),
    "TicketAPI": ("ticket_api", "bfcl_ticket"),
    "TradingBot": ("trading_bot", "bfcl_trading"),
    "TravelAPI": ("travel_booking", "bfcl_travel"),
    "VehicleControlAPI": ("vehicle_control", "bfcl_vehicle"),
}
"""Each simulator class: its module (and function-doc file) name, and its edgedsl platform."""
STATELESS = frozenset({"MathAPI"})
"""Classes without a scenario to load (and no state to compare)."""


def simulator_class(name: str) -> type:
    """The upstream simulator class ``name``; SuiteError when bfcl-eval is not installed."""
    if name not in CLASSES:
        raise SuiteError(f"unknown BFCL class {name!r}")
    try:
        module = importlib.import_module(f"{_PREFIX}.{CLASSES[name][0]}")
    except ImportError as exc:
        raise SuiteError(f"the BFCL simulators need {PIN}: pip install --no-deps '{PIN}' "
                         f"mpmath ({exc})") from None
    cls = getattr(module, name)
    assert isinstance(cls, type)
    return cls


def public(value: Any) -> Any:
    """A simulator's state as JSON data: objects as their public attributes with a
    ``__class__`` key, a directory without its ``parent`` back-pointer, a set as a sorted list
    (as the replay)."""
    if isinstance(value, dict):
        return {str(k): public(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [public(v) for v in value]
    if isinstance(value, set | frozenset):  # a set as its sorted list, as the replay writes it
        return sorted(public(v) for v in value)
    if hasattr(value, "__dict__") and not isinstance(value, type):
        out = {"__class__": type(value).__name__}
        out.update({k: public(v) for k, v in vars(value).items()
                    if not k.startswith("_") and k != "parent"})
        return out
    return value


class BfclEnv(Environment):
    """One BFCL entry's simulators, loaded from its ``initial_config``."""

    def __init__(self, involved: list[str], initial_config: Mapping[str, Any]) -> None:
        super().__init__()
        self.instances: dict[str, Any] = {}
        for name in involved:
            inst = simulator_class(name)()
            if name not in STATELESS:
                inst._load_scenario(copy.deepcopy(dict(initial_config.get(name, {}))),
                                    long_context=False)
            self.instances[name] = inst

    def state(self) -> dict[str, Any]:
        """The public state of every stateful class, as JSON data (a JSON round trip, so that
        it compares with the replay's)."""
        data = {name: {k: public(v) for k, v in vars(inst).items() if not k.startswith("_")}
                for name, inst in self.instances.items() if name not in STATELESS}
        return json.loads(json.dumps(data))

    def method(self, cls: str, function: str) -> Callable[..., Any]:
        """The bound public method ``function`` of the entry's instance of ``cls``."""
        if function.startswith("_") or cls not in self.instances:
            raise SuiteError(f"{cls}.{function} is not a tool of this entry")
        return getattr(self.instances[cls], function)


ELEMENTS = 10
"""How many elements of a documented list of texts a record lifts (``watchlist_1`` …)."""

_ELEMENT = re.compile(r"(.+)_([1-9][0-9]*)")


def element_field(field: str, i: int) -> str:
    """The record field lifting element ``i`` (from 1) of the answer's list ``field``."""
    return f"{field}_{i}"


def _value(result: dict[str, Any], f: str) -> Any:
    """Field ``f`` of a dict answer; for ``<list>_<i>`` that the answer lacks, element ``i`` of
    its list ``<list>`` (None when there is no such element)."""
    if f in result:
        return result[f]
    m = _ELEMENT.fullmatch(f)
    items = result.get(m.group(1)) if m else None
    if m is None or not isinstance(items, list):
        return None
    i = int(m.group(2)) - 1
    return items[i] if i < len(items) else None


def as_record(result: Any, fields: Mapping[str, str]) -> dict[str, Any]:
    """A simulator's answer as its record: the declared scalar fields lifted out of a dict
    answer (a value of another type is left out) — with the first :data:`ELEMENTS` elements of
    a documented list of texts as ``<field>_1`` … — and the whole answer as ``value``."""
    rec: dict[str, Any] = {}
    if isinstance(result, dict):
        for f, t in fields.items():
            v = _value(result, f)
            ok = {"str": isinstance(v, str), "bool": isinstance(v, bool),
                  "int": isinstance(v, int) and not isinstance(v, bool),
                  "num": isinstance(v, int | float) and not isinstance(v, bool)}[t]
            rec[f] = v if ok else None
    rec["value"] = public(result)
    return rec


def bfcl_tools(env: BfclEnv, platforms: Mapping[str, Mapping[str, Mapping[str, str]]],
               ) -> dict[str, Callable[..., dict[str, Any]]]:
    """The python backend's ``TOOLS`` over ``env``: ``<platform>.<function>`` for every tool of
    the entry's classes; ``platforms`` maps a class to each function's lifted fields."""
    tools: dict[str, Callable[..., dict[str, Any]]] = {}
    for cls in env.instances:
        platform = CLASSES[cls][1]
        for function, fields in platforms.get(cls, {}).items():
            bound = env.method(cls, function)

            def op(*, _f: Callable[..., Any] = bound, _fields: Mapping[str, str] = fields,
                   **kw: Any) -> dict[str, Any]:
                return as_record(_f(**kw), _fields)

            op.__name__ = function
            op.__doc__ = inspect.getdoc(bound)
            tools[f"{platform}.{function}"] = env.tool(op)
    return tools
