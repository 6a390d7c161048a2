"""TOOLS of tg.edge whose ``tg.detail`` raises KeyboardInterrupt on its 40th call."""

from tests.recipe.graph.graph_tools import TOOLS as _TOOLS
from tests.recipe.graph.graph_tools import interrupting

TOOLS = {**_TOOLS, "tg.detail": interrupting(40)}
