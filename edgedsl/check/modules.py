"""Pass `modules`: resolve ``use`` declarations and load every used module once.

``use X`` names the file ``X.edge``, looked up in this order: the directory of the file being
compiled, the extra search paths, then the shipped standard library. The same order serves every
``use``, also inside used modules, so a module name always denotes one file (a local
``codes.edge`` shadows the standard one for the whole program, as on a Python path). Each module
is parsed with :func:`edgedsl.syntax.build.parse_module` (its syntax errors become diagnostics
pointing into that file) and loaded once; a ``use`` cycle is ``E104``; a module found nowhere is
``E103`` with a did-you-mean over available module names.
Modules end up in ``ctx.modules`` in dependency order (used modules first).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from ..core.diagnostics import CompileError, Diagnostic, diag, not_utf8, suggestion_hint
from ..core.resources import stdlib_dir
from ..core.source import Source, Span, decode_source
from ..syntax import nodes as n
from ..syntax.build import parse_module
from .context import CheckContext, ModuleInfo


def _stdlib() -> Path | None:
    try:
        return stdlib_dir()
    except FileNotFoundError:  # a broken installation has no stdlib
        return None


@lru_cache(maxsize=4096)
def module_name_for(source_name: str) -> str:
    """The module name of a compiled file: its stem when that is an identifier, else ``main``."""
    stem = Path(source_name).stem
    return stem if stem.isidentifier() and stem.isascii() else "main"


@lru_cache(maxsize=4096)
def _path_of(name: str) -> tuple[Path, str]:
    """``Path(name)`` and its text, memoised (paths are immutable; a compile asks for its
    source's path once, and building one parses the text)."""
    path = Path(name)
    return path, os.fspath(path)


def _resolve(path: Path, st: os.stat_result) -> Path:
    """``path.resolve()`` of a regular file ``path`` whose ``stat`` is ``st``, memoised on the
    absolute path and the file's identity (device, inode): the key of a module file is asked
    for on every compile, and resolving costs a system call per path component. A path that
    now names another file resolves afresh."""
    text = os.fspath(path)
    return _resolved(text if os.path.isabs(text) else os.path.join(os.getcwd(), text),
                     st.st_dev, st.st_ino)


@lru_cache(maxsize=4096)
def _resolved(absolute: str, dev: int, ino: int) -> Path:
    """``Path(absolute).resolve()`` of the file ``(dev, ino)`` (see :func:`_resolve`)."""
    return Path(absolute).resolve()


def _regular_file(path: Path | str) -> os.stat_result | None:
    """The stat of ``path`` when it is a regular file, exactly as ``path.is_file()`` decides
    (missing or broken paths are no file; other errors are raised)."""
    try:
        st = os.stat(path)
    except OSError as err:
        if getattr(err, "errno", None) in _NO_FILE:
            return None
        raise
    except ValueError:
        return None
    return st if stat.S_ISREG(st.st_mode) else None


_NO_FILE = (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP)


def search_dirs(origin: Path | None, extra: tuple[Path, ...]) -> list[Path]:
    """The directories ``use`` looks in, in order, for a module file at ``origin``."""
    dirs: list[Path] = []
    if origin is not None:
        dirs.append(origin.parent)
    dirs.extend(extra)
    std = _stdlib()
    if std is not None:
        dirs.append(std)
    return dirs


def available_modules(dirs: list[Path]) -> list[str]:
    """Names of every ``.edge`` module in ``dirs``."""
    names: set[str] = set()
    for d in dirs:
        if d.is_dir():
            names.update(p.stem for p in d.glob("*.edge"))
    return sorted(names)


def platform_homes(name: str, dirs: list[Path]) -> list[str]:
    """The modules in ``dirs`` that declare a platform named ``name`` (``juso`` → ``region``),
    first directory first; each read and parsed as ``use`` would (memoised), a module that
    cannot be read or does not parse skipped."""
    homes: list[str] = []
    for d in dirs:
        if not d.is_dir():
            continue
        for path in sorted(d.glob("*.edge")):
            st = _regular_file(path)
            if st is None or path.stem in homes:
                continue
            try:
                _, module, _ = _read_module(path, _resolve(path, st), st)
            except (OSError, UnicodeDecodeError):  # a module `use` would refuse: not a home
                continue
            if module is not None and any(isinstance(i, n.PlatformDecl) and i.name == name
                                          for i in module.items):
                homes.append(path.stem)
    return homes


class _Loader:
    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx
        self.by_path: dict[Path, ModuleInfo] = {}
        self.unreadable: set[Path] = set()
        self.stack: list[tuple[Path | None, str]] = []
        # the compiled file, while its resolved path is not needed (see _main_key)
        self.main_file: tuple[ModuleInfo, Path, os.stat_result] | None = None

    def _main_key(self, st: os.stat_result) -> None:
        """Resolve the compiled file's path once a used module is the same file (device and
        inode): only then can the two resolved paths be equal (a ``use`` of the main file)."""
        if self.main_file is None:
            return
        main, path, main_st = self.main_file
        if (st.st_dev, st.st_ino) != (main_st.st_dev, main_st.st_ino):
            return
        self.main_file = None
        key = _resolve(path, main_st)
        self.by_path[key] = main
        self.stack[0] = (key, self.stack[0][1])  # the main module is the root of every visit

    def visit(self, info: ModuleInfo, key: Path | None) -> None:
        self.stack.append((key, info.name))
        if info.ast is not None:
            for item in info.ast.items:
                if not isinstance(item, n.UseDecl):
                    continue
                starts = item.name_at or (-1,) * len(item.names)
                for name, at in zip(item.names, starts, strict=True):
                    loaded = self.use(name, self.ctx.part(item.span, at, name))
                    if loaded is not None and loaded not in info.uses:
                        info.uses.append(loaded)
        self.stack.pop()
        self.ctx.modules[info.name] = info

    def use(self, name: str, name_span: Span) -> str | None:
        """Load the module ``name`` written at ``name_span`` in a ``use`` declaration."""
        main = self.ctx.main
        origin = main.path if main is not None else None
        found = _find_in(_candidates(origin, self.ctx.search_paths, f"{name}.edge"))
        if found is None:
            span = name_span
            dirs = search_dirs(origin, self.ctx.search_paths)
            self.ctx.catalog_incomplete = True
            std = _stdlib()
            where = ", ".join("the standard library" if d == std else f"`{d}`" for d in dirs)
            homes = platform_homes(name, dirs)
            home = [f"`{name}` is a platform of module `{homes[0]}`: write `use {homes[0]}` "
                    f"(its tools are still named `{name}.…`)"] if homes else []
            self.ctx.diags.add(
                diag(
                    "E103",
                    f"unknown module `{name}`",
                    span,
                    "no such module",
                    hints=[
                        *(home or suggestion_hint(name, available_modules(dirs))),
                        f"`use {name}` looks for `{name}.edge` in {where}",
                    ],
                )
            )
            return None
        path, st = found
        key = _resolve(path, st)
        self._main_key(st)
        stack_keys = [k for k, _ in self.stack]
        if key in stack_keys:
            chain = [nm for _, nm in self.stack[stack_keys.index(key) :]]
            self.ctx.diags.add(
                diag(
                    "E104",
                    f"`use` cycle: {' → '.join([*chain, name])}",
                    name_span,
                    "this `use` closes the cycle",
                    hints=["move the shared declarations into a module that both can use"],
                )
            )
            return None
        if key in self.by_path:
            return self.by_path[key].name
        if key in self.unreadable:  # reported where it was first used
            return None
        try:
            source, ast, errors = _read_module(path, key, st)
        except (OSError, UnicodeDecodeError) as err:
            self.ctx.catalog_incomplete = True
            self.unreadable.add(key)
            at_use = name_span
            if isinstance(err, UnicodeDecodeError):  # at the `use`, and at the byte
                bad, shown = not_utf8(str(path), err)
                self.ctx.sources[shown.name] = shown
                self.ctx.diags.add(diag(
                    "E000", bad.message, at_use, f"while loading module `{name}`",
                    secondary=[(bad.span, "not UTF-8")] if bad.span is not None else [],
                    hints=bad.hints,
                ))
                return None
            self.ctx.diags.add(
                diag(
                    "E000",
                    f"cannot read `{path}`: {err.strerror or err}",
                    at_use,
                    f"while loading module `{name}`",
                )
            )
            return None
        self.ctx.sources[source.name] = source
        if errors:
            self.ctx.catalog_incomplete = True
            self.ctx.diags.extend(errors)
        info = ModuleInfo(name=name, path=path, source=source, ast=ast)
        self.by_path[key] = info
        self.visit(info, key)
        return name


def _find(dirs: list[Path], filename: str) -> tuple[Path, os.stat_result] | None:
    """The first regular file ``filename`` in ``dirs``, with its stat."""
    return _find_in([(p, os.fspath(p)) for p in (d / filename for d in dirs)])


def _candidates(
    origin: Path | None, extra: tuple[Path, ...], filename: str
) -> tuple[tuple[Path, str], ...]:
    """The paths ``use`` tries for ``filename`` from a file at ``origin``, in order, each with its
    text (memoised on the directory of ``origin``: files side by side share them)."""
    return _candidates_in(None if origin is None else os.path.dirname(os.fspath(origin)),
                          extra, filename)


@lru_cache(maxsize=1024)
def _candidates_in(parent: str | None, extra: tuple[Path, ...], filename: str
                   ) -> tuple[tuple[Path, str], ...]:
    """:func:`_candidates` from a file in directory ``parent`` (``origin.parent``)."""
    dirs = ([] if parent is None else [Path(parent)]) + search_dirs(None, extra)
    return tuple((p, os.fspath(p)) for p in (d / filename for d in dirs))


def _find_in(paths: Iterable[tuple[Path, str]]) -> tuple[Path, os.stat_result] | None:
    """The first regular file of ``paths`` (each with its text), with its stat."""
    for path, text in paths:
        try:
            st = os.stat(text)
        except (OSError, ValueError):
            continue
        if stat.S_ISREG(st.st_mode):
            return path, st
    return None


def _read_module(
    path: Path, resolved: Path, st: os.stat_result
) -> tuple[Source, n.Module | None, list[Diagnostic]]:
    """Read and parse a used module, memoised on (path, mtime, size): catalogs such as the
    stdlib are parsed once per process, not once per compiled file (ASTs are immutable).
    The path as written is part of the key: spans and diagnostics name the file by it."""
    return _parsed(str(path), resolved, st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=256)
def _parsed(name: str, resolved: Path, mtime_ns: int, size: int
            ) -> tuple[Source, n.Module | None, list[Diagnostic]]:
    """:func:`_read_module` of the file ``name`` (resolved, its mtime and size: the key)."""
    source = Source(name, decode_source(Path(name).read_bytes()))
    try:
        return source, parse_module(source), []
    except CompileError as err:
        return source, None, list(err.diagnostics)


def load_modules(ctx: CheckContext) -> None:
    """Pass: load the compiled module and, transitively, every module it uses."""
    ctx.sources.setdefault(ctx.source.name, ctx.source)
    path, text = _path_of(ctx.source.name)
    st = _regular_file(text)
    main = ModuleInfo(
        name=module_name_for(ctx.source.name),
        path=path if st is not None else None,
        source=ctx.source,
        ast=ctx.module,
        main=True,
    )
    ctx.main = main
    loader = _Loader(ctx)
    if st is not None:  # its resolved path is the key, worked out when needed (_main_key)
        loader.main_file = (main, path, st)
    loader.visit(main, None)
