"""The table pit and the card room (the ``pit`` department, regs 21, 22, 23 and 26): exact
laws of every bet, table game files, tables, stakes, drops and counts, and the entrance
notice.

Built from ``[tables]``; a casino without tables still exhibits its entrance notice (reg
22) on a :class:`twin.pit.notice.NoticeBoard`. The junket room, when there are junkets, is
on the notice too.
"""

from __future__ import annotations

from collections.abc import Iterable

from twin.department import Department, Plan, Site
from twin.pit import actions, injections  # noqa: F401  (actions: the pit's commands)
from twin.pit.kpis import TablesKpis
from twin.pit.notice import NoticeBoard
from twin.pit.pit import Pit
from twin.pit.section import TablesConfig
from twin.staff import Dispatcher


def build(site: Site) -> Iterable[Department]:
    tables = site.section(TablesConfig)
    from twin.junkets import JunketRoom  # here: the junkets read the pit's section

    room = site.find(JunketRoom)  # the junkets' room, when the junkets provided one
    if tables is None:  # a casino without tables still exhibits its entrance notice (reg 22)
        board = NoticeBoard(site.world, room)
        site.provide(board)
        return (board,)
    pit = Pit(site.world, tables, site.need(Dispatcher), source=site.source,
              duration=site.scenario.duration_seconds, junket_room=room)  # fmt: skip
    site.provide(pit)
    return (pit,)


PLAN = Plan(
    "pit",
    ("tables",),
    build,
    uses=("staff", "junkets"),
    always=True,
    check_injections=injections.validate,
    kpis=TablesKpis,
)

__all__ = ["PLAN", "NoticeBoard", "Pit"]
