"""Cluster mode across two servers, the second one emulated on this machine (an sshd in
a network namespace, tests/net/emulated_server.py): a real experiment through the
``trainet`` command, and the bad servers and placements that must fail before anything
starts. Every test also checks that nothing is left on either server."""
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.net.emulated_server import (ADDRESS, NETNS, EmulatedServer, interfaces,
                                       marked_processes)

REPO = Path(__file__).resolve().parents[2]
EXPERIMENT = REPO / "experiments" / "cluster-2sites.yaml"

pytestmark = [pytest.mark.root,
              pytest.mark.skipif(not Path("/usr/sbin/sshd").exists(),
                                 reason="needs openssh-server: run `make setup` "
                                        "(vagrant/packages.txt lists it)")]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    work = tmp_path_factory.mktemp("cluster")
    with EmulatedServer(work / "server", work / "results") as emulated:
        yield emulated


def trainet(server, *args, timeout=600) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(server.command([sys.executable, "-m", "testbed.cli", *args]),
                          capture_output=True, text=True, env=env, timeout=timeout, cwd=REPO)


def leftovers(server) -> dict:
    """What a run could leave: interfaces here and on the server, marked processes,
    node shells, run directories on the (shared) filesystem."""
    shells = subprocess.run(["pgrep", "-af", "mininet:"], capture_output=True,
                            text=True).stdout.split("\n")
    return {"here": interfaces(), "there": interfaces(NETNS),
            "processes": set(marked_processes()),
            "shells": {line for line in shells if "bash" in line},
            "dirs": {p.name for p in Path("/tmp").glob("trainet-*")}}


def added(before: dict, after: dict) -> dict:
    """What is there now and was not before (what others removed meanwhile is theirs)."""
    return {kind: found - before[kind] for kind, found in after.items() if found - before[kind]}


def test_an_experiment_runs_across_two_servers_and_its_results_come_back(server):
    before = leftovers(server)
    experiment = server.dir / "cluster-2sites.yaml"
    experiment.write_text(EXPERIMENT.read_text() + "pcap: true\n")
    out = server.hidden / "two-servers"
    done = trainet(server, "run", str(experiment), "-o", str(out),
                   "--servers", f"localhost,{ADDRESS}")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    placement = json.loads((out / "environment.json").read_text())["cluster"]["placement"]
    assert placement["base"] == {"a1": "localhost", "a2": "localhost", "s_a": "localhost",
                                 "b1": ADDRESS, "b2": ADDRESS, "s_b": ADDRESS}
    run = out / "runs" / "base" / "ddp" / "rep0"
    for rank in range(4):     # ranks 2 and 3 ran on the other server
        rows = [json.loads(line) for line in
                (run / "metrics" / f"rank{rank}.jsonl").read_text().splitlines()]
        assert [r["step"] for r in rows] == [0, 1, 2]
        assert all(r["step_s"] > 0 for r in rows)
        assert (run / "metrics" / f"rank{rank}.summary.json").exists()
    assert "error" not in (run / "logs" / "b2.log").read_text().lower()
    net = out / "variants" / "base" / "net"
    assert "pipeline" in (net / "logs" / "s_b.log").read_text().lower()
    # the crossing link's far end, captured by the switch on the other server
    assert (net / "pcaps" / "s_b-eth3_in.pcap").stat().st_size > 1000
    links = (run / "links.csv").read_text()
    assert "s_b-eth3" in links and "s_a-eth3" in links
    assert json.loads((out / "status.json").read_text())["status"] == "completed"
    assert added(before, leftovers(server)) == {}


def test_a_run_killed_mid_step_is_removed_from_both_servers_by_trainet_down(server,
                                                                            tmp_path):
    before = leftovers(server)
    state = {"TRAINET_STATE_DIR": str(tmp_path / "state")}   # this run's records only
    experiment = tmp_path / "long.yaml"
    experiment.write_text(EXPERIMENT.read_text().replace("steps: 3", "steps: 500"))
    out = server.hidden / "killed"
    run = subprocess.Popen(server.command([sys.executable, "-m", "testbed.cli", "run",
                                           str(experiment), "-o", str(out), "--servers",
                                           f"localhost,{ADDRESS}"]),
                           env={**os.environ, "PYTHONPATH": str(REPO), **state}, cwd=REPO,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    remote_rank = out / "runs" / "base" / "ddp" / "rep0" / "metrics" / "rank3.jsonl"
    deadline = time.monotonic() + 180
    while not (remote_rank.exists() and remote_rank.read_text().strip()):
        assert run.poll() is None and time.monotonic() < deadline, "no step from rank 3"
        time.sleep(0.2)
    run.kill()                      # no teardown of its own: trainet down must do it all
    run.wait()
    assert added(before, leftovers(server))
    env = {**os.environ, "PYTHONPATH": str(REPO), **state}
    down = subprocess.run(server.command([sys.executable, "-m", "testbed.cli", "down"]),
                          env=env, capture_output=True, text=True, timeout=120, cwd=REPO)
    assert down.returncode == 0, down.stderr
    assert f"server {ADDRESS}: stopped" in down.stdout, down.stdout
    assert added(before, leftovers(server)) == {}


def _copy_install(to: Path) -> Path:
    for top in ("testbed", "hosts", "controllers", "p4"):
        shutil.copytree(REPO / top, to / top, ignore=shutil.ignore_patterns("__pycache__"))
    return to


@pytest.mark.parametrize("case", ["unreachable", "trainet", "mininet", "placement"])
def test_bad_servers_and_placements_fail_before_anything_starts(server, case, tmp_path):
    before = leftovers(server)
    experiment = tmp_path / "exp.yaml"
    text = EXPERIMENT.read_text()
    servers = f"localhost,{ADDRESS}"
    args = []
    if case == "unreachable":
        servers = "localhost,10.250.0.6"       # no route from here
        expected = "10.250.0.6 (root@10.250.0.6) is unreachable over ssh"
    elif case == "trainet":
        other = _copy_install(server.dir / "other-trainet")
        with (other / "hosts" / "worker.py").open("a") as f:
            f.write("\n# a later change\n")
        text += f"cluster: {{servers: [localhost, {ADDRESS}], root: {other}}}\n"
        expected = f"server {ADDRESS} runs a different install (sources"
    elif case == "mininet":
        other = _copy_install(server.dir / "other-mininet")
        import mininet
        from mininet.net import VERSION
        shutil.copytree(Path(mininet.__file__).parent, other / "mininet",
                        ignore=shutil.ignore_patterns("__pycache__"))
        net_py = other / "mininet" / "net.py"
        net_py.write_text(net_py.read_text().replace("VERSION = ", "VERSION = '2.2.0' or ", 1))
        text += f"cluster: {{servers: [localhost, {ADDRESS}], root: {other}}}\n"
        expected = f"mininet '2.2.0' there, '{VERSION}' here"
    else:
        args = ["--placement", "s_b=localhost,s_c=localhost"]
        expected = "names node(s) s_c that"
    experiment.write_text(text)
    out = tmp_path / "results"
    done = trainet(server, "run", str(experiment), "-o", str(out), "--servers", servers,
                   *args, timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert expected in done.stderr, done.stderr
    assert not out.exists()
    assert added(before, leftovers(server)) == {}
