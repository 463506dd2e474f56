"""The readable table of a replay: one line a day on which anything changed."""

from __future__ import annotations

import json

from twin.accounts.replay import Replay, money

__all__ = ["render_text"]


def render_text(result: Replay, overridden: dict[str, object] | None = None) -> str:
    """The replay as text: the rules, the days that changed, the periods and the findings."""
    r = result.rules
    lines = [
        f"Premium-player status of patron {result.patron} (Singapore Casino Control (Credit) "
        "Regulations 2010, regs 2A, 2B, 3, 4)",
        f"  minimum balance {money(r.min_balance_cents)}; periods of {r.period_months} months; "
        f"at most {r.max_below_months} continuous months below the minimum (reg 2B)",
        f"  readings: sg_4_2_literal={str(r.sg_4_2_literal).lower()}, "
        f"sg_reg3_requires_new_account={str(r.sg_reg3_requires_new_account).lower()}, "
        "reg4_3_new_deposit_must_meet_minimum="
        f"{str(r.reg4_3_new_deposit_must_meet_minimum).lower()}",
    ]
    if overridden:
        lines.append(
            "  overridden: "
            + ", ".join(f"{k}={json.dumps(v)}" for k, v in sorted(overridden.items()))
        )
    if result.days:
        first, last = result.days[0].date.isoformat(), result.days[-1].date.isoformat()
        lines.append(f"  days {first} to {last}; lines only where something changed")
    lines.append("")
    header = ("date", "balance", "qualifying", "premium", "basis", "until", "reason")
    rows = [
        (
            d.date.isoformat(),
            money(d.balance_cents),
            money(d.qualifying_balance_cents),
            "yes" if d.premium_player else "no",
            d.basis,
            d.period_last_day.isoformat() if d.period_last_day else "-",
            d.reason,
        )
        for d in result.days
        if d.changed
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(6)]

    def line(row: tuple[str, ...]) -> str:
        cells = [
            row[0].ljust(widths[0]),
            row[1].rjust(widths[1]),
            row[2].rjust(widths[2]),
            row[3].ljust(widths[3]),
            row[4].ljust(widths[4]),
            row[5].ljust(widths[5]),
            row[6],
        ]
        return "  ".join(cells)

    lines.append(line(header))
    lines.extend(line(row) for row in rows)
    lines.append("")
    lines.append("Periods:")
    if not result.periods:
        lines.append("  none")
    for p in result.periods:
        end = (
            f"; ended {p.ended.isoformat()} ({p.end_basis})" if p.ended is not None else "; running"
        )
        lines.append(f"  {p.start.isoformat()} to {p.last_day.isoformat()} ({p.basis}){end}")
    lines.append("Findings:")
    if not result.findings:
        lines.append("  none")
    lines.extend(f"  {f.date.isoformat()} {f.control}: {f.message}" for f in result.findings)
    return "\n".join(lines)
