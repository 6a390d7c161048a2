"""Importers of third-party tool-calling suites (``edgedsl import nestful|tau2|bfcl``).

Each importer reads a suite's own files into gold cases (:mod:`.model`), writes them as
formatted ``.edge`` programs built as ASTs (:mod:`.emit`) beside the catalog of the suite's
tools and a ``tools.py`` for the python backend, and checks how much of the suite's gold the
written programs reproduce (:mod:`.outcome`). The registry of suites is :mod:`.registry`.
"""
