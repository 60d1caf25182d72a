"""Published GPT shapes, by name: what ``--shadow-model`` and ``trainet model --model``
accept besides ``custom:PARAMS``.

Each row is (name, parameters, layers, d_model, heads, context, vocabulary, source),
copied from the tables cited; the parameter counts are the papers' own (they include
the embeddings).

* GPT-3 family: Brown et al. 2020, "Language Models are Few-Shot Learners", table 2.1
  (context 2048, the GPT-2 vocabulary of 50257 tokens).
* GPT-NeoX-20B: Black et al. 2022, "GPT-NeoX-20B: An Open-Source Autoregressive Language
  Model", table 1 (vocabulary 50432 as padded).
* Megatron-LM's weak-scaling series, 1.7B to 1T: Narayanan et al. 2021, "Efficient
  Large-Scale Language Model Training on GPU Clusters Using Megatron-LM", table 1
  (vocabulary 51200, sequence 2048). The 530B row is also MT-NLG's shape (Smith et al.
  2022, "Using DeepSpeed and Megatron to Train Megatron-Turing NLG 530B", sec. 3.1).
* Megatron-LM's 22B and 175B of Korthikanti et al. 2022, "Reducing Activation
  Recomputation in Large Transformer Models", configurations table (vocabulary 51200,
  sequence 2048).
"""
from __future__ import annotations

GPT3 = "Brown et al. 2020, table 2.1"
MEGATRON = "Narayanan et al. 2021, table 1"
KORTHIKANTI = "Korthikanti et al. 2022, configurations table (vocabulary 51200)"

SHAPES = (
    ("gpt-125m", 125e6, 12, 768, 12, 2048, 50257, f"GPT-3 Small, {GPT3}"),
    ("gpt-350m", 350e6, 24, 1024, 16, 2048, 50257, f"GPT-3 Medium, {GPT3}"),
    ("gpt-760m", 760e6, 24, 1536, 16, 2048, 50257, f"GPT-3 Large, {GPT3}"),
    ("gpt-1.3b", 1.3e9, 24, 2048, 24, 2048, 50257, f"GPT-3 XL, {GPT3}"),
    ("gpt-2.7b", 2.7e9, 32, 2560, 32, 2048, 50257, f"GPT-3 2.7B, {GPT3}"),
    ("gpt-6.7b", 6.7e9, 32, 4096, 32, 2048, 50257, f"GPT-3 6.7B, {GPT3}"),
    ("gpt-13b", 13e9, 40, 5140, 40, 2048, 50257, f"GPT-3 13B, {GPT3}"),
    ("gpt-20b", 20e9, 44, 6144, 64, 2048, 50432, "GPT-NeoX-20B, Black et al. 2022, table 1"),
    ("gpt-175b", 175e9, 96, 12288, 96, 2048, 50257, f"GPT-3, {GPT3}"),
    ("megatron-1.7b", 1.7e9, 24, 2304, 24, 2048, 51200, MEGATRON),
    ("megatron-3.6b", 3.6e9, 30, 3072, 32, 2048, 51200, MEGATRON),
    ("megatron-7.5b", 7.5e9, 36, 4096, 32, 2048, 51200, MEGATRON),
    ("megatron-18b", 18.4e9, 40, 6144, 48, 2048, 51200, MEGATRON),
    ("megatron-39b", 39.1e9, 48, 8192, 64, 2048, 51200, MEGATRON),
    ("megatron-76b", 76.1e9, 60, 10240, 80, 2048, 51200, MEGATRON),
    ("megatron-146b", 145.6e9, 80, 12288, 96, 2048, 51200, MEGATRON),
    ("megatron-310b", 310.1e9, 96, 16384, 128, 2048, 51200, MEGATRON),
    ("megatron-530b", 529.6e9, 105, 20480, 128, 2048, 51200,
     f"{MEGATRON}; MT-NLG 530B's shape, Smith et al. 2022, sec. 3.1"),
    ("megatron-1t", 1008e9, 128, 25600, 160, 2048, 51200, MEGATRON),
    ("megatron-22b", 22e9, 48, 6144, 64, 2048, 51200, KORTHIKANTI),
    ("megatron-175b", 175e9, 96, 12288, 96, 2048, 51200, f"GPT-3's shape, {KORTHIKANTI}"),
)
ALIASES = {"gpt-530b": "megatron-530b", "gpt-1t": "megatron-1t", "gpt3-xl": "gpt-1.3b",
           "gpt3-175b": "gpt-175b"}
