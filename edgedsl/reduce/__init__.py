"""Reductions: the reducer registry, coercion of fields, the query model and its renderers."""
