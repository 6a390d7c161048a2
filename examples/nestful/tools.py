"""The NESTFUL tools for ``edgedsl run --backend python --tools examples/nestful/tools.py``.

The functions live in :mod:`edgedsl.suites.nestful_tools` (one implementation, shared with
``edgedsl import nestful``); this file only names them for the python backend.
"""

from edgedsl.suites.nestful_tools import TOOLS, answers_match

__all__ = ["TOOLS", "answers_match"]
