"""Mininet's start-up limits: one plain line where the system refuses them, no warning."""
from resource import RLIMIT_NOFILE

from mininet.net import Mininet

from testbed.net import limits


def _start(monkeypatch, refuse):
    def sysctl(name, value):
        if name in refuse:
            raise PermissionError(13, "Permission denied", name)

    def rlimit(resource, value):
        if resource == RLIMIT_NOFILE and "open files" in refuse:
            raise ValueError("not allowed to raise maximum limit")

    monkeypatch.setattr(Mininet, "inited", False)
    monkeypatch.setattr(limits, "ensureRoot", lambda: None)
    monkeypatch.setattr(limits, "sysctlTestAndSet", sysctl)
    monkeypatch.setattr(limits, "rlimitTestAndSet", rlimit)
    lines = []
    return limits.raise_limits(lines.append), lines


def test_refused_limits_are_named_in_one_line_and_mininet_does_not_warn(monkeypatch):
    refused = {"open files", "fs.file-max", "net.core.wmem_max", "kernel.pty.max"}
    failed, lines = _start(monkeypatch, refused)
    assert set(failed) == refused
    line, = lines
    assert "open files, fs.file-max, net.core.wmem_max and 1 more" in line
    assert "container" in line and "the run goes on" in line
    assert Mininet.inited                       # Mininet() will not run its fixLimits
    assert limits.raise_limits(lines.append) == [] and len(lines) == 1


def test_nothing_is_said_when_every_limit_is_raised(monkeypatch):
    failed, lines = _start(monkeypatch, set())
    assert failed == [] and lines == []
