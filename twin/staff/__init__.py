"""Employees on the floor: roles, shifts and dispatch."""
