"""`trainet bench allreduce` pieces that need no network."""
import argparse
import json
import re

import pytest

from testbed.bench import allreduce as bench
from testbed.proto import ina


@pytest.mark.parametrize("backend", ["python", "native"])
def test_target_rate_counts_every_result(backend):
    r = bench.target_rate(3, chunks=20, slots=4, repeats=2, backend=backend)
    assert r["workers"] == 3 and r["chunks"] == 20 and r["backend"] == backend
    assert r["packets_in_per_s"] == pytest.approx(60 / r["seconds"])
    assert r["elements_per_s"] == pytest.approx(20 * ina.LANES / r["seconds"])


def test_target_rate_follows_the_lane_count_and_width():
    r = bench.target_rate(2, chunks=6, slots=4, repeats=1, backend="native", lanes=512,
                          lane_bits=16)
    assert (r["lanes"], r["lane_bits"]) == (512, 16)
    assert r["elements_per_s"] == pytest.approx(6 * 1024 / r["seconds"])
    assert r["ns_per_frame_in"] == pytest.approx(r["seconds"] / 12 * 1e9)
    assert r["ns_per_lane_word"] == pytest.approx(r["ns_per_frame_in"] / 512)


def test_link_bounds():
    assert bench.FRAME_BYTES == 14 + 20 + 8 + 13 + 4 * ina.LANES
    one_group = bench.frame_bytes(ina.GROUP_WORDS)
    # 10 chunks + the exponent packet of their 10 blocks (one group), 1 Mb/s
    assert bench.ina_link_time(10 * ina.LANES, 1e6) == pytest.approx(
        (10 * bench.FRAME_BYTES + one_group) * 8 / 1e6)
    # the last chunk carries the groups its values need: 40 values take two groups
    assert bench.ina_wire_bytes(ina.LANES + 40) == \
        bench.FRAME_BYTES + bench.frame_bytes(2 * ina.GROUP_WORDS) + one_group
    # 16-bit lanes: 65 values take 33 words, two groups; 300 blocks' exponents: 256 + 44
    assert bench.ina_wire_bytes(65, 16) == bench.frame_bytes(64) + one_group
    assert bench.ina_wire_bytes(300 * ina.LANES, slots=300) == 300 * bench.FRAME_BYTES + \
        bench.FRAME_BYTES + bench.frame_bytes(2 * ina.GROUP_WORDS)
    # 4 workers move 1.5x the tensor over each link
    assert bench.ring_link_time(1000, 4, 1e6) == pytest.approx(
        1.5 * 4000 * 8 * 1514 / 1448 / 1e6)
    # jumbo frames: 512 words a packet at 4096 B, 2048 at 9000 B; TCP segments fill the MTU
    assert bench.frame_bytes(512) == 14 + 20 + 8 + 13 + 4 * 512 <= 4096 + 14
    assert bench.ina_link_time(2048 * 10, 1e6, 32, 2048) == pytest.approx(
        (10 * bench.frame_bytes(2048) + one_group) * 8 / 1e6)
    assert bench.ring_link_time(1000, 4, 1e6, mtu=9000) == pytest.approx(
        1.5 * 4000 * 8 * 9014 / 8948 / 1e6)


def test_lanes_option_takes_whole_groups_that_fit_the_mtu():
    from testbed.errors import TrainetError
    assert bench._lanes_arg(None, 4096) is None
    assert bench._lanes_arg("fill", 4096) == 992 and bench._lanes_arg("512", 4096) == 512
    with pytest.raises(TrainetError, match="--lanes 1024: 4109 B of INA payload do not fit "
                       r"the MTU of 4096 B; at most 992 lanes \(fill\)"):
        bench._lanes_arg("1024", 4096)
    with pytest.raises(TrainetError, match="--lanes 100: 100 lanes per packet: p4/ina.p4 "
                       "takes whole groups of 32 words"):
        bench._lanes_arg("100", 4096)


def test_round_time_is_the_slowest_workers_back_to_back_rounds_per_round():
    results = {"h1": {"round_ends_s": [1.0, 2.0, 3.0]}, "h2": {"round_ends_s": [1.5, 2.5, 4.5]}}
    assert bench.round_time(results) == 1.5


def test_bytes_per_worker_are_per_round_and_direction():
    results = {"h1": {"round_ends_s": [1, 2], "tx_bytes": 200, "rx_bytes": 400},
               "h2": {"round_ends_s": [1, 2], "tx_bytes": 600, "rx_bytes": 400}}
    assert bench.bytes_per_worker(results) == {"tx": 200, "rx": 200}


def test_workers_cpu_is_all_workers_together_per_round():
    results = {"h1": {"round_ends_s": [1, 2], "process_cpu_s": 0.5},
               "h2": {"round_ends_s": [1, 2], "process_cpu_s": 0.25}}
    assert bench.workers_cpu_per_round(results) == 0.375


def test_ring_bound_follows_the_element_size():
    assert bench.ring_link_time(1000, 8, 1e6, 2) == pytest.approx(
        bench.ring_link_time(1000, 8, 1e6) / 2)


def test_target_only_report_is_json_with_units(capsys):
    args = argparse.Namespace(workers=[2], json=True, scale=1e-3, bw="100Gbit",
                              target_only=True, sizes_mb=[1], rounds=1, slots=8,
                              results="unused")
    assert bench.main(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["fabric_skipped"] == "--target-only"
    assert report["target"][0]["elements_per_s"] > 0
    assert (report["mtu"], report["lanes_per_packet"]) == (4096, 512)   # the experiments'
    # the target runs the program the fabric would, in the gradient's lanes
    assert {(r["lanes"], r["lane_bits"]) for r in report["target"]} == {(512, 16)}


def test_target_only_text_gives_ns_per_frame_and_lane_with_a_ratio(capsys):
    args = argparse.Namespace(workers=[2], json=False, scale=1e-3, bw="100Gbit",
                              target_only=True, sizes_mb=[1], rounds=1, slots=8,
                              results="unused", mtu=1500, dtype="fp32")
    assert bench.main(args) == 0
    text = capsys.readouterr().out
    assert "ns/frame" in text and "ns/lane word (256 words of 1 32-bit lanes)" in text
    assert "1.0x python" in text
    # the native row carries its own ratio against the python row of the same run
    native = [line for line in text.splitlines() if line.strip().startswith("native 2 workers")]
    assert len(native) == 1 and re.search(r"\s\d+\.\dx python\)$", native[0]), native


def test_an_mtu_without_room_for_a_lane_is_refused():
    from testbed.errors import TrainetError
    args = argparse.Namespace(workers=[2], json=True, scale=1e-3, bw="100Gbit",
                              target_only=True, sizes_mb=[1], rounds=1, slots=8,
                              results="unused", mtu=40)
    with pytest.raises(TrainetError, match="--mtu: MTU 40 B carries no INA lane"):
        bench.main(args)


def test_a_jumbo_star_runs_the_program_rendered_for_its_lanes(tmp_path):
    program = bench.ina_program(2048, tmp_path)
    assert program.name == "ina-2048-lanes.p4" and "@LANES@" not in program.read_text()
    assert bench.ina_program(ina.LANES, tmp_path) == bench.INA_P4
    topo = bench.star_topology(2, "1Gbit", 1e-3, mtu=9000, program=program)
    assert {topo.link_params(link).mtu for link in topo.links} == {9000}
    assert str(topo.switches[0].program) == str(program)


def test_client_cost_counts_each_clients_packets():
    rows = bench.client_cost(["python", "native"], chunks=40, repeats=1)
    assert [r["client"] for r in rows] == ["python", "native"]
    for r in rows:
        assert r["chunks"] == 40 and r["cpu_us_per_packet"] == pytest.approx(
            r["cpu_s"] / 40 * 1e6)


def test_packet_thread_cpu_reads_the_main_threads_scheduler_time():
    import os
    import time
    start = time.thread_time()
    before = bench.packet_thread_cpu_s(os.getpid())
    sum(range(3_000_000))
    spent = bench.packet_thread_cpu_s(os.getpid()) - before
    assert abs(spent - (time.thread_time() - start)) < 0.05 and spent > 0


def test_background_load_spins_while_open_and_is_gone_after():
    import time
    with bench.background_load() as burner:
        deadline = time.monotonic() + 30
        while bench.packet_thread_cpu_s(burner.pid) == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert bench.packet_thread_cpu_s(burner.pid) > 0 and burner.poll() is None
    assert burner.returncode is not None
    with bench.background_load(False) as nothing:
        assert nothing is None


# one fabric row of the benchmark's report, as bench allreduce writes it
FABRIC_ROW = {"workers": 8, "dtype": "bf16", "rounds": 10, "warmup_rounds": 1,
              "ina_client": "native", "ina_lane_bits": 16, "link_nominal_bps": 1e11,
              "link_emulated_bps": 1e8, "ina_s": 1e-3, "gloo_s": 2e-3,
              "ina_link_bound_s": 1e-4, "ring_link_bound_s": 2e-4,
              "gloo_over_ring_bound": 10.0, "ina_algbw_nominal_Gbps": 8.0,
              "gloo_algbw_nominal_Gbps": 4.0, "speedup_ina_over_gloo": 2.0,
              "ina_tx_bytes_per_worker": 1, "ina_rx_bytes_per_worker": 1,
              "gloo_tx_bytes_per_worker": 2, "gloo_rx_bytes_per_worker": 2,
              "ina_over_gloo_bytes": 0.5}


def test_rows_measured_under_load_are_marked_in_the_table():
    row = {**FABRIC_ROW, "nominal_MB": 1, "emulated_bytes": 1048,
           "switch_cpu_us_per_frame_ina": 1.0,
           "switch_cpu_us_per_frame_gloo": 1.0, "mtu": 9000, "ina_lanes": 2048,
           "ina_frame_bytes": 8246, "ina_workers_cpu_s_per_round": 0.0085,
           "gloo_workers_cpu_s_per_round": 0.01025, "ina_mean_frame_bytes": 6000.4}
    report = {"target": [], "client": [], "scale": 1e-3,
              "fabric": [{**row, "background_load": False}, {**row, "background_load": True}]}
    text = bench._render(report)
    assert "one more process spinning" in text
    rows = [line for line in text.splitlines() if line.strip().startswith("8 ")]
    assert [line.split()[3] for line in rows] == ["-", "+1", "-", "+1"]
    # workers' CPU/round, then the mean INA frame as sent
    assert rows[2].split()[-6:] == ["8.50", "ms,", "10.25", "ms", "6000", "B"]
    assert ("MTU 9000 B on both sides (INA: 2048 lane words, full frames of 8246 B, a "
            "tensor's last and the exponent rounds' shorter: 'B/frame')") in text


def test_the_switchs_own_counters_are_a_table_of_their_own():
    row = {**FABRIC_ROW, "nominal_MB": 64, "emulated_bytes": 67108,
           "switch_cpu_us_per_frame_ina": 1.5,
           "switch_cpu_us_per_frame_gloo": 1.0, "background_load": False, "mtu": 4096,
           "ina_lanes": 512, "ina_frame_bytes": 2102,
           "switch_ina": {"frames_in": 1200, "frames_out": 9600, "wakeups": 700,
                          "calls": 650, "empty_calls": 20, "pipeline_us_per_frame_in": 0.25,
                          "send_us_per_frame_sent": 1.25, "loop_cpu_us_per_frame": 1.5,
                          "machine_cpu_us_per_frame": 9.75}}
    text = bench._render({"target": [], "client": [], "scale": 1e-3, "fabric": [row]})
    line = text.splitlines()[-1].split()
    assert line[:4] == ["8", "64", "MB", "-"]
    assert line[4:] == ["native", "1200", "/", "9600", "700", "650", "(20)", "0.25", "us",
                        "1.25", "us", "1.50", "us", "9.75", "us"]


def test_link_bounds_credit_the_bucket_a_shaped_link_starts_with():
    # 10 rounds of 5000 B on 1 Mb/s with a 2000 B bucket: 48000 B at the rate, per round
    assert bench.shaped_link_time(5000, 1e6, 2000, 10) == pytest.approx(48000 * 8 / 1e6 / 10)
    assert bench.shaped_link_time(1000, 1e6, 2000) == 0.0        # one round within a bucket
    plain = bench.ina_link_time(10 * ina.LANES, 1e6)
    assert bench.ina_link_time(10 * ina.LANES, 1e6, bucket_bytes=1000, rounds=4) == \
        pytest.approx(plain - 1000 * 8 / 1e6 / 4)
    assert bench.ring_link_time(1000, 4, 1e6, bucket_bytes=1000, rounds=2) == \
        pytest.approx(bench.ring_link_time(1000, 4, 1e6) - 1000 * 8 / 1e6 / 2)


def test_a_bound_within_the_links_bucket_renders_without_a_ratio():
    row = {**FABRIC_ROW, "nominal_MB": 1, "emulated_bytes": 104, "background_load": False,
           "switch_cpu_us_per_frame_ina": 1.0, "switch_cpu_us_per_frame_gloo": 1.0,
           "mtu": 4096, "ina_lanes": 512, "ina_frame_bytes": 2103,
           "ina_workers_cpu_s_per_round": 0.0085, "gloo_workers_cpu_s_per_round": 0.01,
           "ring_link_bound_s": 0.0, "gloo_over_ring_bound": None, "link_bucket_bytes": 4735}
    text = bench._render({"target": [], "client": [], "scale": 1e-4, "fabric": [row]})
    assert "crediting the 4735 B tbf bucket" in text
    line = next(line for line in text.splitlines() if "native/16b" in line)
    assert "(   0.0 ms,    -)" in line


def test_the_mean_frame_is_the_wire_bytes_over_the_frames_they_count():
    """What the report prints as B/frame sent: short last packets and exponent packets
    pull the mean below the full frame."""
    assert bench.ina_frames(10 * ina.LANES) == 11              # 10 chunks, 1 exponent packet
    assert bench.ina_frames(300 * ina.LANES, slots=300) == 302  # 300 blocks' exponents: 2
    assert bench.ina_frames(65, 16) == 2
    mean = bench.ina_wire_bytes(ina.LANES + 40) / bench.ina_frames(ina.LANES + 40)
    assert bench.frame_bytes(ina.GROUP_WORDS) < mean < bench.FRAME_BYTES
