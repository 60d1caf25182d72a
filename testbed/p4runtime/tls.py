"""TLS on P4Runtime's gRPC channel, from PEM files: the server's certificate and key
(optionally a CA its clients' certificates must be signed by), a client's trust in the CA
that signed the server's certificate.

gRPC reads the files only when the first client connects, and a key that does not belong
to its certificate then fails every handshake with nothing but a log line; so the pair is
checked here first, with Python's ssl module, and a bad file is an error naming it.
"""
from __future__ import annotations

import ssl
from dataclasses import dataclass
from pathlib import Path

import grpc

from testbed.errors import TrainetError


def _read(path: str | Path, what: str, option: str) -> bytes:
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise TrainetError(f"{option} {path}: cannot read the {what} ({e.strerror}); give "
                           "the path of a PEM file") from None
    if b"-----BEGIN " not in data:
        raise TrainetError(f"{option} {path}: not a PEM file (no -----BEGIN line); give "
                           f"the {what} in PEM form, e.g. as `openssl x509 -outform PEM` "
                           "writes it")
    return data


@dataclass(frozen=True)
class ServerTls:
    """``cert`` and ``key``: the server's certificate (chain) and private key; with
    ``client_ca``, clients that present a certificate must have one signed by that CA,
    and with ``require_client_auth`` every client must present one."""
    cert: Path
    key: Path
    client_ca: Path | None = None
    require_client_auth: bool = False
    option_names: tuple = ("--grpc-cert", "--grpc-key", "--grpc-client-ca")   # in errors

    def credentials(self) -> grpc.ServerCredentials:
        cert_option, key_option, ca_option = self.option_names
        cert = _read(self.cert, "server certificate", cert_option)
        key = _read(self.key, "private key", key_option)
        try:
            ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(self.cert,
                                                                                self.key)
        except ssl.SSLError as e:
            raise TrainetError(f"{cert_option} {self.cert} and {key_option} {self.key}: the "
                               f"key is not the certificate's ({e.reason or e}); give the "
                               "key the certificate was made for") from None
        if self.require_client_auth and self.client_ca is None:
            raise TrainetError(f"requiring client certificates needs {ca_option}: the CA "
                               "that signs them")
        ca = _read(self.client_ca, "client CA certificate", ca_option) \
            if self.client_ca is not None else None
        return grpc.ssl_server_credentials([(key, cert)], root_certificates=ca,
                                           require_client_auth=self.require_client_auth)


def channel_credentials(ca: str | Path, cert: str | Path | None = None,
                        key: str | Path | None = None) -> grpc.ChannelCredentials:
    """A client's credentials: trust the server certificates ``ca`` signed; with ``cert``
    and ``key``, present that certificate to servers that ask for one."""
    return grpc.ssl_channel_credentials(
        root_certificates=_read(ca, "CA certificate", "CA"),
        private_key=_read(key, "private key", "key") if key is not None else None,
        certificate_chain=_read(cert, "certificate", "certificate") if cert else None)
