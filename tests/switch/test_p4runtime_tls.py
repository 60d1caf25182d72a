"""P4Runtime over TLS: `trainet switch --grpc-cert/--grpc-key` and trainet-switch's
`--grpc-server-ssl` serve only TLS; a controller that trusts the certificate programs the
switch, a plain-TCP one cannot connect; with a client CA, only clients with a certificate
it signed get in. The certificates come from tests/switch/certs.py (the openssl command)."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from certs import self_signed
from controllers.p4runtime_client import P4RuntimeClient, P4RuntimeError
from p4rt_device import PipelineDevice
from testbed.errors import TrainetError
from testbed.p4 import entries as E
from testbed.p4 import p4info
from testbed.p4.lowering.program import load_program
from testbed.p4runtime.tls import ServerTls, channel_credentials
from testbed.switch.commands import server_tls
from testbed.switch.p4runtime_server import P4RuntimeServer
from testbed.switch.simple_switch import parse_args

REPO = Path(__file__).resolve().parents[2]
FEATURES = Path(__file__).parent / "data" / "p4info_features.p4"


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    if shutil.which("openssl") is None:
        pytest.skip("no openssl command to make test certificates: apt-get install openssl")
    directory = tmp_path_factory.mktemp("certs")
    return {name: self_signed(directory, name) for name in ("server", "client", "other")}


def _served(tls):
    device = PipelineDevice(device_id=1)
    return device, P4RuntimeServer(device, "127.0.0.1:0", tls=tls).start()


def test_a_controller_trusting_the_certificate_programs_the_switch(certs):
    cert, key = certs["server"]
    device, server = _served(ServerTls(cert, key))
    address = f"127.0.0.1:{server.port}"
    try:
        with P4RuntimeClient(address, 1, credentials=channel_credentials(cert)) as ctl:
            ctl.set_pipeline(p4info.build(load_program(FEATURES)), FEATURES)
            ctl.insert_entry(E.TableEntry("MyIngress.routes", (E.Lpm(0x0A0000000000, 8),),
                                          E.ActionCall("MyIngress.forward",
                                                       {"port": 3, "mac": 1})))
            assert [e.action.params["port"]
                    for e in ctl.table_entries("MyIngress.routes")] == [3]
        with pytest.raises(P4RuntimeError, match="no P4Runtime server answers"):
            P4RuntimeClient(address, 1, timeout_s=2).connect()          # plain TCP
        with pytest.raises(P4RuntimeError, match="no P4Runtime server answers"):
            other = channel_credentials(certs["other"][0])              # another CA
            P4RuntimeClient(address, 1, timeout_s=2, credentials=other).connect()
    finally:
        server.stop()
    assert len(device.target.table_entries("MyIngress.routes")) == 1


def test_a_client_ca_admits_only_the_certificates_it_signed(certs):
    cert, key = certs["server"]
    client_cert, client_key = certs["client"]
    _, server = _served(ServerTls(cert, key, client_ca=client_cert, require_client_auth=True))
    address = f"127.0.0.1:{server.port}"
    try:
        with P4RuntimeClient(address, 1, credentials=channel_credentials(
                cert, client_cert, client_key)) as ctl:
            assert ctl.stub is not None                                  # arbitrated
        for presented in ((None, None), certs["other"]):
            creds = channel_credentials(cert, *presented)
            with pytest.raises(P4RuntimeError):
                P4RuntimeClient(address, 1, timeout_s=2, credentials=creds).connect()
    finally:
        server.stop()


def test_bad_certificate_files_are_named(certs, tmp_path):
    cert, key = certs["server"]
    with pytest.raises(TrainetError, match=r"--grpc-cert .*server.crt and --grpc-key "
                                           r".*other.key: the key is not the certificate's"):
        ServerTls(cert, certs["other"][1]).credentials()
    text = tmp_path / "text.pem"
    text.write_text("hello\n")
    with pytest.raises(TrainetError, match=r"--grpc-key .*text.pem: not a PEM file"):
        ServerTls(cert, text).credentials()
    with pytest.raises(TrainetError, match=r"--grpc-cert .*missing.pem: cannot read"):
        ServerTls(tmp_path / "missing.pem", key).credentials()
    with pytest.raises(TrainetError, match="needs --grpc-client-ca"):
        ServerTls(cert, key, require_client_auth=True).credentials()


def _switch_args(**given):
    from testbed.cli import build_parser
    argv = ["switch", "--no-p4"]
    for option, value in given.items():
        argv += [f"--{option.replace('_', '-')}", str(value)]
    return build_parser().parse_args(argv)


def test_the_command_lines_choose_tls(certs):
    cert, key = certs["server"]
    assert server_tls(_switch_args()) is None
    tls = server_tls(_switch_args(grpc_cert=cert, grpc_key=key, grpc_client_ca=cert))
    assert (tls.cert, tls.key, tls.client_ca, tls.require_client_auth) == (cert, key, cert, True)
    with pytest.raises(TrainetError, match="give --grpc-key too"):
        server_tls(_switch_args(grpc_cert=cert))
    with pytest.raises(TrainetError, match="--grpc-client-ca needs TLS"):
        server_tls(_switch_args(grpc_client_ca=cert))

    bmv2 = parse_args(["--no-p4", "--", "--grpc-server-ssl", "--grpc-server-cert", str(cert),
                       "--grpc-server-key", str(key), "--grpc-server-cacert", str(cert)])
    assert (bmv2.tls.cert, bmv2.tls.client_ca, bmv2.tls.require_client_auth) == \
        (cert, cert, False)
    assert server_tls(bmv2) is bmv2.tls and parse_args(["--no-p4"]).tls is None
    with pytest.raises(TrainetError, match="without --grpc-server-ssl"):
        parse_args(["--no-p4", "--", "--grpc-server-cert", str(cert)])
    with pytest.raises(TrainetError, match="needs --grpc-server-cert and --grpc-server-key"):
        parse_args(["--no-p4", "--", "--grpc-server-ssl", "--grpc-server-cert", str(cert)])
    with pytest.raises(TrainetError, match=r"--grpc-server-key .*text: cannot read"):
        parse_args(["--no-p4", "--", "--grpc-server-ssl", "--grpc-server-cert", str(cert),
                    "--grpc-server-key", "text"]).tls.credentials()


@pytest.fixture
def quiet_interface():
    """One end of a veth pair nothing sends on, for a switch that needs a port (this
    kernel has no dummy interfaces)."""
    name = f"tls{os.getpid() % 100000}"
    subprocess.run(["ip", "link", "add", name, "type", "veth", "peer", "name", f"{name}p"],
                   check=True)
    try:
        yield name
    finally:
        subprocess.run(["ip", "link", "del", name], check=False)


@pytest.mark.root
def test_trainet_switch_serves_tls(certs, quiet_interface):
    cert, key = certs["server"]
    switch = subprocess.Popen([sys.executable, "-m", "testbed.cli", "switch", "--no-p4",
                               "-i", f"1@{quiet_interface}", "--device-id", "1",
                               "--grpc-port", "0", "--grpc-cert", str(cert),
                               "--grpc-key", str(key)],
                              cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    try:
        banner = switch.stdout.readline()
        assert "over TLS" in banner, banner + switch.stderr.read()
        port = banner.split("P4Runtime on 127.0.0.1:")[1].split()[0]
        with P4RuntimeClient(f"127.0.0.1:{port}", 1,
                             credentials=channel_credentials(cert)) as ctl:
            ctl.set_pipeline(p4info.build(load_program(FEATURES)), FEATURES)
    finally:
        switch.terminate()
        switch.wait(timeout=30)
