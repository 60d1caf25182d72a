"""Record what a running network made, and remove it again, also after a crash.

Each bring-up writes ``<state dir>/run-<pid>.json`` (switch and host-shell PIDs, interface
names) before it creates anything, and updates it as it goes. ``trainet down`` reads
every such file and removes what is listed; processes are matched by the
``TRAINET_RUN`` marker in their environment (switches, and the workers and services an
experiment starts on the hosts) or their Mininet shell name (hosts), so a reused PID is
never killed by mistake. Every bring-up first removes what runs whose process is gone
left behind (``remove_orphans``), so a run killed with SIGKILL is cleaned by the next.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

STATE_DIR = Path(os.environ.get("TRAINET_STATE_DIR", "/run/trainet"))
RUN_MARKER = "TRAINET_RUN"


@dataclass
class RunState:
    run_id: str
    owner_pid: int
    owner_cmd: str = ""
    results_dir: str = ""
    switches: dict = field(default_factory=dict)      # node name -> pid
    hosts: dict = field(default_factory=dict)         # node name -> shell pid
    interfaces: list = field(default_factory=list)    # root-namespace interface names
    # cluster mode: server name -> {"server": Server fields, "interfaces": [...],
    # "shells": {node: pid}} of what the run made there (its root namespace)
    servers: dict = field(default_factory=dict)

    @property
    def path(self) -> Path:
        return STATE_DIR / f"run-{self.run_id}.json"

    def save(self) -> None:
        STATE_DIR.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(self), indent=1))
        tmp.replace(self.path)

    def forget(self) -> None:
        self.path.unlink(missing_ok=True)

    @classmethod
    def new(cls, results_dir: str) -> "RunState":
        pid = os.getpid()
        return cls(run_id=f"{pid}-{int(time.time() * 1000)}", owner_pid=pid,
                   owner_cmd=_cmdline(pid), results_dir=results_dir)


def _environ(pid: int) -> dict:
    try:
        raw = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return {}
    out = {}
    for item in raw.split(b"\0"):
        key, sep, value = item.partition(b"=")
        if sep:
            out[key.decode(errors="replace")] = value.decode(errors="replace")
    return out


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(
            errors="replace")
    except OSError:
        return ""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return not Path(f"/proc/{pid}/stat").read_text().split(") ")[-1].startswith("Z")


def stop_processes(pids: list[int], grace_s: float = 2.0) -> None:
    """SIGTERM, wait up to ``grace_s`` seconds, then SIGKILL what is left."""
    live = [p for p in pids if _alive(p)]
    for pid in live:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + grace_s
    while live and time.monotonic() < deadline:
        time.sleep(0.05)
        live = [p for p in live if _alive(p)]
    for pid in live:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def marked_processes(run_id: str | None = None) -> list[int]:
    """PIDs whose environment carries the run marker (of ``run_id``, or of any run)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        value = _environ(int(entry.name)).get(RUN_MARKER)
        if value is not None and (run_id is None or value == run_id):
            found.append(int(entry.name))
    return found


def _delete_interface(name: str) -> None:
    subprocess.run(["ip", "link", "del", name], capture_output=True)


def existing_interfaces() -> set[str]:
    out = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split(": ", 2)
        if len(parts) >= 2:
            names.add(parts[1].split("@")[0])
    return names


def wait_interfaces_gone(names: list[str], timeout_s: float = 5.0) -> list[str]:
    """Wait up to ``timeout_s`` for ``names`` to disappear; return those still present."""
    deadline = time.monotonic() + timeout_s
    while True:
        existing = existing_interfaces()
        present = [n for n in names if n in existing]
        if not present or time.monotonic() >= deadline:
            return present
        time.sleep(0.05)


def _is_cli(cmdline: str) -> bool:
    """A ``trainet up`` process (stopped by ``trainet down``); library users are not."""
    words = cmdline.split()
    return any(w.endswith("trainet") or w == "testbed.cli" for w in words[:3])


def remove_run(state: RunState) -> list[str]:
    """Remove everything ``state`` lists; return a line per kind of thing removed."""
    done = []
    for name, record in state.servers.items():
        done += [f"server {name}: {line}" for line in remove_on_server(state.run_id, record)]
    if (state.owner_pid != os.getpid() and _alive(state.owner_pid)
            and _cmdline(state.owner_pid) == state.owner_cmd and _is_cli(state.owner_cmd)):
        stop_processes([state.owner_pid])
        done.append(f"stopped the bring-up process {state.owner_pid}")
    marked = [p for p in state.switches.values()
              if _environ(p).get(RUN_MARKER) == state.run_id]
    marked += [p for p in marked_processes(state.run_id) if p not in marked]
    if marked:
        stop_processes(marked)
        done.append(f"stopped {len(marked)} switch or host process(es)")
    shells = [pid for name, pid in state.hosts.items()
              if f"mininet:{name}" in _cmdline(pid)]
    if shells:
        stop_processes(shells, grace_s=0.5)
        done.append(f"stopped {len(shells)} host shell(s) (their namespaces go with them)")
    present = existing_interfaces()
    leftover = [i for i in state.interfaces if i in present]
    for name in leftover:
        _delete_interface(name)
    if leftover:
        done.append(f"deleted {len(leftover)} interface(s) and their qdiscs")
    state.forget()
    return done


def load_runs() -> tuple[list[RunState], list[Path]]:
    """Every recorded run, and the state files that could not be read."""
    runs, broken = [], []
    if not STATE_DIR.is_dir():
        return runs, broken
    for path in sorted(STATE_DIR.glob("run-*.json")):
        try:
            runs.append(RunState(**json.loads(path.read_text())))
        except (OSError, ValueError, TypeError):
            broken.append(path)
    return runs, broken


def _orphaned(run_id: str) -> bool:
    """A run whose bring-up process is gone (run ids start with its PID)."""
    owner = run_id.split("-", 1)[0]
    return not owner.isdigit() or not _alive(int(owner))


def _stop_strays() -> list[str]:
    """Stop marked processes whose run is orphaned (its record may be gone)."""
    strays = [pid for pid in marked_processes() if _orphaned(_environ(pid).get(RUN_MARKER, ""))]
    if not strays:
        return []
    stop_processes(strays)
    return [f"stopped {len(strays)} unrecorded switch or host process(es)"]


def remove_orphans() -> list[str]:
    """Remove what runs whose bring-up process is gone (killed, crashed) left behind:
    their recorded switches, host shells (and so their namespaces), interfaces and
    marked processes. What a live run made is left alone."""
    report = []
    runs, _ = load_runs()
    for state in runs:
        if _orphaned(state.run_id) or _cmdline(state.owner_pid) != state.owner_cmd:
            report += [f"run {state.run_id}: {line}" for line in remove_run(state)]
    return report + _stop_strays()


def down(mininet_cleanup: bool = False) -> list[str]:
    """Remove every recorded run, then switch processes whose record is gone and whose
    bring-up process is dead.

    With ``mininet_cleanup`` (or when a state file is unreadable) Mininet's own
    ``mn -c`` cleanup runs as well; it removes every Mininet-style interface and
    process on the machine, not only ours.
    """
    report = []
    runs, broken = load_runs()
    for state in runs:
        for line in remove_run(state):
            report.append(f"run {state.run_id}: {line}")
    report += _stop_strays()
    for path in broken:
        path.unlink(missing_ok=True)
    if mininet_cleanup or broken:
        switches = switch_processes_by_command_line()
        if switches:
            stop_processes(switches)
            report.append(f"stopped {len(switches)} `trainet switch` process(es) found by "
                          "command line")
        from mininet.clean import cleanup
        cleanup()
        report.append("ran Mininet's cleanup (mn -c)")
    return report


def switch_processes_by_command_line() -> list[int]:
    """Every ``trainet switch`` / ``python -m testbed.cli switch`` process."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        words = _cmdline(int(entry.name)).split()
        for i, word in enumerate(words[:4]):
            if (word.endswith("trainet") or word == "testbed.cli") and \
                    words[i + 1:i + 2] == ["switch"]:
                found.append(int(entry.name))
                break
    return found


def remove_on_server(run_id: str, record: dict) -> list[str]:
    """Run :func:`remove_remote` on a server of a cluster run (``record`` as RunState
    keeps it); its report, or the line saying why the server could not be reached."""
    import shlex
    from testbed.net.cluster import Server
    server = Server(**record["server"])
    args = [run_id, "--dir", remote_base(run_id)]
    args += ["--interfaces", *record.get("interfaces", [])] if record.get("interfaces") else []
    args += ["--shells", *(f"{n}={p}" for n, p in record.get("shells", {}).items())] \
        if record.get("shells") else []
    try:
        done = server.run(server.python_line("testbed.net.cleanup " +
                                             " ".join(shlex.quote(a) for a in args)))
    except Exception as err:          # noqa: BLE001 - reported, the local cleanup goes on
        return [f"not reached ({err}); run `trainet down` there"]
    if done.returncode != 0:
        return [f"cleanup failed ({done.stderr.decode(errors='replace').strip()[-300:]}); "
                "run `trainet down` there"]
    return [line for line in done.stdout.decode(errors="replace").splitlines() if line]


def remote_base(run_id: str) -> str:
    """The directory a cluster run keeps on each server."""
    return f"/tmp/trainet-{run_id}"


def remove_remote(run_id: str, interfaces: list[str], shells: dict, base: str) -> list[str]:
    """On a server of a cluster run: stop its marked processes and node shells, delete
    its interfaces in the root namespace and its directory."""
    import shutil
    done = []
    procs = marked_processes(run_id)
    if procs:
        stop_processes(procs)
        done.append(f"stopped {len(procs)} process(es)")
    live = [pid for name, pid in shells.items() if f"mininet:{name}" in _cmdline(int(pid))]
    if live:
        stop_processes([int(p) for p in live], grace_s=0.5)
        done.append(f"stopped {len(live)} node shell(s)")
    leftover = [i for i in interfaces if i in existing_interfaces()]
    for name in leftover:
        _delete_interface(name)
    if leftover:
        done.append(f"deleted {len(leftover)} interface(s)")
    if base == remote_base(run_id) and Path(base).exists():
        shutil.rmtree(base, ignore_errors=True)
        done.append(f"removed {base}")
    return done


def main(argv=None) -> int:
    import argparse
    p = argparse.ArgumentParser(prog="python -m testbed.net.cleanup",
                                description="remove what a cluster run left on this server")
    p.add_argument("run_id")
    p.add_argument("--dir", required=True)
    p.add_argument("--interfaces", nargs="*", default=[])
    p.add_argument("--shells", nargs="*", default=[], metavar="NODE=PID")
    args = p.parse_args(argv)
    shells = dict(item.split("=", 1) for item in args.shells)
    for line in remove_remote(args.run_id, args.interfaces, shells, args.dir):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
