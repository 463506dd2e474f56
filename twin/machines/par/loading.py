"""Loading a PAR sheet: parse and validate the TOML, compile it into a :class:`Game`;
the exact distribution of a window count over the reels."""

from __future__ import annotations

import hashlib
import re
import tomllib
from collections.abc import Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from types import MappingProxyType

import numpy as np
from pydantic import ValidationError

from twin.errors import InputError
from twin.machines.par.game import (
    BoolArray,
    FreeSpins,
    Game,
    IntArray,
    Progressive,
    ReelSet,
    Scatter,
    TableOutcome,
    _frozen,
)
from twin.machines.par.schema import _ReelModel, _ReelsFile, _TableFile

MAX_LINE_TABLE = 1 << 22
"""Largest ``symbols ** reels``: the line pay lookup table has one entry per symbol tuple."""

MAX_WEIGHT_TOTAL = 1 << 40
"""Largest total weight of a reel or outcome table (keeps ``u * total`` exact enough)."""

# ---------------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------------


class _Missing:
    def __repr__(self) -> str:
        return "nothing"


def _key(loc: Sequence[int | str]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _from_pydantic(source: Path, err: ValidationError) -> InputError:
    e = err.errors(include_url=False)[0]
    loc = [p for p in e["loc"] if not (isinstance(p, str) and p.startswith("function-"))]
    key = _key(loc)
    kind = e["type"]
    if kind == "extra_forbidden":
        return InputError(source, key, "a known key (unknown keys are rejected)", loc[-1])
    if kind == "missing":
        return InputError(source, key, "a value (required key)", _Missing())
    return InputError(source, key, _expected(e["msg"] or kind), e.get("input"))


def _expected(msg: str) -> str:
    """Rephrase a pydantic message ("Input should be greater than 0") as what was expected."""
    for prefix, lead in (
        ("Input should be ", ""),
        ("String should match ", "a string matching "),
        ("String should have ", "a string with "),
        ("List should have ", "a list with "),
        ("Dictionary should have ", "a table with "),
    ):
        if msg.startswith(prefix):
            rest = msg.removeprefix(prefix)
            if rest.startswith(("greater", "less")):
                return "a number " + rest
            return lead + rest
    return msg[0].lower() + msg[1:]


def load_game(path: str | Path) -> Game:
    """Read, validate and compile a PAR sheet; every problem raises `InputError`."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise InputError(p, "", "a readable PAR sheet file", exc.strerror or str(exc)) from None
    return parse_game(data, p)


def parse_game(data: bytes, path: str | Path = "<memory>") -> Game:
    """Validate and compile PAR sheet bytes (``path`` names the source in errors)."""
    p = Path(path)
    signature = hashlib.sha256(data).hexdigest()
    try:
        raw = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InputError(p, "", "a UTF-8 TOML file", str(exc)) from None
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        key = f"line {m.group(1)}" if m else ""
        raise InputError(p, key, "valid TOML", str(exc)) from None
    header = raw.get("game")
    if not isinstance(header, dict):
        raise InputError(p, "game", "a [game] table", header if header is not None else _Missing())
    kind = header.get("kind")
    if kind not in ("reels", "table"):
        raise InputError(p, "game.kind", '"reels" or "table"', kind if kind else _Missing())
    try:
        if kind == "table":
            return _compile_table(_TableFile.model_validate(raw), p, signature)
        return _compile_reels(_ReelsFile.model_validate(raw), p, signature)
    except ValidationError as exc:
        raise _from_pydantic(p, exc) from None


def _compile_table(m: _TableFile, p: Path, signature: str) -> Game:
    names: set[str] = set()
    for i, o in enumerate(m.outcomes):
        if o.name in names:
            raise InputError(p, f"outcomes[{i}].name", "a unique outcome name", o.name)
        names.add(o.name)
    rows = tuple(TableOutcome(o.name, o.weight, o.pay, o.progressive) for o in m.outcomes)
    cum = np.cumsum([o.weight for o in rows], dtype=np.int64)
    if int(cum[-1]) > MAX_WEIGHT_TOTAL:
        raise InputError(p, "outcomes", f"total weight <= {MAX_WEIGHT_TOTAL}", int(cum[-1]))
    return Game(
        id=m.game.id,
        name=m.game.name,
        path=p,
        signature=signature,
        kind="table",
        cost=m.game.cost,
        draws_per_spin=1,
        outcomes=rows,
        table_cum=_frozen(cum),
        table_cum_list=tuple(int(c) for c in cum),
    )


def _check_reels(p: Path, prefix: str, reels: list[_ReelModel]) -> None:
    for r, reel in enumerate(reels):
        if reel.weights is None:
            continue
        key = f"{prefix}[{r}].weights"
        if len(reel.weights) != len(reel.symbols):
            raise InputError(
                p, key, f"{len(reel.symbols)} weights (one per stop)", len(reel.weights)
            )
        if sum(reel.weights) > MAX_WEIGHT_TOTAL:
            raise InputError(p, key, f"total weight <= {MAX_WEIGHT_TOTAL}", sum(reel.weights))


def _counts(p: Path, key: str, table: Mapping[str, int], top: int) -> dict[int, int]:
    out: dict[int, int] = {}
    for text, pay in table.items():
        k = f"{key}.{text}"
        if not re.fullmatch(r"[0-9]+", text):
            raise InputError(p, k, f"a count 1..{top} as key", text)
        count = int(text)
        if not 1 <= count <= top:
            raise InputError(p, k, f"a count 1..{top}", count)
        out[count] = pay
    return dict(sorted(out.items()))


def _compile_reels(m: _ReelsFile, p: Path, signature: str) -> Game:
    g = m.game
    n_reels = len(m.reels)
    _check_reels(p, "reels", m.reels)
    for j, line in enumerate(g.lines):
        if len(line) != n_reels:
            raise InputError(
                p, f"game.lines[{j}]", f"{n_reels} row indexes (one per reel)", len(line)
            )
        for r, row in enumerate(line):
            if row >= g.rows:
                raise InputError(p, f"game.lines[{j}][{r}]", f"a row index 0..{g.rows - 1}", row)
    cost = len(g.lines)
    if g.cost is not None and g.cost != cost:
        raise InputError(p, "game.cost", f"the number of lines ({cost}) or no cost", g.cost)
    fs_model = m.free_spins
    if fs_model is not None and fs_model.reels is not None:
        if len(fs_model.reels) != n_reels:
            raise InputError(p, "free_spins.reels", f"{n_reels} feature reels", len(fs_model.reels))
        _check_reels(p, "free_spins.reels", fs_model.reels)

    symbols: list[str] = []
    for reel in [*m.reels, *(fs_model.reels or [] if fs_model else [])]:
        for s in reel.symbols:
            if s not in symbols:
                symbols.append(s)
    on_reels = set(symbols)

    def known(key: str, sym: str) -> None:
        if sym not in on_reels:
            raise InputError(p, key, "a symbol that appears on a reel", sym)

    wilds: list[str] = []
    excludes: list[str] = []
    if m.wild is not None:
        for i, s in enumerate(m.wild.symbols):
            known(f"wild.symbols[{i}]", s)
        wilds = list(m.wild.symbols)
        for i, s in enumerate(m.wild.excludes):
            known(f"wild.excludes[{i}]", s)
            if s in wilds:
                raise InputError(p, f"wild.excludes[{i}]", "a non-wild symbol", s)
        excludes = list(m.wild.excludes)

    window_size = g.rows * n_reels
    scatter: Scatter | None = None
    if m.scatter is not None:
        known("scatter.symbol", m.scatter.symbol)
        if m.scatter.symbol in wilds:
            raise InputError(p, "scatter.symbol", "a symbol that is not wild", m.scatter.symbol)
        sp = _counts(p, "scatter.pays", m.scatter.pays, window_size)
        scatter = Scatter(m.scatter.symbol, tuple(sp.items()))

    pays: dict[str, Mapping[int, int]] = {}
    for sym, table in m.pays.items():
        known(f"pays.{sym}", sym)
        if scatter is not None and sym == scatter.symbol:
            raise InputError(p, f"pays.{sym}", "no line pays for the scatter symbol", sym)
        pays[sym] = MappingProxyType(_counts(p, f"pays.{sym}", table, n_reels))

    free: FreeSpins | None = None
    if fs_model is not None:
        trigger = fs_model.trigger or (scatter.symbol if scatter else None)
        if trigger is None:
            raise InputError(
                p, "free_spins.trigger", "a trigger symbol (no scatter to default to)", _Missing()
            )
        known("free_spins.trigger", trigger)
        if fs_model.count > window_size:
            raise InputError(p, "free_spins.count", f"a count 1..{window_size}", fs_model.count)
        free = FreeSpins(
            trigger, fs_model.count, fs_model.spins, fs_model.multiplier, fs_model.retrigger
        )

    prog: Progressive | None = None
    if m.progressive is not None:
        known("progressive.symbol", m.progressive.symbol)
        if m.progressive.symbol in wilds:
            raise InputError(
                p, "progressive.symbol", "a symbol that is not wild", m.progressive.symbol
            )
        if m.progressive.count > n_reels:
            raise InputError(p, "progressive.count", f"a count 1..{n_reels}", m.progressive.count)
        prog = Progressive(m.progressive.symbol, m.progressive.count)

    k = len(symbols)
    if k**n_reels > MAX_LINE_TABLE:
        raise InputError(
            p, "reels", f"symbols ** reels <= {MAX_LINE_TABLE} (line pay table)", k**n_reels
        )
    ids = {s: i for i, s in enumerate(symbols)}
    base = _reelset(m.reels, g.rows, ids, scatter, free)
    feature = (
        _reelset(fs_model.reels, g.rows, ids, scatter, free)
        if fs_model is not None and fs_model.reels is not None
        else None
    )
    line_pay, line_prog = _line_table(symbols, n_reels, pays, set(wilds), set(excludes), prog)
    sbc = np.zeros(window_size + 1, np.int64)
    if scatter is not None:
        for c in range(window_size + 1):
            sbc[c] = scatter.pay_for(c)
    game = Game(
        id=g.id,
        name=g.name,
        path=p,
        signature=signature,
        kind="reels",
        cost=cost,
        draws_per_spin=n_reels,
        rows=g.rows,
        lines=tuple(tuple(line) for line in g.lines),
        symbols=tuple(symbols),
        pays=MappingProxyType(pays),
        wilds=frozenset(wilds),
        wild_excludes=frozenset(excludes),
        scatter=scatter,
        free_spins=free,
        progressive=prog,
        base=base,
        feature=feature,
        line_pay=_frozen(line_pay),
        line_prog=None if line_prog is None else _frozen(line_prog),
        scatter_by_count=_frozen(sbc),
    )
    if free is not None and free.retrigger:
        rate = retrigger_probability(game) * free.spins
        if rate >= 1:
            raise InputError(
                p,
                "free_spins.retrigger",
                "a subcritical retrigger: P(retrigger per free spin) × spins < 1",
                round(float(rate), 6),
            )
    return game


def _reelset(
    reels: list[_ReelModel],
    rows: int,
    ids: Mapping[str, int],
    scatter: Scatter | None,
    free: FreeSpins | None,
) -> ReelSet:
    names = tuple(tuple(r.symbols) for r in reels)
    weights = tuple(tuple(r.weights) if r.weights else (1,) * len(r.symbols) for r in reels)
    cum = tuple(_frozen(np.cumsum(w, dtype=np.int64)) for w in weights)
    window = []
    scat = []
    trig = []
    for strip in names:
        length = len(strip)
        grid = np.array(
            [[ids[strip[(s + row) % length]] for s in range(length)] for row in range(rows)],
            dtype=np.int64,
        )
        window.append(_frozen(grid))
        col = [[strip[(s + row) % length] for row in range(rows)] for s in range(length)]
        sc = scatter.symbol if scatter else None
        tr = free.trigger if free else None
        scat.append(_frozen(np.array([c.count(sc) if sc else 0 for c in col], np.int64)))
        trig.append(_frozen(np.array([c.count(tr) if tr else 0 for c in col], np.int64)))
    return ReelSet(
        names=names,
        weights=weights,
        cum=cum,
        cum_lists=tuple(tuple(int(x) for x in c) for c in cum),
        totals=tuple(sum(w) for w in weights),
        window=tuple(window),
        scatter_counts=tuple(scat),
        trigger_counts=tuple(trig),
    )


def _line_table(
    symbols: Sequence[str],
    n_reels: int,
    pays: Mapping[str, Mapping[int, int]],
    wilds: set[str],
    excludes: set[str],
    prog: Progressive | None,
) -> tuple[IntArray, BoolArray | None]:
    """Line pay for every symbol tuple (vectorised line rules over all ``K ** R`` tuples).

    Index of a tuple ``(x0, ..., x_{R-1})`` is ``sum(x_r * K ** (R-1-r))``.
    """
    k = len(symbols)
    codes = np.arange(k**n_reels, dtype=np.int64)
    sym = np.empty((codes.size, n_reels), np.int64)
    rest = codes.copy()
    for r in range(n_reels - 1, -1, -1):
        sym[:, r] = rest % k
        rest //= k
    paytab = np.zeros((k, n_reels + 1), np.int64)
    for name, table in pays.items():
        for count, amount in table.items():
            paytab[symbols.index(name), count] = amount
    is_wild = np.array([s in wilds for s in symbols], np.bool_)
    excluded = np.array([s in excludes for s in symbols], np.bool_)
    rows = np.arange(codes.size)

    def run_length(match: BoolArray) -> IntArray:
        return np.where(match.all(axis=1), n_reels, np.argmin(match, axis=1)).astype(np.int64)

    wild_at = is_wild[sym]
    has_plain = ~wild_at.all(axis=1)
    first = sym[rows, np.argmax(~wild_at, axis=1)]
    subst = ~excluded[first]
    run = run_length((sym == first[:, None]) | (wild_at & subst[:, None]))
    sym_pay = np.where(has_plain, paytab[first, run], 0)
    lead = sym[:, 0]
    wrun = run_length(sym == lead[:, None])
    wild_pay = np.where(is_wild[lead], paytab[lead, wrun], 0)
    pay = np.maximum(sym_pay, wild_pay)
    hit: BoolArray | None = None
    if prog is not None:
        hit = has_plain & (first == symbols.index(prog.symbol)) & (run >= prog.count)
        pay = np.where(hit, 0, pay)
    return pay.astype(np.int64), hit


def column_count_distribution(reels: ReelSet, counts: Sequence[IntArray]) -> list[int]:
    """Weighted distribution of a window count summed over reels (exact ints).

    ``counts[r][s]`` is the count in reel ``r``'s column at stop ``s``; entry ``c`` of the
    result is the total weight (product of stop weights) of the combinations whose count is
    ``c``: the convolution over reels of each reel's weighted count histogram.
    """
    dist = [1]
    for r, col in enumerate(counts):
        hist: dict[int, int] = {}
        for s, c in enumerate(col.tolist()):
            hist[c] = hist.get(c, 0) + reels.weights[r][s]
        new = [0] * (len(dist) + max(hist))
        for a, wa in enumerate(dist):
            for b, wb in hist.items():
                new[a + b] += wa * wb
        dist = new
    return dist


def retrigger_probability(game: Game) -> Fraction:
    """P(a free spin shows the trigger symbol at least ``count`` times), exact."""
    fs = game.free_spins
    if fs is None or game.kind != "reels":
        return Fraction(0)
    reels = game.feature_reels
    dist = column_count_distribution(reels, reels.trigger_counts)
    hit = sum(dist[fs.count :])
    return Fraction(hit, sum(dist))
