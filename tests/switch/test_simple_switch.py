"""trainet-switch takes simple_switch_grpc's command line; the packaging installs the
drop-in executables and p4.tmp.p4config_pb2."""
import shlex
import shutil
import subprocess
import sys
import zipfile

import pytest

from installed import REPO, InstalledLayout, console_scripts
from testbed.errors import TrainetError
from testbed.switch.simple_switch import main, parse_args

# what the p4lang tutorials' p4runtime_switch.py runs (its arguments joined into one line)
TUTORIALS = ("-i 1@s1-eth1 -i 2@s1-eth2 --pcap /tmp/pcaps --nanolog ipc:///tmp/bm-0-log.ipc "
             "--device-id 0 build/basic.json --debugger --log-console --thrift-port 9090 "
             "-- --grpc-server-addr 0.0.0.0:50051 --cpu-port 255")


def test_the_tutorials_command_line_maps_to_the_switch(capsys):
    args = parse_args(shlex.split(TUTORIALS))
    assert args.interface == ["1@s1-eth1", "2@s1-eth2"]
    assert (args.program, args.device_id, args.pcap) == ("build/basic.json", 0, "/tmp/pcaps")
    assert (args.grpc_address, args.grpc_port, args.cpu_port) == ("0.0.0.0", 50051, 255)
    assert (args.log, args.log_level, args.no_p4) == (None, "debug", False)
    notes = capsys.readouterr().err.splitlines()
    assert [n.split()[2] for n in notes] == ["--thrift-port", "--nanolog", "--debugger"]


def test_options_and_defaults():
    args = parse_args(["--no-p4", "-i", "1@a", "--pcap", "--log-file", "s1.log", "-L", "warn",
                       "--log-flush", "--dump-packet-data", "64", "--cpu-port", "64"])
    assert (args.program, args.no_p4, args.pcap, args.cpu_port) == (None, True, ".", 64)
    assert (args.log, args.log_level, args.log_flush) == ("s1.log", "warning", True)
    assert (args.dump_packet_data, args.priority_queues) == (64, 1)
    assert parse_args(["p.json", "--priority-queues", "8"]).priority_queues == 8
    assert (args.grpc_address, args.grpc_port) == ("127.0.0.1", 9559)
    quiet = parse_args(["prog.json", "--log-file", "x.log"])
    assert quiet.log_flush is False and parse_args(["p.json"]).log_level == "warning"


@pytest.mark.parametrize("argv, words", [
    (["p.json", "--", "--grpc-server-addr", "9559"], "expected ADDR:PORT"),
])
def test_bad_options_say_what_to_do(argv, words):
    with pytest.raises(TrainetError, match=words):
        parse_args(argv)


def test_errors_exit_2_without_a_traceback(tmp_path, capsys):
    bmv2 = tmp_path / "bmv2.json"
    bmv2.write_text('{"header_types": [], "pipelines": []}')
    assert main(["-i", "1@lo", str(bmv2)]) == 2
    assert "bmv2.json: pipelines: no pipeline named 'ingress'" in capsys.readouterr().err
    assert main(["-i", "1@lo"]) == 2
    assert "--no-p4" in capsys.readouterr().err
    assert main(["--no-p4", "--priority-queues", "9"]) == 2
    assert "--priority-queues 9: give 1 to 8" in capsys.readouterr().err


def test_console_scripts_name_the_drop_in_entry_points():
    scripts = console_scripts()
    assert scripts["trainet-p4c"] == "testbed.p4.p4c:main"
    assert scripts["trainet-switch"] == "testbed.switch.simple_switch:main"
    assert scripts["trainet-switch-grpc"] == "testbed.switch.simple_switch:main"


@pytest.mark.slow
def test_the_wheel_installs_p4_tmp_beside_p4runtime_and_the_executables(tmp_path):
    source = tmp_path / "source"           # a copy: the build writes into its source tree
    for name in ("pyproject.toml", "README.md"):
        source.mkdir(exist_ok=True)
        shutil.copy(REPO / name, source)
    for name in ("testbed", "hosts", "controllers", "compat"):
        shutil.copytree(REPO / name, source / name,
                        ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                    "--no-build-isolation", "-w", str(tmp_path), str(source)], check=True,
                   capture_output=True, timeout=300, cwd=tmp_path)
    wheel, = tmp_path.glob("trainet-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert {"p4/tmp/__init__.py", "p4/tmp/p4config_pb2.py", "p4/tmp/p4config.proto"} <= set(names)
    assert "p4/__init__.py" not in names     # p4runtime's package stays p4runtime's
    assert {"testbed/p4/frontend/p4_16.lark", "testbed/p4/include/v1model.p4",
            "testbed/p4/include/psa.p4", "testbed/p4/native/runtime.c"} <= set(names)
    entry_points = zipfile.ZipFile(wheel).read(
        next(n for n in names if n.endswith("entry_points.txt"))).decode()
    assert "trainet-p4c = testbed.p4.p4c:main" in entry_points
    assert "trainet-switch = testbed.switch.simple_switch:main" in entry_points
    assert "trainet-switch-grpc = testbed.switch.simple_switch:main" in entry_points
    layout = InstalledLayout(tmp_path / "installed")
    run = subprocess.run([sys.executable, "-c", "import p4.tmp.p4config_pb2 as m; "
                          "print(m.P4DeviceConfig.DESCRIPTOR.full_name)"],
                         env=layout.env(), capture_output=True, text=True, cwd=tmp_path)
    assert run.stdout.strip() == "p4.tmp.P4DeviceConfig", run.stderr
    help_text = subprocess.run(["trainet-switch", "--help"], env=layout.env(),
                               capture_output=True, text=True).stdout
    assert "--grpc-server-addr" in help_text
