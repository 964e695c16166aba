#!/usr/bin/env python3
"""Device copy on a persistent grid of G CTAs (one an SM): does a copy need
every SM to reach DRAM speed? (an experiment for long rows on clusters,
which leave 8-20 of 132 SMs idle; docs/copy_persistent_sms_h200.txt)

    python3 bench/copy_persistent_sms.py
"""
import os
import sys

import torch
import triton
import triton.language as tl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import bench_ms  # noqa: E402


@triton.jit
def copy_kernel(dst, src, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    G = tl.num_programs(0)
    for start in range(pid * BLOCK, n, G * BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(dst + offs, tl.load(src + offs, mask=m), mask=m)

n = (1 << 31)  # fp32 elements: 8.6 GB read + 8.6 GB write, as long rows' M*N
src = torch.randn(n, device="cuda")
dst = torch.empty_like(src)
nbytes = 2 * n * 4
ms = bench_ms(lambda: dst.copy_(src), reps=10)
print(f"torch copy: {nbytes/ms/1e6:.0f} GB/s", flush=True)
for G in (132, 128, 124, 120, 112, 104, 96):
    for warps, block in ((8, 8192), (16, 16384), (32, 16384)):
        f = lambda: copy_kernel[(G,)](dst, src, n, BLOCK=block, num_warps=warps)
        f(); torch.cuda.synchronize()
        ms = bench_ms(f, reps=10)
        print(f"G={G} warps={warps} BLOCK={block}: {nbytes/ms/1e6:.0f} GB/s", flush=True)
