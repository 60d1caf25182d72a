"""Tensors made smaller for the wire: block-wise integer quantization (:mod:`quantize`)
and top-k sparsification fitted to each link (:mod:`adatopk`)."""
