"""Casino floor digital twin: a seeded SimPy model of a casino, checked against its regulations."""

__version__ = "0.1.0"
