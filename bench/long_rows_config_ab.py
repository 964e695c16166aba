#!/usr/bin/env python3
"""Two builds of blockjit, one long-row softmax config at a time: GB/s,
registers and shared memory of each (num_ctas, num_warps, num_stages, rows a
program) with each library, the libraries interleaved config by config in
one process (both loaded: each has its own LLVM and registry), so that a
tuned-run difference can be traced to configs rather than to the tuner.

    python3 bench/long_rows_config_ab.py --libs OLD.so,NEW.so \
        --n 131072,200000 --dtypes bf16 --configs 16x4x2x8,8x2x2x4

--once launches each config once per library and times nothing, for a
profiler: ncu --kernel-name regex:softmax python3 ... --once
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blockjit_ctypes import Blockjit, BlockjitError, constexpr  # noqa: E402
from bench_common import bench_ms, next_power_of_2  # noqa: E402

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--libs", required=True, help="comma-separated .so paths")
    p.add_argument("--n", default="131072,200000,262144")
    p.add_argument("--dtypes", default="bf16")
    p.add_argument("--configs", default="16x4x2x8,16x4x3x8,8x2x2x4,8x4x2x8",
                   help="CTAsxWARPSxSTAGESxROWS_A_PROGRAM, comma-separated")
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--once", action="store_true",
                   help="one launch a config and library, untimed (for ncu)")
    a = p.parse_args()
    libs = [(path, Blockjit(path)) for path in a.libs.split(",")]
    print("dtype n config lib registers shared_bytes GB/s")
    for dname in a.dtypes.split(","):
        for n in map(int, a.n.split(",")):
            m = (1 << 31) // n
            x = torch.randn(m, n, device="cuda").to(DTYPES[dname])
            y = torch.empty_like(x)
            ref = torch.softmax(x[:8].double(), -1)
            args = [y, x, x.stride(0), y.stride(0), m, n,
                    constexpr(next_power_of_2(n))]
            nbytes = 2 * x.numel() * x.element_size()
            for cfg in a.configs.split(","):
                ctas, warps, stages, rows = map(int, cfg.split("x"))
                for path, lib in libs:
                    name = os.path.basename(path)
                    try:
                        info = lib.warmup("softmax", args, num_warps=warps,
                                          num_stages=stages, num_ctas=ctas)
                        run = lib.prepare("softmax", args, grid=((m + rows - 1) // rows,),
                                          num_warps=warps, num_stages=stages,
                                          num_ctas=ctas)
                    except BlockjitError as e:
                        print(f"{dname} {n} {cfg} {name}: {str(e).splitlines()[0][:80]}")
                        continue
                    launch = lambda: run(*[v for v in args if not isinstance(v, constexpr)])
                    launch()
                    torch.cuda.synchronize()
                    err = (y[:8].double() - ref).abs().max().item()
                    gbps = 0 if a.once else nbytes / bench_ms(launch, reps=a.reps) / 1e6
                    print(f"{dname} {n} {cfg} {name} {info.registers} "
                          f"{info.shared_memory_bytes} {gbps:.0f}"
                          f"{'' if err < 2e-2 else f' WRONG {err:.2e}'}", flush=True)


if __name__ == "__main__":
    main()
