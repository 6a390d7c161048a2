"""Editor support: the language server of ``edgedsl lsp`` and the Pygments lexer of ``.edge``.

=====================  ==========================================================================
module                 role
=====================  ==========================================================================
``analysis``           one document through the stages parse → build → check, every diagnostic
                       kept and the checker's typed facts (catalog, bindings) kept with it
``convert``            spans ↔ LSP positions in the client's encoding; diagnostics → LSP ones
``symbols``            what each name of the AST denotes (tool, parameter, field, binding, …),
                       from node spans and the checker's results; where each is declared
``hover``              the Markdown shown over a name: docs, parameters, fields, types, labels
``complete``           completion from the grammar's parse state and the checker's catalog
``server``             the pygls server wiring the features over stdio
``lexer``              the Pygments lexer of ``.edge`` (entry point ``pygments.lexers``), its
                       keywords taken from the grammar and the reducer registry
=====================  ==========================================================================

Importing this package imports neither pygls nor Pygments: ``server`` needs the ``[lsp]``
extra, ``lexer`` needs Pygments.
"""
