"""LuWu job descriptions: from YAML-shaped data, errors naming the field."""
import pytest

from controllers import luwu
from controllers.jobs import JobError

WORKERS = [{"worker_id": w, "port": w + 1, "mac": f"08:00:00:00:01:{w + 1:02x}",
            "ip": f"10.0.1.{w + 1}"} for w in range(2)]


def job(**over):
    data = {"job_id": 3, "aggregator_ip": "10.0.255.1", "workers": WORKERS,
            "optimizer": {"ip": "10.0.1.9", "port": 9, "mac": "08:00:00:00:01:09"}}
    data.update(over)
    return {k: v for k, v in data.items() if v is not None}


def test_job_from_dict_builds_the_three_jobs():
    j = luwu.job_from_dict(job(slot_count=16, exponent_slots=4))
    assert (j.job_id, j.optimizer.ip, j.optimizer.port) == (3, "10.0.1.9", 9)
    e = j.exponent_job()
    assert (e.job_id, e.slot_base, e.slot_count) == (4, 16, 4)
    p = j.pull_job()
    assert (p.job_id, p.slot_base, p.slot_count) == (5, 20, 16)
    for sub in j.luwu_jobs():
        entry = luwu.luwu_entries(j, sub)[0]
        assert entry.action.action == "MyIngress.luwu_aggregate"
        assert entry.action.params["opt_addr"] == 0x0A000109
    p = luwu.job_from_dict(job(pull_job_id=9, pull_slots=2)).pull_job()
    assert (p.job_id, p.slot_base, p.slot_count) == (9, 34, 2)


@pytest.mark.parametrize("over, where", [
    ({"optimizer": None}, "job.optimizer: needs ip"),
    ({"optimizer": {"ip": "10.0.1.300"}}, "job.optimizer.ip: '10.0.1.300' is not an IPv4"),
    ({"optimizer": {"ip": "10.0.1.9", "port": 9}}, "job.optimizer.mac: needed with"),
    ({"exponent_job_id": 3}, "job: job_id, exponent_job_id and pull_job_id must differ"),
    ({"pull_job_id": 4}, "job: job_id, exponent_job_id and pull_job_id must differ"),
    ({"slot_count": 1000}, "job.pull_job: slots [1002, 2002) must lie within"),
    ({"upstream": {"aggregator_ip": "10.0.0.1", "job_id": 9, "worker_id": 0}},
     "job.upstream: LuWu jobs aggregate on one switch"),
    ({"slot_count": 1023}, "job.exponent_job: slots [1023, 1025) must lie within"),
])
def test_bad_jobs_name_the_field(over, where):
    with pytest.raises(JobError) as err:
        luwu.job_from_dict(job(**over))
    assert str(err.value).startswith(where)
