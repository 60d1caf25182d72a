from collections import Counter

import pytest

from testbed.topology import generators
from testbed.topology.spec import DEFAULT_PROGRAM
from testbed.topology.specfile import TopologyError


def ports_unique(topo):
    used = Counter()
    for link in topo.links:
        for end in topo.endpoints(link):
            used[str(end)] += 1
    assert max(used.values()) == 1


def test_star(all_pairs_reachable):
    topo = generators.star(workers=8, optimizers=1, servers=2, nic="roce-100g", scale=1e-4)
    assert len(topo.switches) == 1 and len(topo.hosts) == 11 == len(topo.links)
    assert Counter(h.role for h in topo.hosts) == {"worker": 8, "optimizer": 1, "server": 2}
    assert topo.host("w1").ip.with_prefixlen == "10.0.1.1/24"
    assert topo.switches[0].program == DEFAULT_PROGRAM
    assert topo.link_params(topo.links[0]).emulated(topo.scale).bw_bps == pytest.approx(10e6)
    ports_unique(topo)
    all_pairs_reachable(topo)


def test_leaf_spine(all_pairs_reachable):
    topo = generators.leaf_spine(leaves=3, spines=2, hosts_per_leaf=4)
    assert len(topo.hosts) == 12 and len(topo.switches) == 5
    assert len(topo.links) == 12 + 3 * 2
    assert topo.group("rack", "leaf2") == ["h5", "h6", "h7", "h8"]
    assert topo.host("h5").ip.with_prefixlen == "10.0.2.1/24"
    assert len({h.mac for h in topo.hosts}) == 12
    ports_unique(topo)
    all_pairs_reachable(topo)


def test_fat_tree(all_pairs_reachable, route):
    topo = generators.fat_tree(k=4)
    assert len(topo.hosts) == 8 and len(topo.switches) == 4 + 2
    for sw in topo.switches:                        # k-port switches
        ports = [e.port for link in topo.links for e in topo.endpoints(link)
                 if e.node == sw.name]
        assert len(ports) == 4
    ports_unique(topo)
    all_pairs_reachable(topo)
    assert len(route(topo, "h1", "h8")) == 3        # leaf, spine, leaf


def test_multi_cluster_holmes(all_pairs_reachable):
    topo = generators.multi_cluster()
    assert sorted(topo.groups("cluster")) == ["A", "B", "C"]
    assert {topo.host(h).nic for h in topo.group("cluster", "A")} == {"ib-hdr200"}
    assert {topo.host(h).nic for h in topo.group("cluster", "B")} == {"roce-100g"}
    assert {topo.host(h).nic for h in topo.group("cluster", "C")} == {"eth-25g-tcp"}
    backbone = [topo.link_params(link) for link in topo.links
                if "bb" in (topo.endpoints(link)[0].node, topo.endpoints(link)[1].node)]
    assert len(backbone) == 3 and {p.bw_bps for p in backbone} == {100e9}
    assert topo.transport("a1").per_byte_s == 0 and topo.transport("c1").per_byte_s > 0
    ports_unique(topo)
    all_pairs_reachable(topo)


def test_geo_sites_with_wan_tiers(all_pairs_reachable):
    topo = generators.geo(wan=["wan-10g", "wan-100m", "wan-8m"], scale=1e-2)
    assert topo.groups("site") == {"eu": ["eu1", "eu2"], "us": ["us1", "us2"],
                                   "as": ["as1", "as2"]}
    wan = {(topo.endpoints(link)[0].node, topo.endpoints(link)[1].node): topo.link_params(link)
           for link in topo.links if link.profile and link.profile.startswith("wan")}
    assert wan[("s_eu", "s_as")].bw_bps == 100e6 and wan[("s_us", "s_as")].delay_s == 50e-3
    assert wan[("s_us", "s_as")].emulated(topo.scale).bw_bps == pytest.approx(80e3)
    ports_unique(topo)
    all_pairs_reachable(topo)


def test_frontier_three_link_classes(all_pairs_reachable, route):
    topo = generators.frontier(nodes=2)
    assert len(topo.hosts) == 16 and topo.group("node", "n2")[0] == "n2g0"
    classes = Counter(link.profile for link in topo.links)
    assert classes == {"gcd-gcd": 16, "gpu-gpu": 8, "slingshot-200g": 2}
    assert len(route(topo, "n1g0", "n1g1")) == 1     # same MI250X
    assert len(route(topo, "n1g0", "n1g2")) == 3     # other MI250X, same node
    assert len(route(topo, "n1g0", "n2g0")) == 5     # other node
    ports_unique(topo)
    all_pairs_reachable(topo)


def test_frontier_node_links_at_a_given_rate():
    """A node of 2 MI250X keeps its share of Frontier's 4 NICs, or what a library reaches."""
    topo = generators.frontier(nodes=2, gpus=2, inter_node_bw="50Gbit")
    node = [topo.link_params(link) for link in topo.links if link.profile == "slingshot-200g"]
    assert [p.bw_bps for p in node] == [50e9, 50e9]
    inside = [topo.link_params(link) for link in topo.links if link.profile == "gpu-gpu"]
    assert {p.bw_bps for p in inside} == {800e9}
    with pytest.raises(TopologyError, match=r"bw"):
        generators.frontier(nodes=1, inter_node_bw="fast")


def test_generator_program_and_bad_parameters(p4_file):
    topo = generators.star(workers=2, program=str(p4_file))
    assert topo.switches[0].program == p4_file
    with pytest.raises(TopologyError, match=r"generator\.k: .*multiple of 2"):
        generators.fat_tree(k=3)
    with pytest.raises(TopologyError, match=r"hosts\[0\]\.nic: unknown NIC profile 'ib'"):
        generators.star(nic="ib")
    with pytest.raises(TopologyError, match="one per site pair"):
        generators.geo(wan=["wan-1g", "wan-8m"])


def test_address_plan_limit_is_reported():
    with pytest.raises(TopologyError, match=r"generator: the address plan 10\.0\.E\.n/24 allows "
                                            r"255 edge switches of 253 hosts each"):
        generators.star(workers=254)
