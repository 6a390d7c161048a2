"""The data-synthesis recipe: the LLM client, the tool graph and synthesis."""
