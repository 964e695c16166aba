#!/usr/bin/env python3
"""What a row kernel's access pattern allows, without softmax's math: each
program loads a whole row into registers, then stores it (Triton), beside
torch's flat copy of the same bytes. `copy` stores the row as loaded;
`reduce` stores it only after a max over the row (x + 0 * max), the
cross-warp dependency a softmax row has between its loads and its stores;
`softmax` is the Triton tutorial's kernel. If the row copies already stop
below the flat copy, that is the ceiling of one-row-a-program kernels (an
experiment for the long-rows issue; docs/softmax_long_rows_h200_row_copy_ceiling.txt).

    python3 bench/row_copy_ceiling.py
    SHAPES=32768x32768 DTYPES=bf16 WARPS=8,16 python3 bench/row_copy_ceiling.py
"""
import os
import sys

import torch
import triton
import triton.language as tl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import bench_ms, copy_gbps, next_power_of_2  # noqa: E402


@triton.jit
def row_kernel(dst, src, stride, n_rows, n_cols, BLOCK: tl.constexpr,
               MODE: tl.constexpr):
    # MODE 0: copy; 1: store after a max over the row; 2: softmax.
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(src + row * stride + offs, mask=mask, other=-float("inf"))
    if MODE == 0:
        y = x
    elif MODE == 1:
        y = x + 0 * tl.max(x, 0)
    else:
        xf = x.to(tl.float32)
        e = tl.exp(xf - tl.max(xf, 0))
        y = (e / tl.sum(e, 0)).to(x.dtype)
    tl.store(dst + row * stride + offs, y, mask=mask)


def main():
    shapes = os.environ.get(
        "SHAPES", "32768x8192,32768x16384,32768x32768,32768x65536")
    dtypes = os.environ.get("DTYPES", "fp32,bf16")
    warps_list = [int(w) for w in os.environ.get("WARPS", "4,8,16,32").split(",")]
    reps = int(os.environ.get("REPS", "30"))
    dts = {"fp32": torch.float32, "bf16": torch.bfloat16}
    print("dtype M N mode warps GB/s x_copy")
    for dname in dtypes.split(","):
        for shape in shapes.split(","):
            m, n = map(int, shape.split("x"))
            x = torch.randn(m, n, device="cuda").to(dts[dname])
            y = torch.empty_like(x)
            nbytes = 2 * x.numel() * x.element_size()
            copy = copy_gbps(nbytes, reps)
            print(f"{dname} {m} {n} torch_copy - {copy:.0f} 1.000", flush=True)
            block = next_power_of_2(n)
            for mode, name in ((0, "copy"), (1, "reduce"), (2, "softmax")):
                for warps in warps_list:
                    def run():
                        row_kernel[(m,)](y, x, x.stride(0), m, n, BLOCK=block,
                                         MODE=mode, num_warps=warps)
                    try:
                        run()
                        torch.cuda.synchronize()
                    except Exception as e:  # out of resources, mostly
                        print(f"{dname} {m} {n} {name} {warps} failed: "
                              f"{str(e).splitlines()[0][:80]}", flush=True)
                        continue
                    if mode == 0 and not torch.equal(x, y):
                        print(f"{dname} {m} {n} {name} {warps} WRONG", flush=True)
                    gbps = nbytes / bench_ms(run, reps=reps) / 1e6
                    print(f"{dname} {m} {n} {name} {warps} {gbps:.0f} "
                          f"{gbps / copy:.3f}", flush=True)


if __name__ == "__main__":
    main()
