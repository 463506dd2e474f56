"""Table games: the exact law of every bet of a table game file (blackjack, baccarat,
roulette...), solved or simulated once and cached: a library the pit, the junket room and
the premium room play by."""
