"""Announcing the scorer on the LAN by mDNS (DNS-SD); kiosks browse for it
(`kiosk.sync.discover`). An announcement only gives an address: kiosks trust the certificate
they pinned at pairing, not whoever answers.

Service type `_kiosk80._tcp.local.`; the TXT record carries the URL path and the event name.
Each side binds its Zeroconf to the address it was given, so a test can keep it inside a
network namespace and a hall's laptop can pick the card facing the tables.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # zeroconf is imported only where mDNS is used (not with --no-mdns)
    from zeroconf import ServiceInfo, Zeroconf

from ...protocol.wire import SERVICE


def _zeroconf(address: str | None) -> Zeroconf:
    from zeroconf import IPVersion, Zeroconf

    if address in (None, "", "0.0.0.0"):
        return Zeroconf(ip_version=IPVersion.V4Only)
    return Zeroconf(interfaces=[address], ip_version=IPVersion.V4Only)


@contextmanager
def announce(address: str, port: int, name: str = "scorer") -> Iterator[ServiceInfo]:
    """Announce a scorer listening on `address`:`port` for as long as the block runs."""
    from zeroconf import ServiceInfo

    zc = _zeroconf(address)
    info = ServiceInfo(SERVICE, f"{name}.{SERVICE}", port=port,
                       addresses=[socket.inet_aton(address)], properties={"path": "/"},
                       server=f"{socket.gethostname()}.local.")
    zc.register_service(info, allow_name_change=True)
    try:
        yield info
    finally:
        zc.unregister_service(info)
        zc.close()


VIRTUAL = ("docker", "br-", "veth", "virbr", "vmnet", "vboxnet", "lxc", "lxd", "tun", "tap",
           "wg", "zt", "tailscale", "cni", "flannel", "podman")


def lan_address() -> str:
    """This machine's address on the hall's LAN: the one its default route leaves from, else
    the first private IPv4 address of a real (not virtual) interface, else loopback."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("192.0.2.1", 9))  # no packet is sent: this only asks the routing table
        address = s.getsockname()[0]
        if not address.startswith("127."):
            return str(address)
    import ifaddr

    for adapter in ifaddr.get_adapters():
        if adapter.nice_name.startswith(VIRTUAL) or adapter.nice_name == "lo":
            continue
        for ip in adapter.ips:
            if isinstance(ip.ip, str) and ipaddress.ip_address(ip.ip).is_private and \
                    not ip.ip.startswith(("127.", "169.254.")):
                return ip.ip
    return "127.0.0.1"
