#!/usr/bin/env python3
"""Is a load hint's gain on a small input real, or L2 left over from the
run before? Each provider (a device copy, torch.compile, blockjit's tuned
config, fixed blockjit configs with loads plain and evict_last) is timed
twice by bench_ms (persisting lines reset, L2 flushed, median): on the same
tensors every run, and rotating over --sets copies of them (8 x a 64 MB
input is 8 x L2), so that no run can find the previous one's lines. A gain
that survives rotation is the kernel's own.

    python3 bench/eviction_rotation.py --lib build/lib/libblockjit_c.so \
        --kernels softmax_backward,softmax --dtypes bf16,fp32 \
        --shapes 4096x4096,4096x1024 --configs '8,2,resident;4,1,rows'

GB/s of the minimal traffic (softmax 2*M*N*s, softmax_backward 3*M*N*s).
"""
import argparse
import itertools
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blockjit_ctypes import Blockjit, constexpr  # noqa: E402
from bench_common import bench_ms, next_power_of_2  # noqa: E402

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}


def make_sets(kernel, m, n, dt, count):
    """`count` independent (kernel arguments without constexprs, the torch
    peer's tensors) sets."""
    sets = []
    for _ in range(count):
        x = torch.randn(m, n, device="cuda").to(dt)
        out = torch.empty_like(x)
        if kernel == "softmax":
            sets.append(([out, x, x.stride(0), out.stride(0), m, n], (x,)))
        else:
            y = torch.softmax(x.float(), -1).to(dt)
            dy = torch.randn(m, n, device="cuda").to(dt)
            sets.append(([out, y, dy, out.stride(0), y.stride(0), dy.stride(0), m, n],
                         (y, dy)))
    return sets


def timed_both(run, count, reps):
    """(ms on set 0 every run, ms rotating over the sets); run(i) runs set i."""
    same = bench_ms(lambda: run(0), reps=reps)
    turn = itertools.count()
    rotating = bench_ms(lambda: run(next(turn) % count), reps=reps)
    return same, rotating


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lib", default="build/lib/libblockjit_c.so")
    p.add_argument("--kernels", default="softmax_backward,softmax")
    p.add_argument("--dtypes", default="bf16,fp32")
    p.add_argument("--shapes", default="4096x4096,4096x1024")
    p.add_argument("--configs", default="8,2,resident;4,1,rows;2,2,resident",
                   help="warps,stages,rows|resident; ... (each timed plain "
                        "and with loads evict_last)")
    p.add_argument("--sets", type=int, default=8)
    p.add_argument("--reps", type=int, default=40)
    a = p.parse_args()
    lib = Blockjit(a.lib)
    stream = torch.cuda.current_stream().cuda_stream
    for kernel, dname, shape in itertools.product(
            a.kernels.split(","), a.dtypes.split(","), a.shapes.split(",")):
        m, n = map(int, shape.split("x"))
        dt = DTYPES[dname]
        sets = make_sets(kernel, m, n, dt, a.sets)
        size = dt.itemsize
        nbytes = (2 if kernel == "softmax" else 3) * m * n * size
        consts = [constexpr(next_power_of_2(n))]
        results = []

        def add(name, run):
            same, rotating = timed_both(run, a.sets, a.reps)
            results.append(f"{name} {nbytes / same / 1e6:.0f}/{nbytes / rotating / 1e6:.0f}")

        srcs = [torch.empty(m * n * size, dtype=torch.uint8, device="cuda")
                for _ in range(a.sets)]
        dsts = [torch.empty_like(s) for s in srcs]
        # The copy moves 2*M*N*s: rated as the kernel's bytes at its pace.
        same, rotating = timed_both(lambda i: dsts[i].copy_(srcs[i]), a.sets, a.reps)
        copy_bytes = 2 * m * n * size
        results.append(f"copy {copy_bytes / same / 1e6:.0f}/{copy_bytes / rotating / 1e6:.0f}")
        if kernel == "softmax":
            compiled = torch.compile(lambda x: torch.softmax(x, -1))
        else:
            compiled = torch.compile(
                lambda y, dy: y * (dy - (y * dy).sum(-1, keepdim=True)))
        compiled(*sets[0][1])
        add("compile", lambda i: compiled(*sets[i][1]))
        tuned = lib.prepare(kernel, sets[0][0] + consts, autotune=True, stream=stream)
        add("tuned", lambda i: tuned(*sets[i][0]))
        for spec in a.configs.split(";"):
            warps, stages, grid = spec.split(",")
            info = lib.warmup(kernel, sets[0][0] + consts, num_warps=int(warps),
                              num_stages=int(stages))
            programs = m if grid == "rows" else max(1, info.max_resident_programs)
            for loads in ("normal", "evict_last"):
                prep = lib.prepare(kernel, sets[0][0] + consts, grid=(programs,),
                                   num_warps=int(warps), num_stages=int(stages),
                                   load_eviction=loads)
                add(f"w{warps}s{stages}{grid[:3]}{'L' if loads != 'normal' else ''}",
                    lambda i, prep=prep: prep(*sets[i][0]))
        print(f"{kernel} {dname} {shape} (GB/s same/rotating): " + " ".join(results),
              flush=True)


if __name__ == "__main__":
    main()
