"""What a patron's identity document shows, as the AML desk records it (reg 47(1))."""

from __future__ import annotations

from collections.abc import Callable

from twin.aml.model import Particulars
from twin.patrons import Population


def documents(population: Population, year: int) -> Callable[[str], Particulars]:
    """The particulars of ``person``'s document, for a run that starts in ``year``: a member
    of the population shows an identity card (a local) or a passport; anyone else an
    unknown document."""

    def particulars(person: str) -> Particulars:
        try:
            index = int(person.removeprefix("P")) - 1
            m = population.member(index) if person.startswith("P") else None
        except (ValueError, IndexError):
            m = None
        if m is None:
            return Particulars("document", person, f"holder of {person}", "unknown", "unknown",
                               "unknown")  # fmt: skip
        local = m.residency == "local"
        return Particulars(
            document_type="identity card" if local else "passport",
            document_number=f"{'ID' if local else 'PP'}-{m.id}",
            name=f"holder of {m.id}",
            date_of_birth=f"{year - m.age}",
            nationality=m.nationality or m.residency,
            address=f"an address in {m.residency}",
        )

    return particulars


__all__ = ["documents"]
