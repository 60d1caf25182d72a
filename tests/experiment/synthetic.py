"""Hand-made results directories in the layout of ``trainet run``, with known numbers."""
import json
from pathlib import Path

import yaml

SCALE = 1e-4
# variant -> strategy -> (compute_s, exposed_comm_s) per step
TIMES = {
    "bandwidth-100Gbit": {"ddp": (0.20, 0.30), "zero3": (0.25, 0.55)},
    "bandwidth-200Gbit": {"ddp": (0.20, 0.10), "zero3": (0.25, 0.25)},
}
BANDWIDTH = {"bandwidth-100Gbit": 100e9, "bandwidth-200Gbit": 200e9}
STEPS = 4
WORKERS = 3
SENT_PER_STEP = 2_000        # emulated bytes per rank and step


def step_record(step, rank, compute, exposed):
    return {"step": step, "rank": rank, "compute_s": compute, "comm_s": exposed + 0.05,
            "exposed_comm_s": exposed, "step_s": compute + exposed,
            "loss": 5.0 - 0.5 * step + 0.01 * rank, "logical_sent_bytes": SENT_PER_STEP,
            "logical_recv_bytes": SENT_PER_STEP, "nominal_sent_bytes": SENT_PER_STEP / SCALE,
            "wire_tx_bytes": SENT_PER_STEP + 300, "wire_rx_bytes": SENT_PER_STEP + 200,
            "mem_params_bytes": 1000 + rank, "mem_grads_bytes": 1000,
            "mem_optimizer_bytes": 2000, "nominal_mem_params_bytes": 1e7 + rank,
            "nominal_mem_grads_bytes": 1e7, "nominal_mem_optimizer_bytes": 2e7}


def make_results(root: Path, status: str = "completed", warmup_s: float = 9.0) -> Path:
    """Two variants x two strategies, one repetition, three ranks. Step 0 takes
    ``warmup_s`` longer (it must not count)."""
    root.mkdir(parents=True, exist_ok=True)
    variants = []
    for name, bw in BANDWIDTH.items():
        variants.append({"name": name, "bandwidth_bps": bw, "bottleneck_nominal_bps": bw,
                         "bottleneck_emulated_bps": bw * SCALE,
                         "port_rates_bps": {"s1-eth1": bw * SCALE, "s1-eth2": bw * SCALE}})
    config = {"experiment": {"name": "synthetic", "description": "Known numbers.",
                             "workload": {"model": "gpt", "mode": "shadow", "steps": STEPS},
                             "repetitions": 1},
              "workers": ["w1", "w2", "w3"], "strategies": ["ddp", "zero3"], "scale": SCALE,
              "variants": variants}
    (root / "config.yaml").write_text(yaml.safe_dump(config))
    (root / "status.json").write_text(json.dumps({"status": status}))
    for variant, strategies in TIMES.items():
        rate = BANDWIDTH[variant] * SCALE
        for strategy, (compute, exposed) in strategies.items():
            run = root / "runs" / variant / strategy / "rep0"
            (run / "metrics").mkdir(parents=True)
            for rank in range(WORKERS):
                lines = []
                for step in range(STEPS):
                    rec = step_record(step, rank, compute, exposed)
                    if step == 0:
                        rec["step_s"] += warmup_s
                        rec["compute_s"] += warmup_s
                    lines.append(json.dumps(rec))
                (run / "metrics" / f"rank{rank}.jsonl").write_text("\n".join(lines) + "\n")
            # port 1 runs at half its rate for 2 s, port 2 idles
            rows = ["time_s,interface,rx_bytes,tx_bytes"]
            for i in range(5):
                t = 100.0 + 0.5 * i
                rows.append(f"{t},s1-eth1,0,{int(i * 0.5 * rate * 0.5 / 8)}")
                rows.append(f"{t},s1-eth2,0,0")
            (run / "links.csv").write_text("\n".join(rows) + "\n")
    return root
