"""``trainet bench overlap``: what AxoNN's overlap switches hide.

8 shadow ranks of the ``axonn`` strategy run as threads of this process over gloo on
loopback (no network emulation: the collectives' speed is the machine's), once with
every overlap switch off (the baseline) and once per switch turned on, then all three
on; each row is the ranks' mean per step of the communication time, the part of it the
training thread waited for (exposed) and the step, with the exposed time's ratio to the
baseline's.
"""
from __future__ import annotations

from hosts import shadow
from hosts.collectives.threads import run_ranks
from hosts.strategies import registry
from testbed.errors import TrainetError

SWITCHES = ("overlap_all_gather", "overlap_all_reduce", "overlap_reduce_scatter")


def measure(grid: dict, switches: dict, args) -> dict:
    info = registry.get("axonn")
    options = info.parse_options({**grid, **switches})
    target = shadow.shadow_model(args.model)
    device = shadow.device(args.device)

    def body(comm):
        s = info.build("shadow", registry.Context(comm, info, options, target=target,
                                                  device=device, batch=args.replica_batch,
                                                  scale=args.scale, mfu=args.mfu))
        s.setup()
        return [s.step(None) for _ in range(args.steps)][1:]

    per_rank = run_ranks(8, body, timeout_s=120.0)
    metrics = [m for rank in per_rank for m in rank]

    def mean(key):
        return sum(getattr(m, key) for m in metrics) / len(metrics)

    return {"comm_s": mean("comm_s"), "exposed_s": mean("exposed_comm_s"),
            "step_s": mean("step_s")}


def main(args) -> int:
    g_r, g_c, g_d, g_data = (int(x) for x in args.grid.split("x"))
    grid = {"g_r": g_r, "g_c": g_c, "g_d": g_d, "g_data": g_data}
    global_batch = args.global_batch or 2 * g_data
    if global_batch < g_data or global_batch % g_data:
        raise TrainetError(f"--global-batch-size {global_batch} does not split over the "
                           f"grid's G_data={g_data} replicas; accepted: a multiple of {g_data}")
    args.replica_batch = global_batch // g_data
    off = {s: False for s in SWITCHES}
    cases = [("none (baseline)", off)] + [(s, {**off, s: True}) for s in SWITCHES] + \
        [("all three", {s: True for s in SWITCHES})]
    title = (f"axonn {args.grid}, shadow {args.model} on {args.device} at MFU {args.mfu}, "
             f"global batch {global_batch} ({args.replica_batch} per replica), "
             f"co-scaling {args.scale:g}, 8 ranks as threads on "
             f"loopback; means per step over steps 2..{args.steps}")
    if not args.json:
        print(title)
        print(f"{'overlap on':<24}{'comm':>10}{'exposed':>10}{'step':>10}"
              f"{'exposed/baseline':>18}")
    baseline, rows = None, []
    for name, switches in cases:
        r = measure(grid, switches, args)
        baseline = baseline or r["exposed_s"]
        rows.append({"overlap_on": name, "switches": switches, "comm_s": r["comm_s"],
                     "exposed_s": r["exposed_s"], "step_s": r["step_s"],
                     "exposed_over_baseline": r["exposed_s"] / baseline})
        if not args.json:
            print(f"{name:<24}{r['comm_s']:>9.3f}s{r['exposed_s']:>9.3f}s"
                  f"{r['step_s']:>9.3f}s{r['exposed_s'] / baseline:>18.2f}", flush=True)
    if args.json:
        import json
        print(json.dumps({"what": title, "rows": rows}, indent=1))
    return 0
