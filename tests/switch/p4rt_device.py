"""The smallest in-process device for P4Runtime server tests: the real target, no
interfaces. Frames that leave front-panel ports are kept in ``sent``; frames to the CPU
port go to the packet-in handler the server installs."""
import json
import threading
from functools import lru_cache
from pathlib import Path

from p4.tmp import p4config_pb2

from testbed.p4 import p4info
from testbed.p4.lowering.program import load_program
from testbed.p4.python.target import Target


class PipelineDevice:
    def __init__(self, device_id=1, cpu_port=255):
        self.device_id = device_id
        self.cpu_port = cpu_port
        self.target = None
        self.packet_in_handler = None
        self.lock = threading.RLock()
        self.sent = []            # (port, frame)
        self.loads = 0

    def load_pipeline(self, program):
        self.target = Target(program, cpu_port=self.cpu_port)
        self.loads += 1

    def packet_out(self, frame):
        self.receive(frame, self.cpu_port)

    def receive(self, frame, port):
        """A frame arrives on ``port`` and runs through the pipeline."""
        with self.lock:
            outputs = self.target.process(frame, port)
        for out_port, out in outputs:
            if out_port == self.cpu_port:
                self.packet_in_handler(out)
            else:
                self.sent.append((out_port, out))


class NativeDevice(PipelineDevice):
    """The same device on the native backend: its tables and externs run in C."""

    def load_pipeline(self, program):
        from testbed.p4.targets import make_target
        self.target = make_target(program, "native", cpu_port=self.cpu_port)
        assert self.target.backend == "native"
        self.loads += 1


@lru_cache(maxsize=None)
def p4info_of(path):
    """The P4Info of the program at ``path`` (built once per test session)."""
    return p4info.build(load_program(path))


def object_id(info, kind: str, name: str) -> int:
    """The id of the P4Info object ``name`` among ``info.<kind>`` (tables, actions, ...)."""
    return next(o.preamble.id for o in getattr(info, kind) if o.preamble.name == name)


def translation_pipeline_files(tmp_path) -> tuple[Path, Path]:
    """data/translation.p4's P4Info and its device config carrying the controller's
    mapping of the two translated types (ports 1000/2000/3000 are 1/2/3 in the data plane,
    VRF "blue" 7 and "red" 9), as the files an outside client loads."""
    program = Path(__file__).parent / "data" / "translation.p4"
    info = tmp_path / "translation.p4info.txt"
    p4info.write(p4info.build(load_program(program)), info)
    wrapper = p4config_pb2.P4DeviceConfig(device_data=program.read_bytes())
    wrapper.extras.kv["p4runtime_translation:trainet.example/port_t"] = json.dumps(
        [[1000, 1], [2000, 2], [3000, 3]])
    wrapper.extras.kv["p4runtime_translation:trainet.example/vrf_t"] = json.dumps(
        [["blue", 7], ["red", 9]])
    config = tmp_path / "translation.config"
    config.write_bytes(wrapper.SerializeToString())
    return info, config
