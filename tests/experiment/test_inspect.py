"""``trainet inspect`` on captures built with scapy, laid out like the switch's pcaps."""
import json

import numpy as np
import pytest
from scapy.layers.inet import ICMP, IP, UDP
from scapy.layers.l2 import Ether
from scapy.utils import wrpcap

from testbed.cli import main
from testbed.proto import ina

AGG = "10.0.255.1"
AGG_MAC = "08:00:00:ff:00:01"
T0 = 1_700_000_000.0


def _ip(w):
    return f"10.0.0.{w + 1}"


def _mac(w):
    return f"08:00:00:00:00:{w + 1:02x}"


def _frame(t, src, dst, job, worker, flags, slot, chunk, words=ina.LANES):
    payload = ina.encode(job, worker, flags, slot, 0, chunk, np.full(words, chunk))
    pkt = Ether(ina.frame(_mac(0), AGG_MAC, src, dst, payload))
    pkt.time = T0 + t
    return pkt


def grad(t, w, slot, chunk, flags=ina.FLAG_GRADIENT, job=1):
    return _frame(t, _ip(w), AGG, job, w, flags, slot, chunk)


def result(t, w, slot, chunk, completed_by=1, job=1):
    return _frame(t, AGG, _ip(w), job, completed_by, ina.FLAG_RESULT, slot, chunk)


@pytest.fixture
def captures(tmp_path):
    """Job 1, workers 0 and 1 on switch ports 1 and 2:

    chunk 0, slot 0: both contribute; results 5 ms after worker 0's gradient;
    chunk 1, slot 1: worker 1 retransmits; results at 20 ms, and worker 1 gets a second
                     one (the answer to its retransmission);
    chunk 2, slot 0 of the shadow set: worker 0's gradient arrives twice (a network
                     copy), worker 1 never sends: no result.
    Job 2 sends one gradient. Port 1 also carries a ping and a truncated INA packet."""
    ping = Ether(src=_mac(0), dst=AGG_MAC) / IP(src=_ip(0), dst=_ip(1)) / ICMP()
    ping.time = T0 + 0.0005
    short = Ether(src=_mac(0), dst=AGG_MAC) / IP(src=_ip(0), dst=AGG) / UDP(
        sport=ina.UDP_PORT, dport=ina.UDP_PORT) / (b"\x01" * 22)   # no whole lane
    short.time = T0 + 0.0006
    files = {
        "s1-eth1_in.pcap": [grad(0.000, 0, 0, 0), ping, short, grad(0.001, 0, 1, 1),
                            grad(0.030, 0, 0x8000, 2), grad(0.0301, 0, 0x8000, 2),
                            grad(0.040, 0, 5, 9, job=2)],
        "s1-eth2_in.pcap": [grad(0.002, 1, 0, 0), grad(0.003, 1, 1, 1),
                            grad(0.020, 1, 1, 1, flags=ina.FLAG_GRADIENT | ina.FLAG_RETRANSMIT)],
        "s1-eth1_out.pcap": [result(0.005, 0, 0, 0), result(0.021, 0, 1, 1)],
        "s1-eth2_out.pcap": [result(0.005, 1, 0, 0), result(0.021, 1, 1, 1),
                             result(0.022, 1, 1, 1)],
    }
    paths = []
    for name, pkts in files.items():
        wrpcap(str(tmp_path / name), pkts)
        paths.append(str(tmp_path / name))
    return paths


def inspect_json(capsys, *args):
    assert main(["inspect", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_job_and_slot_summary(captures, capsys):
    summary = inspect_json(capsys, *captures)
    jobs = {j["job"]: j for j in summary["jobs"]}
    assert sorted(jobs) == [1, 2]
    job = jobs[1]
    assert job["workers"] == [0, 1]
    assert (job["rounds"], job["incomplete_rounds"]) == (3, 1)
    assert (job["gradients"], job["results"]) == (7, 5)
    assert job["retransmissions"] == 1
    assert job["duplicates"] == 2          # the copied gradient and the second result
    assert job["latency_s"]["mean"] == pytest.approx((0.005 + 0.020) / 2, abs=1e-6)
    assert job["latency_s"]["max"] == pytest.approx(0.020, abs=1e-6)
    slots = {s["slot"]: s for s in job["slots"]}
    assert (slots[0]["rounds"], slots[0]["incomplete_rounds"]) == (2, 1)
    assert slots[0]["latency_s"]["max"] == pytest.approx(0.005, abs=1e-6)
    assert slots[0]["duplicates"] == 1 and slots[1]["duplicates"] == 1
    assert slots[1]["retransmissions"] == 1
    assert slots[1]["latency_s"]["p50"] == pytest.approx(0.020, abs=1e-6)
    assert summary["malformed"] == 1


def test_bytes_per_link(captures, capsys):
    summary = inspect_json(capsys, *captures)
    links = {(c["interface"], c["direction"]): c for c in summary["captures"]}
    frame_bytes = 14 + 20 + 8 + ina.PAYLOAD_BYTES
    port1_in = links[("s1-eth1", "in")]
    assert port1_in["frames"] == 7 and port1_in["ina_frames"] == 5
    assert port1_in["ina_bytes"] == 5 * frame_bytes
    assert port1_in["bytes"] > port1_in["ina_bytes"]       # the ping and the short packet
    port2_out = links[("s1-eth2", "out")]
    assert port2_out["bytes"] == 3 * frame_bytes
    assert port2_out["duration_s"] == pytest.approx(0.017, abs=1e-6)
    assert port2_out["mean_rate_bps"] == pytest.approx(3 * frame_bytes * 8 / 0.017, rel=1e-3)


def test_worker_and_job_filters(captures, capsys):
    summary = inspect_json(capsys, *captures, "--job", "1", "--worker", "1")
    (job,) = summary["jobs"]
    assert summary["filters"] == {"job": 1, "worker": 1}
    assert (job["gradients"], job["results"]) == (3, 3)
    assert (job["retransmissions"], job["duplicates"]) == (1, 1)
    # worker 1's own first gradient to the first result addressed to it
    assert sorted(s["latency_s"]["max"] for s in job["slots"]) == pytest.approx(
        [0.003, 0.018], abs=1e-6)
    only2 = inspect_json(capsys, *captures, "--job", "2")
    assert [j["job"] for j in only2["jobs"]] == [2]
    assert only2["jobs"][0]["incomplete_rounds"] == 1


def test_a_packet_captured_twice_counts_once(captures, tmp_path, capsys):
    host_side = [grad(0.000, 0, 0, 0), grad(0.001, 0, 1, 1), grad(0.030, 0, 0x8000, 2)]
    wrpcap(str(tmp_path / "h1-eth0.pcap"), host_side)
    summary = inspect_json(capsys, *captures, str(tmp_path / "h1-eth0.pcap"))
    job = next(j for j in summary["jobs"] if j["job"] == 1)
    assert (job["gradients"], job["duplicates"]) == (7, 2)
    assert len(summary["captures"]) == 5


def test_text_output_has_units(captures, capsys):
    assert main(["inspect", *captures]) == 0
    out = capsys.readouterr().out
    assert "job 1: workers 0, 1; 3 rounds (1 without a result)" in out
    assert "1 retransmissions, 2 duplicates" in out
    assert "12.5 ms mean" in out and "20 ms max" in out
    assert "s1-eth2" in out and "kB" in out


def test_short_packets_make_rounds_and_a_wrong_group_count_is_malformed(tmp_path, capsys):
    """A tensor's last packet of one group: its round and bytes count like any other; a
    packet whose header counts other groups than its length holds is malformed."""
    one = ina.GROUP_WORDS
    short = [_frame(0.000, _ip(w), AGG, 1, w, ina.FLAG_GRADIENT, 3, 7, one) for w in (0, 1)]
    short += [_frame(0.004, AGG, _ip(w), 1, 1, ina.FLAG_RESULT, 3, 7, one) for w in (0, 1)]
    wrong = _frame(0.005, _ip(0), AGG, 1, 0, ina.FLAG_GRADIENT, 4, 8, one)
    raw = bytes(wrong)
    wrong = Ether(raw[:14 + 20 + 8 + 12] + b"\x02" + raw[14 + 20 + 8 + 13:])
    wrong.time = T0 + 0.005
    wrpcap(str(tmp_path / "s1-eth1_in.pcap"), short + [wrong])
    summary = inspect_json(capsys, str(tmp_path / "s1-eth1_in.pcap"))
    (job,) = summary["jobs"]
    assert (job["rounds"], job["incomplete_rounds"], job["gradients"], job["results"]) == \
        (1, 0, 2, 2)
    assert summary["malformed"] == 1
    assert summary["captures"][0]["ina_bytes"] == 4 * (14 + 20 + 8 + ina.payload_bytes(one))


def test_bad_capture_files_are_reported(tmp_path, capsys):
    assert main(["inspect", str(tmp_path / "missing.pcap")]) == 2
    assert "missing.pcap: no such capture file" in capsys.readouterr().err
    (tmp_path / "junk.pcap").write_bytes(b"not a capture at all")
    assert main(["inspect", str(tmp_path / "junk.pcap")]) == 2
    assert "junk.pcap: not a pcap or pcapng capture" in capsys.readouterr().err


def test_pcapng_captures_read_like_pcap(captures, tmp_path, capsys):
    from scapy.utils import PcapNgWriter, rdpcap
    ng = tmp_path / "s1-eth2_out.pcapng"
    with PcapNgWriter(str(ng)) as w:
        for pkt in rdpcap(captures[3]):
            w.write(pkt)
    a = inspect_json(capsys, captures[3])
    b = inspect_json(capsys, str(ng))
    assert b["jobs"] == a["jobs"]
    assert b["captures"][0]["duration_s"] == pytest.approx(0.017, abs=1e-6)
    assert (b["captures"][0]["interface"], b["captures"][0]["direction"]) == ("s1-eth2", "out")


def test_luwu_pulls_and_parameter_answers_make_rounds(tmp_path, capsys):
    """Header-only pulls of job 3 from two workers; the switch multicasts the optimizer
    node's parameters (flags PARAMS) 4 ms after the first pull."""
    def pull(t, w):
        payload = ina.encode(3, w, ina.FLAG_GRADIENT | ina.FLAG_PULL, 0, 0, 7, None)
        pkt = Ether(ina.frame(_mac(w), AGG_MAC, _ip(w), AGG, payload))
        pkt.time = T0 + t
        return pkt

    def params(t, w):
        payload = ina.encode(3, 0, ina.FLAG_PARAMS, 0, 0, 7, np.zeros(ina.LANES))
        pkt = Ether(ina.frame(AGG_MAC, _mac(w), AGG, _ip(w), payload))
        pkt.time = T0 + t
        return pkt

    path = tmp_path / "s1-eth1_in.pcap"
    wrpcap(str(path), [pull(0.0, 0), pull(0.001, 1), params(0.004, 0), params(0.004, 1)])
    summary = inspect_json(capsys, str(path))
    assert summary["malformed"] == 0
    job = summary["jobs"][0]
    assert (job["job"], job["rounds"], job["incomplete_rounds"]) == (3, 1, 0)
    assert (job["gradients"], job["results"]) == (2, 2)
    assert job["latency_s"]["max"] == pytest.approx(0.004, abs=1e-6)
