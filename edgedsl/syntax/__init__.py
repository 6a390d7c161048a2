"""Stage `parse` and `format`: grammar loading, parser, AST nodes, builder and printer."""
