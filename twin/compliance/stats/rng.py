"""Item 1(b) of the First Schedule: constant stop probability (ii), every combination
available (i), no dependency (iii)."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from scipy import stats as sps

from twin.compliance.stats.results import TestResult, _as_1d_float, _as_counts, _norm_sf, _not_run

#: The smallest sequence :func:`runs_test` evaluates with its normal approximation.
RUNS_MIN_N = 20


# --- item 1(b)(ii): constant stop probability -------------------------------------------------


def pool_cells(expected: npt.ArrayLike, min_expected: float) -> list[list[int]]:
    """Group adjacent cells so that every group's expected count is at least ``min_expected``.

    Cells are walked in order (reel order: pooling neighbours keeps the grouping stable and
    reproducible, and neighbours on a strip are the natural merge); a group closes as soon as
    its expected count reaches ``min_expected``. A short tail that does not reach it is merged
    into the last closed group. If the total is below ``min_expected`` the single group of all
    cells is returned (the caller then has fewer than two cells and cannot test). Returns the
    cell indices of each group.
    """
    exp = _as_1d_float(expected, "expected")
    groups: list[list[int]] = []
    current: list[int] = []
    acc = 0.0
    for i, e in enumerate(exp):
        current.append(i)
        acc += float(e)
        if acc >= min_expected:
            groups.append(current)
            current, acc = [], 0.0
    if current:
        if groups:
            groups[-1].extend(current)
        else:
            groups.append(current)
    return groups


def stop_frequency_test(
    counts: npt.ArrayLike, weights: npt.ArrayLike, min_expected: float = 5.0
) -> TestResult:
    """Chi-square goodness of fit of one reel's observed stop counts against its weights.

    H0: every spin picks stop ``i`` independently with probability ``weights[i] / sum(weights)``
    (item 1(b)(ii): the probability of a symbol appearing in a position is constant).

    Method: Pearson's ``X^2 = sum((O - E)^2 / E)`` with ``E = n * p``, referred to chi-square
    with ``k - 1`` degrees of freedom, ``k`` the number of cells after pooling; upper-tail p.

    Small expected counts: the chi-square reference needs every expected count to be at
    least about 5 (Cochran's rule; ``min_expected``). Below that the p-value is an exact-size
    sequential Monte Carlo p-value of the same statistic on all cells (no pooling; see
    :func:`_monte_carlo`), whose smallest value is ``1 / MC_DRAWS``. Stops of weight zero are
    left out of the test; if any of them was observed, the reel fails outright
    (``statistic = inf``, ``p = 0``), since an impossible stop was produced. With no spins
    the test is not run (``p = 1``, ``"too few observations"``).

    Error rate: under H0 the rejection rate at level ``alpha`` is ``alpha`` up to the
    chi-square approximation where it is used, and exactly ``alpha`` (for multiples of
    ``1 / MC_DRAWS``) where Monte Carlo is (``tests/test_stats.py`` measures both at 1,000
    and 250 spins). The approximation is least accurate far in the tail, where multiple
    testing thresholds live: on a 64-stop reel at 1,000 spins (every E >= 31) P(p <= 1e-4)
    was measured at about 1.1e-4 and P(p <= 1e-5) at about 1.45e-5.
    Power grows with ``n * delta^2 / p`` for a relative change ``delta`` in a stop of
    probability ``p`` (noncentral chi-square with ``lambda = n * sum((p1 - p0)^2 / p0)``):
    rare stops need many more spins.
    """
    done = _stop_frequency_stat(counts, weights, min_expected)
    return done if isinstance(done, TestResult) else _chi2_results([done])[0]


def stop_frequency_tests(
    pairs: Sequence[tuple[npt.ArrayLike, npt.ArrayLike]], min_expected: float = 5.0
) -> list[TestResult]:
    """:func:`stop_frequency_test` of each ``(counts, weights)``, with one p-value call for all.

    The results are exactly those of the single test (the same statistic, the same
    ``chi2.sf`` evaluated element-wise); only the call overhead is shared.
    """
    items: list[TestResult | _Chi2 | None] = [None] * len(pairs)
    same: dict[tuple[float, ...], list[int]] = {}
    for i, (_, w) in enumerate(pairs):
        if isinstance(w, tuple):  # reels that share their weights are computed together
            same.setdefault(w, []).append(i)
    for w_key, rows in same.items():
        if len(rows) > 1:
            _stop_frequency_rows(pairs, rows, w_key, min_expected, items)
    done = [
        x if x is not None else _stop_frequency_stat(*pairs[i], min_expected)
        for i, x in enumerate(items)
    ]
    return _chi2_batch(done)


def _stop_frequency_rows(
    pairs: Sequence[tuple[npt.ArrayLike, npt.ArrayLike]],
    rows: list[int],
    weights: tuple[float, ...],
    min_expected: float,
    items: list[TestResult | _Chi2 | None],
) -> None:
    """The usual case of :func:`_stop_frequency_stat` for many reels with the same weights
    at once (valid counts, no zero weight, no pooling); other rows are left as None."""
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 1 or w.size < 2 or not np.all(np.isfinite(w)) or np.any(w <= 0):
        return
    try:  # one conversion for all rows (ragged ones: each on its own)
        obs = np.array([pairs[i][0] for i in rows], dtype=np.float64)
    except ValueError:
        return
    if obs.shape != (len(rows), w.size):
        return
    if not np.all(np.isfinite(obs)) or np.any(obs < 0) or np.any(obs != np.round(obs)):
        return
    n = obs.sum(axis=1)
    expected = n[:, None] * w / w.sum()
    ok = expected.min(axis=1) >= min_expected
    stat = np.sum((obs - expected) ** 2 / expected, axis=1)
    p = w / w.sum()
    for i, good, x, total in zip(rows, ok.tolist(), stat.tolist(), n.tolist(), strict=True):
        if good:
            items[i] = _pearson(x, p, int(total))


class _Chi2(NamedTuple):
    """A chi-square test whose p-value is still to be computed (in a batch)."""

    name: str
    statistic: float
    dof: float
    n: int
    detail: str
    scale: float = 1.0  # the statistic is referred to scale * chi2(dof)


def _chi2_results(pending: Sequence[_Chi2]) -> list[TestResult]:
    if not pending:
        return []
    stat = np.array([c.statistic / c.scale for c in pending], np.float64)
    dof = np.array([c.dof for c in pending], np.float64)
    p = np.atleast_1d(sps.chi2.sf(stat, dof))
    # (positional: thousands of results, the keywords cost a third of making one)
    return [
        TestResult(c.name, c.statistic, float(c.dof), pi, c.n, c.detail)
        for c, pi in zip(pending, p.tolist(), strict=True)
    ]


def _chi2_batch(items: Sequence[TestResult | _Chi2]) -> list[TestResult]:
    """Finish a list of tests: compute every pending chi-square p-value in one call."""
    pending = [x for x in items if isinstance(x, _Chi2)]
    done = iter(_chi2_results(pending))
    return [x if isinstance(x, TestResult) else next(done) for x in items]


def _stop_frequency_stat(
    counts: npt.ArrayLike, weights: npt.ArrayLike, min_expected: float
) -> TestResult | _Chi2:
    name = "stop_frequency"
    obs = _as_counts(counts, "counts", 1)
    w = _as_1d_float(weights, "weights")
    if obs.shape != w.shape:
        raise ValueError(f"counts {obs.shape} and weights {w.shape} differ in shape")
    if np.any(w < 0) or w.sum() <= 0:
        raise ValueError("weights must be non-negative with a positive sum")
    n = int(obs.sum())
    zero = w == 0
    if np.any(obs[zero] > 0):
        bad = np.flatnonzero(zero & (obs > 0)).tolist()
        return TestResult(
            name=name,
            statistic=math.inf,
            dof=0.0,
            p_value=0.0,
            n=n,
            detail=f"observed stops with zero weight: {bad}",
        )
    obs, w = obs[~zero], w[~zero]
    p = w / w.sum()
    expected = n * p
    if expected.size < 2:
        return _not_run(name, n, "fewer than two stops of positive weight")
    if n == 0:
        return _not_run(name, n, "too few observations")
    stat = float(np.sum((obs - expected) ** 2 / expected))
    if expected.min() >= min_expected:
        return _pearson(stat, p, n)
    return _monte_carlo(stat, obs, p, n, min_expected)


#: Most draws of the Monte Carlo p-value of a sparse reel (its smallest p is 1 / MC_DRAWS).
MC_DRAWS = 20_000
#: Exceedances after which the sequential Monte Carlo stops (Besag and Clifford, 1991).
MC_EXCEED = 20


def _pearson(stat: float, p: npt.NDArray[np.float64], n: int) -> _Chi2:
    """Pearson's X^2 on ``k`` cells referred to chi-square with ``k - 1`` degrees of freedom
    (used when every expected count is at least ``min_expected``)."""
    k = p.size
    return _Chi2("stop_frequency", stat, k - 1, n, f"Pearson chi-square, {k} cells")


def _monte_carlo(
    stat: float,
    obs: npt.NDArray[np.float64],
    p: npt.NDArray[np.float64],
    n: int,
    min_expected: float,
) -> TestResult:
    """Monte Carlo p-value of Pearson's X^2 when some expected count is below
    ``min_expected`` (where no chi-square reference is trustworthy).

    Sequential (Besag and Clifford, 1991): multinomial samples of ``n`` spins are drawn
    until ``MC_EXCEED`` of them reach the observed X^2 (at draw ``L``: ``p = MC_EXCEED / L``)
    or ``MC_DRAWS - 1`` were drawn (``p = (1 + exceedances) / MC_DRAWS``). The test has exact
    size at every level that is a multiple of ``1 / MC_DRAWS``, and a fair reel (large p)
    costs few draws. The draws are seeded from the counts, so a result is reproducible."""
    seed = np.frombuffer(hashlib.sha256(obs.tobytes() + p.tobytes()).digest()[:8], np.uint64)
    rng = np.random.default_rng(int(seed[0]))
    expected = n * p
    exceed = drawn = 0
    block = 64
    pv = 0.0
    while True:
        m = min(block, MC_DRAWS - 1 - drawn)
        dev = rng.multinomial(n, p, size=m) - expected
        dev *= dev  # (x ** 2 is x * x) and divided in place: the same X^2 as one expression
        dev /= expected
        hits = np.cumsum(dev.sum(axis=1) >= stat)
        if exceed + (int(hits[-1]) if m else 0) >= MC_EXCEED:
            at = int(np.searchsorted(hits, MC_EXCEED - exceed))  # index of the h-th exceedance
            pv = MC_EXCEED / (drawn + at + 1)
            break
        exceed += int(hits[-1]) if m else 0
        drawn += m
        if drawn >= MC_DRAWS - 1:
            pv = (1 + exceed) / MC_DRAWS
            break
        block = _next_block(block, exceed, drawn)
    detail = (
        f"Pearson chi-square, {p.size} cells, sequential Monte Carlo p-value "
        f"(expected count {expected.min():.2f} < {min_expected:g})"
    )
    return TestResult("stop_frequency", stat, 0.0, pv, n, detail)


def _next_block(block: int, exceed: int, drawn: int) -> int:
    """How many draws :func:`_monte_carlo` makes next: up to four times as many as last
    (at most 4,096), but once exceedances were seen, not much more than their rate says
    the test still needs (the draws beyond the stop are never used: fewer of them change
    nothing, the draws being the same ones in the same order)."""
    most = min(4 * block, 4096)
    if not exceed:
        return most
    needed = (MC_EXCEED - exceed) * drawn / exceed
    return max(16, min(most, math.ceil(1.25 * needed) + 8))


# --- item 1(b)(i): every combination available --------------------------------------------------

#: A combination class enters :func:`combination_tests` only if a count of 0 would have at
#: most this probability (its expected count is at least about 4.6): a rarer class could
#: never be found missing, and would only dilute the Bonferroni correction.
COMBINATION_ELIGIBLE = 0.01


def combination_tests(
    items: Sequence[tuple[str, Sequence[tuple[npt.ArrayLike, npt.ArrayLike, Sequence[str]]]]],
) -> list[TestResult]:
    """Item 1(b)(i): every combination available. Each item is ``(name, partitions)``; in a
    partition ``(counts, probs)``, ``counts[c]`` games fell in combination class ``c`` (the
    classes of a partition are exclusive and exhaustive, so ``n = sum(counts)``) where the
    approved game gives probability ``probs[c]``, and ``labels[c]`` names it (in the
    detail). A game is in one class of each partition (e.g. its best line's pay, and its
    scatter count).

    H0: each game falls in class ``c`` independently with probability ``probs[c]``, so a
    class's count is Binomial(``n``, ``probs[c]``). A combination that is not really
    available (removed, or all but never selected, while its elements still land) shows as
    a count far below that: the p-value of a class is its exact binomial lower tail
    ``P(X <= count)``, and the test's p-value is Bonferroni's ``min(1, K min tail)`` over the
    ``K`` eligible classes of all its partitions (those with ``(1 - p)**n <=
    COMBINATION_ELIGIBLE``, chosen from ``n`` and ``p`` alone, never from the counts).
    One-sided: a class seen too often is the stop frequencies' business (1(b)(ii)). No
    eligible class: not run (``p = 1``).

    Error rate: each tail is an exact (discrete, so conservative) p-value and Bonferroni
    holds under any dependence between the classes, so under H0 ``P(p <= alpha) <= alpha``
    (``tests/test_stats.py`` measures it). All binomial tails are computed in one call.
    """
    flat = [part for _, partitions in items for part in partitions]
    fast = _combination_input(flat)
    if fast is None:  # an empty or invalid partition: checked one by one (the same errors)
        return _combination_tests_each(items)
    xs, ps, counts_per_part = fast
    names = [label for _, _, labels in flat for label in labels]
    sizes = [sum(len(labels) for _, _, labels in partitions) for _, partitions in items]
    ns = np.repeat(counts_per_part, [len(labels) for _, _, labels in flat])
    zero_chance = ns * np.log1p(-np.clip(ps, 0.0, 1.0 - 1e-16))
    eligible = (ps > 0) & (zero_chance <= math.log(COMBINATION_ELIGIBLE))
    tails = np.ones(xs.size)
    if eligible.any():
        tails[eligible] = sps.binom.cdf(xs[eligible], ns[eligible], ps[eligible])
    if np.isnan(tails).any():  # a probability beyond 1: np.argmin's rule for NaN, one by one
        return _combination_tests_each(items)
    # per item (a segment of the classes): its eligible classes, largest n and first
    # eligible class with the smallest tail (np.argmin's)
    starts = np.cumsum([0, *sizes[:-1]])
    run = [i for i, size in enumerate(sizes) if size]
    at = starts[run]
    masked = np.where(eligible, tails, np.inf)
    k_l = np.add.reduceat(eligible.astype(np.int64), at).tolist() if run else []
    n_l = np.maximum.reduceat(ns, at).tolist() if run else []
    lows = np.minimum.reduceat(masked, at) if run else masked[:0]
    index = np.where(
        masked == np.repeat(lows, [sizes[i] for i in run]), np.arange(xs.size), xs.size
    )
    worst_l = (np.minimum.reduceat(index, at) if run else index[:0]).tolist()
    out = []
    done = dict(zip(run, zip(k_l, n_l, worst_l, strict=True), strict=True))
    for i, (name, _) in enumerate(items):
        k, n, worst = done.get(i, (0, 0, 0))
        if k == 0:
            out.append(_not_run(name, int(n), "no class frequent enough to be found missing"))
            continue
        pv = float(min(1.0, k * tails[worst]))
        seen = int(xs[worst])
        detail = (
            f"{names[worst]}: {seen} seen, {float(ns[worst] * ps[worst]):.1f} expected "
            f"(binomial lower tail, Bonferroni over {k} classes)"
        )
        out.append(TestResult(name, float(seen), 0.0, pv, int(n), detail))
    return out


def _combination_input(
    flat: Sequence[tuple[npt.ArrayLike, npt.ArrayLike, Sequence[str]]],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]] | None:
    """Every partition's counts and probabilities, concatenated, and each partition's number
    of games; None unless every partition is valid and has a class (checked at once)."""
    if not flat:
        return None
    counts = [np.asarray(c, dtype=np.float64) for c, _, _ in flat]
    probs = [np.asarray(p, dtype=np.float64) for _, p, _ in flat]
    for c, p, (_, _, labels) in zip(counts, probs, flat, strict=True):
        if c.ndim != 1 or c.shape != p.shape or len(labels) != c.size or not c.size:
            return None
    xs, ps = np.concatenate(counts), np.concatenate(probs)
    if not (np.all(np.isfinite(xs)) and np.all(xs >= 0) and np.all(np.isfinite(ps))):
        return None
    if np.any(xs != np.round(xs)):
        return None
    return xs, ps, np.add.reduceat(xs, np.cumsum([0] + [c.size for c in counts[:-1]]))


def _combination_tests_each(
    items: Sequence[tuple[str, Sequence[tuple[npt.ArrayLike, npt.ArrayLike, Sequence[str]]]]],
) -> list[TestResult]:
    """:func:`combination_tests` checking and gathering one partition at a time."""
    xs_l: list[npt.NDArray[np.float64]] = []
    ps_l: list[npt.NDArray[np.float64]] = []
    ns_l: list[npt.NDArray[np.float64]] = []
    sizes: list[int] = []
    names: list[str] = []
    for _, partitions in items:
        size = 0
        for counts, probs, labels in partitions:
            c = _as_counts(counts, "counts", 1)
            p = _as_1d_float(probs, "probs")
            if c.shape != p.shape or len(labels) != c.size:
                raise ValueError(f"counts {c.shape}, probs {p.shape}, labels {len(labels)}")
            xs_l.append(c)
            ps_l.append(p)
            ns_l.append(np.full(c.size, c.sum()))
            names.extend(labels)
            size += c.size
        sizes.append(size)
    empty = np.zeros(0)
    xs = np.concatenate(xs_l) if xs_l else empty
    ps = np.concatenate(ps_l) if ps_l else empty
    ns = np.concatenate(ns_l) if ns_l else empty
    zero_chance = ns * np.log1p(-np.clip(ps, 0.0, 1.0 - 1e-16))
    eligible = (ps > 0) & (zero_chance <= math.log(COMBINATION_ELIGIBLE))
    tails = np.ones(xs.size)
    if eligible.any():
        tails[eligible] = sps.binom.cdf(xs[eligible], ns[eligible], ps[eligible])
    out = []
    at = 0
    for (name, _), size in zip(items, sizes, strict=True):
        part = slice(at, at + size)
        at += size
        ok, tail = eligible[part], tails[part]
        n = int(ns[part].max()) if size else 0
        k = int(ok.sum())
        if k == 0:
            out.append(_not_run(name, n, "no class frequent enough to be found missing"))
            continue
        worst = int(np.argmin(np.where(ok, tail, np.inf)))
        pv = float(min(1.0, k * tail[worst]))
        seen = int(xs[part][worst])
        expected = float(ns[part][worst] * ps[part][worst])
        detail = (
            f"{names[part][worst]}: {seen} seen, {expected:.1f} expected "
            f"(binomial lower tail, Bonferroni over {k} classes)"
        )
        out.append(TestResult(name, float(seen), 0.0, pv, n, detail))
    return out


def bonferroni(results: Sequence[TestResult], name: str) -> TestResult:
    """One test from several (e.g. a test per reel): Bonferroni's ``min(1, k min p)`` over
    the ``k`` that were run, valid under any dependence; the detail names the worst."""
    run = [i for i, r in enumerate(results) if r.n > 0]
    if not run:
        return _not_run(name, 0, "too few observations")
    worst = results[min(run, key=lambda i: results[i].p_value)]
    pv = float(min(1.0, len(run) * worst.p_value))
    n = max(results[i].n for i in run)
    at = results.index(worst)
    detail = f"draw {at} of {len(results)}: {worst.detail}"
    return TestResult(name, worst.statistic, worst.dof, pv, n, detail)


# --- item 1(b)(iii): no dependency ------------------------------------------------------------


def independence_test(table: npt.ArrayLike) -> TestResult:
    """Chi-square test of independence for an r x c contingency table of counts.

    H0: rows and columns are independent, e.g. the current outcome (win / loss) does not
    depend on the previous outcome, on the bet level, or on the style of play (item
    1(b)(iii)).

    Method: rows and columns with no observations are dropped (they carry no information and
    would give zero expected counts). If fewer than two rows or columns remain the test is not
    run (``p = 1``). A 2 x 2 table with any expected count below 5 is tested with Fisher's
    exact test (two-sided, ``scipy.stats.fisher_exact``; ``statistic`` is then the sample odds
    ratio and ``dof`` is 0). Otherwise Pearson's chi-square without Yates' continuity
    correction (the correction is markedly conservative), with ``(r - 1)(c - 1)`` degrees of
    freedom.

    Minimum sample: all expected counts >= 5 for the chi-square approximation. Larger tables
    with small expected counts are still tested by chi-square, but ``detail`` warns how many
    cells are below 5; merge sparse categories (e.g. bet levels) before testing.

    Error rate: ``alpha`` under H0 up to the approximation; Fisher's test is exact but
    conservative (its size is at most ``alpha``).
    """
    done = _independence_stat(table)
    return done if isinstance(done, TestResult) else _chi2_results([done])[0]


def independence_tests(tables: Sequence[npt.ArrayLike]) -> list[TestResult]:
    """:func:`independence_test` of each table, with one chi-square p-value call for all.

    The results are exactly those of the single test; only the call overhead is shared.
    """
    items: list[TestResult | _Chi2 | None] = [None] * len(tables)
    shapes: dict[tuple[int, ...], list[int]] = {}
    for i, t in enumerate(tables):
        if isinstance(t, list) and t and isinstance(t[0], list):  # rows of counts, as a tally
            shapes.setdefault((len(t), len(t[0])), []).append(i)
    for shape, rows in shapes.items():
        if len(rows) > 1 and shape[1] == 2 and 2 <= shape[0] <= MAX_BATCH_ROWS:
            _independence_rows(tables, rows, shape, items)
    return _chi2_batch([x if x is not None else _independence_stat(tables[i])
                        for i, x in enumerate(items)])  # fmt: skip


#: Most rows of a table that :func:`independence_tests` tests with others of its shape: the
#: row sums, column sums and their sums are then sequential in numpy's every layout.
MAX_BATCH_ROWS = 8


def _independence_rows(
    tables: Sequence[npt.ArrayLike],
    rows: list[int],
    shape: tuple[int, ...],
    items: list[TestResult | _Chi2 | None],
) -> None:
    """The usual case of :func:`_independence_stat` for many ``r x 2`` tables at once (whole
    counts, no empty row or column, chi-square): the very floats, the same operations
    element by element and the same sums; other tables are left as None."""
    try:
        t = np.array([tables[i] for i in rows], np.float64)
    except ValueError:  # ragged rows: each table on its own
        return
    if t.shape[1:] != shape or not np.all(np.isfinite(t)) or np.any(t < 0):
        return
    if np.any(t != np.round(t)):
        return
    row_sums, col_sums = t.sum(axis=2), t.sum(axis=1)
    full = (row_sums > 0).all(axis=1) & (col_sums > 0).all(axis=1)
    n = t.reshape(len(rows), -1).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):  # the tables left to themselves
        expected = row_sums[:, :, None] * col_sums[:, None, :] / n[:, None, None]
        stat = ((t - expected) ** 2 / expected).reshape(len(rows), -1).sum(axis=1)
    small = np.count_nonzero(expected < 5, axis=(1, 2))
    r, c = shape
    fisher = (r, c) == (2, 2)
    for i, ok, k, x, total in zip(rows, full.tolist(), small.tolist(), stat.tolist(),
                                  n.tolist(), strict=True):  # fmt: skip
        if not ok or (fisher and k):
            continue  # an empty row or column, or Fisher's exact test: on its own
        detail = f"Pearson chi-square, {r} x {c} table"
        if k:
            detail += f"; warning: {k} cells with expected count < 5"
        items[i] = _Chi2("independence", x, (r - 1) * (c - 1), int(total), detail)


def _independence_stat(table: npt.ArrayLike) -> TestResult | _Chi2:
    name = "independence"
    t = _as_counts(table, "table", 2)
    t = t[t.sum(axis=1) > 0][:, t.sum(axis=0) > 0]
    n = int(t.sum())
    r, c = t.shape
    if r < 2 or c < 2:
        return _not_run(name, n, f"fewer than two non-empty rows and columns ({r} x {c})")
    expected = np.outer(t.sum(axis=1), t.sum(axis=0)) / n
    small = int(np.count_nonzero(expected < 5))
    if (r, c) == (2, 2) and small:
        res = sps.fisher_exact(t.astype(np.int64), alternative="two-sided")
        return TestResult(
            name=name,
            statistic=float(res.statistic),
            dof=0.0,
            p_value=float(res.pvalue),
            n=n,
            detail="Fisher exact test (2 x 2, expected count < 5); statistic is the odds ratio",
        )
    stat = float(np.sum((t - expected) ** 2 / expected))
    dof = (r - 1) * (c - 1)
    detail = f"Pearson chi-square, {r} x {c} table"
    if small:
        detail += f"; warning: {small} cells with expected count < 5"
    return _Chi2(name, stat, dof, n, detail)


def runs_test(outcomes: npt.ArrayLike) -> TestResult:
    """Wald-Wolfowitz runs test for serial pattern in a two-valued sequence (e.g. win / loss).

    H0: the sequence is exchangeable (independent outcomes in random order), item 1(b)(iii).
    Too few runs means clustering (streaks); too many means alternation. Both are detected.

    Method: with ``n1`` True and ``n2`` False values (``n = n1 + n2``) and ``R`` runs,
    ``E[R] = 2 n1 n2 / n + 1`` and ``Var[R] = 2 n1 n2 (2 n1 n2 - n) / (n^2 (n - 1))``;
    ``z = (R - E[R]) / sqrt(Var[R])`` (``statistic``), two-sided normal p-value, no continuity
    correction.

    Minimum sample: ``n >= 20`` (``RUNS_MIN_N``) and both values present, else not run
    (``p = 1``). The normal approximation is good when both ``n1`` and ``n2`` are at least
    about 10; with a rare outcome (say a jackpot) it is poor and the test has little power.

    Error rate: ``alpha`` under H0 up to the normal approximation. The test sees only the
    order of a binary sequence; it does not detect dependence on wager or play style (use
    :func:`independence_test`).
    """
    name = "runs"
    x = np.asarray(outcomes)
    if x.ndim != 1:
        raise ValueError(f"outcomes must be one-dimensional, got shape {x.shape}")
    if x.size and x.dtype != np.bool_:
        if not np.all(np.isin(x, (0, 1))):
            raise ValueError("outcomes must be boolean (or 0 / 1)")
        x = x.astype(np.bool_)
    n = int(x.size)
    if n < RUNS_MIN_N:
        return _not_run(name, n, f"too few observations (n = {n} < {RUNS_MIN_N})")
    n1 = int(np.count_nonzero(x))
    n2 = n - n1
    if n1 == 0 or n2 == 0:
        return _not_run(name, n, "all outcomes are equal")
    runs = 1 + int(np.count_nonzero(x[1:] != x[:-1]))
    mean = 2.0 * n1 * n2 / n + 1.0
    var = 2.0 * n1 * n2 * (2.0 * n1 * n2 - n) / (n * n * (n - 1.0))
    z = (runs - mean) / math.sqrt(var)
    p = 2.0 * _norm_sf(abs(z))
    detail = f"{runs} runs (expected {mean:.2f}), n1 = {n1}, n2 = {n2}"
    return TestResult(name=name, statistic=z, dof=0.0, p_value=p, n=n, detail=detail)
