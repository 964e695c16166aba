#!/usr/bin/env python3
"""The split's stats and normalize launches (each tuned) on 32768 x N at
row strides N, N + 1 and the next multiple of 8 (views of wider
matrices): what the rows' alignment is worth (an experiment;
docs/softmax_columns_split_h200_where_time_goes.txt).

    N=781 python3 bench/columns_split_strides.py"""
import os
import sys
import torch
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blockjit_ctypes import Blockjit, constexpr  # noqa: E402
from bench_common import BlockjitKernel, bench_ms  # noqa: E402

lib = Blockjit(os.environ.get("LIB", "build/lib/libblockjit_c.so"))
st = BlockjitKernel(lib, "softmax_columns_stats")
nz = BlockjitKernel(lib, "softmax_columns_normalize")
m, n, r = 32768, int(os.environ.get("N", "781")), 64
for dname, dt in (("bf16", torch.bfloat16), ("fp32", torch.float32)):
    for stride in (n, n + 1, (n + 7) // 8 * 8 + (8 if n % 8 == 0 else 0)):
        base = torch.randn(m, stride, device="cuda").to(dt)
        x = base[:, :n]
        ybase = torch.empty_like(base)
        y = ybase[:, :n]
        splits = m // r
        stats = torch.empty(2 * splits * n, device="cuda")
        cs = torch.empty(2 * n, device="cuda")
        cs[:n] = 0.0
        cs[n:] = 1.0
        sa = [stats, x, stride, m, n, r, constexpr(4), constexpr(1024)]
        na = [y, x, cs, stride, stride, m, n, constexpr(4), constexpr(1024)]
        ts = bench_ms(st.bind(*sa), 30)
        tn = bench_ms(nz.bind(*na), 30)
        b = m * n * x.element_size()
        print(f"{dname} stride={stride} stats {ts*1e3:.1f} us ({b/ts/1e6:.0f} GB/s read) "
              f"[{st.config(*sa)}] normalize {tn*1e3:.1f} us ({2*b/tn/1e6:.0f} GB/s) [{nz.config(*na)}]",
              flush=True)
