"""The ``trainet`` command.

Each verb names the module and function that implements it; modules are imported only
when their verb runs, so ``trainet p4 check`` does not pay for torch or grpc. A handler
receives the parsed arguments and returns the exit code.
"""
from __future__ import annotations

import argparse
import importlib
import sys

import testbed
from hosts import devices
from testbed.errors import run_command


CALIBRATION = {"metavar": "CAL", "help": "a calibration: file, results directory holding "
               "calibration.json, or stored name (default: uncalibrated)"}
BANDWIDTH_TABLE = {"metavar": "FILE", "help": "a bandwidth table of `trainet model measure`: "
                   "collectives over the placements it has take its measured latency and "
                   "bandwidth instead of the links' nominal figures"}


def utilisation(text: str) -> float:
    """An ``--mfu`` value: a fraction of the device's peak FLOP/s in (0, 1]."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"{text}: a fraction of the device's peak in (0, 1], "
                                         "e.g. 0.4")
    return value


class _Renamed(argparse.Action):
    """An old spelling of a flag: refused, naming the new one."""

    def __init__(self, option_strings, dest, new: str, **kwargs):
        self.new = new
        super().__init__(option_strings, dest, nargs=0, help=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        parser.error(f"{option_string} is now {self.new}")


def _renamed(p: argparse.ArgumentParser, **renames: str) -> None:
    """``_renamed(p, world="--gpus")``: ``--world`` is refused, naming ``--gpus``."""
    for old, new in renames.items():
        p.add_argument("--" + old.replace("_", "-"), action=_Renamed, new=new,
                       dest=f"renamed_{old}", default=argparse.SUPPRESS)


def _p4_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("program", help="P4_16 source, trainet-p4c's .json or BMv2 JSON")
    p.add_argument("-I", dest="include", action="append", default=[], metavar="DIR",
                   help="add DIR to the #include search path")
    p.add_argument("-D", dest="define", action="append", default=[], metavar="NAME[=VALUE]",
                   help="define a preprocessor macro")


def _backend_arg(p: argparse.ArgumentParser) -> None:
    from testbed.p4.targets import BACKEND_HELP, BACKENDS
    p.add_argument("--backend", choices=BACKENDS, default="auto", help=BACKEND_HELP)


def _cluster_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--servers", metavar="A,B", help="spread the network over these servers "
                   "(localhost: this machine; see README, Cluster mode)")
    p.add_argument("--placement", metavar="NAME|NODE=SERVER,...",
                   help="switch-bin (default: each switch with its hosts, switches spread "
                   "evenly), round-robin, or nodes pinned by name")
    p.add_argument("--link", choices=["ssh", "gre"],
                   help="tunnels between servers (default ssh)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="trainet", description="Network-emulation testbed for distributed training over "
        "P4 programmable networks.")
    parser.add_argument("--version", action="version", version=testbed.version_text())
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")

    p4 = verbs.add_parser("p4", help="P4_16 toolchain: check, P4Info, STF").add_subparsers(
        dest="p4verb", required=True, metavar="P4VERB")
    p = p4.add_parser("check", help="parse and type-check a program; print diagnostics")
    _p4_args(p)
    p.set_defaults(handler="testbed.p4.commands:check")
    p = p4.add_parser("info", help="write the program's P4Info")
    _p4_args(p)
    p.add_argument("-o", "--output", help="output file (.txt text format, else binary); "
                   "default: print text to stdout")
    p.set_defaults(handler="testbed.p4.commands:info")
    p = p4.add_parser("stf", help="run an STF test file against the program")
    _p4_args(p)
    p.add_argument("stf", help="STF test file")
    p.add_argument("-v", "--verbose", action="store_true", help="print every expectation")
    _backend_arg(p)
    p.set_defaults(handler="testbed.p4.commands:stf")

    p = verbs.add_parser("switch", help="run a software P4 switch on Linux interfaces")
    p.add_argument("program", nargs="?", help="P4_16 source file (v1model); omit with --no-p4")
    p.add_argument("-I", dest="include", action="append", default=[], metavar="DIR",
                   help="add DIR to the #include search path")
    p.add_argument("-D", dest="define", action="append", default=[], metavar="NAME[=VALUE]",
                   help="define a preprocessor macro")
    p.add_argument("-i", "--interface", action="append", default=[], metavar="PORT@IFACE",
                   help="attach interface IFACE as port PORT (repeat for each port)")
    p.add_argument("--device-id", type=int, default=0, help="P4Runtime device id")
    p.add_argument("--grpc-port", type=int, default=9559, help="P4Runtime TCP port")
    p.add_argument("--grpc-address", default="127.0.0.1",
                   help="P4Runtime listen address (0.0.0.0: every interface)")
    p.add_argument("--grpc-cert", metavar="PEM", help="serve P4Runtime over TLS with this "
                   "certificate (with --grpc-key)")
    p.add_argument("--grpc-key", metavar="PEM", help="the private key of --grpc-cert")
    p.add_argument("--grpc-client-ca", metavar="PEM", help="with TLS, admit only clients "
                   "whose certificate this CA signed")
    p.add_argument("--cpu-port", type=int, help="port number of packet-in/packet-out")
    p.add_argument("--pcap", metavar="DIR", help="write IFACE_in.pcap and IFACE_out.pcap "
                   "per port into DIR")
    p.add_argument("--log", metavar="FILE", help="log file (default: stderr)")
    p.add_argument("--stats", metavar="FILE", help="on SIGUSR1 and when stopping, write the "
                   "switch's counters (packet loop, its CPU time, frames per port, drops) "
                   "to FILE as JSON")
    p.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"],
                   help="debug logs every packet and the pipeline trace")
    p.add_argument("--no-p4", action="store_true",
                   help="start without a program; wait for SetForwardingPipelineConfig")
    p.add_argument("--port-shape", action="append", default=[], metavar="SPEC",
                   help="egress model of a port: PORT:rate=100mbit,burst=32kb,delay=5ms,"
                   "jitter=1ms,loss=1%%,reorder=0.5%%,queue=1000 (queue in packets, or bytes "
                   "with a unit: queue=256kb)")
    _backend_arg(p)
    p.add_argument("--priority-queues", type=int, default=1, metavar="N",
                   help="egress queues per port, served in strict priority by "
                   "standard_metadata.priority (0..N-1, higher first) on ports with a rate; "
                   "a packet of priority N or more is dropped, as in BMv2 (default 1)")
    p.set_defaults(handler="testbed.switch.commands:switch", log_flush=True, dump_packet_data=0)

    p = verbs.add_parser("up", help="bring a topology up as a Mininet network of P4 switches")
    p.add_argument("topology", help="topology spec (.yaml) or P4 tutorials topology.json")
    p.add_argument("--results", default="results", metavar="DIR",
                   help="where logs and captures go (default: results)")
    p.add_argument("--pcap", action="store_true", help="capture every switch port from the start")
    p.add_argument("--p4", metavar="FILE", help="P4 source for the switches of a tutorials "
                   "topology.json (default: found from its runtime JSON's bmv2_json)")
    p.add_argument("--no-cli", action="store_true",
                   help="no Mininet CLI: stay up until Ctrl-C, SIGTERM or `trainet down`")
    _cluster_args(p)
    p.set_defaults(handler="testbed.net.commands:up")
    p = verbs.add_parser("down", help="remove every network, switch process and interface "
                         "that trainet made, also after a crash")
    p.add_argument("--mininet", action="store_true",
                   help="also run Mininet's own cleanup (mn -c): removes ALL Mininet "
                   "interfaces and processes on this machine")
    p.set_defaults(handler="testbed.net.commands:down")

    topo = verbs.add_parser("topo", help="topology specs: show, import, generate, profiles"
                            ).add_subparsers(dest="topoverb", required=True, metavar="TOPOVERB")
    p = topo.add_parser("show", help="validate a topology YAML and print it with units")
    p.add_argument("file", help="topology spec (.yaml)")
    p.add_argument("--scale", type=float, help="co-scaling factor to show instead of the spec's")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(handler="testbed.topology.commands:show")
    p = topo.add_parser("import", help="convert a p4lang tutorials topology.json to YAML")
    p.add_argument("topology_json", help="the exercise's topology.json")
    p.add_argument("--p4", help="P4 source of the switches (default: the bmv2_json's stem "
                   "+ .p4 next to topology.json or in its parent directory)")
    p.add_argument("--scale", type=float, help="co-scaling factor (default 1)")
    p.add_argument("-o", "--output", help="YAML file to write (default: stdout)")
    p.set_defaults(handler="testbed.topology.commands:import_")
    p = topo.add_parser("generate", help="write a generated topology as YAML")
    p.add_argument("name", help="star, leaf-spine, fat-tree, multi-cluster, geo, frontier")
    p.add_argument("params", nargs="*", metavar="KEY=VALUE", help="generator parameters, "
                   "e.g. workers=8 nic=roce-100g scale=1e-4")
    p.add_argument("-o", "--output", help="YAML file to write (default: stdout)")
    p.set_defaults(handler="testbed.topology.commands:generate_")
    p = topo.add_parser("profiles", help="list NIC and link profiles")
    p.add_argument("-v", "--verbose", action="store_true", help="also print each source")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(handler="testbed.topology.commands:list_profiles")

    p = verbs.add_parser("inspect", help="summarize in-network aggregation traffic in pcap "
                         "captures: per job and slot, and bytes per link")
    p.add_argument("captures", nargs="+", metavar="CAPTURE", help="pcap file(s), e.g. the "
                   "switch's IFACE_in.pcap / IFACE_out.pcap")
    p.add_argument("--job", type=int, help="only this INA job id")
    p.add_argument("--worker", type=int, help="only this worker id (its gradients and the "
                   "results addressed to it)")
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")
    p.set_defaults(handler="testbed.experiment.inspect:main")
    p = verbs.add_parser("run", help="run an experiment: every variant of its sweep and "
                         "every strategy on an emulated network")
    p.add_argument("experiment", help="experiment file (.yaml), e.g. experiments/demo.yaml")
    p.add_argument("-o", "--output", metavar="RESULTS", help="results directory to create "
                   "(default: results/NAME-YYYYmmdd-HHMMSS)")
    p.add_argument("--resume", action="store_true", help="continue the run in -o RESULTS "
                   "(stopped, failed or killed): keep the runs that finished, run the rest")
    _cluster_args(p)
    p.set_defaults(handler="testbed.experiment.runner:main")
    p = verbs.add_parser("launch", help="run one's own training script on every worker "
                         "host of an emulated fabric, as torchrun would",
                         usage="trainet launch [-h] [-o DIR] [--timeout SECONDS] "
                         "FABRIC -- python train.py ARGS...")
    p.add_argument("fabric", metavar="FABRIC", help="a topology or experiment file: its "
                   "worker hosts and links")
    p.add_argument("command", nargs=argparse.REMAINDER, metavar="-- python train.py ARGS",
                   help="the script and its arguments")
    p.add_argument("-o", "--output", metavar="DIR", help="logs and step records (default: "
                   "results/launch-SCRIPT-YYYYmmdd-HHMMSS)")
    p.add_argument("--timeout", type=float, metavar="SECONDS", help="stop when no rank "
                   "ends a step for this long (default: the experiment's timeouts.run, "
                   "else 600)")
    p.set_defaults(handler="testbed.experiment.launch_command:main")
    p = verbs.add_parser("reproduce", help="the seed papers' headline results: paper vs "
                         "model at the paper's scale vs the shipped experiment (root)")
    p.add_argument("seeds", nargs="*", metavar="SEED", help="luwu, zeropp, frontier, holmes, "
                   "axonn, fusionllm (default: all)")
    p.add_argument("--model-only", action="store_true", help="the paper and the model only "
                   "(no root, seconds)")
    p.add_argument("--results", default="results/reproduce", metavar="DIR", help="where the "
                   "experiments' results go, one directory per experiment; a finished run "
                   "there is read, not repeated (default results/reproduce)")
    p.add_argument("--no-run", action="store_true", help="read the runs in --results, run "
                   "nothing")
    p.add_argument("--calibration", **CALIBRATION)
    p.add_argument("--json", action="store_true", help="JSON: per paper paper_ratio, "
                   "testbed_ratio, model_ratio and the differing assumptions")
    p.set_defaults(handler="testbed.experiment.reproduce:main")
    p = verbs.add_parser("check", help="validate experiment, topology and P4 files without "
                         "root and without starting anything: every error a run would give, "
                         "the memory fit and the link shaping of each variant")
    p.add_argument("files", nargs="+", metavar="FILE", help="experiment or topology (.yaml), "
                   "P4 program (.p4)")
    p.set_defaults(handler="testbed.experiment.check:main")
    p = verbs.add_parser("strategies", help="list the registered training strategies: "
                         "description, modes, options, what they need on the fabric")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(handler="hosts.strategies.registry:print_table")
    p = verbs.add_parser("plan", help="rank every valid layout without a pipeline (of the "
                         "strategies whose options choose one) of a model on a fabric by "
                         "predicted step time")
    p.add_argument("--model", default="gpt-20b", help="shadow model: a preset (gpt-1.3b, "
                   "gpt-20b, gpt-175b), custom:PARAMS or custom:layers=L,hidden=H,heads=A"
                   " (default gpt-20b)")
    p.add_argument("--layers", type=int, help="layers of a custom model")
    p.add_argument("--gpus", type=int, dest="world", metavar="N", help="GPUs (ranks) to place")
    p.add_argument("--global-batch-size", dest="batch", type=int, default=None,
                   help="global batch in sequences, Megatron-LM's --global-batch-size "
                   "(default: 2 per rank)")
    p.add_argument("--fabric", dest="topology", metavar="FILE", help="a topology or "
                   "experiment file: its worker hosts and links; default a nominal fabric of "
                   "--gpus GPUs")
    _renamed(p, world="--gpus", topology="--fabric", batch="--global-batch-size")
    p.add_argument("--gpus-per-node", type=int, default=4, help="nominal fabric: GPUs per "
                   "node (default 4)")
    p.add_argument("--intra", default="1.6Tb/s", help="nominal fabric: GPU to node "
                   "bandwidth (default 1.6Tb/s, NVLink-like)")
    p.add_argument("--inter", default="200Gb/s", help="nominal fabric: each GPU's NIC "
                   "(default 200Gb/s)")
    p.add_argument("--latency", default="2us", help="nominal fabric: delay per link "
                   "(default 2us)")
    p.add_argument("--device", default=devices.DEFAULT,
                   help="device whose compute is modelled")
    p.add_argument("--mfu", type=utilisation, default=None, help="model FLOPs utilisation "
                   "(default: the shape-aware compute model, hosts/compute.py)")
    p.add_argument("--top", type=int, default=10, help="layouts to print (default 10)")
    p.add_argument("--check", metavar="RESULTS", help="instead: the predictions for a "
                   "`trainet run` of such layouts against its measurements")
    p.add_argument("--bandwidth-table", **BANDWIDTH_TABLE)
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(handler="testbed.experiment.plan_command:main")
    trace = verbs.add_parser("trace", help="execution traces (MLCommons Chakra) for "
                             "simulators").add_subparsers(dest="traceverb", required=True,
                                                          metavar="TRACEVERB")
    p = trace.add_parser("export", help="per-rank Chakra traces NAME.RANK.et of a `trainet "
                         "run` (measured) or of a strategy's declared step at any scale")
    p.add_argument("results", nargs="?", metavar="RESULTS", help="results directory of "
                   "`trainet run`: one trace per run, OUT/VARIANT/STRATEGY-repR.RANK.et")
    p.add_argument("-o", "--output", required=True, metavar="OUT", help="directory to write")
    p.add_argument("--model", help="instead of RESULTS: a published shape (gpt-125m .. "
                   "gpt-175b, gpt-20b, megatron-1.7b .. megatron-1t) or custom:PARAMS")
    p.add_argument("--gpus", type=int, metavar="N", help="ranks of the modelled step")
    p.add_argument("--strategy", metavar="S", help="NAME or NAME:KEY=VALUE,... (e.g. "
                   "megatron:tp=8,pp=4; trainet strategies)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="a strategy option, e.g. --option tp=4 (repeat for each)")
    _workload_args(p)
    p.add_argument("--name", help="trace name (default MODEL-STRATEGY-NgpuS)")
    p.set_defaults(handler="testbed.trace.commands:export")
    _model_verbs(verbs)
    p = verbs.add_parser("report", help="plots (PNG) and report.md of a `trainet run` "
                         "results directory")
    p.add_argument("results", metavar="RESULTS", help="results directory of `trainet run`")
    p.set_defaults(handler="testbed.experiment.report:main")

    bench = verbs.add_parser("bench", help="benchmarks with a same-run baseline").add_subparsers(
        dest="benchverb", required=True, metavar="WHAT")
    p = bench.add_parser("p4", help="pipeline-only packets/s of the P4 target")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--packets", type=int, default=50_000, help="packets per measurement")
    p.set_defaults(handler="testbed.bench.p4:main")
    p = bench.add_parser("switch", help="forwarding packets/s and Gb/s of the software switch "
                         "between network namespaces, against a Linux bridge")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--seconds", type=float, default=3.0, help="duration of each measurement")
    _backend_arg(p)
    p.set_defaults(handler="testbed.bench.switch:main")
    p = bench.add_parser("p4runtime", help="P4Runtime Write/Read entries/s against the "
                         "gRPC transport's own bound (an empty servicer, same messages)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--entries", type=int, default=1000,
                   help="table entries per measurement (basic.p4's table holds 1024)")
    _backend_arg(p)
    p.set_defaults(handler="testbed.bench.p4runtime:main")
    p = bench.add_parser("links", help="link emulation: throughput and RTT against the "
                         "configured values, and bring-up time of a 64-host fabric")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--seconds", type=float, default=6.0, help="duration of each throughput test")
    p.add_argument("--quick", action="store_true", help="fewer rates, no 64-host bring-up")
    p.set_defaults(handler="testbed.bench.links:main")
    p = bench.add_parser("allreduce", help="in-network all-reduce (p4/ina.p4) against gloo's "
                         "ring all-reduce on an emulated star, and the switch's aggregation "
                         "rate on the P4 target")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--workers", type=int, nargs="+", metavar="N",
                   help="worker counts (default: 2 4 8)")
    p.add_argument("--sizes-mb", type=float, nargs="+", default=[1, 4, 16, 64], metavar="MB",
                   help="nominal tensor sizes in MB (default: 1 4 16 64)")
    p.add_argument("--bw", default="100Gbit", help="nominal link bandwidth (default 100Gbit)")
    p.add_argument("--scale", type=float, default=1e-3,
                   help="co-scaling factor for bandwidth and tensor bytes (default 1e-3; "
                   "the link bound credits each link's tbf bucket: one frame and 0.5 ms "
                   "of the rate)")
    p.add_argument("--rounds", type=int, default=10, help="timed all-reduces per "
                   "measurement, back to back on both sides (default 10)")
    p.add_argument("--warmup", type=int, default=1, help="untimed all-reduces before them, "
                   "on both sides (default 1)")
    p.add_argument("--dtype", choices=["bf16", "fp32"], default="bf16",
                   help="the gradient's element type (default bf16)")
    p.add_argument("--slots", type=int, default=32, help="INA window (slots per job)")
    p.add_argument("--mtu", type=int, metavar="BYTES",
                   help="every link's MTU, both sides alike; INA's packets carry as many "
                   "lanes as it holds (default 4096, the roce-100g profile's, which the "
                   "experiments' links use)")
    p.add_argument("--lanes", metavar="WORDS|fill",
                   help="INA's lane words per packet, in whole 32-word groups, or fill: as "
                   "many groups as the MTU holds (default: the largest power of two)")
    p.add_argument("--ina-clients", nargs="+", choices=["native", "python"], metavar="CLIENT",
                   help="the workers' window loop, each measured: native (C), python "
                   "(default: both where a C compiler is present, else python)")
    p.add_argument("--results", default="results/bench-allreduce",
                   help="directory for the network's logs")
    p.add_argument("--target-only", action="store_true",
                   help="only the switch's aggregation rate on the P4 target")
    p.add_argument("--background-load", action="store_true",
                   help="measure every size twice: as the machine is, then with one more "
                   "process spinning on a core during both sides' runs")
    p.set_defaults(handler="testbed.bench.allreduce:main")
    p = bench.add_parser("model", help="predicted steps per second of the analytical model, "
                         "8 to 100,000 GPUs, against routing every link")
    p.add_argument("--repeat", type=int, default=3, help="predictions per point (default 3)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(handler="testbed.bench.model:main")
    p = bench.add_parser("overlap", help="exposed communication of axonn's shadow ranks with "
                         "each overlap switch on, against all off")
    p.add_argument("--grid", default="2x2x2x1", help="G_r x G_c x G_d x G_data of 8 ranks "
                   "(default 2x2x2x1)")
    p.add_argument("--model", default="gpt-1.3b", help="shadow model (default gpt-1.3b)")
    p.add_argument("--device", default=devices.DEFAULT,
                   help=f"modelled device (default {devices.DEFAULT})")
    p.add_argument("--mfu", type=utilisation, default=None, help="model FLOPs utilisation "
                   "(default: the shape-aware compute model, hosts/compute.py)")
    p.add_argument("--global-batch-size", dest="global_batch", type=int, metavar="N",
                   help="sequences per step across the G_data replicas (Megatron-LM's "
                   "--global-batch-size; default 2 per replica)")
    _renamed(p, batch="--global-batch-size (sequences per replica x G_data)")
    p.add_argument("--scale", type=float, default=1e-4, help="co-scaling of the volumes "
                   "(default 1e-4)")
    p.add_argument("--steps", type=int, default=4, help="steps per case, the first not "
                   "counted (default 4)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(handler="testbed.bench.overlap:main")
    p = bench.add_parser("train", help="step time of the strategies side by side: "
                         "shadow workers of a large GPT on a co-scaled star, per NIC profile")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--workers", type=int, default=4, help="worker hosts (default 4)")
    p.add_argument("--model", dest="shadow_model", default="gpt-1.3b",
                   help="shadow model: gpt-1.3b, gpt-20b, gpt-175b or custom:PARAMS (default "
                   "gpt-1.3b)")
    _renamed(p, shadow_model="--model")
    p.add_argument("--device", default=devices.DEFAULT,
                   help="compute model: a100-80gb, h100-80gb, mi250x-gcd, ...")
    p.add_argument("--nics", nargs="+", default=["roce-100g", "roce-200g"], metavar="PROFILE",
                   help="NIC profiles to compare (default: roce-100g roce-200g)")
    p.add_argument("--strategies", nargs="+", metavar="NAME",
                   help="registered strategies (default: every one the bench's star serves: "
                   "no switch job but p4/ina.p4's, no service but on a server host)")
    p.add_argument("--scale", type=float, default=1e-4,
                   help="co-scaling factor of links and volumes (default 1e-4)")
    p.add_argument("--steps", type=int, default=5, help="steps per run (default 5)")
    p.add_argument("--global-batch-size", dest="global_batch", type=int, metavar="N",
                   help="sequences per step across every worker (Megatron-LM's "
                   "--global-batch-size; default: one per worker)")
    p.add_argument("--micro-batch-size", dest="micro_batch_size", type=int, metavar="N",
                   help="sequences per micro-batch of a worker: the bench's strategies run a "
                   "worker's batch as one micro-batch (default: the global batch / workers)")
    _renamed(p, batch="--global-batch-size, sequences per step across the workers "
             "(--batch x --workers)")
    p.add_argument("--results", default="results/bench-train",
                   help="directory for logs and metrics")
    p.set_defaults(handler="testbed.bench.train:main")
    return parser


def _workload_args(p) -> None:
    """What a step of the analytical model runs on, as `trainet model predict` and
    `trainet trace export --model` take it."""
    p.add_argument("--global-batch-size", dest="batch", type=int,
                   help="global batch in sequences, Megatron-LM's --global-batch-size "
                   "(default 2 per GPU)")
    _renamed(p, batch="--global-batch-size")
    p.add_argument("--micro-batch-size", dest="micro_batch_size", type=int,
                   help="sequences per micro-batch for strategies that pipeline "
                   "(Megatron-LM's --micro-batch-size; default 1 when pipelined), unless "
                   "--strategy gives micro_batch_size")
    p.add_argument("--seq", type=int, help="sequence length (default the model's)")
    p.add_argument("--device", default="a100-80gb", help="device profile (default a100-80gb)")
    p.add_argument("--fabric", default="dgx-a100", help="dgx-a100, dgx-h100, frontier, "
                   "roce-100g-cluster, eth-25g-cluster, geo, star:PROFILE or a topology or "
                   "experiment file (default dgx-a100)")
    p.add_argument("--mfu", type=utilisation, default=None, help="one model FLOPs utilisation "
                   "of the device's peak instead of the shape-aware compute model "
                   "(hosts/compute.py)")
    p.add_argument("--calibration", **CALIBRATION)


def _model_verbs(verbs) -> None:
    model = verbs.add_parser("model", help="the analytical model of a training step: "
                             "predict at any scale, compare, calibrate, validate"
                             ).add_subparsers(dest="modelverb", required=True, metavar="WHAT")
    p = model.add_parser("predict", help="step time, breakdown, TFLOP/s and memory per GPU")
    p.add_argument("--model", required=True, help="a published shape (gpt-125m .. gpt-175b, "
                   "megatron-1.7b .. megatron-1t, megatron-22b, megatron-175b), custom:PARAMS "
                   "or custom:layers=L,hidden=H,heads=A[,vocab=V,seq=S]")
    p.add_argument("--gpus", type=int, nargs="+", required=True, metavar="N",
                   help="GPU counts (several: a scaling plot)")
    p.add_argument("--strategy", nargs="+", metavar="S", help="NAME or NAME:KEY=VALUE,... "
                   "(e.g. megatron:tp=8,pp=4); default: the best layout found")
    _workload_args(p)
    p.add_argument("--gpus-per-node", type=int, dest="gpus_per_host", metavar="N",
                   help="GPUs sharing a node's host memory, CPU and NVMe (offloading)")
    _renamed(p, gpus_per_host="--gpus-per-node")
    p.add_argument("--bandwidth-table", **BANDWIDTH_TABLE)
    p.add_argument("--json", action="store_true", help="JSON, a step_time_s field per row")
    p.add_argument("--events", action="store_true", help="with --json: every rank role's "
                   "compute phases and collectives in order")
    p.add_argument("--plot", metavar="PNG", help="also draw the scaling plot of several "
                   "--gpus counts into this file")
    p.set_defaults(handler="testbed.model.commands:predict_main")
    p = model.add_parser("compare", help="the seed systems' setups side by side")
    p.add_argument("--calibration", **CALIBRATION)
    p.add_argument("--json", action="store_true", help="JSON, a step_time_s field per row")
    p.set_defaults(handler="testbed.model.commands:compare_main")
    p = model.add_parser("calibrate", help="fit latency, bandwidth and collective "
                         "efficiencies from `trainet run` results")
    p.add_argument("results", nargs="+", metavar="RESULTS_DIR")
    p.add_argument("--name", help="also store the calibration under this name")
    p.set_defaults(handler="testbed.experiment.model_check:calibrate_main")
    p = model.add_parser("validate", help="predicted against measured step times and "
                         "exposed communication of `trainet run` results")
    p.add_argument("results", nargs="*", metavar="RESULTS_DIR")
    p.add_argument("--split", metavar="FILE", help="instead of RESULTS_DIR: a validation "
                   "split (e.g. validation/split.yaml), its calibration re-fitted and checked "
                   "and its calibrate and held-out runs reported apart")
    p.add_argument("--calibration", **CALIBRATION)
    p.add_argument("--bandwidth-table", **BANDWIDTH_TABLE)
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(handler="testbed.experiment.model_check:validate_main")
    p = model.add_parser("measure", help="measure a bandwidth table on the emulated fabric: "
                         "latency and bandwidth of all-reduce, all-gather and reduce-scatter "
                         "per group placement (root: brings the network up)")
    p.add_argument("fabric", metavar="FABRIC", help="a topology or experiment file")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="table to write "
                   "(JSON); the network's logs go to FILE-net/")
    p.add_argument("--gpus", type=int, dest="world", metavar="N", help="ranks, on the first "
                   "N workers (default all)")
    _renamed(p, world="--gpus")
    p.add_argument("--sizes", nargs="+", metavar="SIZE", help="nominal payloads (default "
                   "64MiB 256MiB 1GiB; the file's co-scaling gives the emulated ones)")
    p.add_argument("--rounds", type=int, default=3, help="rounds per point, the median "
                   "kept (default 3)")
    p.add_argument("--repeat", type=int, default=3, help="collectives timed back to back "
                   "per round, after an untimed one (default 3)")
    p.set_defaults(handler="testbed.experiment.bandwidth:main")
    p = model.add_parser("published", help="predicted against published Megatron-LM runs "
                         "(Narayanan et al. 2021, Korthikanti et al. 2022, MT-NLG 2022: 1.7B "
                         "to 1T parameters, 8 to 3360 A100) beside two baselines")
    p.add_argument("--calibration", **CALIBRATION)
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--held-out", action="store_true", help="instead: the held-out runs "
                   "(BLOOM-176B, GPT-NeoX-20B, Megatron-LM's GPT-3 example), each with its "
                   "own layout and with the search's choice; not in the papers' mean")
    p.set_defaults(handler="testbed.model.heldout:command")


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    module, func = args.handler.split(":")

    def body():
        from testbed.experiment.check import validate_inputs
        validate_inputs(args)       # flags, and files as `trainet check` reads them
        return getattr(importlib.import_module(module), func)(args)
    return run_command(body)


if __name__ == "__main__":
    sys.exit(main())
