"""The whole per-worker footprint and the device and host it must fit."""
import pytest

from hosts import devices, footprint, shadow
from hosts.devices import GIB
from hosts.strategies import registry
from hosts.strategies.base import Memory
from testbed.errors import TrainetError

GPT175 = shadow.shadow_model("gpt-175b")


def test_activations_follow_korthikanti_et_al():
    sbh = 2048 * 1 * 12288
    layer = sbh * (34 + 5 * 96 * 2048 / 12288)          # 114 sbh bytes per layer
    assert footprint.activation_bytes(GPT175, 1, recompute=False) == pytest.approx(96 * layer)
    assert footprint.activation_bytes(GPT175, 1, recompute=True) == \
        pytest.approx(2 * sbh * 96 + layer)
    custom = shadow.shadow_model("custom:175B")          # 96 layers, 12 L h^2 = P
    assert (shadow.hidden_size(custom), custom.attention_heads) == (12288, 96)


def test_device_profiles_have_capacities_and_hosts():
    assert devices.device("a100-40gb").memory_bytes == 40 * GIB
    assert devices.device("a100").memory_bytes == 80 * GIB           # the 80 GB part
    assert devices.device("h200-141gb").memory_bytes == 141 * GIB
    assert devices.device("mi250x-gcd").memory_bytes == 64 * GIB
    assert devices.device("a100", 48 * GIB).memory_bytes == 48 * GIB
    assert all(d.host in devices.HOSTS and "datasheet" in d.source
               for d in devices.DEVICES.values())
    with pytest.raises(TrainetError, match="capacity"):
        devices.device("a100", 0)


def test_ddp_and_zero3_of_175b_do_not_fit_an_a100_luwu_does():
    a100 = devices.device("a100-80gb")

    def fit(name):
        fp = footprint.footprint(registry.get(name), GPT175, 8, 1)
        return footprint.check(fp, a100)

    ddp, zero3, luwu = fit("ddp"), fit("zero3"), fit("luwu")
    assert ddp.footprint.optimizer == 12 * 175e9
    assert ddp.footprint.buffers == 2 * footprint.BUCKET_BYTES
    assert luwu.footprint.buffers == 0                   # pushes and pulls: switch routes
    assert not ddp.fits and not zero3.fits and luwu.fits
    assert zero3.verdict().startswith(f"needs {footprint.gib(zero3.footprint.device)} of "
                                      "80 GiB device memory")
    assert luwu.verdict().startswith("fits: ")


def test_every_registered_strategy_has_a_footprint():
    for info in registry.strategies():
        fp = footprint.footprint(info, GPT175, 8, 8)
        assert fp.device > fp.reserve + fp.activations, info.name


def test_a_declared_activation_figure_replaces_the_shared_model():
    info = registry.StrategyInfo(
        "pipeline-like", "holds activations of four micro-batches", None, None,
        registry.get("ddp").pattern,
        lambda params, world, layers: Memory(1, 1, 1, activations_bytes=7 * GIB))
    assert footprint.footprint(info, GPT175, 8, 1).activations == 7 * GIB


def test_offload_needs_a_host_that_has_the_tier(monkeypatch):
    fp = footprint.Footprint(1, 1, 0, 1, 0, 1, host=0, nvme=GIB)
    bare = devices.Device("bare", 1e12, "a device with no host", 80 * GIB)
    with pytest.raises(TrainetError, match="no host profile"):
        footprint.check(fp, bare)
    diskless = devices.Host("diskless", 8, 25e9, 1024 * GIB, 0, 0, 0, 64, 1e11, "no NVMe")
    monkeypatch.setitem(devices.HOSTS, "diskless", diskless)
    with pytest.raises(TrainetError, match="has no NVMe; offload to cpu"):
        footprint.check(fp, devices.Device("d", 1e12, "s", 80 * GIB, "diskless"))


def test_host_memory_is_shared_by_the_hosts_gpus():
    fp = footprint.Footprint(GIB, 0, 0, GIB, 0, GIB, host=300 * GIB)
    a100 = devices.device("a100-80gb")                   # 2 TiB over 8 GPUs: 256 GiB
    assert footprint.check(fp, a100).shortfalls() == ["needs 300 GiB of 256 GiB host memory"]
    assert footprint.check(fp, a100, gpus_per_host=1).fits


def test_sizes_read_in_binary_units():
    assert footprint.gib(80 * GIB) == "80 GiB"
    assert footprint.gib(2.62 * 1024 * GIB) == "2.62 TiB"


GPT80 = shadow.shadow_model("custom:layers=42,hidden=12288,heads=96")   # AxoNN's GPT-80B


def test_a_pipeline_stage_holds_its_micro_batches_in_flight_whatever_the_replica_count():
    """Megatron on 1024 GPUs, TP 8 x PP 2 x DP 64, 16 sequences per replica in
    micro-batches of one, full recompute: stage 0 holds 2 micro-batches (1F1B) of its 21
    layers' inputs (2 s h bytes each) and one layer rebuilt; the replica's batch, smaller
    than the replica count, is already one replica's."""
    info = registry.get("megatron")
    options = info.parse_options({"tp": 8, "pp": 2, "dp": 64, "micro_batch_size": 1,
                                  "recompute": "full"})
    fp = footprint.footprint(info, GPT80, 1024, 16, "full", options)
    inputs = 2 * 2048 * 12288 * 21 * 2
    rebuilt = footprint.layer_activation_bytes(GPT80, 1, "none", 8, False)
    assert fp.activations == pytest.approx(inputs + rebuilt)
    assert footprint.footprint(info, GPT80, 1024, 128, "full", options).activations == \
        pytest.approx(fp.activations)
    # parameters, gradients and Adam state: 16 bytes for each of 80B / 16 parameters
    assert fp.params + fp.grads + fp.optimizer == pytest.approx(16 * GPT80.params / 16)


def test_megatron_fits_axonns_80b_on_40gb_a100s_as_the_paper_ran_it():
    """The AxoNN paper trained Megatron-LM on GPT-80B over 1024 A100 40 GB: with
    recompute, a layout of it fits (here TP 32 x PP 2)."""
    info = registry.get("megatron")
    options = info.parse_options({"tp": 32, "pp": 2, "dp": 16, "micro_batch_size": 1,
                                  "recompute": "full"})
    fp = footprint.footprint(info, GPT80, 1024, 64, "full", options)
    assert footprint.check(fp, devices.device("a100-40gb")).fits
