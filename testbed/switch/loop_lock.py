"""The switch's lock, shared by its packet loop and the threads that write its state.

A native packet loop (``NativeTarget.run_loop``) holds the lock while it waits in
``epoll_wait()`` for frames: the pipeline's tables, registers and counters are only ever touched
by one thread at a time, and the loop does not take and release a lock per wake-up. Any
other thread that wants the lock first writes to the loop's wake-up pipe, so the loop
leaves native code and lets it in; the loop, before it takes the lock again, waits until
every such waiting thread has had its turn (a writer is never starved by the loop taking
the lock straight back).
"""
from __future__ import annotations

import threading


class LoopLock:
    """A reentrant lock; ``with lock:`` from any thread but the loop's wakes the loop."""

    def __init__(self, wake):
        self._lock = threading.RLock()
        self._turns = threading.Condition(threading.Lock())
        self._waiting = 0
        self._wake = wake
        self.loop_thread = None       # threading.get_ident() of the packet loop, once it runs

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        """As ``threading.RLock.acquire``: False when ``timeout`` seconds passed first."""
        if threading.get_ident() == self.loop_thread or self._lock._is_owned():
            return self._lock.acquire(blocking, timeout)
        with self._turns:
            self._waiting += 1
        try:
            self._wake()
            return self._lock.acquire(blocking, timeout)
        finally:
            with self._turns:
                self._waiting -= 1
                if not self._waiting:
                    self._turns.notify_all()

    def release(self) -> None:
        self._lock.release()

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self._lock.release()

    def loop_acquire(self) -> None:
        """The packet loop's acquire: after every thread waiting for the lock got it."""
        with self._turns:
            while self._waiting:
                self._turns.wait()
        self._lock.acquire()
