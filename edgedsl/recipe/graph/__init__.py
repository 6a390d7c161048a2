"""EDGE phase A: a candidate tool-dependency graph G, refined by real execution into G*.

Stages (each a public function and a CLI command, ``edgedsl graph …``): candidate edges from a
dense retriever over tool signatures with typed field bindings (:mod:`.build`), a feasibility
prior per edge (:mod:`.heuristic` by default, :mod:`.model_prior` for a chat model), refinement
by Thompson sampling over Beta posteriors with pruning (:mod:`.refine`), and a report on fresh
executions (:mod:`.report`). The file format of G and G* is :mod:`.model`.
"""
