"""A user's training script on an emulated host, as torchrun would run it, with its
steps recorded.

    python -m hosts.script_host --metrics-out results/run/metrics/rank0.jsonl \
        --init-timeout 120 -- train.py --epochs 1

The launcher (testbed/experiment/launch.py) sets torchrun's environment (RANK,
WORLD_SIZE, MASTER_ADDR, GLOO_SOCKET_IFNAME, ...). The script runs as ``__main__``
(runpy), with the collectives, DDP, backward and the optimizer's step instrumented
(hosts/script_metrics.py), so nothing in it changes. A script that has not initialised
torch.distributed within ``--init-timeout`` seconds, or finishes without ever doing so,
is stopped with one line saying so; an exception in the script is printed as Python
prints it and ends the rank with exit status 1; the steps recorded until then are kept.
"""
from __future__ import annotations

import argparse
import os
import runpy
import sys
import threading
import traceback
from pathlib import Path


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m hosts.script_host",
                                description=__doc__.splitlines()[0])
    p.add_argument("--metrics-out", required=True, metavar="FILE.jsonl")
    p.add_argument("--init-timeout", type=float, default=120.0, metavar="SECONDS",
                   help="how long the script may take to initialise torch.distributed")
    p.add_argument("script", help="the training script")
    p.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    return p.parse_args(argv)


def _label() -> str:
    return f"rank {os.environ.get('RANK', '?')}"


def _fail(text: str, code: int = 1) -> None:
    print(f"error: {_label()}: {text}", file=sys.stderr, flush=True)
    sys.stdout.flush()
    os._exit(code)       # gloo's threads may wait on a dead peer: do not join them


def _watch_init(script: str, timeout_s: float, finished: threading.Event) -> None:
    import torch.distributed as dist
    if not finished.wait(timeout_s) and not dist.is_initialized():
        _fail(f"{script} did not initialise torch.distributed within {timeout_s:g} s "
              "(torch.distributed.init_process_group); trainet runs scripts that train "
              "with torch.distributed")


def main(argv=None) -> int:
    args = parse_args(argv)
    script = Path(args.script)
    if not script.is_file():
        _fail(f"script {args.script} not found (working directory {os.getcwd()})")
    # c10d looks up peers' host names for its log lines; an emulated host reaches no
    # name server, and glibc's default wait (5 s x 2 tries) would stall each look-up.
    os.environ.setdefault("RES_OPTIONS", "timeout:1 attempts:1")
    import torch.distributed as dist

    from hosts import script_metrics
    recorder = script_metrics.Recorder(int(os.environ.get("RANK", "0")), Path(args.metrics_out),
                                       os.environ.get("GLOO_SOCKET_IFNAME"))
    script_metrics.install(recorder)
    finished = threading.Event()
    threading.Thread(target=_watch_init, args=(args.script, args.init_timeout, finished),
                     daemon=True).start()
    sys.argv = [str(script)] + args.args
    sys.path.insert(0, str(script.resolve().parent))
    code = 0
    try:
        runpy.run_path(str(script), run_name="__main__")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if e.code is not None and not isinstance(e.code, int):
            print(e.code, file=sys.stderr)
    except BaseException:
        traceback.print_exc()
        code = 1
    finished.set()
    world = int(os.environ.get("WORLD_SIZE", "1"))
    recorder.finish(world)
    if code:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    if not recorder.first_collective.is_set() and not dist.is_initialized() \
            and not recorder.rows:
        _fail(f"{args.script} finished without initialising torch.distributed; trainet "
              "runs scripts that train with torch.distributed")
    if not recorder.rows:
        print(f"warning: {_label()}: no optimizer step and no hooks.step call: no step "
              "records", file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)         # the script's process group may still hold gloo's threads


if __name__ == "__main__":
    sys.exit(main())
