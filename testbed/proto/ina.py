"""The in-network aggregation protocol: scapy layers and a fast codec.

A packet is UDP to port 0xBEE0 carrying an ``INA`` header (13 bytes) followed by
``INAData``: ``LANES`` int32 fixed-point lanes, or, with ``FLAG_LANES16``,
``INAData16``: ``2 * LANES`` int16 lanes in the same bytes (bf16/fp16 gradients: half
the bytes per value). ``LANES`` (256 words, a 1079-byte frame) is the default; a program
rendered for another count (:func:`lanes_for_mtu`: as many as a link's MTU carries)
takes packets of up to that many words, and :func:`data_layer` gives the lane layer of
any count, built from the same field list (the layer of a received payload follows from
its length).

Lengths: the lanes come in groups of ``GROUP_WORDS`` (32) words and the header's
``groups`` field says how many the packet carries (:func:`groups_of`: its words in
groups, rounded up; 0 for a header-only packet). p4/ina.p4 takes a packet of any whole
number of groups up to its own count, so a tensor's last block and an exponent round
(one lane per block) travel in as few groups as they need instead of a full-size packet;
a packet whose length disagrees with its count is dropped. Why 32 words: a group is one
header, one parser state and five actions of the rendered program (64 of each at a
9000 B MTU), and a packet wastes at most 31 words (124 B) of padding in its last group;
8-word groups would quadruple the program's parser and actions for at most 96 B less
padding on a tensor's last packet.

The header carries the block exponent of the packet's lanes and, in ``next_exponent``,
the sender's exponent of the block it sends next in the same slot (the switch returns
the largest of the round: hosts/ina_allreduce.py agrees on each block's exponent that
way). ``ina_t`` in the P4 programs is rendered from the ``INA`` layer
(testbed/proto/ina_p4.py), and the lanes of its groups match the lane layers (the P4
program keeps the lanes as bit<32> words, two's complement, and adds a word of a 16-bit
packet as two 16-bit halves; here they are signed). Hosts use :func:`encode` /
:func:`decode` (struct + numpy) on the hot path, on 32-bit words in either case
(:func:`pack16` / :func:`unpack16` turn int16 lanes into words and back); tests check
they produce exactly the layers' bytes.
"""
from __future__ import annotations

import socket
import struct
from typing import NamedTuple

import numpy as np
from scapy.fields import (ByteField, IntField, ShortField, SignedByteField, SignedIntField,
                          SignedShortField)
from scapy.layers.inet import UDP
from scapy.packet import NoPayload, Packet, bind_layers

UDP_PORT = 0xBEE0
# 32-bit lane words per packet by default, as SwitchML hosts send (the checked-in
# p4/ina.p4, whose frames fit a 1500 B MTU); ina.p4 has one register per lane
LANES = 256
HEADER_BYTES = 13
# lane words per group: a packet carries a whole number of groups (its header says how
# many), p4/ina.p4 aggregates the groups present
GROUP_WORDS = 32
MAX_GROUPS = 255               # the header's 8-bit group count
PAYLOAD_BYTES = HEADER_BYTES + 4 * LANES
IP_UDP_BYTES = 20 + 8          # IPv4 without options and UDP, inside the MTU
MAX_MTU = 65535                # the largest MTU a topology may give a link

FLAG_GRADIENT = 0x01
FLAG_RESULT = 0x02
FLAG_RETRANSMIT = 0x04
FLAG_PARAMS = 0x08             # p4/luwu.p4: parameters from the optimizer node
# p4/luwu_sgd.p4: the parameter lanes are int32 fixed point, value = lane * 2^exponent
# (without it, parameter lanes are float32 bit patterns)
FLAG_FIXED = 0x10
# p4/luwu.p4: a worker's request for a chunk of parameters (header only, no lanes); the
# switch counts the job's requests like contributions and hands a complete slot to the
# optimizer node. A header-only FLAG_PARAMS packet is the optimizer's acknowledgement
# of a gradient chunk whose parameters the workers will pull later.
FLAG_PULL = 0x20
# the lanes are int16, two per 32-bit word (the first in the word's high half); the
# switch's sums of such a packet wrap at 16 bits per lane
FLAG_LANES16 = 0x40
# the sender's block does not fit the agreed exponent: its lanes are zero and its
# exponent field names the exponent it needs; the switch marks the round's result with
# it (the sum lacks that worker's values) and carries the largest exponent, at which
# every worker sends the block again (hosts/ina_allreduce.py)
FLAG_OVERFLOW = 0x80
# p4/ina.p4: the gradient's lanes are signed 32-bit values of which the switch keeps the
# largest per lane instead of the sum (the workers' exponents of many blocks agreed in one
# packet). The bit is FLAG_FIXED's, and the packet's kind tells which is meant: FLAG_FIXED
# only on parameters (FLAG_PARAMS), FLAG_MAX only on gradients and their results. Nothing
# reads one for the other: only p4/luwu_sgd.p4 sets FLAG_FIXED, on the parameters it
# multicasts to a job's workers, which carry no FLAG_GRADIENT (sent to an aggregator,
# ina.p4 and luwu_sgd.p4 drop such a packet as bad_type before reading the bit, and
# luwu.p4 takes parameters from its job's optimizer node only, never reading the bit on
# them) and no FLAG_RESULT (INA clients take only their own job's results); LuWu's workers read FLAG_FIXED only on
# their own job's FLAG_PARAMS answers (hosts/luwu_session.py), so an exponent round's
# late result is not taken for parameters, also with an INA job on the same switch;
# `trainet inspect` keys packets by their whole flags byte and names no bit; the
# Wireshark dissector shows the bit as "fixed" on FLAG_PARAMS packets and as "max" on
# every other (testbed/proto/wireshark.py).
FLAG_MAX = 0x10
LANE_BITS = (32, 16)           # the lane widths a packet can carry


MAX_LANES = MAX_GROUPS * GROUP_WORDS     # 8160 words: the most a packet may carry


def lanes_for_mtu(mtu: int, whole_groups: bool = False) -> int:
    """Lane words per packet on links of ``mtu`` bytes: the largest power of two whose
    packet (IPv4, UDP, INA header, 4 bytes a word) fits, so a 1500 B MTU keeps the
    default 256 (1065 B), 4096 B takes 512 (2089 B; 1024 would need 4137 B) and
    9000 B takes 2048 (8233 B); at most 4096 (the header counts 255 groups). Powers of
    two keep a tensor's blocks aligned across lane counts and the rendered programs
    few. With ``whole_groups``, as many whole groups as fit instead (4096 B: 992 words,
    9000 B: 2208): fewer frames a tensor, the blocks then of that size."""
    room = min((mtu - IP_UDP_BYTES - HEADER_BYTES) // 4, MAX_LANES)
    if room < GROUP_WORDS:       # a packet carries whole groups, so at least one
        raise ValueError(f"MTU {mtu} B carries no INA lane group: it needs at least "
                         f"{IP_UDP_BYTES + HEADER_BYTES + 4 * GROUP_WORDS} B")
    if whole_groups:
        return room // GROUP_WORDS * GROUP_WORDS
    return 1 << (room.bit_length() - 1)


def check_lanes(lanes: int) -> int:
    """``lanes`` if it is a lane-word count a packet can carry, else ValueError."""
    if not isinstance(lanes, int) or not 1 <= lanes <= MAX_LANES:
        raise ValueError(f"{lanes!r} lanes per packet: accepted 1..{MAX_LANES} 32-bit words "
                         "(lanes_for_mtu gives a link's)")
    return lanes


def payload_bytes(lanes: int = LANES) -> int:
    """The UDP payload of a packet of ``lanes`` words."""
    return HEADER_BYTES + 4 * check_lanes(lanes)


def groups_of(words: int) -> int:
    """The header's group count of a packet of ``words`` lane words (0: header only)."""
    return -(-words // GROUP_WORDS)


def group_words(words: int) -> int:
    """``words`` rounded up to whole groups: the words a packet carrying them sends."""
    return groups_of(words) * GROUP_WORDS


def check_grouped(lanes: int) -> int:
    """``lanes`` if a program can take packets of that many words in whole groups (as
    p4/ina.p4 does), else ValueError."""
    check_lanes(lanes)
    if lanes % GROUP_WORDS:
        raise ValueError(f"{lanes} lanes per packet: p4/ina.p4 takes whole groups of "
                         f"{GROUP_WORDS} words (accepted {GROUP_WORDS}, {2 * GROUP_WORDS}, "
                         f"... {MAX_LANES})")
    return lanes


def lanes_of_payload(size: int) -> int | None:
    """The lane words of a payload of ``size`` bytes, None if no lane count gives it."""
    words, rest = divmod(size - HEADER_BYTES, 4)
    return words if rest == 0 and 1 <= words <= MAX_LANES else None


def lanes_per_packet(lane_bits: int, lanes: int = LANES) -> int:
    """Values one packet of ``lanes`` words carries in lanes of ``lane_bits`` bits."""
    if lane_bits not in LANE_BITS:
        raise ValueError(f"lane width {lane_bits} bits: INA lanes are 32 or 16 bits")
    return check_lanes(lanes) * 32 // lane_bits


def lane_flag(lane_bits: int) -> int:
    """The header flag that marks packets with lanes of ``lane_bits`` bits."""
    lanes_per_packet(lane_bits)
    return FLAG_LANES16 if lane_bits == 16 else 0

SHADOW_BIT = 0x8000            # MSB of the slot field selects the shadow set
MAX_SLOTS = 0x7FFF             # slot indices a job can name
POOL = 1024                    # slots per shadow set in ina.p4 (its POOL macro)
MAX_WORKERS = 32               # width of the per-slot worker bitmap

# indices of ina.p4's ina_dropped counter
DROP_REASONS = ("bad_length", "unknown_job", "bad_type", "bad_worker", "bad_slot",
                "stale", "duplicate")
# indices of ina.p4's ina_handled counter
HANDLED_KINDS = ("absorbed", "multicast", "unicast", "upstream", "relayed")
# p4/luwu.p4's counters: ina.p4's drop reasons plus one, its own handled kinds
LUWU_DROP_REASONS = DROP_REASONS + ("not_optimizer",)
LUWU_HANDLED_KINDS = ("absorbed", "multicast", "unicast", "to_optimizer", "reforwarded",
                      "params_multicast", "params_unicast", "acks_unicast")

# p4/luwu_sgd.p4's counters: gradients are checked against the switch's fixed point and
# parameter registers; parameters leave by multicast or, to a retransmission, by unicast
LUWU_SGD_DROP_REASONS = DROP_REASONS + ("bad_exponent", "beyond_model")
LUWU_SGD_HANDLED_KINDS = ("absorbed", "multicast", "unicast", "params_multicast",
                          "params_unicast")

_HEADER = struct.Struct("!BBBBHbbIB")
_LANES_BE = np.dtype(">i4")


class INA(Packet):
    name = "INA"
    fields_desc = [
        ByteField("job_id", 0),
        ByteField("worker_id", 0),
        ByteField("flags", FLAG_GRADIENT),
        ByteField("n_workers", 0),
        ShortField("slot", 0),
        SignedByteField("exponent", 0),
        SignedByteField("next_exponent", 0),
        IntField("chunk", 0),
        ByteField("groups", None),
    ]

    def post_build(self, pkt, pay):
        """An unset group count is the lanes' (:func:`groups_of`)."""
        if self.groups is None:
            pkt = pkt[:-1] + bytes([groups_of(len(pay) // 4)])
        return pkt + pay

    def mysummary(self):
        return self.sprintf("INA job=%job_id% worker=%worker_id% flags=%flags% "
                            "slot=%slot% chunk=%chunk% e=%exponent% next_e=%next_exponent% "
                            "groups=%groups%")

    def guess_payload_class(self, payload):
        words = lanes_of_payload(HEADER_BYTES + len(payload))
        if words is None:
            return super().guess_payload_class(payload)
        return data_layer(words, 16 if self.flags & FLAG_LANES16 else 32)


class _Lanes(Packet):
    """The lanes of one packet: a field per lane (``lane_fields``), of one width."""
    count = 0

    @property
    def lanes(self) -> list:
        return [getattr(self, f.name) for f in self.fields_desc]

    def __iter__(self):
        """The one packet this layer stands for: its lanes are plain integers, never
        scapy value generators (scapy's own iteration recurses once per field, deeper
        than Python allows for the thousands of lanes of a jumbo frame)."""
        values = {f.name: self.getfieldval(f.name) for f in self.fields_desc}
        payload = None if isinstance(self.payload, NoPayload) else self.payload.copy()
        yield self.clone_with(payload=payload, **values)

    @classmethod
    def of(cls, values) -> "_Lanes":
        values = list(values)
        if len(values) != cls.count:
            raise ValueError(f"{cls.__name__} needs exactly {cls.count} lanes, "
                             f"got {len(values)}")
        return cls(**{f.name: int(v) for f, v in zip(cls.fields_desc, values)})


def lane_fields(lanes: int, lane_bits: int) -> list:
    """The field list of a packet's lanes: ``lanes`` words as int32 fields v00, v01, ...
    or, 16-bit, twice as many int16 fields w000, w001, ... (the one definition that the
    P4 programs' ``ina_data_t`` and the dissector follow)."""
    if lane_bits == 32:
        return [SignedIntField(f"v{i:02d}", 0) for i in range(check_lanes(lanes))]
    return [SignedShortField(f"w{i:03d}", 0)
            for i in range(lanes_per_packet(lane_bits, lanes))]


_LAYERS: dict = {}


def data_layer(lanes: int = LANES, lane_bits: int = 32) -> type:
    """The scapy layer of a packet's lanes, ``lanes`` words of ``lane_bits``-bit lanes
    (one class per count and width, made once)."""
    key = (check_lanes(lanes), lane_bits)
    if key not in _LAYERS:
        name = ("INAData" if lane_bits == 32 else "INAData16") + \
            ("" if lanes == LANES else f"x{lanes}")
        _LAYERS[key] = type(name, (_Lanes,), {
            "name": name, "fields_desc": lane_fields(lanes, lane_bits),
            "count": lanes_per_packet(lane_bits, lanes)})
    return _LAYERS[key]


INAData = data_layer(LANES, 32)
INAData16 = data_layer(LANES, 16)


bind_layers(UDP, INA, dport=UDP_PORT)


class Header(NamedTuple):
    job_id: int
    worker_id: int
    flags: int
    n_workers: int
    slot: int
    exponent: int
    chunk: int
    next_exponent: int = 0
    groups: int = 0


def pack16(lanes: np.ndarray) -> np.ndarray:
    """int16 lanes, shape (chunks, 2 * LANES), as the int32 words that carry them (lane 2k
    in word k's high half, lane 2k + 1 in its low half: the packet's byte order)."""
    lanes = np.asarray(lanes)
    return np.ascontiguousarray(lanes, dtype=">i2").view(">i4").astype(np.int32)


def unpack16(words: np.ndarray) -> np.ndarray:
    """The int16 lanes of int32 words, inverse of :func:`pack16`."""
    return np.ascontiguousarray(words, dtype=">i4").view(">i2").astype(np.int16)


def slot_field(index: int, shadow: int) -> int:
    """The 16-bit slot field: ``index`` within the job's range, ``shadow`` set 0 or 1."""
    return (SHADOW_BIT if shadow else 0) | index


def encode(job_id: int, worker_id: int, flags: int, slot: int, exponent: int, chunk: int,
           lanes: np.ndarray | None, n_workers: int = 0, next_exponent: int = 0) -> bytes:
    """UDP payload of one packet; ``lanes`` is int32-valued, one value per lane word
    (their count sets the header's ``groups``; p4/ina.p4 takes whole groups), or None for
    a header-only packet (LuWu pull requests and acknowledgements)."""
    words = 0 if lanes is None else len(lanes)
    header = _HEADER.pack(job_id, worker_id, flags, n_workers, slot, exponent, next_exponent,
                          chunk & 0xFFFFFFFF, groups_of(check_lanes(words) if words else 0))
    return header if lanes is None else header + np.asarray(lanes, dtype=_LANES_BE).tobytes()


def _header(payload: bytes) -> Header:
    job, worker, flags, n, slot, exponent, next_e, chunk, groups = _HEADER.unpack_from(payload)
    return Header(job, worker, flags, n, slot, exponent, chunk, next_e, groups)


def decode(payload: bytes, lanes: int = LANES) -> tuple[Header, np.ndarray]:
    """Header and lanes (int32, host order) of a UDP payload of at most ``lanes`` words
    whose group count is its length's; ValueError otherwise."""
    words = lanes_of_payload(len(payload))
    if words is None or words > lanes:
        raise ValueError(f"INA payload of up to {lanes} lanes must be {HEADER_BYTES} + 4 x "
                         f"1..{lanes} bytes ({payload_bytes(lanes)} full size), "
                         f"got {len(payload)}")
    header = _header(payload)
    if header.groups != groups_of(words):
        raise ValueError(f"INA payload of {words} lanes says {header.groups} groups of "
                         f"{GROUP_WORDS} words; {groups_of(words)} carry them")
    lanes = np.frombuffer(payload, dtype=_LANES_BE, offset=HEADER_BYTES).astype(np.int32)
    return header, lanes


def decode_any(payload: bytes, lanes: int = LANES) -> tuple[Header, np.ndarray | None]:
    """:func:`decode`, also accepting a header-only payload (lanes None)."""
    if len(payload) != HEADER_BYTES:
        return decode(payload, lanes)
    return _header(payload), None


def peek_flags(payload: bytes) -> int:
    """The flags of an INA payload without decoding it (0 for a payload of no INA size)."""
    size = len(payload)
    return payload[2] if size == HEADER_BYTES or lanes_of_payload(size) else 0


FRAME_OFFSET = 42                    # Ethernet + IPv4 without options + UDP


def _mac(text: str) -> bytes:
    return bytes.fromhex(text.replace(":", ""))


def _ipv4_checksum(header: bytes) -> int:
    total = sum(struct.unpack("!10H", header))
    while total > 0xFFFF:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def frame(src_mac: str, dst_mac: str, src_ip: str, dst_ip: str, payload: bytes,
          ttl: int = 64) -> bytes:
    """Ethernet + IPv4 + UDP (port 0xBEE0 both ways, checksum 0) around ``payload``."""
    src, dst = socket.inet_aton(src_ip), socket.inet_aton(dst_ip)
    ip_len = 20 + 8 + len(payload)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, ip_len, 0, 0x4000, ttl, 17, 0, src, dst)
    ip = ip[:10] + struct.pack("!H", _ipv4_checksum(ip)) + ip[12:]
    return (_mac(dst_mac) + _mac(src_mac) + b"\x08\x00" + ip
            + struct.pack("!HHHH", UDP_PORT, UDP_PORT, 8 + len(payload), 0) + payload)


def frame_addresses(data: bytes) -> tuple[str, str]:
    """(source, destination) IPv4 addresses of a frame built like :func:`frame`."""
    return socket.inet_ntoa(data[26:30]), socket.inet_ntoa(data[30:34])
