"""Check pip's dry-run report for .venv before anything is installed (called by
vagrant/install.sh).

Usage: dry_run_check.py REPORT BUILD CPU_INDEX ANSWERED. REPORT is the JSON of ``pip install
--dry-run --report``, BUILD the TRAINET_TORCH value, ANSWERED ``yes`` when CPU_INDEX answered
and the plan took torch from it. Prints the packages the plan installs; with BUILD
``cpu`` it exits 3, naming what to do, when the plan holds CUDA packages (nvidia-*, cuda-*,
triton): the CUDA build of torch, several GB that a CPU-only emulator never uses.
"""
import json
import re
import sys
import textwrap

CUDA = re.compile(r"^(nvidia-|cuda-)|triton")


def main(report_path: str, build: str, cpu_index: str, answered: str) -> int:
    with open(report_path) as f:
        planned = [(i["metadata"]["name"], i["metadata"]["version"], i["download_info"]["url"])
                   for i in json.load(f)["install"]]
    names = {name.lower().replace("_", "-"): f"{name} {version}" for name, version, _ in planned}
    cuda = sorted(name for name in names if CUDA.search(name))
    print(f"  plan: {len(planned)} packages to install, {len(cuda)} of them CUDA")
    for name, version, url in planned:
        if name.lower() == "torch":
            print(f"    torch {version} from {url}")
    print(textwrap.fill(", ".join(sorted(names.values(), key=str.lower)), width=92,
                        initial_indent="    ", subsequent_indent="    ",
                        break_on_hyphens=False, break_long_words=False))
    if build != "cpu" or not cuda:
        return 0
    why = (f"{cpu_index} answered but gave no CPU build for this machine" if answered == "yes"
           else f"{cpu_index} did not answer and pip's configured indexes have no CPU build")
    print("\n".join([
        textwrap.fill(f"error: this plan installs the CUDA build of torch ({', '.join(cuda)}): "
                      "several GB that trainet, a CPU-only emulator, never uses. Nothing of it "
                      f"has been installed: {why}. Do one of these, then run again:", width=92,
                      break_on_hyphens=False),
        f"  - make {cpu_index} reachable (through a proxy: export HTTPS_PROXY=http://HOST:PORT);",
        "  - put the CPU wheel torch-2.13.0+cpu-*.whl in a directory and",
        "    export PIP_FIND_LINKS=/that/directory;",
        "  - accept the CUDA build: export TRAINET_TORCH=cuda."]), file=sys.stderr)
    return 3


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
