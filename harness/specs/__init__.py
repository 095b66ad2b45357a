"""Specs: YAML spec files read with locations, expanded into cases, and the flags that select among them."""
