"""Check pass ``check_run_settings``: the file's ``run { … }`` block → :class:`RunSettings`.

At most one ``run`` block per file (a used module's is ignored, like its trajectories); each
setting is one of :data:`~edgedsl.core.runsettings.RUN_SETTINGS`, once, with a whole number at
least its minimum. Unknown setting: ``E130`` (with a did-you-mean); a value of the wrong kind or
out of range: ``E131``; a setting or a ``run`` block given twice: ``E132``. The settings found
are kept on the context (``ctx.settings``); a stated φ becomes the checker's φ unless the caller
gave one (``ctx.phi_given``).
"""

from __future__ import annotations

from ..core.diagnostics import diag, did_you_mean
from ..core.runsettings import MINIMUM, RUN_SETTINGS, RunSettings
from ..syntax import nodes as n
from .context import CheckContext

__all__ = ["check_run_settings"]


def check_run_settings(ctx: CheckContext) -> None:
    """The pass: validate the module's ``run`` block and keep its settings on ``ctx``."""
    decls = ctx.module.run_decls
    for extra in decls[1:]:
        ctx.diags.add(diag("E132", "a file has at most one `run` block", extra.span,
                           "second `run` block", secondary=[(decls[0].span, "the first")],
                           hints=["merge the settings into the first `run` block"]))
    if not decls:
        return
    seen: dict[str, n.RunSetting] = {}
    values: dict[str, int] = {}
    for st in decls[0].settings:
        where = ctx.named(st)
        if st.name not in RUN_SETTINGS:
            close = did_you_mean(st.name, RUN_SETTINGS)
            hint = (f"did you mean `{close[0]}`?" if close else
                    "the settings are " + ", ".join(f"`{k}`" for k in RUN_SETTINGS))
            ctx.diags.add(diag("E130", f"unknown run setting `{st.name}`", where,
                               "not a run setting", hints=[hint]))
            continue
        if st.name in seen:
            ctx.diags.add(diag("E132", f"run setting `{st.name}` given twice", where,
                               "again here", secondary=[(ctx.named(seen[st.name]), "first")],
                               hints=["keep one of them"]))
            continue
        seen[st.name] = st
        v = st.value
        low = MINIMUM[st.name]
        if (not isinstance(v, n.NumberLit) or not isinstance(v.value, int)
                or isinstance(v.value, bool) or v.value < low):
            ctx.diags.add(diag("E131", f"run setting `{st.name}` needs a whole number ≥ {low}",
                               v.span, "this value",
                               hints=[f"`{st.name}` is {RUN_SETTINGS[st.name]}"]))
            continue
        values[st.name] = v.value
    ctx.settings = RunSettings(**values)
    if not ctx.phi_given and ctx.settings.phi is not None:
        ctx.phi = ctx.settings.phi
