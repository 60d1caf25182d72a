"""The software P4 switch: Linux interfaces in, the P4 target in the middle, the egress
model and Linux interfaces out. It is the *device* the P4Runtime server serves.

One thread runs :meth:`SoftwareSwitch.run`: it waits (``poll``) for frames on any port
or for the next egress release time, reads a batch per ready port, runs each frame
through the target and hands the outputs to the egress model of their port. A native
target serves every port in one call per wake-up, straight from the ports' receive rings
when nothing needs the frames in Python (no input capture, no debug log): it sweeps the
rings until they are empty (or a budget of frames has run) and sends what leaves by an
unshaped port without an output capture itself, one sendmmsg per sweep across ports, so
such a frame never becomes a Python object and Python runs once per wake-up, not once
per port. With nothing shaped by the switch, no input capture and no debug log, the
whole loop runs in native code (``NativeTarget.run_loop``: wait, sweep, send, again) and
comes back to Python only for Python's work: outputs it cannot send (packet-ins, ports
without a socket), digests, log lines, or the wake-up pipe (stop, a stats request, a
thread wanting :attr:`lock`). :meth:`SoftwareSwitch.loop_stats` counts the wake-ups,
the native loop's turns and what the native calls did (logged when the switch stops);
:meth:`SoftwareSwitch.stats` adds the loop thread's CPU time, the ports' frames and the
drops, written on request (testbed/switch/stats.py). Frames Python holds leave in
batches too (``Port.send_many``) when the start-up probe (testbed/switch/transmit.py)
found sendmmsg works. The P4Runtime server calls :meth:`load_pipeline`,
:meth:`packet_out` and the target's control-plane methods from its own threads;
everything touching the target or the egress models holds :attr:`lock`
(testbed/switch/loop_lock.py), taken once per batch on the packet path and held by the
native loop while it runs: another thread taking it wakes the loop, which leaves native
code and lets it in before it goes back. A port whose socket reports an error (its
interface down or deleted) is looked at once per event: a deleted interface's port is no
longer watched, with one warning, and what is sent to it is counted as tx errors.
"""
from __future__ import annotations

import logging
import os
import select
import threading
import time

from testbed.errors import TrainetError
from testbed.p4.entries import ControlPlaneError
from testbed.p4.native.target import LOOP_PORT_ERROR, LOOP_WAKE
from testbed.switch import stats as switch_stats
from testbed.switch.egress import NO_SHAPE, EgressPort, Shape
from testbed.switch.loop_lock import LoopLock
from testbed.switch.pcap import PcapWriter
from testbed.switch.ports import Port, shared_sender
from testbed.switch.transmit import choose

BATCH = 64
# what poll reports for a socket in error (its interface down or deleted) or closed
POLL_FAILED = select.POLLERR | select.POLLHUP | select.POLLNVAL
# With delay lines to serve, read fewer frames between two release checks: 16 frames of
# pipeline work (~10 us each) keep a release less than 0.2 ms late.
SHAPED_BATCH = 16
# Frames one native call over every port's ring runs at most before the loop looks at
# the wake-up pipe again (about a millisecond of pipeline work).
RING_BUDGET = 1024


class _SwitchPort:
    """A port with its egress model and captures."""

    def __init__(self, port: Port, shape: Shape, pcap_dir: str | None, queues: int):
        self.port = port
        self.egress = EgressPort(shape, queues=queues)
        self.passthrough = shape.passthrough
        self.pcap_in = self.pcap_out = None
        if pcap_dir:
            self.pcap_in = PcapWriter(os.path.join(pcap_dir, f"{port.ifname}_in.pcap"))
            self.pcap_out = PcapWriter(os.path.join(pcap_dir, f"{port.ifname}_out.pcap"))


class SoftwareSwitch:
    def __init__(self, ports: dict, *, device_id: int = 0, cpu_port: int | None = None,
                 shapes: dict | None = None, pcap_dir: str | None = None,
                 log: logging.Logger | None = None, dump_bytes: int = 0,
                 backend: str = "auto", priority_queues: int = 1):
        """``ports``: {port number: interface name}; ``shapes``: {port number: Shape};
        ``dump_bytes``: log that many bytes of every frame in and out at info level
        (simple_switch's --dump-packet-data); ``backend``: the P4 target's
        (testbed.p4.targets: python, native or auto); ``priority_queues``: egress queues
        per port, chosen by standard_metadata.priority (simple_switch's --priority-queues)."""
        self.device_id = device_id
        self.backend = backend
        self.priority_queues = priority_queues
        self.cpu_port = cpu_port
        self.log = log or logging.getLogger(f"trainet.switch.{device_id}")
        self.target = None
        self.program_file = None          # the file of the first pipeline, if it came from one
        self.packet_in_handler = None     # callable(frame: bytes), set by the P4Runtime server
        self._closed = False
        self.lock = LoopLock(self._wake)   # its wake-up pipe opens with the ports
        self.drops = {"no_pipeline": 0, "pipeline_error": 0, "unknown_port": 0,
                      "no_packet_in_handler": 0}
        shapes = shapes or {}
        self._check_config(ports, shapes, cpu_port, pcap_dir)
        self._ports: dict[int, _SwitchPort] = {}
        try:
            for port_no, ifname in sorted(ports.items()):
                self._ports[port_no] = _SwitchPort(
                    Port(port_no, ifname), shapes.get(port_no, NO_SHAPE),
                    pcap_dir, priority_queues)
        except BaseException:
            self._close_ports()
            raise
        self._by_fd = {sp.port.fileno(): sp for sp in self._ports.values()}
        self._shaped = [sp for sp in self._ports.values() if not sp.passthrough]
        self._direct = []         # ports a native target sends on itself
        self._shared_tx = None    # one packet socket that sends for all of them
        self.gone = set()         # ports whose interface was deleted: no longer watched
        self.transmit, line = choose(next(iter(self._ports.values())).port.fileno())
        (self.log.info if self.transmit else self.log.warning)("%s", line)
        self.transmit_line = line
        for sp in self._ports.values():
            sp.port.transmit = self.transmit
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._stopping = False
        self.wakeups = 0          # the packet loop's returns from poll
        self.native_turns = 0     # returns from the loop in native code (run_loop)
        self.stats_path = None    # where :meth:`request_stats` has the loop write counters
        self._stats_wanted = False
        self._snapshots = 0
        self._loop_tid = None     # the packet loop's thread, once it runs
        self._wall_offset_ns = time.time_ns() - time.monotonic_ns()
        self._dump_bytes = dump_bytes
        self._debug = self.log.isEnabledFor(logging.DEBUG) or dump_bytes > 0

    @staticmethod
    def _check_config(ports, shapes, cpu_port, pcap_dir) -> None:
        if not ports:
            raise TrainetError("switch: no ports; add at least one -i PORT@IFACE")
        seen = {}
        for port_no, ifname in ports.items():
            if ifname in seen:
                raise TrainetError(f"switch: interface {ifname} is given to ports "
                                   f"{seen[ifname]} and {port_no}; use each interface once")
            seen[ifname] = port_no
        if cpu_port is not None and cpu_port in ports:
            raise TrainetError(f"switch: --cpu-port {cpu_port} is also a data port "
                               f"({ports[cpu_port]}); choose another number")
        for port_no in shapes:
            if port_no not in ports:
                raise TrainetError(f"switch: --port-shape for port {port_no}, which is not "
                                   f"a port of this switch; add -i {port_no}@IFACE")
        if pcap_dir and not os.path.isdir(pcap_dir):
            raise TrainetError(f"switch: --pcap {pcap_dir}: no such directory; create it")

    # ------------------------------------------------------------ device API
    def load_pipeline(self, program) -> None:
        """Replace the forwarding pipeline by a fresh target for ``program`` (tables,
        registers and PRE state start empty, as after SetForwardingPipelineConfig)."""
        from testbed.p4.targets import make_target
        self.install_target(make_target(program, self.backend, cpu_port=self.cpu_port,
                                        log=self.log.getChild("pipeline"),
                                        priority_queues=self.priority_queues))

    def install_target(self, target) -> None:
        with self.lock:
            self._count_direct()           # what the target being replaced sent
            self.target = target
            self._direct = []
            if (self.transmit is not None and hasattr(target, "send_directly")
                    and not self._debug):
                # unshaped ports without an output capture: the native pipeline sends
                self._direct = [sp for sp in self._ports.values()
                                if sp.passthrough and sp.pcap_out is None]
                for sp in self._direct:
                    target.send_directly(sp.port.port_no, sp.port.fileno())
                if self._direct and hasattr(target, "send_shared"):
                    if self._shared_tx is None:
                        self._shared_tx = shared_sender(len(self._ports))
                    target.send_shared(self._shared_tx.fileno(), {
                        sp.port.port_no: sp.port.ifindex for sp in self._direct})
                for port_no in self.gone:
                    target.port_gone(port_no)
        self.log.info("pipeline installed (%s backend)", getattr(target, "backend", "custom"))

    def packet_out(self, frame: bytes) -> None:
        """A frame from the controller: it enters the pipeline on the CPU port."""
        if self.cpu_port is None:
            raise ControlPlaneError("FAILED_PRECONDITION",
                                    "packet-out needs a CPU port; start the switch with "
                                    "--cpu-port")
        if self.target is None:
            raise ControlPlaneError("FAILED_PRECONDITION",
                                    "no forwarding pipeline; send "
                                    "SetForwardingPipelineConfig first")
        with self.lock:
            now = time.monotonic_ns()
            packet_ins = self._process(self.cpu_port, [frame], now)
        self._deliver_packet_ins(packet_ins)
        self._wake()

    def _count_direct(self) -> None:
        """Move what the native pipeline sent on the direct ports into the ports' and
        egress models' counters (read when asked, not per batch)."""
        if not self._direct:
            return
        for port_no, (sent, nbytes, refused, refused_bytes) in \
                self.target.direct_counts().items():
            sp = self._ports[port_no]
            sp.egress.count_passthrough(sent + refused, nbytes + refused_bytes)
            sp.port.tx_packets += sent
            sp.port.tx_errors += refused

    def drop_counts(self) -> dict:
        """Drops by reason: the target's, the switch's and the egress models'."""
        with self.lock:
            self._count_direct()
            counts = dict(self.target.drop_counts) if self.target is not None else {}
            for reason, n in self.drops.items():
                counts[reason] = counts.get(reason, 0) + n
            counts["tail_drop"] = sum(sp.egress.drops["tail_drop"] for sp in self._ports.values())
            counts["loss"] = sum(sp.egress.drops["loss"] for sp in self._ports.values())
            counts["tx_error"] = sum(sp.port.tx_errors for sp in self._ports.values())
            counts["rx_overrun"] = sum(sp.port.read_overruns() for sp in self._ports.values())
            counts["rx_truncated"] = sum(sp.port.rx_truncated for sp in self._ports.values())
        return counts

    def port_counters(self) -> dict:
        """{port: {rx_packets, tx_packets, tx_bytes, queued}}."""
        with self.lock:
            self._count_direct()
            return {n: {"rx_packets": sp.port.rx_packets, "tx_packets": sp.egress.sent_packets,
                        "tx_bytes": sp.egress.sent_bytes, "queued": sp.egress.pending()}
                    for n, sp in self._ports.items()}

    # ------------------------------------------------------------ packet loop
    def run(self) -> None:
        """Forward until :meth:`stop` is called."""
        poller = select.poll()
        for fd in (*self._by_fd, self._wake_r):
            poller.register(fd, select.POLLIN)
        by_fd = self._by_fd
        batch = SHAPED_BATCH if self._shaped else BATCH
        budget = batch * len(self._ports) if self._shaped else RING_BUDGET
        # the ports whose rings a native target reads in place (no input capture)
        rings = [(sp.port, sp.port.port_no) for sp in self._ports.values()
                 if sp.pcap_in is None]
        ring_ports = [by_fd[port.fileno()] for port, _ in rings]
        ring_fds = {port.fileno() for port, _ in rings}
        ring_set = None           # the rings prepared for the current native target
        # the whole loop in native code: every port's ring read in place, nothing shaped
        native_loop = not (self._debug or self._shaped or len(rings) < len(self._ports))
        self._loop_tid = threading.get_native_id()
        self.lock.loop_thread = threading.get_ident()

        def unwatch(sp: _SwitchPort) -> None:
            """Stop reading ``sp`` (its interface is gone); the rings are set up again."""
            nonlocal ring_set
            fd = sp.port.fileno()
            poller.unregister(fd)
            del by_fd[fd]
            if fd in ring_fds:
                ring_fds.discard(fd)
                at = ring_ports.index(sp)
                del rings[at], ring_ports[at]
            if ring_set is not None:
                ring_set[1].release()
                ring_set = None

        try:
            while not self._stopping:
                if self._stats_wanted:
                    self._stats_wanted = False
                    self.write_stats()
                if native_loop and getattr(self.target, "loop_ready", bool)():
                    ring_set, failed = self._native_turn(rings, ring_ports, ring_set)
                    if failed is not None:
                        with self.lock:
                            if self._port_failed(failed):
                                unwatch(failed)
                    continue
                timeout = self._timeout()
                ready = poller.poll(None if timeout is None else timeout * 1e3)
                now = time.monotonic_ns()
                packet_ins = []
                self.wakeups += 1
                with self.lock:
                    for fd, events in ready:
                        sp = by_fd.get(fd)
                        if sp is not None and events & POLL_FAILED and self._port_failed(sp):
                            unwatch(sp)
                    ready = [(fd, events) for fd, events in ready
                             if fd in by_fd or fd == self._wake_r]
                    target = self.target
                    serve = None if self._debug else getattr(target, "process_rings", None)
                    if serve is not None and any(fd in ring_fds for fd, _ in ready):
                        if ring_set is None or ring_set[0] is not target:
                            if ring_set is not None:
                                ring_set[1].release()
                            ring_set = (target, target.ring_set(rings))
                        outputs, counts = serve(ring_set[1], batch, budget)
                        for sp, (got, skipped) in zip(ring_ports, counts):
                            if got or skipped:
                                sp.port.count_received(got, skipped)
                        packet_ins += self._emit(outputs, now)
                    for fd, _ in ready:
                        sp = by_fd.get(fd)
                        if sp is None:
                            self._drain_wakeups()
                        elif serve is None or fd not in ring_fds:
                            frames = sp.port.recv_batch(batch)
                            if frames:
                                packet_ins += self._process(sp.port.port_no, frames, now)
                    if self._shaped:
                        self._release(time.monotonic_ns())
                if packet_ins:
                    self._deliver_packet_ins(packet_ins)
        finally:
            if ring_set is not None:
                ring_set[1].release()

    def _native_turn(self, rings: list, ring_ports: list, ring_set):
        """One turn of the loop in native code (NativeTarget.run_loop), which holds the
        lock until Python has work: outputs to emit, packet-ins, the wake-up pipe (a
        thread waiting for the lock, stop, stats) or a port's socket in error. Returns
        the ring set it used and the port in error (else None)."""
        failed = None
        self.lock.loop_acquire()
        try:
            target = self.target
            if target is None or not target.loop_ready():
                return ring_set, failed
            if ring_set is None or ring_set[0] is not target:
                if ring_set is not None:
                    ring_set[1].release()
                ring_set = (target, target.ring_set(rings))
            outputs, why, ran, polls, failed_ring = target.run_loop(
                ring_set[1], self._wake_r, BATCH, RING_BUDGET)
            self.wakeups += polls
            self.native_turns += 1
            for sp, (got, skipped) in zip(ring_ports, ran):
                if got or skipped:
                    sp.port.count_received(got, skipped)
            packet_ins = self._emit(outputs, time.monotonic_ns()) if outputs else []
            if why == LOOP_WAKE:
                self._drain_wakeups()
            elif why == LOOP_PORT_ERROR:
                failed = ring_ports[failed_ring]
        finally:
            self.lock.release()
        if packet_ins:
            self._deliver_packet_ins(packet_ins)
        return ring_set, failed

    def _port_failed(self, sp: _SwitchPort) -> bool:
        """``sp``'s socket reported an error or a hang-up: read the error (which clears
        it; unread, every wait would return at once and the loop would spin), say what
        happened, once per event, and whether the port is gone: its interface deleted
        (a host torn down), or an error that reading does not clear. A gone port is no
        longer read; what the pipeline sends it is dropped and counted as refused (its
        tx errors). An interface merely down keeps its port: it is read again when it
        comes back up."""
        port = sp.port
        error = port.take_error()
        what = os.strerror(error) if error else "hang-up with no error to read"
        if port.interface_present() and error:
            self.log.warning("port %d (%s): %s: the interface is down; still watched, "
                             "frames sent to it meanwhile are refused", port.port_no,
                             port.ifname, what)
            return False
        self.gone.add(port.port_no)
        if hasattr(self.target, "port_gone") and sp in self._direct:
            self.target.port_gone(port.port_no)
        self.log.warning("port %d (%s): %s: %s; the port is no longer watched, frames sent "
                         "to it are dropped and counted as tx errors", port.port_no,
                         port.ifname, what,
                         "the interface was deleted" if not port.interface_present()
                         else "the socket stays in error")
        return True

    def loop_stats(self) -> dict:
        """The packet loop's counters: wake-ups, and what a native target's calls over
        every port's ring did (testbed/p4/native/target.py's LOOP_STATS)."""
        stats = {"wakeups": self.wakeups, "native_turns": self.native_turns}
        with self.lock:
            if hasattr(self.target, "loop_stats"):
                stats.update(self.target.loop_stats())
        return stats

    def stats(self) -> dict:
        """The counters testbed/switch/stats.py describes, as one snapshot."""
        stats = self.loop_stats()
        stats["loop_cpu_ns"] = switch_stats.thread_cpu_ns(self._loop_tid)
        stats["ports"] = {str(n): {"frames_in": c["rx_packets"], "frames_out": c["tx_packets"]}
                          for n, c in self.port_counters().items()}
        stats["drops"] = self.drop_counts()
        return stats

    def request_stats(self) -> None:
        """Have the packet loop write :meth:`stats` to :attr:`stats_path` at its next turn
        (safe from a signal handler: the loop, not the handler, reads the counters)."""
        self._stats_wanted = True
        self._wake()

    def write_stats(self) -> None:
        if self.stats_path is None:
            return
        self._snapshots += 1
        switch_stats.write(self.stats_path, {"pid": os.getpid(), "snapshot": self._snapshots,
                                             **self.stats()})

    def stop(self) -> None:
        """Ask :meth:`run` to return; safe from a signal handler or another thread."""
        self._stopping = True
        self._wake()

    @property
    def wakeup_fd(self) -> int:
        """The write end of the loop's wake-up pipe (for ``signal.set_wakeup_fd``)."""
        return self._wake_w

    def _wake(self) -> None:
        """Make the loop's poll return (new egress releases, stop, a thread waiting for
        the lock); nothing once the pipe is closed (its numbers may be another file's)."""
        if self._closed:
            return
        try:
            os.write(self._wake_w, b"x")
        except OSError:      # the pipe is full (a wake-up is pending anyway) or closed
            pass

    def close(self) -> None:
        """Close sockets and flush captures."""
        if self._closed:
            return
        self._closed = True
        self._close_ports()
        os.close(self._wake_r)
        os.close(self._wake_w)
        self.log.info("stopped; drops by reason: %s; packet loop: %s", self.drop_counts(),
                      self.loop_stats())
        self.write_stats()

    def _close_ports(self) -> None:
        shared = getattr(self, "_shared_tx", None)     # None before the ports opened
        if shared is not None:
            shared.close()
        for sp in self._ports.values():
            sp.port.close()
            for writer in (sp.pcap_in, sp.pcap_out):
                if writer is not None:
                    writer.close()

    def _timeout(self):
        nexts = [t for t in (sp.egress.next_release_ns() for sp in self._shaped) if t is not None]
        if not nexts:
            return None
        return max(0, min(nexts) - time.monotonic_ns()) / 1e9

    def _drain_wakeups(self) -> None:
        try:
            while os.read(self._wake_r, 4096):
                pass
        except BlockingIOError:
            pass

    def _process(self, in_port: int, frames: list, now: int) -> list:
        """Run ``frames`` through the pipeline; emit the outputs; return packet-ins."""
        target = self.target
        debug = self._debug
        sp_in = self._ports.get(in_port)
        if sp_in is not None and sp_in.pcap_in is not None:
            ts = now + self._wall_offset_ns
            for frame in frames:
                sp_in.pcap_in.write(frame, ts)
        if target is None:
            self.drops["no_pipeline"] += len(frames)
            if debug:
                self.log.debug("port %d: %d frames dropped: no pipeline loaded",
                               in_port, len(frames))
            return []
        if debug:
            for frame in frames:
                self._log_frame("rx", in_port, frame)
        process_many = getattr(target, "process_many", None)
        if process_many is not None:
            outputs = process_many(frames, in_port)
        else:
            outputs = [out for frame in frames for out in self._process_one(frame, in_port)]
        return self._emit(outputs, now)

    def _emit(self, outputs: list, now: int) -> list:
        """Hand ``outputs`` to their ports; return the packet-ins."""
        debug = self._debug
        packet_ins = []
        ports = self._ports
        cpu_port = self.cpu_port
        out_now = {}     # passthrough port -> frames to send at the end of the batch
        for out in outputs:         # (port, frame) or, with priority queues, (.., priority)
            out_port, out_frame = out[0], out[1]
            sp = ports.get(out_port)
            if sp is not None:
                if sp.passthrough:
                    batch = out_now.get(sp)
                    if batch is None:
                        out_now[sp] = [out_frame]
                    else:
                        batch.append(out_frame)
                elif sp.egress.enqueue(out_frame, now, out[2] if len(out) > 2 else 0):
                    if debug:
                        self.log.debug("port %d: %d bytes queued in the egress model",
                                       out_port, len(out_frame))
                elif debug:
                    self.log.debug("port %d: %d bytes dropped by the egress model",
                                   out_port, len(out_frame))
            elif out_port == cpu_port:
                packet_ins.append(out_frame)
            else:
                self.drops["unknown_port"] += 1
                if debug:
                    self.log.debug("drop: egress port %d is not a port of this switch",
                                   out_port)
        for sp, batch in out_now.items():
            self._transmit(sp, batch, now)
            sp.egress.count_passthrough(len(batch), sum(map(len, batch)))
        return packet_ins

    def _process_one(self, frame: bytes, in_port: int) -> list:
        try:
            return self.target.process(frame, in_port)
        except Exception:
            self.drops["pipeline_error"] += 1
            self.log.exception("port %d: pipeline failed on a %d-byte frame (dropped): %s",
                               in_port, len(frame), frame.hex())
            return []

    def _transmit(self, sp: _SwitchPort, frames: list, now: int) -> None:
        if sp.pcap_out is None and not self._debug:
            sp.port.send_many(frames)
            return
        ts = now + self._wall_offset_ns
        for frame in frames:
            if sp.port.send(frame):
                if sp.pcap_out is not None:
                    sp.pcap_out.write(frame, ts)
                if self._debug:
                    self._log_frame("tx", sp.port.port_no, frame)
            elif self._debug:
                self.log.debug("tx port %d: kernel refused a %d-byte frame",
                               sp.port.port_no, len(frame))

    def _log_frame(self, direction: str, port: int, frame: bytes) -> None:
        if self._dump_bytes:
            self.log.info("%s port %d: %d bytes: %s", direction, port, len(frame),
                          frame[:self._dump_bytes].hex())
        else:
            self.log.debug("%s port %d: %d bytes", direction, port, len(frame))

    def _release(self, now: int) -> None:
        for sp in self._shaped:
            frames = sp.egress.pop_due(now)
            if frames:
                self._transmit(sp, frames, now)

    def _deliver_packet_ins(self, frames: list) -> None:
        handler = self.packet_in_handler
        if handler is None:
            with self.lock:
                self.drops["no_packet_in_handler"] += len(frames)
            return
        for frame in frames:
            try:
                handler(frame)
            except Exception:
                self.log.exception("packet-in handler failed")
