"""The address the scorer gives out (issue 16, finding 9): `--advertise ADDR` fixes it; without
it, a scorer started before its LAN address existed (DHCP late) gives out the new address as
soon as there is one — in mDNS, on the hall page and in the QR code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from kiosk.scorer.net.advertise import Advertiser, lan_address

from .helpers import ROOT, free_port, kiosk
from .test_discovery import KIOSK_IP, SCORER_IP, namespaces, sh

__all__ = ["namespaces"]  # the fixture, shared with the mDNS test


@pytest.mark.unit
def test_a_fixed_address_is_given_out_as_is():
    fixed = Advertiser("0.0.0.0", 8080, "192.168.8.2", mdns=False, find=lambda: "10.0.0.5")
    assert fixed.url == "https://192.168.8.2:8080/"
    assert not fixed.refresh() and fixed.url == "https://192.168.8.2:8080/"
    named = Advertiser("0.0.0.0", 8443, "scorer.local", mdns=False)
    assert named.url == "https://scorer.local:8443/"


@pytest.mark.unit
def test_a_late_lan_address_replaces_loopback():
    addresses = iter(["127.0.0.1", "127.0.0.1", "192.168.8.2"])
    advertiser = Advertiser("0.0.0.0", 8080, mdns=False, find=lambda: next(addresses))
    assert advertiser.url == "https://127.0.0.1:8080/"
    assert not advertiser.refresh()
    assert advertiser.refresh() and advertiser.url == "https://192.168.8.2:8080/"
    assert advertiser.changes == 1
    only_here = Advertiser("127.0.0.1", 8080, mdns=False, find=lambda: "10.1.1.1")
    assert not only_here.refresh() and only_here.url == "https://127.0.0.1:8080/"
    plain = Advertiser("127.0.0.1", 8080, mdns=False, secure=False)  # the benchmark's
    assert plain.url == "http://127.0.0.1:8080/"


@pytest.mark.unit
def test_the_lan_address_is_never_a_virtual_bridge():
    assert not lan_address().startswith("172.17.")  # docker0's usual range here


@pytest.mark.unit
def test_the_scorer_takes_the_address_option():
    from kiosk.cli.main import build_parser

    args = build_parser().parse_args(["scorer", "--data", "d", "--host", "0.0.0.0",
                                      "--advertise", "192.168.8.2"])
    assert args.advertise == "192.168.8.2"


@pytest.mark.process
@pytest.mark.timeout(120)
def test_a_scorer_started_before_dhcp_announces_its_address_once_it_has_one(tmp_path,
                                                                           namespaces):
    scorer_ns, kiosk_ns = namespaces
    tag = f"vs{os.getpid() % 100000}"  # the scorer's end of the fixture's veth pair
    # The scorer's side has no address yet: taken away, as before DHCP answers.
    sh("ip", "-n", scorer_ns, "addr", "flush", "dev", tag)
    data, port = tmp_path / "scorer", free_port()
    assert kiosk("scorer", "admin", "--data", str(data), "event", "--name", "late",
                 "--ruleset", "standard-80fen").returncode == 0
    log = open(tmp_path / "scorer.log", "w")  # noqa: SIM115 (closed below)
    scorer = subprocess.Popen(
        ["ip", "netns", "exec", scorer_ns, sys.executable, "-m", "kiosk.cli.main", "scorer",
         "--data", str(data), "--host", "0.0.0.0", "--port", str(port)],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while "大厅页面：" not in (tmp_path / "scorer.log").read_text():
            assert time.monotonic() < deadline and scorer.poll() is None, \
                (tmp_path / "scorer.log").read_text()
            time.sleep(0.2)
        assert f"大厅页面：https://127.0.0.1:{port}/\n" in (tmp_path / "scorer.log").read_text()
        sh("ip", "-n", scorer_ns, "addr", "add", f"{SCORER_IP}/24", "dev", tag)  # DHCP answers
        found = subprocess.run(
            ["ip", "netns", "exec", kiosk_ns, sys.executable, "-c",
             f"from kiosk.sync.discover import candidates; print(*candidates(25, {KIOSK_IP!r}))"],
            cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert found.stdout.strip() == f"https://{SCORER_IP}:{port}/", found.stderr
        hall = subprocess.run(
            ["ip", "netns", "exec", kiosk_ns, sys.executable, "-c",
             "import ssl, urllib.request, sys; sys.stdout.write(urllib.request.urlopen("
             f"'https://{SCORER_IP}:{port}/api/hall', timeout=10, "
             "context=ssl._create_unverified_context()).read().decode())"],
            capture_output=True, text=True, timeout=60)
        deadline = time.monotonic() + 20  # the page's snapshot is rebuilt at its next ping
        while json.loads(hall.stdout)["address"] != f"https://{SCORER_IP}:{port}/":
            assert time.monotonic() < deadline, hall.stdout[:300]
            time.sleep(1)
            hall = subprocess.run(hall.args, capture_output=True, text=True, timeout=60)
    finally:
        scorer.terminate()
        scorer.wait(30)
        log.close()
