"""The foundation: sources and spans, diagnostics and codes, types, catalogs, quoting, files and
resources. Imports nothing else of edgedsl."""
