"""The Lua dissector: generated from the scapy layers, and decoding the same values with
tshark as scapy does, field for field."""
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.utils import wrpcap

from testbed.proto import ina
from testbed.proto.wireshark import dissector_lua

REPO = Path(__file__).resolve().parents[2]
LUA = REPO / "tools" / "trainet.lua"


def test_checked_in_dissector_is_the_generated_one():
    assert LUA.read_text() == dissector_lua(), \
        "tools/trainet.lua is stale: python -m testbed.proto.wireshark > tools/trainet.lua"


def _packets():
    rng = np.random.default_rng(7)
    cases = [
        (1, 0, ina.FLAG_GRADIENT, 0, 3, 0, 0),
        (7, 31, ina.FLAG_GRADIENT | ina.FLAG_RETRANSMIT, 0, ina.slot_field(1023, 1), -12,
         0xFFFFFFFE),
        (255, 2, ina.FLAG_RESULT, 3, ina.slot_field(5, 0), 127, 123456),
    ]
    pkts = []
    for job, worker, flags, n, slot, exponent, chunk in cases:
        lanes = rng.integers(-2**31, 2**31, ina.LANES, dtype=np.int64).astype(np.int32)
        payload = ina.encode(job, worker, flags, slot, exponent, chunk, lanes, n_workers=n)
        pkts.append(Ether(ina.frame("08:00:00:00:00:01", "08:00:00:00:00:02", "10.0.0.1",
                                    "10.0.255.1", payload)))
    return pkts


def _tshark(capture: Path, fields: list[str], home: Path, *extra: str) -> list[list[str]]:
    if shutil.which("tshark") is None:
        pytest.fail("tshark is not installed, and the tests need it: run `make setup` "
                    "(it installs vagrant/packages.txt)")
    cmd = ["tshark", "-X", f"lua_script:{LUA}", "-r", str(capture), *extra, "-T", "fields",
           "-E", "separator=/t", "-E", "occurrence=f"] + [a for f in fields for a in ("-e", f)]
    env = {**os.environ, "HOME": str(home)}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
    if os.geteuid() == 0 and "isn't a valid field" in done.stderr:
        # a Wireshark build that refuses user Lua scripts to root: run it as nobody
        for path in (home, capture):
            path.chmod(0o755 if path.is_dir() else 0o644)
        done = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup",
                               "--clear-groups"] + cmd, capture_output=True, text=True,
                              env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return [line.split("\t") for line in done.stdout.splitlines()]


def test_tshark_decodes_every_field_like_scapy(tmp_path):
    pkts = _packets()
    short = (Ether() / IP(src="10.0.0.1", dst="10.0.255.1")
             / UDP(sport=ina.UDP_PORT, dport=ina.UDP_PORT) / bytes(ina.HEADER_BYTES + 6))
    capture = tmp_path / "ina.pcap"
    wrpcap(str(capture), pkts + [short])
    header = [f.name for f in ina.INA.fields_desc]
    lanes = [f.name for f in ina.INAData.fields_desc]
    bits = ["ina.flags.gradient", "ina.flags.result", "ina.flags.retransmit",
            "ina.slot.shadow", "ina.slot.index"]
    fields = ([f"ina.{n}" for n in header] + [f"ina_data.{n}" for n in lanes] + bits
              + ["_ws.col.Protocol", "_ws.col.Info", "_ws.expert.message"])
    home = tmp_path / "home"
    home.mkdir()
    rows = _tshark(capture, fields, home)
    assert len(rows) == len(pkts) + 1
    for pkt, row in zip(pkts, rows):
        got = dict(zip(fields, row))
        h, d = pkt[ina.INA], pkt[ina.INAData]
        for name in header:
            assert int(got[f"ina.{name}"]) == getattr(h, name), name
        for name in lanes:
            assert int(got[f"ina_data.{name}"]) == getattr(d, name), name
        assert [int(got[b]) for b in bits] == [
            h.flags & 1, (h.flags >> 1) & 1, (h.flags >> 2) & 1, h.slot >> 15, h.slot & 0x7FFF]
        assert got["_ws.col.Protocol"] == "INA"
    assert rows[1][fields.index("_ws.col.Info")] == \
        "INA job=7 worker=31 GRADIENT|RETRANSMIT slot=1023' chunk=4294967294 e=-12"
    assert rows[2][fields.index("_ws.col.Info")] == \
        "INA job=255 worker=2 RESULT slot=5 chunk=123456 e=127"
    malformed = dict(zip(fields, rows[3]))
    assert malformed["ina.job_id"] == "0"
    assert (f"INA packets are {ina.HEADER_BYTES} + 4 x lanes bytes (1 to {ina.MAX_LANES} "
            f"lanes; {ina.PAYLOAD_BYTES} by default)") in malformed["_ws.expert.message"]


def test_display_filter_selects_retransmissions(tmp_path):
    capture = tmp_path / "ina.pcap"
    wrpcap(str(capture), _packets())
    home = tmp_path / "home"
    home.mkdir()
    rows = _tshark(capture, ["ina.chunk"], home,
                   "-Y", "ina.flags.retransmit == 1 && ina.slot.shadow == 1")
    assert rows == [["4294967294"]]


@pytest.mark.parametrize("lanes", [ina.GROUP_WORDS, 3 * ina.GROUP_WORDS, ina.LANES,
                                   ina.lanes_for_mtu(9000)])
def test_tshark_decodes_16_bit_lanes_like_scapy(tmp_path, lanes):
    """Any lane count: the lanes follow the payload's length (2048 words: a 9000 B MTU;
    one and three groups: a tensor's short last packet)."""
    values = np.random.default_rng(3).integers(-2**15, 2**15, 2 * lanes).astype(np.int16)
    payload = ina.encode(4, 1, ina.FLAG_RESULT | ina.FLAG_LANES16, 0, 0, 9,
                         ina.pack16(values[None])[0], n_workers=8)
    pkt = Ether(ina.frame("08:00:00:00:00:01", "08:00:00:00:00:02", "10.0.0.1",
                          "10.0.255.1", payload))
    capture = tmp_path / "ina16.pcap"
    wrpcap(str(capture), [pkt])
    layer = ina.data_layer(lanes, 16)
    names = [f.name for f in layer.fields_desc]
    fields = ["ina.flags.lanes16"] + [f"ina_data.{n}" for n in names]
    home = tmp_path / "home"
    home.mkdir()
    (row,) = _tshark(capture, fields + ["ina.groups"], home)
    assert row[0] == "1" and int(row[-1]) == pkt[ina.INA].groups == lanes // ina.GROUP_WORDS
    assert [int(v) for v in row[1:-1]] == pkt[layer].lanes == values.tolist()


def test_tshark_marks_a_group_count_that_is_not_the_length(tmp_path):
    good = ina.encode(1, 0, ina.FLAG_GRADIENT, 0, 0, 5, np.arange(64, dtype=np.int32))
    wrong = good[:ina.HEADER_BYTES - 1] + b"\x03" + good[ina.HEADER_BYTES:]
    header_only = ina.encode(1, 0, ina.FLAG_GRADIENT, 0, 0, 5, None)[:-1] + b"\x01"
    capture = tmp_path / "groups.pcap"
    wrpcap(str(capture), [Ether(ina.frame("08:00:00:00:00:01", "08:00:00:00:00:02",
                                          "10.0.0.1", "10.0.255.1", p))
                          for p in (good, wrong, header_only)])
    home = tmp_path / "home"
    home.mkdir()
    rows = _tshark(capture, ["ina.groups", "_ws.expert.message"], home)
    assert rows[0] == ["2", ""]
    assert rows[1] == ["3", "the header says 3 groups; 32-word groups carrying 64 lanes are 2"]
    assert rows[2] == ["1", "header only, but it says 1 groups"]


def test_the_bit_flag_fixed_and_flag_max_share_is_named_by_the_packet_s_kind(tmp_path):
    """FLAG_FIXED (p4/luwu_sgd.p4's parameters) and FLAG_MAX (exponent rounds) are one
    bit: a max round is never shown as fixed-point parameters, nor parameters as one."""
    assert ina.FLAG_FIXED == ina.FLAG_MAX
    lanes = np.arange(ina.GROUP_WORDS, dtype=np.int32)
    kinds = [(ina.FLAG_GRADIENT | ina.FLAG_MAX, "GRADIENT|MAX"),
             (ina.FLAG_RESULT | ina.FLAG_MAX, "RESULT|MAX"),
             (ina.FLAG_PARAMS | ina.FLAG_FIXED, "PARAMS|FIXED"),
             (ina.FLAG_PARAMS, "PARAMS"), (ina.FLAG_GRADIENT, "GRADIENT")]
    capture = tmp_path / "shared.pcap"
    wrpcap(str(capture), [Ether(ina.frame("08:00:00:00:00:01", "08:00:00:00:00:02",
                                          "10.0.0.1", "10.0.255.1",
                                          ina.encode(1, 0, flags, 0, 0, 0, lanes)))
                          for flags, _ in kinds])
    home = tmp_path / "home"
    home.mkdir()
    rows = _tshark(capture, ["ina.flags.fixed", "ina.flags.max", "_ws.col.Info"], home)
    assert [row[2].split()[3] for row in rows] == [name for _, name in kinds]
    assert [row[:2] for row in rows] == [["", "1"], ["", "1"], ["1", ""], ["0", ""],
                                         ["", "0"]]
    assert _tshark(capture, ["ina.flags"], home, "-Y", "ina.flags.fixed == 1") == [["24"]]
    assert _tshark(capture, ["ina.flags"], home, "-Y", "ina.flags.max == 1") == \
        [["17"], ["18"]]
