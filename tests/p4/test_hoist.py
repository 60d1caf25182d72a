"""Member reads hoisted out of action bodies: results stay those of reading each time."""
import re

from tests.p4.v1prog import frame, res, target

SEND = "hdr.res.setValid(); sm.egress_spec = 1;"


def out_res(t, f=None):
    [(_, data)] = t.process(frame() if f is None else f, 0)
    return res(data)


def action_source(t, name: str) -> str:
    src = t.compiled.source
    start = re.search(rf"^def a\d+_{name}\(.*$", src, re.M).start()
    end = src.find("\ndef ", start + 1)
    return src[start:end]


def test_field_written_in_the_action_is_read_again_after_the_write():
    t = target(f"""
        action bump() {{
            hdr.res.a = meta.x;
            meta.x = meta.x + 5;
            hdr.res.b = meta.x;
            meta.x[3:0] = 4w0xF;
            hdr.res.c = meta.x;
        }}
        apply {{ {SEND} meta.x = 16; bump(); hdr.res.d = meta.x; }}""", meta="bit<32> x;")
    assert out_res(t) == (16, 21, 31, 31)


def test_field_written_by_a_register_read_or_a_called_action_is_not_cached():
    t = target(f"""
        register<bit<32>>(4) r;
        action set_x() {{ meta.x = 7; }}
        action use() {{
            hdr.res.a = meta.x;
            r.read(meta.x, 1);
            hdr.res.b = meta.x;
            set_x();
            hdr.res.c = meta.x;
            hdr.res.d = meta.x + meta.x;
        }}
        apply {{ {SEND} meta.x = 3; use(); }}""", meta="bit<32> x;")
    t.register_write("MyIngress.r", 1, 40)
    assert out_res(t) == (3, 40, 7, 14)


def test_set_valid_zeroes_fields_read_before_and_after():
    t = target(f"""
        action reset_res() {{
            hdr.res.a = 9;
            hdr.res.b = hdr.res.a;
            hdr.res.setInvalid();
            hdr.res.setValid();
            hdr.res.c = hdr.res.a + 1;
            hdr.res.d = hdr.res.a + 2;
        }}
        apply {{ {SEND} reset_res(); }}""")
    assert out_res(t) == (0, 0, 1, 2)


def test_read_only_index_and_header_are_read_once_per_action():
    t = target(f"""
        register<bit<32>>(8) acc;
        bit<32> v;
        action add_words() {{
            acc.read(v, meta.idx); v = v + hdr.res.a; acc.write(meta.idx, v); hdr.res.a = v;
            acc.read(v, meta.idx + 1); v = v + hdr.res.b; acc.write(meta.idx + 1, v);
            hdr.res.b = v;
        }}
        apply {{ {SEND} meta.idx = (bit<32>)hdr.eth.etherType; add_words(); }}""",
               meta="bit<32> idx;", parser="state start { pkt.extract(hdr.eth); "
                                           "pkt.extract(hdr.res); transition accept; }")
    payload = (5).to_bytes(4, "big") + (6).to_bytes(4, "big") + bytes(8)
    assert out_res(t, frame(payload, ether_type=2)) == (5, 6, 0, 0)
    assert out_res(t, frame(payload, ether_type=2)) == (10, 12, 0, 0)
    # cell 8 is out of range: it reads as 0 and ignores the write
    assert out_res(t, frame(payload, ether_type=7)) == (5, 6, 0, 0)
    assert out_res(t, frame(payload, ether_type=7)) == (10, 6, 0, 0)
    assert [t.register_read("MyIngress.acc", i) for i in (2, 3, 7)] == [10, 12, 10]
    assert out_res(t, frame(payload, ether_type=9)) == (5, 6, 0, 0)   # both out of range
    assert [t.register_read("MyIngress.acc", i) for i in range(8)] == [0, 0, 10, 12, 0, 0, 0,
                                                                        10]
    body = action_source(t, "MyIngress_MyIngress_add_words")
    assert body.count("v_meta.idx") == 1 and body.count("v_hdr.res") == 1


def test_constant_register_indices_in_and_out_of_range():
    t = target(f"""
        register<bit<32>>(4) r;
        action consts() {{
            r.write(3, 16w1 ++ hdr.eth.etherType);
            r.write(4, 32w99);
            r.read(hdr.res.a, 3);
            r.read(hdr.res.b, 4);
            r.read(hdr.res.c, 0);
        }}
        apply {{ {SEND} consts(); }}""")
    t.register_write("MyIngress.r", 0, 17)
    assert out_res(t) == (0x11234, 0, 17, 0)
    assert [t.register_read("MyIngress.r", i) for i in range(4)] == [17, 0, 0, 0x11234]
