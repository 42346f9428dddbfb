"""Wireless debugging from Python: adbwire.pair() against the virtual device's pairing service,
then its TLS port by GUID, and mdns_services() finding it on loopback."""

import os
import random

import adbwire
import pytest
from conftest import VirtualDevice


@pytest.fixture
def phone(tmp_path):
    serial = "PY%d" % random.randrange(10**9)
    device = VirtualDevice(
        "--tls",
        "--keys",
        str(tmp_path / "adb_keys"),
        "--pairing-code",
        "482915",
        "--mdns",
        "--serial",
        serial,
    )
    pairing = device._lines.get(timeout=10)
    device.pairing_address = pairing.split()[2].rstrip(",")
    device.guid = pairing.split()[-1]
    yield device
    device.stop()


def options(tmp_path):
    options = adbwire.ConnectOptions()
    options.android_dir = str(tmp_path / "home" / ".android")
    options.vendor_keys = [str(tmp_path / "no-vendor-keys")]
    os.makedirs(options.android_dir, exist_ok=True)
    return options


def test_pair_then_connect_by_guid(phone, tmp_path):
    host = options(tmp_path)
    with pytest.raises(adbwire.UnauthorizedError):
        adbwire.pair(phone.pairing_address, "000000", host)
    paired = adbwire.pair(phone.pairing_address, "482915", host)
    assert paired.guid == phone.guid
    assert paired.address == phone.pairing_address
    device = adbwire.Device.connect(paired.guid, host)
    assert device.shell("echo by-guid").out == "by-guid\n"


def test_mdns_services_lists_the_phone(phone):
    found = {(s.instance, s.service): s for s in adbwire.mdns_services(1.5)}
    connect = found[(phone.guid, "_adb-tls-connect._tcp")]
    assert connect.address == "127.0.0.1:%d" % phone.port
    assert "v=1" in connect.txt
    assert (phone.guid, "_adb-tls-pairing._tcp") in found
