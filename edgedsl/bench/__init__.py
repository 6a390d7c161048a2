"""Agent evaluation (issue 19): task bundles, the tool interface, agents, scoring, reports.

The evaluation half of the recipe, over the same runtime that runs trajectories:

* :mod:`edgedsl.bench.bundle` — a :class:`~edgedsl.bench.bundle.Bundle` is a versioned,
  content-hashed set of tasks made from ``.edge`` files: per task the query, the gold program,
  the exposed tools as OpenAI function schemas (gold tools plus distractors) and the catalog
  they come from. ``make_bundle`` refuses a task whose gold answer is not determined.
* :mod:`edgedsl.bench.toolbox` — a :class:`~edgedsl.bench.toolbox.ToolBox` is what an agent
  calls: one tool call at a time on a backend, arguments validated against the catalog, errors
  classified, budgets enforced, every call recorded.
* :mod:`edgedsl.bench.episode` — an :class:`~edgedsl.bench.episode.Episode` is one rollout of
  one agent on one task (messages, calls, answer, end reason, tokens, timing, and the gold run
  it is scored against), written one JSON line each to ``RESULTS/episodes.jsonl``.
* :mod:`edgedsl.bench.agents` — the :class:`~edgedsl.bench.agents.base.Agent` protocol, the
  agent registry and the reference agents with no model (``oracle``, ``first-page``,
  ``first-record``).
* :mod:`edgedsl.bench.runner` — k seeded rollouts per task; :mod:`edgedsl.bench.score` — the
  RESPONSE, ENVIRONMENT and ACTION axes, pass@k; :mod:`edgedsl.bench.report` — tables and SVG.

Nothing here is imported by the packages below it; ``edgedsl bench …`` (``edgedsl/cli/bench.py``)
is the command line.
"""
