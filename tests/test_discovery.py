"""Finding the scorer by mDNS, between two network namespaces joined by a veth pair (loopback
multicast is unreliable, and the test must stay off the machine's real network): the scorer
runs in one with 10.77.0.1, a simulated kiosk in the other with 10.77.0.2 finds it with
`--scorer auto`, pairs, plays its round and syncs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from .helpers import ROOT, kiosk

pytestmark = pytest.mark.process

SCORER_IP, KIOSK_IP = "10.77.0.1", "10.77.0.2"


def sh(*args: str) -> None:
    subprocess.run(args, check=True, capture_output=True, timeout=30)


@pytest.fixture
def namespaces():
    if os.geteuid() != 0 or shutil.which("ip") is None:
        message = "network namespaces need root and iproute2"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    tag = f"{os.getpid() % 100000}"
    scorer_ns, kiosk_ns = f"k80s{tag}", f"k80k{tag}"
    try:
        sh("ip", "netns", "add", scorer_ns)
        sh("ip", "netns", "add", kiosk_ns)
        sh("ip", "link", "add", f"vs{tag}", "type", "veth", "peer", "name", f"vk{tag}")
        for ns, dev, ip in ((scorer_ns, f"vs{tag}", SCORER_IP), (kiosk_ns, f"vk{tag}", KIOSK_IP)):
            sh("ip", "link", "set", dev, "netns", ns)
            sh("ip", "-n", ns, "addr", "add", f"{ip}/24", "dev", dev)
            sh("ip", "-n", ns, "link", "set", dev, "up", "multicast", "on")
            sh("ip", "-n", ns, "link", "set", "lo", "up")
        yield scorer_ns, kiosk_ns
    finally:
        for ns in (scorer_ns, kiosk_ns):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


@pytest.mark.timeout(180)
def test_a_kiosk_finds_the_scorer_by_mdns_and_syncs(tmp_path, namespaces):
    scorer_ns, kiosk_ns = namespaces
    data = tmp_path / "scorer"

    def admin(*args: str) -> str:
        result = kiosk("scorer", "admin", "--data", str(data), *args)
        assert result.returncode == 0, result.stderr
        return result.stdout

    admin("event", "--name", "mDNS", "--ruleset", "standard-80fen")
    (tmp_path / "t.csv").write_text("name\n甲\n乙\n")
    admin("teams", str(tmp_path / "t.csv"))
    code = admin("tables", "1").split()[-1]  # "第 1 桌：配对码 123456"
    admin("start-round", "--in", "0")
    server = subprocess.Popen(
        ["ip", "netns", "exec", scorer_ns, sys.executable, "-m", "kiosk.cli.main", "scorer",
         "--data", str(data), "--host", SCORER_IP, "--port", "8080"], cwd=ROOT,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        # it says where it serves once it listens, its announcement already out (or dies)
        said = server.stdout.readline()
        assert said and server.poll() is None, said + server.stdout.read()
        played = subprocess.run(
            ["ip", "netns", "exec", kiosk_ns, sys.executable, "-m", "kiosk.cli.main",
             "simulate", "--data", str(tmp_path / "kiosk"), "--table", "1", "--scorer",
             "auto", "--pair", code, "--speed", "1e9"], cwd=ROOT, capture_output=True,
            text=True, timeout=120)
        assert played.returncode == 0, played.stderr
        url = f"https://{SCORER_IP}:8080/api/tables"
        tables = subprocess.run(
            ["ip", "netns", "exec", kiosk_ns, sys.executable, "-c",
             "import ssl, urllib.request; print(urllib.request.urlopen("
             f"{url!r}, context=ssl._create_unverified_context()).read().decode())"],
            capture_output=True, text=True, timeout=30)
        assert '"phase":"over"' in tables.stdout.replace(" ", "")
    finally:
        server.terminate()
        server.wait(timeout=30)
