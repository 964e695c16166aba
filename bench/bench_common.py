"""What the GPU benchmarks share: the timer and blockjit's prepared launch.

    from bench_common import BlockjitKernel, bench_ms, next_power_of_2

bench_ms: a fixed number of runs, each between CUDA events after an L2
flush (persisting lines reset first); the median (DESIGN.md's benchmark protocol). BlockjitKernel: any
registered kernel through the C ABI's prepared, autotuned launch, prepared
once per argument signature. Imports torch lazily and never Triton, so a
CPU-only run (torch CPU, blockjit's CPU target) can use it too.
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blockjit_ctypes import BlockjitError, constexpr  # noqa: E402


def next_power_of_2(n):
    return 1 if n <= 1 else 1 << (int(n) - 1).bit_length()


def write_rows_csv(path, rows):
    """`rows` (dicts with the same keys, in column order) as a CSV at `path`."""
    import csv
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


_FLUSH = None
_RESET_PERSISTING = None


def reset_persisting_l2():
    """Returns every persisting line of the L2 to normal (the driver's
    cuCtxResetPersistingL2Cache). Lines a kernel read with evict_last
    survive a flush made of plain writes: on the H100 a 16-32 MB input read
    so by the autotuner's candidates was found in L2 by every later timed
    run of the same tensors, any provider's (bf16 softmax 4096 x 1024: 1866
    GB/s against a copy's 1553; docs/eviction_hints_h200.txt section 5), so
    bench_ms resets them before each flush."""
    global _RESET_PERSISTING
    if _RESET_PERSISTING is None:
        import ctypes
        _RESET_PERSISTING = ctypes.CDLL("libcuda.so.1").cuCtxResetPersistingL2Cache
    if _RESET_PERSISTING() != 0:
        raise RuntimeError("cuCtxResetPersistingL2Cache failed")


# GPU cycles (about 0.6 ms) the device spins before each timed run, so that
# the host has enqueued the run's events and launch before the GPU reaches
# them: a host stall (a Python pause, a busy core) then delays nothing the
# events measure. Without it the L2 flush was the only head start, and
# whole medians came out 10-15x slow on the H100 host.
_HEAD_START_CYCLES = 1_000_000


def bench_ms(fn, reps=50, warmup=5, before=None, reset_persisting=True):
    """Median milliseconds of `reps` runs of fn (a fixed count), each between
    two CUDA events after a reset of persisting L2 lines
    (reset_persisting_l2), a 256 MB write that flushes the L2 and a GPU-side
    head start for the host (_HEAD_START_CYCLES). `before`, if given, runs
    ahead of every run, outside the events (a reset the kernel needs).
    reset_persisting=False leaves persisting lines in L2 (an experiment on
    what survives the flush; bench/eviction_hints_triton.py)."""
    import torch
    global _FLUSH
    if _FLUSH is None:
        _FLUSH = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    for _ in range(warmup):
        if before:
            before()
        fn()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for i in range(reps):
        if reset_persisting:
            # The reset is not stream-ordered: after the runs before it.
            torch.cuda.current_stream().synchronize()
            reset_persisting_l2()
        _FLUSH.zero_()
        if before:
            before()
        torch.cuda._sleep(_HEAD_START_CYCLES)
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends))


def copy_gbps(nbytes, reps=30, before=None, reset_persisting=True):
    """GB/s of a device copy moving `nbytes` in all (nbytes / 2 read, as
    many written), timed by bench_ms (`before` as there): the copy baseline
    of a kernel whose minimal traffic is `nbytes`."""
    import torch
    src = torch.empty(nbytes // 2, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    return nbytes / bench_ms(lambda: dst.copy_(src), reps, before=before,
                             reset_persisting=reset_persisting) / 1e6


def _signature(args):
    """What a prepared launch is specific to: tensors' dtype, shape and
    16-byte alignment, integers' values (strides and sizes), constexprs;
    floats are runtime values."""
    key = []
    for a in args:
        if hasattr(a, "data_ptr"):
            key.append((str(a.dtype), tuple(a.shape), a.data_ptr() % 16))
        elif isinstance(a, tuple):  # (address, dtype name)
            key.append((a[1], a[0] % 16))
        elif isinstance(a, constexpr):
            key.append(("constexpr", int(a)))
        elif isinstance(a, float):
            key.append(float)
        else:
            key.append(a)
    return tuple(key)


def runtime_args(args):
    """The arguments a prepared launch takes (constexprs are fixed)."""
    return [a for a in args if not isinstance(a, constexpr)]


class BlockjitKernel:
    """A registered blockjit kernel through the C ABI: prepared once per
    argument signature with autotuning (the kernel's tuner picks num_warps,
    num_stages, num_ctas, the constexprs it tunes and the grid, or reads them
    from the disk cache), then launched through the prepared handle.

    Calls take the kernel's full argument list, constexpr(...) values
    included, in the registered order; a constexpr the tuner chooses takes
    any placeholder (the tuner replaces it). A kernel registered without an
    autotuner is prepared with `fallback(args) -> (grid, num_warps)` when one
    is given (`untuned` is then True and the config says so), else fails.
    """

    def __init__(self, lib, kernel, target="cuda", autotune=True, fallback=None):
        self.lib, self.kernel, self.target = lib, kernel, target
        self.autotune, self.fallback = autotune, fallback
        self.untuned = False
        self.prepared = {}

    def _stream(self):
        if self.target != "cuda":
            return None
        import torch
        return torch.cuda.current_stream().cuda_stream

    def prepare(self, args):
        """The Prepared launch for arguments like `args` (made on first use)."""
        key = _signature(args)
        p = self.prepared.get(key)
        if p is None:
            p = self._prepare(list(args))
            self.prepared[key] = p
        return p

    def _prepare(self, args):
        if self.autotune and not self.untuned:
            try:
                return self.lib.prepare(self.kernel, args, autotune=True,
                                        target=self.target, stream=self._stream())
            except BlockjitError as e:
                if "has no autotuner" not in str(e) or self.fallback is None:
                    raise
                self.untuned = True
        grid, num_warps = self.fallback(args) if self.fallback else ((1,), 4)
        return self.lib.prepare(self.kernel, args, grid=grid, num_warps=num_warps,
                                target=self.target, stream=self._stream())

    def config(self, *args):
        """The prepared launch's configuration as text."""
        return self.prepare(args).config + (",untuned" if self.untuned else "")

    def bind(self, *args):
        """A function of no arguments that launches on `args` (prepared now):
        the cheapest call, for timing loops."""
        launch = self.prepare(args).launch
        values = runtime_args(args)
        return lambda: launch(*values)

    def __call__(self, *args):
        self.prepare(args).launch(*runtime_args(args))
