"""Table games (issue 10): exact laws of every bet, table game files, the pit."""
