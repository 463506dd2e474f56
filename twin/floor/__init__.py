"""The casino floor: zones, banks of machines, who is playing where."""
