#!/usr/bin/env python3
"""layernorm, blockjit configs and torch.compile, timed two ways: with the
L2 flushed by bench_common's 256 MB write (the protocol: it leaves dirty
lines that the timed kernel's traffic writes back) and by a 256 MB read
(clean lines). Whether the flush explains where blockjit and Inductor swap
places from run to run (docs/layernorm_h200_flush_modes.txt).

    python3 bench/layernorm_flush_modes.py --lib build/lib/libblockjit_c.so

Configs are WARPSxSTAGESxGRID, GRID `rows` (one program a row) or
`resident` (the persistent grid); `tuned` is the autotuner's pick.
"""
import argparse
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blockjit_ctypes import Blockjit, constexpr  # noqa: E402
from bench_common import bench_ms, next_power_of_2  # noqa: E402

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}
CASES = "fp32:4096x4096:4x2xrows,8x1xrows,16x1xrows,4x2xresident;" \
        "bf16:32768x1024:1x1xrows,2x2xresident,4x1xrows;" \
        "bf16:4096x1024:2x2xresident,1x1xrows,4x1xrows"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--lib", default="build/lib/libblockjit_c.so")
    p.add_argument("--cases", default=CASES,
                   help="DTYPE:MxN:CONFIG,...;... (CONFIG = WARPSxSTAGESxGRID)")
    p.add_argument("--reps", type=int, default=40)
    a = p.parse_args()
    lib = Blockjit(a.lib)
    # The clean flush: after bench_ms's write flush, a read of 256 MB, which
    # writes the dirty lines back outside the timed events and leaves L2
    # holding clean ones.
    source = torch.zeros(256 << 20, dtype=torch.uint8, device="cuda")
    read_flush = lambda: source.view(torch.int64).max()  # noqa: E731
    stream = torch.cuda.current_stream().cuda_stream
    for spec in a.cases.split(";"):
        dname, shape, configs = spec.split(":")
        m, n = map(int, shape.split("x"))
        dt = DTYPES[dname]
        x = torch.randn(m, n, device="cuda").to(dt)
        y = torch.empty_like(x)
        w = (1 + 0.1 * torch.randn(n, device="cuda")).to(dt)
        b = (0.1 * torch.randn(n, device="cuda")).to(dt)
        nbytes = (2 * m * n + 2 * n) * x.element_size()
        args = [y, x, w, b, x.stride(0), y.stride(0), m, n, 1e-5]
        consts = [constexpr(next_power_of_2(n)), constexpr(0)]
        compiled = torch.compile(lambda x, w, b: F.layer_norm(x, (n,), w, b, 1e-5))
        fns = {"torch.compile": lambda: compiled(x, w, b), "copy": lambda: y.copy_(x)}
        for config in configs.split(","):
            warps, stages, grid = config.split("x")
            info = lib.warmup("layernorm", args + consts, num_warps=int(warps),
                              num_stages=int(stages))
            programs = m if grid == "rows" else max(1, info.max_resident_programs)
            run = lib.prepare("layernorm", args + consts, grid=(programs,),
                              num_warps=int(warps), num_stages=int(stages))
            fns[config] = lambda run=run: run(*args)
        tuned = lib.prepare("layernorm", args + consts, autotune=True, stream=stream)
        fns["tuned " + tuned.config] = lambda: tuned(*args)
        for name, fn in fns.items():
            dirty = nbytes / bench_ms(fn, reps=a.reps) / 1e6
            clean = nbytes / bench_ms(fn, reps=a.reps, before=read_flush) / 1e6
            print(f"{dname} {m}x{n} {name}: dirty flush {dirty:.0f} GB/s, "
                  f"clean flush {clean:.0f} GB/s", flush=True)


if __name__ == "__main__":
    main()
