"""The scorer's TLS identity: a self-signed certificate made at its first start.

Kiosks learn the certificate's fingerprint at pairing (inside the PAKE, so nobody in between
can change it) and trust that certificate only; the hall TVs and the head referee's laptop
trust it once (deploy/README.md). The key and the certificate are kept in the store, so a
scorer rebuilt from a backup is the same scorer to every kiosk.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import ipaddress
import os
import socket
import ssl
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..store.database import Store

VALID_DAYS = 3650


@dataclass(frozen=True)
class Identity:
    certificate: str  # PEM
    key: str  # PEM (private)

    @property
    def fingerprint(self) -> str:
        """SHA-256 of the certificate (DER), as hex: what kiosks pin."""
        return fingerprint(ssl.PEM_cert_to_DER_cert(self.certificate))

    @property
    def spki_pin(self) -> str:
        """base64 SHA-256 of the public key, as Chromium's
        --ignore-certificate-errors-spki-list takes it (the hall TVs)."""
        from cryptography import x509
        from cryptography.hazmat.primitives import serialization

        cert = x509.load_pem_x509_certificate(self.certificate.encode())
        spki = cert.public_key().public_bytes(serialization.Encoding.DER,
                                              serialization.PublicFormat.SubjectPublicKeyInfo)
        return base64.b64encode(hashlib.sha256(spki).digest()).decode()

    def server_context(self) -> ssl.SSLContext:
        """An SSL context serving this certificate (TLS 1.2 or later)."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        with tempfile.TemporaryDirectory(prefix="kiosk-tls-") as folder:
            # The ssl module loads keys from files only: a private folder, gone at once.
            os.chmod(folder, 0o700)
            cert, key = Path(folder) / "cert.pem", Path(folder) / "key.pem"
            cert.write_text(self.certificate)
            key.touch(mode=0o600)
            key.write_text(self.key)
            context.load_cert_chain(cert, key)
        return context


def fingerprint(der: bytes) -> str:
    return hashlib.sha256(der).hexdigest()


def identity(store: Store, names: list[str] | None = None) -> Identity:
    """The scorer's certificate and key, made (and kept in the store) the first time."""
    cert, key = store.setting("tls_certificate"), store.setting("tls_key")
    if cert and key:
        return Identity(cert, key)
    made = make_identity(names or _names())
    store.set_setting("tls_key", made.key)
    store.set_setting("tls_certificate", made.certificate)
    return made


def make_identity(names: list[str]) -> Identity:
    """A new self-signed certificate (ECDSA P-256) for these host names and addresses."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kiosk80 scorer"),
                         x509.NameAttribute(NameOID.ORGANIZATION_NAME, "80分 scorer")])
    alternatives: list[x509.GeneralName] = []
    for name in names:
        try:
            alternatives.append(x509.IPAddress(ipaddress.ip_address(name)))
        except ValueError:
            alternatives.append(x509.DNSName(name))
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
            .add_extension(x509.SubjectAlternativeName(alternatives), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .sign(key, hashes.SHA256()))
    return Identity(
        cert.public_bytes(serialization.Encoding.PEM).decode(),
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                          serialization.NoEncryption()).decode())


def _names() -> list[str]:
    """The names a browser may reach the scorer by: its host name, scorer.local, loopback and
    its LAN address at the first start."""
    host = socket.gethostname()
    names = [host, f"{host}.local", "scorer.local", "localhost", "127.0.0.1"]
    try:
        from .discovery import lan_address

        names.append(lan_address())
    except Exception:  # no interfaces to ask (a container): loopback is enough
        pass
    return list(dict.fromkeys(names))
