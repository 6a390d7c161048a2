"""Reductions: the one reducer registry, value coercion, the typed query model and its renderers."""
