"""Stage `parse`: the grammar, the parser (text → AST), the AST nodes and the printer.

- :mod:`.parser` loads the grammar and turns text into a lark tree, and lark's syntax errors into
  coded diagnostics (``E0xx``);
- :mod:`.build` turns text (or a lark tree) into the AST of :mod:`.nodes`;
- :mod:`.printer` and :mod:`.fmt` print the AST back as canonical text (``edgedsl fmt``).
"""
