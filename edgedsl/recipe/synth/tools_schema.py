"""Tool schemas for exported trajectories: OpenAI function-calling ``tools`` entries, the
function-name mapping, and the deterministic choice of the tools exposed to each task.

**Function names.** OpenAI function names must match ``^[a-zA-Z0-9_-]{1,64}$``; edgedsl tools
are ``platform.tool``. :func:`tool_name` maps ``dart.company`` → ``dart__company`` (the dot
becomes a double underscore) and :func:`tool_qualname` is its inverse. edgedsl names are
``[A-Za-z_가-힣][A-Za-z0-9_가-힣]*``, so two rare cases need an escape, written with ``-`` (which no
edgedsl name contains): a character outside ``[A-Za-z0-9_]`` (Hangul) becomes its code point in
lower-case hex between two ``-`` (``명`` → ``-ba85-``), and a platform name that contains
``__`` or ends with ``_`` has each of its underscores written ``-5f-``, so that the first
``__`` of a function name is always the separator. A name longer than 64 characters after
mapping is an :class:`ExportError`.

**Exposed tools.** A task is shown the tools its program uses and calls, plus *distractors*: other
tools of the same platforms (from the catalog the task's file was checked against), up to
``tools_per_task`` in all. Distractors are ranked by a BLAKE2b digest of ``seed``, the task name
and the tool's qualified name (stable across runs and Python processes), and the exposed list is
ordered by the same digest, so the called tools are not always first. A task that calls more
tools than ``tools_per_task`` is shown all of them and no distractor; a task whose platforms have
fewer tools is shown every tool they have.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...core.catalog import Catalog
from ...core.labels import label_of
from ...core.types import CodeType, EnumType, FieldType, ListType, ScalarType, type_from_json
from ...plan.model import ParamSpec, ToolSpec
from .record import TaskRecord

__all__ = [
    "OPENAI_NAME",
    "ExportError",
    "TaskTools",
    "labelled_schema",
    "param_schema",
    "rank_key",
    "task_file",
    "tool_name",
    "tool_qualname",
    "tool_schema",
]

OPENAI_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
"""The pattern an OpenAI function name must match."""

_PLAIN = re.compile(r"[A-Za-z0-9_]")
_ESCAPE = re.compile(r"-([0-9a-f]+)-")
DATE_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"


class ExportError(Exception):
    """An export that cannot be made: no ``tasks.jsonl``, a missing or broken ``.edge`` file, a
    tool a task calls that its file does not declare, a bad option. The message is one line,
    meant to be shown as is (``error: …``), without a traceback."""


# ---------------------------------------------------------------- names


def _escape(text: str, underscores: bool = False) -> str:
    out = []
    for ch in text:
        if ch == "_" and underscores:
            out.append("-5f-")
        elif _PLAIN.fullmatch(ch):
            out.append(ch)
        else:
            out.append(f"-{ord(ch):x}-")
    return "".join(out)


def tool_name(qualname: str) -> str:
    """The OpenAI function name of tool ``platform.tool``: ``platform__tool`` (escapes in the
    module docstring). :class:`ExportError` when the result is longer than 64 characters or the
    name is not qualified."""
    platform, dot, tool = qualname.partition(".")
    if not dot or not platform or not tool:
        raise ExportError(f"not a qualified tool name (platform.tool): {qualname!r}")
    odd = "__" in platform or platform.endswith("_")
    name = f"{_escape(platform, underscores=odd)}__{_escape(tool)}"
    if not OPENAI_NAME.fullmatch(name):
        raise ExportError(f"tool `{qualname}` maps to function name {name!r}, which is not a "
                          f"valid OpenAI function name (at most 64 of [a-zA-Z0-9_-])")
    return name


def tool_qualname(function_name: str) -> str:
    """Inverse of :func:`tool_name`: ``dart__company`` → ``dart.company``. ValueError when the
    name has no ``__`` separator."""
    platform, sep, tool = function_name.partition("__")
    if not sep or not platform or not tool:
        raise ValueError(f"not an edgedsl function name (platform__tool): {function_name!r}")

    def unescape(text: str) -> str:
        return _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)

    return f"{unescape(platform)}.{unescape(tool)}"


# ---------------------------------------------------------------- schemas


def param_schema(t: FieldType | Any) -> dict[str, Any]:
    """The JSON Schema of a parameter of type ``t`` (a field type, or its JSON form as a
    :class:`~edgedsl.plan.model.ToolSpec` holds it)."""
    if not isinstance(t, ScalarType | EnumType | CodeType | ListType):
        t = type_from_json(t)
    if isinstance(t, ListType):
        return {"type": "array", "items": param_schema(t.item)}
    if isinstance(t, EnumType):
        return {"type": "string", "enum": list(t.members)}
    if isinstance(t, CodeType):
        out: dict[str, Any] = {"type": "string", "pattern": t.pattern}
        if t.doc:
            out["description"] = t.doc
        return out
    if t.kind == "date":
        return {"type": "string", "format": "date", "pattern": DATE_PATTERN,
                "description": "date, YYYY-MM-DD"}
    if t.kind == "json":
        return {"description": "any JSON value"}
    return {"type": {"str": "string", "int": "integer", "float": "number", "num": "number",
                     "bool": "boolean"}[t.kind]}


def labelled_schema(p: ParamSpec) -> dict[str, Any]:
    """:func:`param_schema` of a parameter, its description led by the catalog's Korean label
    and unit (``사업연도``, ``거래금액 (단위: 만원)``; a name that is Korean text is its own label),
    then what the type says (``고유번호 — DART 고유번호 corp_code (8자리)``)."""
    out = param_schema(p.type)
    label = label_of(p.name, p.label)
    if label is None:
        return out
    head = f"{label} (단위: {p.unit})" if p.unit else label
    out["description"] = f"{head} — {out['description']}" if out.get("description") else head
    return out


def tool_schema(spec: ToolSpec) -> dict[str, Any]:
    """The OpenAI ``tools`` entry of a tool: ``{"type": "function", "function": {"name",
    "description", "parameters"}}``; required parameters are the non-optional ones, each
    described by its Korean label (:func:`labelled_schema`), the description is the tool's doc
    (its qualified name when it has none)."""
    return {
        "type": "function",
        "function": {
            "name": tool_name(spec.qualname),
            "description": spec.doc or spec.qualname,
            "parameters": {
                "type": "object",
                "properties": {p.name: labelled_schema(p) for p in spec.params},
                "required": [p.name for p in spec.params if not p.optional],
                "additionalProperties": False,
            },
        },
    }


# ---------------------------------------------------------------- exposed tools


def task_file(record: TaskRecord, directory: str | Path) -> Path:
    """The ``.edge`` file of a record: ``record.file`` as is when absolute, else under
    ``directory`` (a synthesis run writes ``DIR/NAME.edge`` and records ``NAME.edge``); a relative
    path that is not under ``directory`` but exists as given (from the working directory) is
    taken as given."""
    path = Path(record.file)
    if path.is_absolute():
        return path
    inside = Path(directory) / path
    return path if not inside.is_file() and path.is_file() else inside


@dataclass
class _FileTools:
    """What one compiled file offers: the specs its plan calls and the catalog it used."""

    specs: dict[str, ToolSpec]
    catalog: Catalog
    schemas: dict[str, dict[str, Any]] = field(default_factory=dict)


def rank_key(seed: int, task: str, qualname: str) -> bytes:
    """The BLAKE2b digest ranking tool `qualname` for task `task` under `seed` (module
    docstring): stable across runs and processes; bundles rank their distractors with it too."""
    return hashlib.blake2b(f"{seed}\x00{task}\x00{qualname}".encode(), digest_size=16).digest()


class TaskTools:
    """The tools exposed to each task of a directory, with one compile per ``.edge`` file.

    ``tools_per_task`` is the target number of exposed tools (K), ``seed`` varies the choice of
    distractors (module docstring)."""

    def __init__(self, directory: str | Path, *, tools_per_task: int = 8, seed: int = 0) -> None:
        if tools_per_task < 1:
            raise ExportError(f"tools per task must be at least 1, not {tools_per_task}")
        self.directory = Path(directory)
        self.tools_per_task = tools_per_task
        self.seed = seed
        self._files: dict[Path, _FileTools] = {}

    def _file(self, record: TaskRecord) -> _FileTools:
        path = task_file(record, self.directory)
        hit = self._files.get(path)
        if hit is not None:
            return hit
        if not path.is_file():
            raise ExportError(f"task `{record.name}`: its file {str(path)!r} is missing")
        from ... import api
        from ...core.diagnostics import CompileError
        from ...plan.compile import compile_program

        try:
            # api.compile(path), keeping the checked catalog for the distractors
            result = api.check(path)
            plan = compile_program(result.program)
        except CompileError as exc:
            first = next((d for d in exc.diagnostics if d.severity == "error"), None)
            raise ExportError(f"task `{record.name}`: {str(path)!r} does not compile: "
                              f"{first.message if first else exc}") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ExportError(f"task `{record.name}`: cannot read {str(path)!r}: {exc}") from None
        hit = _FileTools(specs=dict(plan.tools), catalog=result.catalog)
        self._files[path] = hit
        return hit

    def _spec(self, ft: _FileTools, record: TaskRecord, qualname: str) -> ToolSpec:
        spec = ft.specs.get(qualname)
        if spec is None:
            tool = ft.catalog.tool(qualname)
            if tool is None:
                raise ExportError(f"task `{record.name}` calls `{qualname}`, which its file "
                                  f"{record.file!r} does not declare")
            spec = ft.specs[qualname] = ToolSpec.of(tool, ft.catalog)
        return spec

    def qualnames(self, record: TaskRecord) -> list[str]:
        """The qualified names of the tools exposed to ``record``, in exposed order."""
        ft = self._file(record)
        used = list(dict.fromkeys([*record.tools, *(c.tool for c in record.calls)]))
        for q in used:
            self._spec(ft, record, q)
        chosen = set(used)
        platforms = dict.fromkeys(q.partition(".")[0] for q in used)
        pool = [t.qualname for p in platforms if (plat := ft.catalog.platforms.get(p))
                for t in plat.tools.values() if t.qualname not in chosen]
        need = max(0, self.tools_per_task - len(used))
        key = lambda q: rank_key(self.seed, record.name, q)  # noqa: E731
        exposed = used + sorted(pool, key=key)[:need]
        return sorted(exposed, key=key)

    def schemas(self, record: TaskRecord) -> list[dict[str, Any]]:
        """The OpenAI ``tools`` list of ``record`` (:func:`tool_schema` of each exposed tool).
        The dicts are shared between tasks of the same file: do not change them."""
        ft = self._file(record)
        out = []
        for q in self.qualnames(record):
            schema = ft.schemas.get(q)
            if schema is None:
                schema = ft.schemas[q] = tool_schema(self._spec(ft, record, q))
            out.append(schema)
        return out
