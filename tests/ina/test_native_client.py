"""The INA worker's C window loop (hosts/ina_client.c) against the Python Exchange: both
drive real UDP sockets to p4/ina.p4 on the software target, behind a relay that loses
and reorders packets with a seed; the sums must be exact and the same bit for bit."""
import contextlib
import random
import socket
import threading

import numpy as np
import pytest
import torch

from hosts import ina_native
from hosts import ina_fixedpoint as fx
from hosts.collectives.threads import run_ranks
from hosts.ina_allreduce import InaAllReduce, UdpTransport, reference_sum, run_exchange
from hosts.ina_session import FAST_AFTER, AggregationTimeout, Exchange, JobStream
from ina_fabric import JUMBO_LANES, SWITCH_MAC, load_ina_program, new_target, single_switch_job
from testbed.proto import ina

AGG = "10.0.255.1"
SLOTS = 8


@pytest.fixture(scope="module")
def program():
    return load_ina_program()


class UdpSwitch(threading.Thread):
    """The target behind a UDP socket on loopback: a worker's datagram enters on the
    worker's port, each output goes back to the socket of the worker on its port. Every
    datagram, either way, is lost with probability ``loss`` or, with probability
    ``reorder``, held back until after the next one."""

    def __init__(self, target, job, loss=0.0, reorder=0.0, seed=7, drop=None):
        super().__init__(daemon=True)
        self.target, self.job = target, job
        self.loss, self.reorder = loss, reorder
        self.drop = drop                # payload from a worker -> lose it (a chosen loss)
        self.rng = random.Random(seed)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.005)
        self.address = self.sock.getsockname()
        self.worker_at = {}             # worker's socket address -> ctl.Worker
        self.address_of = {}            # switch port -> worker's socket address
        self.held = None
        self.stopping = False

    def attach(self, worker, transport) -> None:
        transport.peer = self.address
        addr = transport.sock.getsockname()
        self.worker_at[addr] = worker
        self.address_of[worker.port] = addr

    def _pass(self, deliver, item) -> None:
        if self.rng.random() < self.loss:
            return
        if self.held is None and self.rng.random() < self.reorder:
            self.held = (deliver, item)
            return
        deliver(*item)
        if self.held is not None:
            (held_deliver, held_item), self.held = self.held, None
            held_deliver(*held_item)

    def _into_target(self, payload, addr) -> None:
        if self.drop is not None and self.drop(payload):
            return
        w = self.worker_at[addr]
        for port, frame in self.target.process(
                ina.frame(w.mac, SWITCH_MAC, w.ip, AGG, payload), w.port):
            self._pass(self.sock.sendto, (frame[ina.FRAME_OFFSET:], self.address_of[port]))

    def run(self):
        while not self.stopping:
            try:
                payload, addr = self.sock.recvfrom(65536)
            except socket.timeout:
                if self.held is not None:       # nothing came after it: let it go
                    (deliver, item), self.held = self.held, None
                    deliver(*item)
                continue
            self._pass(self._into_target, (payload, addr))

    def stop(self):
        self.stopping = True
        self.join(5)
        self.sock.close()


def run_workers(program, clients, work, loss=0.0, reorder=0.0, drop=None, lanes=ina.LANES):
    """Run ``work(i, transport)`` for each worker i (client ``clients[i]``) on threads
    over one switch (its program's packets of ``lanes`` words); return their results."""
    target = new_target(program)
    job = single_switch_job(target, n_workers=len(clients), slot_count=SLOTS, lanes=lanes)
    switch = UdpSwitch(target, job, loss, reorder, drop=drop)
    transports = []
    for w, client in zip(job.workers, clients):
        t = UdpTransport("127.0.0.1", bind="127.0.0.1", port=0, client=client)
        switch.attach(w, t)
        transports.append(t)
    switch.start()
    try:
        results = run_ranks(len(clients), lambda comm: work(comm.rank, transports[comm.rank]),
                            timeout_s=60, gloo=False)
    finally:
        switch.stop()
        for t in transports:
            t.close()
    return results


# chunks per exchange, one after another on each worker's stream: a partial window,
# several windows (both shadow sets, slots reused) and a single chunk
EXCHANGES = (5, 3 * SLOTS + 3, 1)


def lanes_of(worker: int) -> list:
    rng = np.random.default_rng(worker)
    return [rng.integers(-2**28, 2**28, (n, ina.LANES)).astype(np.int32) for n in EXCHANGES]


def exchanges(i, transport):
    stream = JobStream(1, i, SLOTS)
    out = []
    for k, lanes in enumerate(lanes_of(i)):
        ex = run_exchange(Exchange(stream, lanes, exponent=k - 1), transport)
        assert ex.done and ex.result_exponent == k - 1
        out.append((ex.result, ex.retransmissions))
    assert stream.next_chunk == sum(EXCHANGES) and stream.srtt is not None
    return out


@pytest.mark.parametrize("loss, reorder", [(0.0, 0.0), (0.05, 0.1)])
def test_native_python_and_mixed_workers_get_the_exact_sums(program, loss, reorder):
    exact = [sum(lanes_of(w)[k] for w in range(3)) for k in range(len(EXCHANGES))]
    runs = {}
    for clients in (("python",) * 3, ("native",) * 3, ("native", "python", "native")):
        runs[clients] = run_workers(program, clients, exchanges, loss, reorder)
    for clients, per_worker in runs.items():
        for results in per_worker:
            for k, (result, _) in enumerate(results):
                assert np.array_equal(result, exact[k]), (clients, k)
        if loss:
            assert sum(r for results in per_worker for _, r in results) > 0, clients


def test_float_all_reduce_is_bit_identical_across_clients_under_loss(program, monkeypatch):
    """The C client runs each all-reduce in one call of its own (no exchange of the
    step-by-step path) and gets the Python reference's sums bit for bit."""
    gen = torch.Generator().manual_seed(4)
    inputs = [torch.randn(3000, generator=gen) * 5 for _ in range(3)]
    calls = []
    for name in ("run", "all_reduce"):
        def counted(self, *args, _name=name, _real=getattr(ina_native.NativeLoop, name),
                    **kwargs):
            calls.append(_name)
            return _real(self, *args, **kwargs)
        monkeypatch.setattr(ina_native.NativeLoop, name, counted)

    def all_reduce(i, transport):
        t = inputs[i].clone()
        InaAllReduce(transport, 1, i, 3, SLOTS).all_reduce(t)
        return t

    python = run_workers(program, ["python"] * 3, all_reduce, loss=0.05, reorder=0.1)
    assert calls == []
    native = run_workers(program, ["native"] * 3, all_reduce, loss=0.05, reorder=0.1)
    assert calls == ["all_reduce"] * 3
    for t in python + native:
        assert torch.equal(t, python[0])
    exact = sum(x.double() for x in inputs)
    assert float((python[0].double() - exact).abs().max()) < 1e-5


def wide_range_inputs(dtype, blocks, workers=3, seed=9, lanes=ina.LANES):
    """Per worker, ``blocks`` packets of 16-bit lanes (packets of ``lanes`` words) and a
    partial one, each block's magnitude 2^-12 .. 2^6 (a gradient whose blocks differ by
    orders of magnitude)."""
    gen = torch.Generator().manual_seed(seed)
    per = ina.lanes_per_packet(16, lanes)
    n = blocks * per + 300
    magnitude = torch.pow(2.0, torch.arange(n) // per % 19 - 12.0)
    return [(torch.randn(n, generator=gen) * magnitude).to(dtype) for _ in range(workers)]


@pytest.mark.parametrize("dtype, lanes", [(torch.bfloat16, ina.LANES),
                                          (torch.float16, ina.LANES),
                                          (torch.bfloat16, JUMBO_LANES)])
def test_16_bit_gradients_equal_the_host_reference_bit_for_bit_under_loss(dtype, lanes):
    """bf16/fp16 tensors go in 16-bit lanes with an exponent per block: 20 blocks, more
    than the 8 slots, so blocks 8.. get theirs from the round before in their slot. Under
    5 % loss and 10 % reordering the sums of Python, C and mixed clients equal the
    switch's arithmetic done on the host, bit for bit, in packets of the default lane
    count and of a jumbo frame's (a program rendered for it)."""
    program = load_ina_program(lanes)
    per = ina.lanes_per_packet(16, lanes)
    inputs = wide_range_inputs(dtype, 20, lanes=lanes)

    def all_reduce(i, transport):
        reducer = InaAllReduce(transport, 1, i, 3, SLOTS, lanes=lanes)
        t = inputs[i].clone()
        reducer.all_reduce(t)
        return t, reducer.packets, reducer.retransmissions, reducer.resent_blocks

    reference = reference_sum(inputs, 3, 16, lanes).view(torch.int16)
    for clients in (["python"] * 3, ["native"] * 3, ["native", "python", "native"]):
        results = run_workers(program, clients, all_reduce, loss=0.05, reorder=0.1,
                              lanes=lanes)
        for t, packets, _, resent in results:
            assert t.dtype == dtype and torch.equal(t.view(torch.int16), reference), clients
            # 1 exponent packet and 21 chunks of `per` lanes, each sent at least once
            assert packets >= 1 + 21 and resent == 0
        assert sum(r for _, _, r, _ in results) > 0, clients
    # each block keeps its own precision: relative to its own largest sum, not the tensor's
    exact = sum(x.double() for x in inputs)
    got = results[0][0].double()
    for k in range(0, 20 * per, per):
        block = slice(k, k + per)
        e = fx.exponent_for(float(max(x[block].abs().max() for x in inputs)))
        assert float((got[block] - exact[block]).abs().max()) <= (
            fx.error_bound(e, 3, 16) + float(exact[block].abs().max())
            * torch.finfo(dtype).eps / 2)


@pytest.mark.parametrize("clients, lanes", [(["python"] * 3, ina.LANES),
                                            (["native"] * 3, ina.LANES),
                                            (["native"] * 3, JUMBO_LANES)])
def test_a_block_over_its_agreed_exponent_is_resent_never_summed_wrong(clients, lanes):
    """Worker 0 announces exponents one below what its blocks need, and its values are
    the largest, so the agreed exponent of most blocks is too small for it: it flags
    them, the switch marks their results, and every worker sends those blocks (and only
    those) again at the exponent worker 0 needs. The result is the host's reference (the
    true per-block exponents), bit for bit, under loss; the re-sends are counted."""
    from hosts.ina_allreduce import as_blocks
    program = load_ina_program(lanes)
    inputs = wide_range_inputs(torch.bfloat16, 12, lanes=lanes)
    inputs[0] = inputs[0] * 2

    def under_reported(blocks):
        return fx.block_exponents(blocks) - 1

    def all_reduce(i, transport):
        reducer = InaAllReduce(transport, 1, i, 3, SLOTS, lanes=lanes)
        if i == 0:
            reducer.block_exponents = under_reported
        t = inputs[i].clone()
        reducer.all_reduce(t)
        return t, reducer.resent_blocks

    blocks = [as_blocks(x.float().numpy(), 16, lanes) for x in inputs]
    agreed = np.max([under_reported(blocks[0])] + [fx.block_exponents(b) for b in blocks[1:]],
                    axis=0)
    overflowing = sum(not fx.quantize_checked(b, int(e), 3, 16)[1]
                      for b, e in zip(blocks[0], agreed))
    assert 0 < overflowing < len(agreed)             # 12 of 13 blocks
    reference = reference_sum(inputs, 3, 16, lanes).view(torch.int16)
    results = run_workers(program, clients, all_reduce, loss=0.05, reorder=0.1, lanes=lanes)
    assert [r for _, r in results] == [overflowing] * 3
    for t, _ in results:
        assert torch.equal(t.view(torch.int16), reference)


def test_a_lost_chunk_is_resent_after_three_later_results_not_after_a_timeout(program):
    """Both clients resend chunk 1 once three later chunks have results, without a
    timeout (none could fire within 5 s) and so without backing off. The Python
    reference sends the chunks of its slot in later laps of the window after their
    successors (each when its own predecessor's result is in) and resends them the same
    way (its rule counts later chunks by number); the C client sends chunks in order, so
    it resends only the lost copy."""
    def exchange(i, transport):
        stream = JobStream(1, i, SLOTS, timeout_s=5.0)
        ex = run_exchange(Exchange(stream, lanes_of(0)[1], 0), transport)
        return ex.result, ex.retransmissions, stream.backoff

    runs = {}
    for client in ("python", "native"):
        lost = []

        def lose_the_first_copy_of_chunk_1(payload):
            if ina.decode(payload)[0].chunk == 1 and not lost:
                lost.append(payload)
                return True
            return False

        ((result, retransmissions, backoff),) = run_workers(
            program, [client], exchange, drop=lose_the_first_copy_of_chunk_1)
        assert lost and np.array_equal(result, lanes_of(0)[1]) and backoff == 1
        runs[client] = retransmissions
    n = len(lanes_of(0)[1])
    assert runs["native"] == 1
    assert runs["python"] == sum(1 for c in range(1, n, SLOTS) if c + FAST_AFTER < n)


def test_native_client_gives_up_naming_what_is_missing():
    silent = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)     # never answers
    silent.bind(("127.0.0.1", 0))
    transport = UdpTransport("127.0.0.1", bind="127.0.0.1", port=0, client="native")
    transport.peer = silent.getsockname()
    stream = JobStream(1, 0, 4, timeout_s=0.005, give_up_s=0.05)
    ex = Exchange(stream, np.zeros((6, ina.LANES), dtype=np.int32), 0)
    try:
        with pytest.raises(AggregationTimeout, match=r"job 1 worker 0: no result for "
                           r"0\.\d s \(6 of 6 chunks missing\); check that the switch"):
            run_exchange(ex, transport)
    finally:
        transport.close()
        silent.close()
    assert ex.retransmissions > 0 and stream.backoff > 1     # timeouts backed off


def test_the_c_client_opens_its_window_four_chunks_first_then_in_order():
    """Against a peer that never answers, the C client sends chunks 0-3 (of a window of
    16) and then only resends them: no chunk past the first four leaves before a result."""
    silent = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    silent.bind(("127.0.0.1", 0))
    silent.settimeout(0.5)
    transport = UdpTransport("127.0.0.1", bind="127.0.0.1", port=0, client="native")
    transport.peer = silent.getsockname()
    stream = JobStream(1, 0, 16, timeout_s=0.005, give_up_s=0.05)
    try:
        with pytest.raises(AggregationTimeout):
            run_exchange(Exchange(stream, np.zeros((20, ina.LANES), dtype=np.int32), 0),
                         transport)
        chunks = []
        with contextlib.suppress(socket.timeout):
            while True:
                chunks.append(ina.decode(silent.recv(65536))[0].chunk)
    finally:
        transport.close()
        silent.close()
    assert chunks[:4] == [0, 1, 2, 3] and len(chunks) > 4 and set(chunks) == {0, 1, 2, 3}


def test_without_a_compiler_auto_falls_back_to_python_with_one_line(monkeypatch, capsys):
    from testbed.p4.native.build import NoCompiler
    monkeypatch.setenv("CC", "/nonexistent/cc")
    ina_native._loop.cache_clear()
    ina_native._library.cache_clear()
    try:
        assert ina_native.loop("auto") is None
        assert ina_native.loop("auto") is None
        lines = capsys.readouterr().err.splitlines()
        assert len(lines) == 1 and "runs its window loop in Python" in lines[0]
        with pytest.raises(NoCompiler):
            ina_native.loop("native")
    finally:
        ina_native._loop.cache_clear()
        ina_native._library.cache_clear()


def test_an_unknown_client_is_refused_naming_the_choices():
    from testbed.errors import TrainetError
    with pytest.raises(TrainetError, match="INA client 'fast': choose one of auto, native, "
                       "python"):
        UdpTransport("127.0.0.1", bind="127.0.0.1", port=0, client="fast")


def test_the_c_client_s_constants_are_the_protocol_s():
    """hosts/ina_client.c writes the header by hand: its constants are those of
    testbed/proto/ina.py and hosts/ina_fixedpoint.py."""
    import re
    source = ina_native.SOURCE.read_text()
    defines = {name: int(value, 0) for name, value in
               re.findall(r"^#define (\w+) \(?(-?(?:0x)?[0-9A-Fa-f]+)\)?$", source, re.M)}
    expected = {"MAX_LANES": ina.MAX_LANES, "HEADER_BYTES": ina.HEADER_BYTES,
                "FLAG_GRADIENT": ina.FLAG_GRADIENT, "FLAG_RESULT": ina.FLAG_RESULT,
                "FLAG_RETRANSMIT": ina.FLAG_RETRANSMIT, "FLAG_LANES16": ina.FLAG_LANES16,
                "FLAG_OVERFLOW": ina.FLAG_OVERFLOW, "FLAG_MAX": ina.FLAG_MAX,
                "SHADOW_BIT": ina.SHADOW_BIT, "GROUP_WORDS": ina.GROUP_WORDS,
                "EXPONENT_MIN": fx.EXPONENT_MIN, "EXPONENT_MAX": fx.EXPONENT_MAX}
    assert {k: defines.get(k) for k in expected} == expected
    # the header's field order, as the C client writes it: bytes 6 and 7
    assert [f.name for f in ina.INA.fields_desc][5:7] == ["exponent", "next_exponent"]


@pytest.mark.parametrize("clients", [["python"] * 3, ["native"] * 3,
                                     ["native", "python", "native"]])
def test_a_tensors_last_block_and_its_exponent_round_send_only_the_groups_they_need(clients):
    """One job, tensors of several lengths one after another: a bf16 tensor of two full
    blocks and 40 values (its last packet and its exponent round of 3 blocks: one group
    each), an fp32 one of 300 values (256 words and 44: two groups) and a full-size one.
    Slots see rounds of other lengths in turn; under loss and reordering every result
    equals the host's reference bit for bit, and every packet a worker sent was as long
    as its groups, never full size when fewer groups do."""
    program = load_ina_program()
    per16 = ina.lanes_per_packet(16)
    gen = torch.Generator().manual_seed(11)
    sizes = [(2 * per16 + 40, torch.bfloat16), (300, torch.float32),
             (4 * per16, torch.bfloat16)]
    inputs = [[(torch.randn(n, generator=gen) * 3).to(dtype) for _ in range(3)]
              for n, dtype in sizes]
    sent = []

    def record(payload):
        sent.append((len(payload), ina.decode(payload)[0]))
        return False

    def all_reduce(i, transport):
        reducer = InaAllReduce(transport, 1, i, 3, SLOTS)
        out = []
        for xs in inputs:
            t = xs[i].clone()
            reducer.all_reduce(t)
            out.append(t)
        return out

    results = run_workers(program, clients, all_reduce, loss=0.05, reorder=0.1, drop=record)
    for k, xs in enumerate(inputs):
        bits = 16 if xs[0].dtype == torch.bfloat16 else 32
        as_int = torch.int16 if bits == 16 else torch.int32
        reference = reference_sum(xs, 3, bits).view(as_int)
        assert all(torch.equal(r[k].view(as_int), reference) for r in results), k
    full = ina.payload_bytes(ina.LANES)
    one, two = ina.payload_bytes(ina.GROUP_WORDS), ina.payload_bytes(2 * ina.GROUP_WORDS)
    lengths = {size for size, _ in sent}
    assert lengths == {full, one, two}
    assert all(h.groups == ina.groups_of((size - ina.HEADER_BYTES) // 4) for size, h in sent)
    exponent_rounds = {size for size, h in sent if h.flags & ina.FLAG_MAX}
    assert exponent_rounds == {one}          # 3, 2 and 4 blocks: one group each


def _ties_and_neighbours(dtype) -> np.ndarray:
    """float64 values at and next to every rounding boundary of ``dtype`` (the midpoints
    between neighbours, where ties go to even and where rounding to float32 first
    decides), over its whole range, subnormals and overflow to inf included."""
    if dtype == torch.float16:
        steps = np.arange(0x7C00, dtype=np.uint16).view(np.float16).astype(np.float64)
    else:
        steps = (np.arange(0x7F80, dtype=np.uint32) << 16).view(np.float32).astype(np.float64)
    mids = (steps[:-1] + steps[1:]) / 2
    near = np.concatenate([mids, mids * (1 + 2.0**-40), mids * (1 - 2.0**-40),
                           mids * (1 + 2.0**-20), steps, [steps[-1] * 1.01, 1e300]])
    return np.concatenate([near, -near])


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float32])
def test_the_c_client_reads_and_rounds_every_type_as_torch_does(dtype):
    """The whole all-reduce in C reads the tensor's memory and writes the sums into it:
    every bf16 and fp16 value reads as torch's float32 of it, and float64 sums round to
    the type as torch rounds a float64 tensor (through float32, ties to even), at every
    rounding boundary of the type and next to it."""
    loop = ina_native.loop("native")
    ffi, lib = loop.ffi, loop.lib
    code = ina_native.DTYPE_CODES[{torch.bfloat16: "bf16", torch.float16: "fp16",
                                   torch.float32: "fp32"}[dtype]]
    if dtype != torch.float32:
        every = torch.from_numpy(np.arange(1 << 16, dtype=np.uint16).view(np.int16))
        tensor = every.view(dtype)
    else:
        tensor = torch.from_numpy(np.random.default_rng(3).standard_normal(1 << 16)
                                  .astype(np.float32))
    read = np.zeros(tensor.numel(), np.float32)
    lib.ina_load(code, ffi.cast("void *", tensor.data_ptr()),
                 ffi.from_buffer("float[]", read, require_writable=True), tensor.numel())
    expected = tensor.to(torch.float32).numpy()
    nan = np.isnan(expected)
    assert np.array_equal(np.isnan(read), nan)
    assert np.array_equal(read[~nan].view(np.int32), expected[~nan].view(np.int32))

    sums = _ties_and_neighbours(torch.float16 if dtype == torch.float16 else torch.bfloat16)
    written = torch.zeros(sums.size, dtype=dtype)
    lib.ina_store(code, ffi.from_buffer("double[]", sums),
                  ffi.cast("void *", written.data_ptr()), sums.size)
    as_int = torch.int32 if dtype == torch.float32 else torch.int16
    assert torch.equal(written.view(as_int), torch.from_numpy(sums).to(dtype).view(as_int))


def test_a_value_that_is_not_finite_is_refused_before_any_packet_leaves():
    """A NaN in a tensor: the C client's whole all-reduce sends nothing and the error is
    the reference's, naming the problem; the stream's chunk numbers do not move."""
    silent = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    silent.bind(("127.0.0.1", 0))
    silent.settimeout(0.2)
    transport = UdpTransport("127.0.0.1", bind="127.0.0.1", port=0, client="native")
    transport.peer = silent.getsockname()
    reducer = InaAllReduce(transport, 1, 0, 2, SLOTS)
    tensor = torch.ones(3000, dtype=torch.bfloat16)
    tensor[2500] = float("nan")
    try:
        with pytest.raises(ValueError, match="cannot aggregate non-finite values"):
            reducer.all_reduce(tensor)
        with pytest.raises(socket.timeout):
            silent.recv(65536)
    finally:
        transport.close()
        silent.close()
    assert reducer.stream.next_chunk == 0 and reducer.packets == 0
