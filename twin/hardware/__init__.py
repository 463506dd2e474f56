"""The hardware link: SMIBs (slot machine interface boards) reporting to the twin over MQTT.

Only this package may import paho-mqtt. Its modules:

* :mod:`twin.hardware.protocol` topics, payload schemas (``schemas/*.json``) and validation;
* :mod:`twin.hardware.records` the records the link writes (registered in ``twin.kinds``);
* :mod:`twin.hardware.book` the twin's side of each SMIB inside the simulation thread:
  sessions, events, meter snapshots, reconciliation and identity findings;
* :mod:`twin.hardware.link` the MQTT client of the twin (paho's thread validates and
  queues typed commands into the inbox; it never touches SimPy);
* :mod:`twin.hardware.emulator` a SMIB emulator in front of the twin's machine model.

The contract is ``docs/smib-protocol.md``.
"""
