"""Slot machines: PAR sheets, exact analysis, play engines, meters and the SAS link."""
