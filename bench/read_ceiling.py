#!/usr/bin/env python3
"""What reading 32768 x N once costs on this GPU: torch's column sum and
amax (dim 0), a flat sum, a row sum and logsumexp over dim 0, L2 flushed,
median of 20 (an experiment; docs/softmax_columns_split_h200_where_time_goes.txt).
The split's stats launch reads the same bytes once.

    python3 bench/read_ceiling.py"""
import os
import sys
import torch
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import bench_ms  # noqa: E402

m = 32768
for n in (781, 1024, 4096):
    for dname, dt in (("bf16", torch.bfloat16), ("fp32", torch.float32)):
        x = torch.randn(m, n, device="cuda").to(dt)
        b = m * n * x.element_size()
        out = []
        for name, fn in (("sum0", lambda: x.sum(0)), ("amax0", lambda: x.amax(0)),
                         ("flat_sum", lambda: x.view(-1).sum()),
                         ("sum1", lambda: x.sum(1)),
                         ("lse0", lambda: torch.logsumexp(x, 0))):
            t = bench_ms(fn, 20)
            out.append(f"{name} {t*1e3:.1f}us {b/t/1e6:.0f}")
        print(dname, m, n, " | ".join(out), flush=True)
