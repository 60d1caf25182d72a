"""Test certificates, made by the openssl command (Debian's openssl, which ca-certificates
of vagrant/packages.txt brings)."""
import subprocess
from pathlib import Path


def self_signed(directory: Path, name: str) -> tuple[Path, Path]:
    """A self-signed EC certificate for 127.0.0.1 and its key."""
    cert, key = directory / f"{name}.crt", directory / f"{name}.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj",
                    f"/CN={name}", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return cert, key
