"""The twin's machines on a SAS serial line (SAS 6.02, gaming machine side).

* :mod:`twin.hardware.sas.crc` the SAS CRC-16 (CRC-16/KERMIT);
* :mod:`twin.hardware.sas.bcd` packed BCD of fixed widths;
* :mod:`twin.hardware.sas.polls` poll framing, the exception queue and SAS code tables;
* :mod:`twin.hardware.sas.gaming` :class:`SasGamingMachine`: polls in, replies out, no I/O.

The implemented polls and their byte layouts are in ``docs/sas.md``.
"""

from twin.hardware.sas.gaming import Handpay, SasGamingMachine

__all__ = ["Handpay", "SasGamingMachine"]
