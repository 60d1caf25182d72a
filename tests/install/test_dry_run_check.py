"""vagrant/dry_run_check.py: the installer's check of pip's dry-run plan."""
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def _check(tmp_path, packages, build="cpu", answered="no"):
    report = {"version": "1", "install": [
        {"metadata": {"name": name, "version": version},
         "download_info": {"url": f"https://files.example/{name}-{version}.whl"}}
        for name, version in packages]}
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(report))
    return subprocess.run([sys.executable, str(REPO / "vagrant" / "dry_run_check.py"), str(path),
                           build, CPU_INDEX, answered], capture_output=True, text=True)


CUDA_PLAN = [("torch", "2.13.0"), ("nvidia-cudnn-cu13", "9.20.0.48"), ("triton", "3.7.1"),
             ("cuda-toolkit", "13.0.3.0"), ("numpy", "2.4.6")]


def test_a_cpu_plan_is_listed_and_passes(tmp_path):
    done = _check(tmp_path, [("torch", "2.13.0+cpu"), ("numpy", "2.4.6")])
    assert done.returncode == 0, done.stderr
    assert "plan: 2 packages to install, 0 of them CUDA" in done.stdout
    assert "torch 2.13.0+cpu from https://files.example/torch-2.13.0+cpu.whl" in done.stdout
    assert "numpy 2.4.6, torch 2.13.0+cpu" in done.stdout


def test_cuda_packages_stop_a_cpu_install_with_what_to_do(tmp_path):
    done = _check(tmp_path, CUDA_PLAN)
    assert done.returncode == 3
    assert "3 of them CUDA" in done.stdout
    message = " ".join(done.stderr.split())
    assert "(cuda-toolkit, nvidia-cudnn-cu13, triton)" in message
    assert "Nothing of it has been installed" in message
    assert f"{CPU_INDEX} did not answer" in message
    assert "PIP_FIND_LINKS" in message and "TRAINET_TORCH=cuda" in message


def test_cuda_packages_pass_when_a_cuda_build_is_asked_for(tmp_path):
    for build in ("cuda", "cu130"):
        done = _check(tmp_path, CUDA_PLAN, build=build)
        assert done.returncode == 0 and done.stderr == ""
