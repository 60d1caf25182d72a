"""Cluster mode without a second server: placement, options and the errors that come
before anything starts (the run across servers is tests/net/test_cluster_run.py)."""
import textwrap

import pytest

from testbed.errors import TrainetError
from testbed.experiment.spec import load_experiment
from testbed.net.cluster import Cluster, cluster_from
from testbed.net.topology import blueprint_from_topology
from testbed.topology.generators import leaf_spine
from testbed.topology.specfile import TopologyError

B = "10.9.9.2"


def fabric():
    """Two leaves of two hosts under one spine."""
    return blueprint_from_topology(leaf_spine(leaves=2, spines=1, hosts_per_leaf=2), "leaf-spine")


def test_default_placement_bins_switches_and_keeps_hosts_with_theirs():
    where = Cluster(["localhost", B]).place(fabric())
    # SwitchBinPlacer: 3 switches over 2 servers, the first server takes the remainder
    assert [where[s] for s in ("leaf1", "leaf2", "spine1")] == ["localhost", "localhost", B]
    assert {where[h] for h in ("h1", "h2")} == {where["leaf1"]}
    assert {where[h] for h in ("h3", "h4")} == {where["leaf2"]}


def test_pinned_nodes_stay_and_the_rest_is_balanced_around_them():
    where = Cluster(["localhost", B], placement={"spine1": "localhost"}).place(fabric())
    assert (where["spine1"], where["leaf1"], where["leaf2"]) == ("localhost", "localhost", B)
    assert (where["h3"], where["h4"]) == (B, B)
    pinned = Cluster(["localhost", B], placement={"h4": "localhost"}).place(fabric())
    assert (pinned["h3"], pinned["h4"]) == (pinned["leaf2"], "localhost")


def test_round_robin_places_every_node_in_turn():
    where = Cluster(["localhost", B], placement="round-robin").place(fabric())
    assert list(where.values())[:4] == ["localhost", B, "localhost", B]


def test_placement_of_unknown_nodes_or_servers_is_refused():
    with pytest.raises(TrainetError, match=r"node\(s\) s9 that leaf-spine does not have"):
        Cluster(["localhost", B], placement={"s9": B}).place(fabric())
    with pytest.raises(TrainetError, match=r"server\(s\) 10.9.9.3 that are not in servers"):
        Cluster(["localhost", B], placement={"leaf1": "10.9.9.3"})
    with pytest.raises(TrainetError, match="placement 'random' is not one of"):
        Cluster(["localhost", B], placement="random")
    with pytest.raises(TrainetError, match="listed twice"):
        Cluster(["localhost", "localhost"])


def test_command_line_options_override_the_experiment_section():
    section = {"servers": ["localhost", B], "placement": "round-robin", "link": "gre"}
    cluster = cluster_from(section, servers=f"localhost,{B},10.9.9.3",
                           placement="spine1=localhost,leaf2=10.9.9.3")
    assert cluster.servers == ["localhost", B, "10.9.9.3"]
    assert cluster.placement == {"spine1": "localhost", "leaf2": "10.9.9.3"}
    assert cluster.link == "gre"
    assert cluster_from(None) is None
    with pytest.raises(TrainetError, match="need servers"):
        cluster_from(None, placement="round-robin")


def test_experiment_placement_naming_an_unknown_node_is_located(tmp_path):
    path = tmp_path / "exp.yaml"
    path.write_text(textwrap.dedent(f"""\
        name: c
        topology:
          generator: {{name: leaf-spine, leaves: 2, spines: 1}}
        strategies: [ddp]
        cluster:
          servers: [localhost, {B}]
          placement:
            leaf1: localhost
            spine7: {B}
        """))
    with pytest.raises(TopologyError) as info:
        load_experiment(path)
    text = str(info.value)
    assert "exp.yaml:9:" in text and "cluster.placement.spine7" in text
    assert "'spine7' is not a node of the topology" in text


def test_unresolvable_and_unreachable_servers_fail_the_check():
    with pytest.raises(TrainetError, match="no-such-server.invalid.*has no IPv4 address"):
        Cluster(["localhost", "no-such-server.invalid"]).check()
    # a documentation address (RFC 5737) with no route or no answer
    with pytest.raises(TrainetError, match=r"pre-check failed; nothing was started:\n.*"
                       r"192.0.2.1 .* is unreachable over ssh"):
        Cluster(["localhost", "192.0.2.1"]).check()
