"""Stage `build`, the last step: comments attached to statement-level nodes by position.

A comment on the line a statement ends is its ``trailing`` comment, comments before a statement
are its leading ``comments``, comments after the last statement of a block are the block's
``end_comments``, and comments inside a statement are hoisted to its leading comments.
"""

from __future__ import annotations

import dataclasses
from bisect import bisect_left
from collections.abc import Sequence
from typing import Any

from lark import Token

from . import nodes as n


class Comments:
    """Assigns comment tokens to statement-level nodes (see module docstring).

    Comments are sorted by position; a take over ``[start, end)`` finds its first comment by
    bisection and steps over the comments already taken through ``nxt`` (the next comment that
    may still be free, with path compression), so attaching every comment of a file costs
    about one look per comment and per take, not one per comment and per statement.
    ``examined`` counts those looks (the tests bound it).
    """

    def __init__(self, tokens: list[Token]):
        self.toks = sorted(tokens, key=lambda t: t.start_pos or 0)
        self.starts = [t.start_pos or 0 for t in self.toks]
        self.nxt = list(range(len(self.toks) + 1))  # nxt[i] <= the first free index >= i
        self.left = len(self.toks)
        self.examined = 0

    def _free(self, i: int) -> int:
        """The first comment index >= ``i`` not taken yet (``len(toks)`` when none)."""
        nxt = self.nxt
        root = i
        while nxt[root] != root:
            root = nxt[root]
            self.examined += 1
        while nxt[i] != root:  # path compression
            nxt[i], i = root, nxt[i]
        return root

    def _take(self, start: int, end: int) -> list[Token]:
        out: list[Token] = []
        if not self.left or start >= end:
            return out
        starts = self.starts
        i = self._free(bisect_left(starts, start))
        while i < len(starts) and starts[i] < end:
            self.examined += 1
            out.append(self.toks[i])
            self.nxt[i] = i + 1
            i = self._free(i + 1)
        self.left -= len(out)
        return out

    def attach_module(self, mod: n.Module) -> n.Module:
        if not self.toks:
            return mod
        items, end = self._container(mod.items, 0, mod.span.end)
        return dataclasses.replace(mod, items=tuple(items), end_comments=end)

    def _container(
        self, children: Sequence[Any], start: int, end: int
    ) -> tuple[list[Any], tuple[str, ...]]:
        done = [self._node(c) for c in children]  # inner comments first
        out: list[Any] = []
        cursor = start
        for child in done:
            leading: list[str] = []
            for tok in self._take(cursor, child.span.start):
                if out and tok.line == out[-1].span.end_line and out[-1].trailing is None:
                    out[-1] = dataclasses.replace(out[-1], trailing=str(tok).rstrip())
                else:
                    leading.append(str(tok).rstrip())
            if leading:
                child = dataclasses.replace(child, comments=(*leading, *child.comments))
            out.append(child)
            cursor = child.span.end
        tail: list[str] = []
        for tok in self._take(cursor, end):
            if out and tok.line == out[-1].span.end_line and out[-1].trailing is None:
                out[-1] = dataclasses.replace(out[-1], trailing=str(tok).rstrip())
            else:
                tail.append(str(tok).rstrip())
        return out, tuple(tail)

    def _node(self, node: Any) -> Any:
        """Attach comments inside ``node`` (containers recurse; the rest is hoisted)."""
        span = node.span
        if isinstance(node, n.Trajectory):
            body, end = self._container(node.body, span.start, span.end)
            node = dataclasses.replace(node, body=tuple(body), end_comments=end)
        elif isinstance(node, n.PlatformDecl):
            items, end = self._container(node.items, span.start, span.end)
            node = dataclasses.replace(node, items=tuple(items), end_comments=end)
        elif isinstance(node, n.RecordDecl):
            fields, end = self._container(node.fields, span.start, span.end)
            node = dataclasses.replace(node, fields=tuple(fields), end_comments=end)
        elif isinstance(node, n.RunDecl):
            settings, end = self._container(node.settings, span.start, span.end)
            node = dataclasses.replace(node, settings=tuple(settings), end_comments=end)
        elif isinstance(node, n.IfStmt):
            # the blocks' extents, which the builder kept on the node (``nodes.PART``)
            then_at, then_stop = (
                (node.then_at, node.then_end) if node.then_at >= 0 else (span.start, span.end)
            )
            then, then_end = self._container(node.then, then_at, then_stop)
            orelse: tuple[Any, ...] | None = node.orelse
            else_end: tuple[str, ...] = ()
            if node.orelse is not None:
                if node.else_at < 0:  # `else if`: the nested if is its own statement
                    orelse = (self._node(node.orelse[0]),)
                else:
                    lst, else_end = self._container(node.orelse, node.else_at, node.else_end)
                    orelse = tuple(lst)
            node = dataclasses.replace(
                node, then=tuple(then), orelse=orelse, then_end_comments=then_end,
                else_end_comments=else_end,
            )
        elif isinstance(node, n.Binding) and isinstance(node.node, n.Parallel):
            par = node.node
            branches, end = self._container(par.branches, par.span.start, par.span.end)
            node = dataclasses.replace(
                node, node=dataclasses.replace(par, branches=tuple(branches), end_comments=end)
            )
        hoisted = tuple(str(t).rstrip() for t in self._take(span.start, span.end))
        if hoisted:
            node = dataclasses.replace(node, comments=(*node.comments, *hoisted))
        return node
