"""A Wireshark/tshark Lua dissector for the INA protocol, generated from the scapy layers.

The layers in :mod:`testbed.proto.ina` are the one definition of the header: this module
turns their ``fields_desc`` into Lua, and a test checks that the checked-in
``tools/trainet.lua`` is exactly what it generates. Regenerate after changing a layer::

    python -m testbed.proto.wireshark > tools/trainet.lua

The lanes follow the payload's length: a packet of any lane count (``ina.data_layer``)
shows all its lanes, named as the layer of that count names them; a header whose group
count is not its length's (``ina.groups_of``) is marked malformed. FLAG_FIXED and
FLAG_MAX share a bit: it is shown as ``fixed`` on parameters (FLAG_PARAMS) and as
``max`` on every other packet.

Use it with ``tshark -X lua_script:tools/trainet.lua -r capture.pcap`` (display filters
``ina``, ``ina.job_id == 1``, ``ina.flags.retransmit == 1``, ...) or copy it into
Wireshark's personal plugins folder.
"""
from __future__ import annotations

import sys

from scapy.fields import (ByteField, IntField, ShortField, SignedByteField, SignedIntField,
                          SignedShortField)

from testbed.proto import ina

# scapy field class -> (ProtoField constructor, bytes, TvbRange reader)
_TYPES = {
    ByteField: ("uint8", 1, "uint"),
    SignedByteField: ("int8", 1, "int"),
    ShortField: ("uint16", 2, "uint"),
    SignedShortField: ("int16", 2, "int"),
    IntField: ("uint32", 4, "uint"),
    SignedIntField: ("int32", 4, "int"),
}

# Bit fields shown under a header field: field -> [(name, mask, description)]
_BITS = {
    "flags": [("gradient", ina.FLAG_GRADIENT, "Gradient"),
              ("result", ina.FLAG_RESULT, "Result"),
              ("retransmit", ina.FLAG_RETRANSMIT, "Retransmission"),
              ("params", ina.FLAG_PARAMS, "Parameters (LuWu)"),
              ("fixed", ina.FLAG_FIXED, "Fixed-point parameters (in-switch optimizer)"),
              ("max", ina.FLAG_MAX, "Lanes are exponents, the switch keeps the max (gradients)"),
              ("pull", ina.FLAG_PULL, "Pull request, header only (LuWu)"),
              ("lanes16", ina.FLAG_LANES16, "16-bit lanes"),
              ("overflow", ina.FLAG_OVERFLOW, "Block overflows the agreed exponent")],
    "slot": [("shadow", ina.SHADOW_BIT, "Shadow set"),
             ("index", ina.MAX_SLOTS, "Slot index")],
}

# Flags that share a bit (testbed/proto/ina.py): each is shown only on the packets it is
# meant for, flag -> (the flag that tells, whether it is set): FLAG_FIXED on parameters
# (FLAG_PARAMS), FLAG_MAX on everything else
_ONLY_WHEN = {"fixed": (ina.FLAG_PARAMS, True), "max": (ina.FLAG_PARAMS, False)}

_DESCRIPTIONS = {
    "job_id": "Job", "worker_id": "Worker", "flags": "Flags",
    "n_workers": "Contributions (in results)", "slot": "Slot", "exponent": "Block exponent",
    "next_exponent": "Exponent of the next block in this slot", "chunk": "Chunk",
    "groups": "Lane groups",
}


def field_layout(layer) -> list[tuple[str, str, int, str]]:
    """(name, ProtoField type, size in bytes, reader) of each field of a scapy layer."""
    out = []
    for f in layer.fields_desc:
        kind = _TYPES.get(type(f))
        if kind is None:
            raise TypeError(f"{layer.__name__}.{f.name}: no Lua type for {type(f).__name__}; "
                            "add it to testbed/proto/wireshark.py's _TYPES")
        out.append((f.name, *kind))
    return out


def name_format(layer) -> str:
    """The printf format of a lane layer's field names (``v%02d``), checked against every
    field of the layer, so the dissector names lanes of any count as the layers do."""
    first = layer.fields_desc[0].name
    digits = len(first) - 1
    fmt = f"{first[0]}%0{digits}d"
    assert [f.name for f in layer.fields_desc] == [fmt % i for i in range(layer.count)], \
        f"{layer.__name__}: lane names do not follow {fmt}"
    return fmt


def _mask_type(bits: int) -> str:
    return {1: "uint8", 2: "uint16", 4: "uint32"}[bits]


def _lua_when(bit: str, flags: str) -> str:
    """Lua: whether the packet whose flags are ``flags`` is one ``bit`` is meant for."""
    tell, is_set = _ONLY_WHEN[bit]
    return f"bit32.band({flags}, 0x{tell:x}) {'~=' if is_set else '=='} 0"


def _flag_entry(bit: str, mask: int) -> str:
    if bit not in _ONLY_WHEN:
        return f'{{0x{mask:x}, "{bit.upper()}"}}'
    tell, is_set = _ONLY_WHEN[bit]
    return f'{{0x{mask:x}, "{bit.upper()}", 0x{tell:x}, {str(is_set).lower()}}}'


def dissector_lua() -> str:
    header = field_layout(ina.INA)
    # the largest layers of each width: their names hold those of every smaller count
    lanes = field_layout(ina.data_layer(ina.MAX_LANES, 32))
    lanes16 = field_layout(ina.data_layer(ina.MAX_LANES, 16))
    (_, kind32, size32, _), (_, kind16, size16, _) = lanes[0], lanes16[0]
    assert {f[1:] for f in lanes} == {lanes[0][1:]} and \
        {f[1:] for f in lanes16} == {lanes16[0][1:]}, "a lane layer mixes field types"
    assert len(lanes) * size32 == len(lanes16) * size16, "lane layers differ in size"
    fmt = name_format(ina.data_layer(ina.MAX_LANES, 32))
    fmt16 = name_format(ina.data_layer(ina.MAX_LANES, 16))
    header_bytes = sum(size for _, _, size, _ in header)
    assert header_bytes == ina.HEADER_BYTES, "INA layer and HEADER_BYTES disagree"
    lines = [
        "-- Wireshark dissector of trainet's in-network aggregation protocol (p4/ina.p4).",
        "-- Generated by `python -m testbed.proto.wireshark` from the scapy layers in",
        "-- testbed/proto/ina.py; do not edit by hand.",
        "-- tshark -X lua_script:tools/trainet.lua -r capture.pcap -Y 'ina.job_id == 1'",
        "",
        'local ina = Proto("ina", "Trainet in-network aggregation")',
        'local ina_data = Proto("ina_data", "Trainet INA lanes")',
        "local f = {}",
    ]
    for name, kind, size, _ in header:
        desc = _DESCRIPTIONS.get(name, name)
        lines.append(f'f.{name} = ProtoField.{kind}("ina.{name}", "{desc}")')
        for bit, mask, bit_desc in _BITS.get(name, []):
            lines.append(f'f.{name}_{bit} = ProtoField.{_mask_type(size)}("ina.{name}.{bit}", '
                         f'"{bit_desc}", base.DEC, nil, 0x{mask:x})')
    lines.append("ina.fields = {" + ", ".join(
        [f"f.{n}" for n, *_ in header]
        + [f"f.{n}_{b}" for n, *_ in header for b, *_ in _BITS.get(n, [])]) + "}")
    lines += [
        f"-- a field per lane of the largest packet ({len(lanes)} words); a packet shows "
        "as many as its length holds",
        "local lane = {}",
        f"for i = 1, {len(lanes)} do",
        f'    local name = string.format("{fmt}", i - 1)',
        f'    lane[i] = ProtoField.{kind32}("ina_data." .. name, name)',
        "end",
        "local lane16 = {}",
        f"for i = 1, {len(lanes16)} do",
        f'    local name = string.format("{fmt16}", i - 1)',
        f'    lane16[i] = ProtoField.{kind16}("ina_data." .. name, name)',
        "end",
    ]
    lines.append("local all_lanes = {}")
    lines.append("for _, l in ipairs(lane) do table.insert(all_lanes, l) end")
    lines.append("for _, l in ipairs(lane16) do table.insert(all_lanes, l) end")
    lines += [
        "ina_data.fields = all_lanes",
        "",
        "-- {mask, name, and for flags that share a bit: the flag that tells, set or not}",
        "local flag_names = {" + ", ".join(_flag_entry(bit, mask)
                                           for bit, mask, _ in _BITS["flags"]) + "}",
        "",
        "function ina.dissector(tvb, pinfo, tree)",
        f"    if tvb:len() < {header_bytes} then return 0 end",
        '    pinfo.cols.protocol = "INA"',
        f"    local t = tree:add(ina, tvb(0, {header_bytes}))",
        "    local v = {}",
    ]
    offset = 0
    for name, _, size, reader in header:
        lines.append(f"    v.{name} = tvb({offset}, {size}):{reader}()")
        lines.append(f"    local i_{name} = t:add(f.{name}, tvb({offset}, {size}))")
        for bit, *_ in _BITS.get(name, []):
            item = f"i_{name}:add(f.{name}_{bit}, tvb({offset}, {size}))"
            if bit in _ONLY_WHEN:
                item = f"if {_lua_when(bit, 'v.' + name)} then {item} end"
            lines.append(f"    {item}")
        offset += size
    lines += [
        "    local kinds = {}",
        "    for _, fl in ipairs(flag_names) do",
        "        local meant = fl[3] == nil or (bit32.band(v.flags, fl[3]) ~= 0) == fl[4]",
        "        if meant and bit32.band(v.flags, fl[1]) ~= 0 then table.insert(kinds, fl[2]) end",
        "    end",
        '    pinfo.cols.info = string.format("INA job=%d worker=%d %s slot=%d%s chunk=%d e=%d",',
        "        v.job_id, v.worker_id, table.concat(kinds, \"|\"),",
        f"        bit32.band(v.slot, 0x{ina.MAX_SLOTS:x}),",
        f"        bit32.band(v.slot, 0x{ina.SHADOW_BIT:x}) ~= 0 and \"'\" or \"\",",
        "        v.chunk, v.exponent)",
        f"    local rest = tvb:len() - {header_bytes}",
        f"    local words = math.floor(rest / 4)",
        f"    if rest % 4 == 0 and words >= 1 and words <= {len(lanes)} then",
        f"        local d = tree:add(ina_data, tvb({header_bytes}, rest))",
        f"        local groups = math.ceil(words / {ina.GROUP_WORDS})",
        "        if v.groups ~= groups then",
        '            t:add_expert_info(PI_MALFORMED, PI_ERROR, "the header says " .. v.groups ..',
        f'                " groups; {ina.GROUP_WORDS}-word groups carrying " .. words .. '
        '" lanes are " .. groups)',
        "        end",
        f"        if bit32.band(v.flags, 0x{ina.FLAG_LANES16:x}) ~= 0 then",
        f"            for i = 1, {size32 // size16} * words do",
        f"                d:add(lane16[i], tvb({header_bytes} + {size16} * (i - 1), {size16}))",
        "            end",
        "        else",
        "            for i = 1, words do",
        f"                d:add(lane[i], tvb({header_bytes} + {size32} * (i - 1), {size32}))",
        "            end",
        "        end",
        "    elseif rest == 0 and v.groups ~= 0 then",
        '        t:add_expert_info(PI_MALFORMED, PI_ERROR, "header only, but it says " .. '
        'v.groups .. " groups")',
        "    elseif rest > 0 then",
        f'        t:add_expert_info(PI_MALFORMED, PI_ERROR, "payload is " .. tvb:len() .. '
        f'" bytes; INA packets are {header_bytes} + {size32} x lanes bytes (1 to '
        f'{len(lanes)} lanes; {ina.PAYLOAD_BYTES} by default)")',
        "    end",
        "    return tvb:len()",
        "end",
        "",
        f'DissectorTable.get("udp.port"):add({ina.UDP_PORT}, ina)',
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.stdout.write(dissector_lua())
