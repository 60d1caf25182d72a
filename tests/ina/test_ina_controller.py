"""INA job descriptions: parsing with field paths, entries, and the CLI on a bad file."""
import pytest
import yaml

from controllers import ina as ctl
from controllers.jobs import JobError

JOB = {"job_id": 3, "aggregator_ip": "10.0.255.1", "slot_base": 64, "slot_count": 16,
       "workers": [{"worker_id": i, "port": i + 1, "mac": f"08:00:00:00:00:{i + 1:02x}",
                    "ip": f"10.0.0.{i + 1}"} for i in range(2)]}


def test_job_from_dict_and_its_entries():
    job = ctl.job_from_dict(JOB)
    entries = ctl.job_entries(job)
    assert entries[0].action.params == {"slot_base": 64, "slot_count": 16, "n_workers": 2,
                                        "mcast_grp": ctl.MCAST_GROUP_BASE + 3}
    rids = [e.match[0].value for e in entries[1:]]
    assert rids == [ctl.worker_rid(3, 0), ctl.worker_rid(3, 1)] and 0 not in rids
    group = ctl.multicast_group(job)
    assert [(r.port, r.rid) for r in group.replicas] == [(1, rids[0]), (2, rids[1])]
    assert ctl.slot_cells(job)[:2] == [64, 65] and ctl.slot_cells(job)[16] == 64 + 1024


def test_rack_job_adds_the_relay_of_the_parent_results():
    job = ctl.job_from_dict({**JOB, "upstream": {"aggregator_ip": "10.0.254.1", "job_id": 9,
                                                 "worker_id": 1}})
    entries = ctl.job_entries(job)
    assert entries[0].action.action == "MyIngress.ina_aggregate_upstream"
    assert entries[1].match[1].value == 9
    assert entries[1].action.params == {"local_job": 3, "mcast_grp": ctl.MCAST_GROUP_BASE + 3}


@pytest.mark.parametrize("change,message", [
    ({"job_id": "x"}, r"job.job_id: 'x' is not an integer"),
    ({"workers": [{"worker_id": 0, "port": 1}]}, r"job.workers\[0\]: needs worker_id"),
    ({"slot_count": 0}, r"job: slots \[64, 64\) must lie"),
    ({"colour": 1}, r"job.colour: unknown field"),
    ({"upstream": {"job_id": 3, "worker_id": 0, "aggregator_ip": "10.0.0.9"}},
     r"job.upstream.job_id: 3 must .* differ"),
])
def test_bad_jobs_name_the_field(change, message):
    with pytest.raises(JobError, match=message):
        ctl.job_from_dict({**JOB, **change})


def test_cli_reports_a_bad_file_by_field(tmp_path):
    bad = tmp_path / "job.yaml"
    bad.write_text("job_id: 1\naggregator_ip: 10.0.255.1\nworkers: [{worker_id: 0}]\n")
    with pytest.raises(JobError, match=r"job\[0\].workers\[0\]: needs worker_id, port, "
                                           "mac and ip"):
        ctl.main(["setup", str(bad)])


@pytest.fixture(scope="module")
def ina_switch():
    """A P4Runtime server running p4/ina.p4, pushed by a routing-like controller that
    stays connected (election id 1); its address."""
    from controllers.p4runtime_client import P4RuntimeClient
    from testbed.p4 import p4info
    from testbed.p4.lowering.program import load_program
    from testbed.bench.p4runtime import PortlessDevice
    from testbed.switch.p4runtime_server import P4RuntimeServer
    from tests.net.helpers import REPO
    source = REPO / "p4" / "ina.p4"
    server = P4RuntimeServer(PortlessDevice(), "127.0.0.1:0").start()
    try:
        with P4RuntimeClient(f"127.0.0.1:{server.port}", 1, election_id=(0, 1)) as client:
            client.set_pipeline(p4info.build(load_program(str(source))), source)
            yield client.address
    finally:
        server.stop()


def test_installed_holds_the_job_for_the_block_only(ina_switch):
    from controllers.jobs import connected, installed
    job = ctl.job_from_dict(JOB)
    with installed(ina_switch, 1, ctl, job) as device:
        assert [e.match[1].value for e in ctl.installed_jobs(device)] == [3]
        assert len(device.entries(ctl.WORKER_TABLE)) == 2
    with pytest.raises(RuntimeError, match="the run failed"):
        with installed(ina_switch, 1, ctl, job):
            raise RuntimeError("the run failed")
    with connected(ina_switch, 1) as device:
        assert device.entries(ctl.JOB_TABLE) == device.entries(ctl.AGGREGATOR_TABLE) == []
        assert device.entries(ctl.WORKER_TABLE) == []


def test_the_switch_controller_entry_and_the_command_line_set_jobs_up(ina_switch, tmp_path,
                                                                      capsys):
    from controllers.jobs import connected
    ctl.install(ina_switch, 1, {"jobs": [JOB]})
    with connected(ina_switch, 1) as device:
        assert [e.match[1].value for e in ctl.installed_jobs(device)] == [3]
    jobs = tmp_path / "jobs.yaml"
    jobs.write_text(yaml.safe_dump([JOB]))
    assert ctl.main(["teardown", str(jobs), "--switch", ina_switch, "--device-id", "1"]) == 0
    assert capsys.readouterr().out.startswith("job 3 at 10.0.255.1: teardown done")
    assert ctl.main(["counters", "--switch", ina_switch, "--device-id", "1"]) == 0
    assert "dropped: bad_length 0 packets" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        ctl.main(["setup"])
    assert "setup needs a jobs file" in capsys.readouterr().err


def test_a_switch_without_flag_max_rounds_refuses_the_job_over_p4runtime(tmp_path):
    """The set-up check reads the switch's P4Info: on a program without FLAG_MAX rounds
    (ina.p4 with its max action renamed) the job is refused before anything is written,
    naming the device and the flag."""
    from controllers.jobs import JobError, installed
    from controllers.p4runtime_client import P4RuntimeClient
    from p4.v1 import p4runtime_pb2 as pb
    from testbed.bench.p4runtime import PortlessDevice
    from testbed.p4 import p4info
    from testbed.p4.lowering.program import load_program
    from testbed.switch.p4runtime_server import P4RuntimeServer
    from tests.net.helpers import REPO
    source = tmp_path / "no_max.p4"
    source.write_text((REPO / "p4" / "ina.p4").read_text().replace("lanes_max", "lanes_top"))
    server = P4RuntimeServer(PortlessDevice(), "127.0.0.1:0").start()
    try:
        with P4RuntimeClient(f"127.0.0.1:{server.port}", 1, election_id=(0, 1)) as client:
            client.set_pipeline(p4info.build(load_program(str(source))), source)
            with pytest.raises(JobError, match=r"job: the switch's program \(device 1 at "
                               rf"{client.address}\) has no FLAG_MAX rounds \(flag "
                               r"0x10, action MyIngress.lanes_max\)"):
                with installed(client.address, 1, ctl, ctl.job_from_dict(JOB)):
                    pass
            assert client.read(pb.Entity(table_entry=pb.TableEntry())) == []
    finally:
        server.stop()
