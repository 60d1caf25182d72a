"""Compile generated C with the machine's C compiler and load it through cffi.

The shared library is cached on disk ($XDG_CACHE_HOME/trainet/native, else
~/.cache/trainet/native) under a hash of the source, the compiler's version and the
flags, so a program is compiled once per machine; switches that load one program at the
same time wait for one compile (a lock file beside the library). cffi's ABI mode
(``dlopen``) needs no Python headers, only a C compiler and libc's headers.
"""
from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path

from testbed.errors import P4Error, TrainetError

# -O1: as fast as -O2 on the pipelines measured (trainet bench p4) and about ten times
# quicker to compile a large one (p4/luwu_sgd.p4's 15,000 lines: 3 s, not 30 s), which a
# switch pays at start-up before its P4Runtime port answers. The loop vectorizer on top,
# with the cost model that weighs a run-time alias check (-O2's "very cheap" one refuses
# it): the per-lane loops cgen_loops rolls become vector code (INA's 16-bit lane add 1.6x
# faster per frame; -O2 or -O3 were no faster). No guessed branch probabilities: the
# guess makes the blocks deep in a chain of parser states or nested ifs (INA's last lane
# groups) cold, and a cold loop is never vectorized (10 % per INA frame).
FLAGS = ["-O1", "-ftree-loop-vectorize", "-fvect-cost-model=dynamic",
         "-fno-guess-branch-probability", "-shared", "-fPIC",
         "-std=gnu11", "-w"]

DECLARATIONS = """
typedef struct sw sw_t;
sw_t *sw_new(void);
void sw_free(sw_t *S);
uint32_t sw_process(sw_t *S, const uint8_t *frame, uint32_t len, uint32_t port, uint64_t now);
uint32_t sw_process_many(sw_t *S, const uint8_t *data, const uint32_t *offs,
                         const uint32_t *lens, uint32_t n, uint32_t port, uint64_t now);
uint32_t sw_process_rings(sw_t *S, uint32_t n, uint8_t **rings, const uint32_t *slot_bytes,
                          const uint32_t *slots, uint32_t *next, const uint32_t *ports,
                          uint32_t limit, uint32_t budget, uint64_t now, uint32_t *counts);
uint32_t sw_loop(sw_t *S, uint32_t n, uint8_t **rings, const uint32_t *slot_bytes,
                 const uint32_t *slots, uint32_t *next, const uint32_t *ports,
                 int32_t epoll_fd, int32_t wake_fd, uint32_t limit, uint32_t budget,
                 int64_t t0_ns, uint32_t *counts, uint64_t *loop);
uint64_t *sw_loop_stats(sw_t *S);
void sw_direct(sw_t *S, uint32_t port, int32_t fd);
void sw_direct_shared(sw_t *S, int32_t fd);
void sw_ifindex(sw_t *S, uint32_t port, int32_t ifindex);
uint64_t *sw_direct_counts(sw_t *S);
uint64_t sw_process_batch(sw_t *S, const uint8_t *data, const uint32_t *offs,
                          const uint32_t *lens, const uint32_t *ports, uint32_t n,
                          uint32_t repeat, uint64_t now);
void sw_outputs(sw_t *S, uint32_t **ports, uint32_t **offs, uint32_t **sizes, uint8_t **data);
void sw_tbl_put(sw_t *S, int t, int slot, const uint64_t *v, const uint64_t *m,
                const uint64_t *hi, const uint8_t *range, int64_t prio, uint32_t plen,
                int action, const uint64_t *args, int keep, const double *meter,
                double now);
void sw_tbl_put_many(sw_t *S, int t, uint32_t n, const uint32_t *slots, const uint64_t *v,
                     const uint64_t *m, const uint64_t *hi, const uint8_t *range,
                     const int64_t *prio, const uint32_t *plen, const uint32_t *action,
                     const uint64_t *args, double now);
void sw_tbl_del(sw_t *S, int t, int slot);
void sw_tbl_choices(sw_t *S, int t, int slot, uint32_t n, const uint32_t *actions,
                    const uint64_t *args);
void sw_tbl_default(sw_t *S, int t, int action, const uint64_t *args);
uint64_t *sw_tbl_counters(sw_t *S, int t, int slot);
void *sw_reg(sw_t *S, int id, int which);
uint64_t *sw_cnt(sw_t *S, int id, int which);
void sw_mc_set(sw_t *S, uint32_t gid, uint32_t n, const uint16_t *ports, const uint16_t *rids);
void sw_mc_del(sw_t *S, uint32_t gid);
void sw_clone_set(sw_t *S, uint64_t id, uint32_t n, const uint16_t *ports,
                  const uint16_t *rids, uint32_t trunc);
void sw_clone_del(sw_t *S, uint64_t id);
uint32_t sw_events(sw_t *S, int logs, uint64_t **v);
void sw_clock(sw_t *S, double secs);
void sw_vset_set(sw_t *S, int id, uint32_t n, uint32_t nkeys, const uint8_t *kinds,
                 const uint64_t *a, const uint64_t *b);
void sw_meter_set(sw_t *S, int id, uint32_t index, double cir, double cburst, double pir,
                  double pburst, double now);
uint64_t *sw_drops(sw_t *S);
uint64_t *sw_replicas(sw_t *S);
uint32_t sw_failed_at(sw_t *S);
"""


class NoCompiler(TrainetError):
    """No C compiler (or no cffi) on this machine."""


def compiler() -> str:
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        raise NoCompiler("no C compiler found (install gcc and libc6-dev, or set CC)")
    return cc


@lru_cache(maxsize=None)
def compiler_version(cc: str) -> str:
    try:
        return subprocess.run([cc, "--version"], capture_output=True, text=True,
                              check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise NoCompiler(f"the C compiler {cc} does not run: {e}") from e


@lru_cache(maxsize=None)
def native_flags(cc: str) -> tuple:
    """(flags, fingerprint): ``-march=native`` where the compiler takes it, and the
    instruction set it resolves to on this machine (its predefined macros). A library is
    only ever built where it is loaded, at load time, so the machine's own vector width is
    safe to use (AVX2 over SSE2: 8-15 % less per INA frame); the fingerprint is part of the
    cache key, so a cache shared with another CPU never hands it a library it cannot run."""
    try:
        r = subprocess.run([cc, "-march=native", "-dM", "-E", "-x", "c", "/dev/null"],
                           capture_output=True, text=True)
    except OSError:
        return (), ""
    if r.returncode != 0:
        return (), ""
    return ("-march=native",), r.stdout


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "trainet" / "native"


def build(source: str, locate=None) -> Path:
    """The shared library of ``source``, compiled unless cached; ``locate`` maps a line
    of ``source`` to the P4 location its code came from, for compile errors."""
    cc = compiler()
    arch, fingerprint = native_flags(cc)
    key = hashlib.sha256("\0".join([source, compiler_version(cc), fingerprint, *FLAGS,
                                     *arch]).encode())
    lib = cache_dir() / f"{key.hexdigest()[:32]}.so"
    if lib.exists():
        return lib
    lib.parent.mkdir(parents=True, exist_ok=True)
    with open(lib.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not lib.exists():
            _compile(cc, [*FLAGS, *arch], source, lib, locate)
    return lib


def _compile(cc: str, flags: list, source: str, lib: Path, locate) -> None:
    # built beside the cache, not in TMPDIR: os.replace cannot cross file systems (a
    # tmpfs /tmp under a cache on disk)
    with tempfile.TemporaryDirectory(dir=lib.parent) as tmp:
        src = Path(tmp) / "pipeline.c"
        src.write_text(source)
        out = Path(tmp) / "pipeline.so"
        r = subprocess.run([cc, *flags, "-o", str(out), str(src)], capture_output=True,
                           text=True)
        if r.returncode != 0:
            raise _compile_error(r.stderr, locate)
        os.replace(out, lib)      # atomic: a reader never sees half a library


class NativeCompileError(P4Error):
    """Generated C the compiler refuses: a generator bug, reported at the P4 statement the
    C came from and naming it (its source text), never with the compiler's words, which
    stay in ``compiler_output``."""

    def __init__(self, construct: str, loc, compiler_output: str):
        super().__init__(f"the native backend cannot translate {construct} (its generated C "
                         "does not compile); run the program with the python backend", loc)
        self.construct = construct
        self.compiler_output = compiler_output


def _compile_error(stderr: str, locate) -> NativeCompileError:
    """The first error, at the P4 statement whose C it is (``locate``: C line -> Loc)."""
    m = re.search(r"^.*?pipeline\.c:(\d+):\d+: error: (.*)$", stderr, re.M)
    loc = locate(int(m.group(1))) if m and locate else None
    return NativeCompileError(_statement_text(loc), loc, stderr.strip())


def _statement_text(loc) -> str:
    """The P4 statement at ``loc`` as written (its first line, up to its ';'), quoted."""
    try:
        line = Path(loc.file).read_text(errors="replace").splitlines()[loc.line - 1]
    except (AttributeError, OSError, IndexError):
        return "a statement of the program"
    text = line[max(loc.col - 1, 0):].split(";", 1)[0].strip()
    return f"the statement `{text}`" if text else "a statement of the program"


INTERFACE_BEGIN, INTERFACE_END = "/* interface begin */", "/* interface end */"


def interface(source: str) -> str:
    """The declarations a hand-written C source gives its Python callers: the text
    between its ``/* interface begin */`` and ``/* interface end */`` markers, so the
    struct and prototypes cffi reads are written once, in the C."""
    return source.split(INTERFACE_BEGIN, 1)[1].split(INTERFACE_END, 1)[0]


def load(source: str, locate=None, declarations: str = DECLARATIONS):
    """(ffi, library) of ``source``, whose functions ``declarations`` declares (by
    default a generated pipeline's)."""
    try:
        import cffi
    except ImportError as e:
        raise NoCompiler("the cffi package is missing (pip install cffi)") from e
    path = build(source, locate)
    ffi = cffi.FFI()
    ffi.cdef(declarations)
    return ffi, ffi.dlopen(str(path))
