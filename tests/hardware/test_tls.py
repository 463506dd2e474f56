"""TLS: the link and the emulator over ``mqtts://`` against a broker whose certificate a
throwaway CA signed (made by the test with openssl)."""

from __future__ import annotations

import gc

import pytest

from twin.hardware.emulator import Memory, SmibEmulator
from twin.hardware.link import Broker as Endpoint
from twin.hardware.link import LinkConfig, SmibLink, close_socket
from twin.hardware.records import SmibReconciled

from .broker import TWIN_PASSWORD, TWIN_USER, Broker, smib_password, wait_until
from .rig import Rig


def _tls_rig(broker: Broker) -> Rig:
    rig = Rig(broker)
    assert broker.tls_port is not None
    rig.endpoint = Endpoint(broker.host, broker.tls_port, tls=True, ca=str(broker.ca))
    rig.link = SmibLink(
        rig.world.inbox, rig.registry, LinkConfig(rig.endpoint, TWIN_USER, TWIN_PASSWORD)
    )
    return rig.start()


def test_link_and_smib_over_tls(tls_broker: Broker) -> None:
    rig = _tls_rig(tls_broker)
    try:
        emu = rig.emulator()
        emu.insert_bill(1000)
        emu.play(10)
        emu.send_meters()
        rig.until("the snapshot", lambda: rig.of(SmibReconciled) != [])
        assert rig.eids() == [1, 2]
        assert rig.of(SmibReconciled)[0].ok
    finally:
        rig.close()


# paho-mqtt 2.2 does not close the socket when the TLS handshake fails
# (Client._ssl_wrap_socket: do_handshake() raises past the socket); collected here
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_tls_with_an_unknown_authority_is_refused(tls_broker: Broker) -> None:
    assert tls_broker.tls_port is not None
    wrong = Endpoint(tls_broker.host, tls_broker.tls_port, tls=True, ca=str(tls_broker.other_ca))
    emu = SmibEmulator(
        "S-001", wrong, smib_password("S-001"), Rig(tls_broker).game, memory=Memory()
    )
    emu.start()
    try:
        wait_until("the failed handshake", lambda: emu.refused != [])
        assert emu.refused[0] == "connection failed"
        assert not emu.client.is_connected()
    finally:
        emu.client.loop_stop()
        close_socket(emu.client)
        gc.collect()
