"""Block-wise symmetric integer quantization of flat fp32 tensors, for the wire.

A tensor is cut into blocks of ``block`` elements (the last one zero-padded); each block
keeps one fp32 scale ``s = max|x| / Q`` with ``Q = 2^(bits-1) - 1`` (127 for int8, 7 for
int4) and its elements as ``q = round(x / s)`` in [-Q, Q]. Dequantized, ``q * s`` differs
from ``x`` by at most ``s / 2 = max|x over the block| / (2 Q)``: 1/254 of the block's
largest magnitude for int8, 1/14 for int4. A block of zeros stays exact.

The wire form is one uint8 tensor: the codes (int8 as one byte each, int4 as two per
byte, low nibble first, stored as ``q + 8``) followed by the fp32 scales, so a
quantized tensor goes through any collective that moves bytes.
"""
from __future__ import annotations

import torch

from testbed.errors import TrainetError

BITS = (8, 4)
MIN_BLOCK = 32    # below this the 4-byte scale costs more than 1/8 of an int8 block


def check_block(block: int) -> int:
    """A block size the quantizers accept: at least MIN_BLOCK elements and even (int4
    packs two codes per byte)."""
    if block < MIN_BLOCK or block % 2:
        raise TrainetError(f"quantization block {block}: give an even number of elements, "
                           f"at least {MIN_BLOCK} (each block carries a 4-byte scale)")
    return block


def wire_bytes(numel: int, bits: int, block: int) -> int:
    """Bytes of the wire form of ``numel`` elements."""
    blocks = -(-numel // block)
    return blocks * block * bits // 8 + 4 * blocks


def wire_ratio(bits: int, block: int, element_bytes: int = 2) -> float:
    """Wire bytes per byte of the unquantized tensor (elements of ``element_bytes``)."""
    return (block * bits / 8 + 4) / (block * element_bytes)


def quantize(x: torch.Tensor, bits: int, block: int) -> torch.Tensor:
    """The wire form (uint8) of the flat fp32 tensor ``x``."""
    if bits not in BITS:
        raise ValueError(f"{bits}-bit quantization: choose one of {BITS}")
    blocks = -(-x.numel() // block)
    padded = torch.zeros(blocks * block)
    padded[:x.numel()] = x.detach().reshape(-1)
    padded = padded.view(blocks, block)
    top = 2 ** (bits - 1) - 1
    scales = padded.abs().amax(dim=1) / top
    safe = torch.where(scales > 0, scales, torch.ones_like(scales))
    codes = torch.round(padded / safe[:, None]).clamp_(-top, top).to(torch.int16)
    if bits == 8:
        packed = codes.to(torch.int8).view(torch.uint8).reshape(-1)
    else:
        nibbles = (codes + 8).to(torch.uint8).reshape(-1, 2)
        packed = nibbles[:, 0] | (nibbles[:, 1] << 4)
    return torch.cat([packed, scales.to(torch.float32).view(torch.uint8)])


def dequantize(wire: torch.Tensor, numel: int, bits: int, block: int) -> torch.Tensor:
    """The fp32 tensor of ``numel`` elements a wire form stands for."""
    blocks = -(-numel // block)
    code_bytes = blocks * block * bits // 8
    if wire.numel() != code_bytes + 4 * blocks:
        raise ValueError(f"a wire form of {numel} elements at {bits} bits, block {block}, "
                         f"has {code_bytes + 4 * blocks} bytes, not {wire.numel()}")
    scales = wire[code_bytes:].clone().view(torch.float32)
    packed = wire[:code_bytes]
    if bits == 8:
        codes = packed.view(torch.int8).to(torch.float32)
    else:
        codes = torch.stack([packed & 0x0F, packed >> 4], dim=1).reshape(-1)
        codes = codes.to(torch.float32) - 8
    return (codes.view(blocks, block) * scales[:, None]).reshape(-1)[:numel]


def error_bound(x: torch.Tensor, bits: int, block: int) -> torch.Tensor:
    """Per element, the largest error the round trip may make: half a step of its block."""
    blocks = -(-x.numel() // block)
    padded = torch.zeros(blocks * block)
    padded[:x.numel()] = x.detach().reshape(-1)
    step = padded.view(blocks, block).abs().amax(dim=1) / (2 ** (bits - 1) - 1)
    return (step[:, None] / 2).expand(blocks, block).reshape(-1)[:x.numel()]
