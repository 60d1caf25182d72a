"""v1model externs, parser behaviour and expressions, driven through Target.process."""
import logging
import zlib

from testbed.p4.python import externs

from tests.p4.v1prog import frame, res, target

SEND = "hdr.res.setValid(); sm.egress_spec = 1;"


def out_res(t, f, port=0):
    [(_, data)] = t.process(f, port)
    return res(data)


def crc16_arc_bitwise(data: bytes) -> int:
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc


def test_hash_algorithms_match_reference_values():
    t = target(f"""apply {{ {SEND}
        hash(hdr.res.a, HashAlgorithm.crc32, 32w0, {{hdr.eth.src, hdr.eth.etherType}}, 64w4294967296);
        hash(hdr.res.b, HashAlgorithm.crc16, 32w0, {{hdr.eth.src}}, 32w65536);
        hash(hdr.res.c, HashAlgorithm.crc32, 32w100, {{hdr.eth.etherType}}, 32w10);
        hash(hdr.res.d, HashAlgorithm.identity, 32w0, {{hdr.eth.etherType, 4w0xF}}, 32w0x100000);
    }}""")
    f = frame(ether_type=0xBEEF)
    src_type = f[6:14]
    a, b, c, d = out_res(t, f)
    assert a == zlib.crc32(src_type)
    assert b == crc16_arc_bitwise(f[6:12])
    assert c == 100 + zlib.crc32(b"\xbe\xef") % 10
    assert d == 0xBEEFF0 % 0x100000            # 20 bits, zero-padded to 3 bytes
    assert externs.crc16(b"123456789") == 0xBB3D   # CRC-16/ARC check value


IPV4_EXAMPLE = bytes.fromhex("450000730000400040110000c0a80001c0a800c7")   # checksum 0xb861

CHECKSUM_FIELDS = """{ hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.totalLen,
    hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl,
    hdr.ipv4.protocol, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr }"""


def test_ipv4_checksum_update_and_verify():
    t = target(f"apply {{ {SEND} hdr.res.a = (bit<32>)sm.checksum_error; }}",
               verify=f"verify_checksum(hdr.ipv4.isValid(), {CHECKSUM_FIELDS}, "
                      "hdr.ipv4.hdrChecksum, HashAlgorithm.csum16);",
               compute=f"update_checksum(hdr.ipv4.isValid(), {CHECKSUM_FIELDS}, "
                       "hdr.ipv4.hdrChecksum, HashAlgorithm.csum16);")
    [(_, data)] = t.process(frame(IPV4_EXAMPLE, 0x0800), 0)
    assert res(data)[0] == 1                                      # checksum 0 is wrong
    assert data[30 + 10:30 + 12] == b"\xb8\x61"
    good = IPV4_EXAMPLE[:10] + b"\xb8\x61" + IPV4_EXAMPLE[12:]
    assert res(t.process(frame(good, 0x0800), 0)[0][1])[0] == 0
    assert externs.csum16(IPV4_EXAMPLE) == 0xB861


STACK = dict(
    decls="header tag_t { bit<8> v; bit<8> bos; }",
    headers="tag_t[3] tags;",
    parser="""
    state start { pkt.extract(hdr.eth); transition parse_tag; }
    state parse_tag {
        pkt.extract(hdr.tags.next);
        transition select(hdr.tags.last.bos) { 1: accept; default: parse_tag; }
    }""",
    deparser="pkt.emit(hdr.eth); pkt.emit(hdr.res); pkt.emit(hdr.tags);")


def test_header_stack_parse_push_pop_and_out_of_bounds():
    t = target(f"""apply {{ {SEND}
        hdr.res.a = (bit<32>)hdr.tags[0].v;
        hdr.res.b = (bit<32>)hdr.tags[1].v;
        hdr.res.c = hdr.tags[2].isValid() ? 32w1 : 32w0;
        if (sm.parser_error == error.StackOutOfBounds) {{ hdr.res.d = 7; }}
        hdr.tags.push_front(1);
        hdr.tags[0].setValid();
        hdr.tags[0].v = 0xEE;
        hdr.tags[0].bos = 0;
    }}""", **STACK)
    [(_, data)] = t.process(frame(bytes([0x11, 0, 0x22, 1]) + b"rest"), 0)
    assert res(data) == (0x11, 0x22, 0, 0)
    assert data[30:] == bytes([0xEE, 0, 0x11, 0, 0x22, 1]) + b"rest"
    [(_, data)] = t.process(frame(bytes([1, 0, 2, 0, 3, 0, 4, 1])), 0)
    assert res(data)[3] == 7
    assert data[30:] == bytes([0xEE, 0, 1, 0, 2, 0]) + bytes([4, 1])   # tag 3 fell off


def test_pop_front_shifts_and_invalidates():
    t = target(f"apply {{ {SEND} hdr.tags.pop_front(1); }}", **STACK)
    [(_, data)] = t.process(frame(bytes([1, 0, 2, 1]) + b"z"), 0)
    assert data[30:] == bytes([2, 1]) + b"z"


def test_parser_errors_reach_ingress_as_in_bmv2():
    t = target(f"""apply {{ {SEND}
        if (sm.parser_error == error.PacketTooShort) {{ hdr.res.a = 1; }}
        if (sm.parser_error == error.BadType) {{ hdr.res.a = 2; }}
        if (sm.parser_error == error.NoMatch) {{ hdr.res.a = 3; }}
        hdr.res.b = hdr.ipv4.isValid() ? 32w1 : 32w0;
    }}""", decls="error { BadType }", parser="""
    state start {
        pkt.extract(hdr.eth);
        verify(hdr.eth.etherType != 0xDEAD, error.BadType);
        transition select(hdr.eth.etherType) {
            0x0800: parse_ipv4;
            0x1000 &&& 0xF000: accept;
            0x2000 .. 0x20FF: accept;
        }
    }
    state parse_ipv4 { pkt.extract(hdr.ipv4); transition accept; }""")
    [(_, data)] = t.process(frame(b"\x45\x00", 0x0800), 0)
    assert res(data)[:2] == (1, 0) and data.endswith(b"\x45\x00")
    assert out_res(t, frame(ether_type=0xDEAD))[0] == 2
    assert out_res(t, frame(ether_type=0x3000))[0] == 3
    assert out_res(t, frame(ether_type=0x1ABC))[0] == 0
    assert out_res(t, frame(ether_type=0x2042))[0] == 0


def test_digest_log_msg_and_assert(caplog):
    t = target(f"""apply {{ {SEND}
        digest<learn_t>(1, {{hdr.eth.src, sm.ingress_port}});
        log_msg("port {{}} type {{}}", {{sm.ingress_port, hdr.eth.etherType}});
        assert(hdr.eth.etherType != 0xBAD0);
    }}""", decls="struct learn_t { bit<48> src; bit<9> port; }")
    got = []
    t.digest_handler = lambda name, values: got.append((name, values))
    with caplog.at_level(logging.INFO, logger="testbed.p4.target"):
        assert len(t.process(frame(ether_type=0x0101), 3)) == 1
        assert t.process(frame(ether_type=0xBAD0), 3) == []
    assert got[0] == ("learn_t", (2, 3))
    assert "port 3 type 257" in caplog.text
    assert t.drop_counts == {"assert": 1}


def test_arithmetic_casts_concat_slices():
    t = target(f"""apply {{ {SEND}
        int<8> x = -3;
        bit<8> s = 8w250 |+| 8w10;
        bit<8> u = 8w5 |-| 8w10;
        hdr.res.a = (bit<32>)(bit<8>)(x * 8s50);
        hdr.res.b = (bit<16>)s ++ (bit<16>)u;
        hdr.res.c = hdr.eth.etherType ++ 16w0xBEEF;
        hdr.res.d = (bit<32>)hdr.eth.etherType[11:4] << 1;
        hdr.eth.etherType[3:0] = 4w0;
    }}""")
    [(_, data)] = t.process(frame(ether_type=0x1234), 0)
    a, b, c, d = res(data)
    assert a == (-150) % 256                     # int<8> wraps
    assert b == 0xFF << 16 and c == 0x1234BEEF and d == 0x23 << 1
    assert data[12:14] == b"\x12\x30"


def test_debug_logger_gets_a_packet_trace(caplog):
    log = logging.getLogger("test.p4trace")
    log.setLevel(logging.DEBUG)
    t = target("""action fwd() { sm.egress_spec = 2; }
        table t { key = { hdr.eth.etherType: exact; } actions = { fwd; } default_action = fwd(); }
        apply { t.apply(); }""")
    traced = type(t)(t.program, log=log)
    with caplog.at_level(logging.DEBUG, logger="test.p4trace"):
        traced.process(frame(), 1)
    text = caplog.text
    for expected in ("received on port 1", "Parser state start", "MyIngress.t: miss",
                     "Transmitting packet of size 14 out of port 2"):
        assert expected in text


def test_control_locals_keep_values_between_actions():
    t = target(f"""
        bit<32> kept;
        bit<32> scratch;
        action set_kept() {{ kept = 7; }}
        action use_kept() {{ hdr.res.a = kept; }}
        action twice(bit<32> v) {{ scratch = v; scratch = scratch + scratch; hdr.res.b = scratch; }}
        apply {{ {SEND} set_kept(); use_kept(); twice(21); }}""")
    assert out_res(t, frame())[:2] == (7, 42)


def test_csum16_of_an_odd_number_of_bytes_pads_with_zero():
    t = target(f"apply {{ {SEND} }}", compute="""
        update_checksum(hdr.res.isValid(), { hdr.eth.etherType[7:0], hdr.eth.src[15:0] },
                        hdr.res.d, HashAlgorithm.csum16);""")
    f = frame(ether_type=0x12AB)
    data = t.process(f, 0)[0][1]
    assert res(data)[3] == externs.csum16(bytes([0xAB, 0x00, 0x02]))


def test_set_valid_zeroes_an_invalid_header_like_bmv2():
    t = target(f"""apply {{ {SEND}
        hdr.ipv4.ttl = 9;            // invalid header: the write is kept ...
        hdr.res.a = (bit<32>)hdr.ipv4.ttl;
        hdr.ipv4.setValid();         // ... until setValid zeroes the fields
        hdr.res.b = (bit<32>)hdr.ipv4.ttl;
        hdr.ipv4.ttl = 5;
        hdr.ipv4.setValid();         // already valid: unchanged
        hdr.res.c = (bit<32>)hdr.ipv4.ttl;
    }}""")
    assert out_res(t, frame())[:3] == (9, 0, 5)


def test_control_local_written_by_a_called_action_is_shared():
    t = target(f"""
        bit<32> v;
        action inner() {{ v = 2; }}
        action outer() {{ v = 1; inner(); hdr.res.a = v; }}
        apply {{ {SEND} outer(); }}""")
    assert out_res(t, frame())[0] == 2


def test_header_union_keeps_one_valid_member():
    t = target(f"""apply {{ {SEND}
        hdr.res.a = hdr.u.short.isValid() ? 32w1 : 32w0;
        hdr.res.b = hdr.u.long.isValid() ? 32w1 : 32w0;
        if (hdr.u.short.isValid()) {{ hdr.u.long.setValid(); hdr.u.long.v = 0xAABBCCDD; }}
        hdr.res.c = hdr.u.short.isValid() ? 32w1 : 32w0;
    }}""", decls="""header short_t { bit<8> v; } header long_t { bit<32> v; }
                   header_union u_t { short_t short; long_t long; }""",
        headers="u_t u;", parser="""
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etherType) { 1: s; 2: l; default: accept; }
    }
    state s { pkt.extract(hdr.u.short); transition accept; }
    state l { pkt.extract(hdr.u.long); transition accept; }""",
        deparser="pkt.emit(hdr.eth); pkt.emit(hdr.res); pkt.emit(hdr.u);")
    [(_, data)] = t.process(frame(b"\x07rest", ether_type=1), 0)
    assert res(data)[:3] == (1, 0, 0)
    assert data[30:] == bytes.fromhex("aabbccdd") + b"rest"
    [(_, data)] = t.process(frame(b"\x01\x02\x03\x04", ether_type=2), 0)
    assert res(data)[:3] == (0, 1, 0) and data[30:] == b"\x01\x02\x03\x04"
