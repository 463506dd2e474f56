"""The compliance engine: one checker per catalogued control, observing records only."""
