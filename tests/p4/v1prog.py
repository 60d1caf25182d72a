"""Builds small v1model programs for target tests from the parts a test cares about."""
from __future__ import annotations

from testbed.p4.lowering.program import load_source
from testbed.p4.python.target import Target

HEADERS = """
header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> totalLen; bit<16> identification;
    bit<3> flags; bit<13> fragOffset; bit<8> ttl; bit<8> protocol; bit<16> hdrChecksum;
    bit<32> srcAddr; bit<32> dstAddr;
}
header res_t { bit<32> a; bit<32> b; bit<32> c; bit<32> d; }
"""

PARSER = """
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etherType) {
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition accept;
    }
"""

DEPARSER = "pkt.emit(hdr.eth); pkt.emit(hdr.res); pkt.emit(hdr.ipv4);"


def source(ingress: str, *, decls: str = "", meta: str = "", headers: str = "",
           parser: str = PARSER, egress: str = "", verify: str = "", compute: str = "",
           deparser: str = DEPARSER, egress_decls: str = "") -> str:
    return f"""
#include <core.p4>
#include <v1model.p4>
{HEADERS}
{decls}
struct headers_t {{ ethernet_t eth; res_t res; ipv4_t ipv4; {headers} }}
struct meta_t {{ {meta} }}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {{
{parser}
}}
control MyVerify(inout headers_t hdr, inout meta_t meta) {{ apply {{ {verify} }} }}
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
{ingress}
}}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
{egress_decls}
    apply {{ {egress} }}
}}
control MyCompute(inout headers_t hdr, inout meta_t meta) {{ apply {{ {compute} }} }}
control MyDeparser(packet_out pkt, in headers_t hdr) {{ apply {{ {deparser} }} }}
V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
"""


def target(ingress: str, **parts) -> Target:
    return Target(load_source(source(ingress, **parts), filename="test.p4"))


def frame(payload: bytes = b"", ether_type: int = 0x1234) -> bytes:
    """An Ethernet frame dst 00..01, src 00..02 with the given type and payload."""
    return (bytes.fromhex("000000000001000000000002") + ether_type.to_bytes(2, "big")
            + payload)


def res(data: bytes) -> tuple:
    """The four 32-bit words of the res_t header that follows Ethernet in ``data``."""
    return tuple(int.from_bytes(data[14 + 4 * i:18 + 4 * i], "big") for i in range(4))
