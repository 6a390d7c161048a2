"""EDGE phase B: trajectories synthesized from G*, filtered, measured and exported.

Stages (each a public function and a ``edgedsl synth`` command):

* :func:`edgedsl.recipe.synth.pipeline.synthesize` (``synth run``) — sampling on G*, junction typing
  (:mod:`~edgedsl.recipe.synth.junction`), structures (:mod:`~edgedsl.recipe.synth.structures`),
  queries (:mod:`~edgedsl.recipe.synth.query`), filters (:mod:`~edgedsl.recipe.synth.filters`,
  :mod:`~edgedsl.recipe.synth.resolve`), emission as formatted ``.edge`` files and ``tasks.jsonl``
  (:mod:`~edgedsl.recipe.synth.record`);
* :func:`edgedsl.recipe.synth.stats.corpus_stats` (``synth stats``);
* :func:`edgedsl.recipe.synth.export.export` (``synth export``);
* :func:`edgedsl.recipe.synth.audit.audit_dirs` (``synth audit``).
"""
