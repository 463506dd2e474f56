"""Patrons: arrivals, attributes and how they play."""
