"""EDGE phase B: trajectories synthesized from G*, filtered, measured and exported.

Stages (each a public function and a ``edgedsl synth`` command):

* :func:`edgedsl.synth.pipeline.synthesize` (``synth run``) — sampling on G*, junction typing
  (:mod:`~edgedsl.synth.junction`), structures (:mod:`~edgedsl.synth.structures`), queries
  (:mod:`~edgedsl.synth.query`), filters (:mod:`~edgedsl.synth.filters`,
  :mod:`~edgedsl.synth.resolve`), emission as formatted ``.edge`` files and ``tasks.jsonl``
  (:mod:`~edgedsl.synth.record`);
* :func:`edgedsl.synth.stats.corpus_stats` (``synth stats``);
* :func:`edgedsl.synth.export.export` (``synth export``);
* :func:`edgedsl.synth.audit.audit_dirs` (``synth audit``).
"""
