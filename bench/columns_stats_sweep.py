#!/usr/bin/env python3
"""softmax_columns_stats one fixed config at a time on 32768 x N (bf16,
fp32): rows a split x BLOCK_M x warps x stages on strips of BN columns,
with registers and programs an SM (an experiment;
docs/softmax_columns_split_h200_where_time_goes.txt).

    N=781 RPS=32,64,128 BMS=2,4,8,16 WARPS=2,4,8,16 STAGES=1,2,3,4 \
        BN=1024 DTYPES=bf16,fp32 python3 bench/columns_stats_sweep.py"""
import itertools
import os
import sys
import torch
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blockjit_ctypes import Blockjit, constexpr  # noqa: E402
from bench_common import bench_ms  # noqa: E402

lib = Blockjit(os.environ.get("LIB", "build/lib/libblockjit_c.so"))
m = 32768
N = int(os.environ.get("N", "781"))
BMS = [int(v) for v in os.environ.get("BMS", "2,4,8,16").split(",")]
WARPS = [int(v) for v in os.environ.get("WARPS", "2,4,8,16").split(",")]
STAGES = [int(v) for v in os.environ.get("STAGES", "1,2,3,4").split(",")]
RPS = [int(v) for v in os.environ.get("RPS", "32,64,128").split(",")]
BN = int(os.environ.get("BN", "1024"))
res = []
for dname, dt in (("bf16", torch.bfloat16), ("fp32", torch.float32)):
    if dname not in os.environ.get("DTYPES", "bf16,fp32"):
        continue
    x = torch.randn(m, N, device="cuda").to(dt)
    for rps, bm, w, s in itertools.product(RPS, BMS, WARPS, STAGES):
        per_thread = bm * BN // (32 * w)
        if per_thread > 64 or per_thread < 2:
            continue
        splits = -(-m // rps)
        strips = -(-N // BN)
        stats = torch.empty(2 * splits * N, device="cuda")
        args = [stats, x, N, m, N, rps, constexpr(bm), constexpr(BN)]
        try:
            p = lib.prepare("softmax_columns_stats", args, grid=(strips, splits),
                            num_warps=w, num_stages=s)
        except Exception as e:  # noqa: BLE001
            print(f"{dname} rps={rps} bm={bm} w={w} s={s}: {str(e)[:80]}")
            continue
        vals = [a for a in args if not isinstance(a, constexpr)]
        t = bench_ms(lambda: p.launch(*vals), 20)
        b = m * N * x.element_size()
        info = p.info
        res.append((t, dname, rps, bm, w, s, info.registers,
                    info.max_programs_per_processor))
        print(f"{dname} rps={rps} bm={bm} w={w} s={s} regs={info.registers} "
              f"progs/SM={info.max_programs_per_processor}: {t*1e3:.1f} us "
              f"{b/t/1e6:.0f} GB/s", flush=True)
print("== best")
for d in ("bf16", "fp32"):
    for r in sorted(x for x in res if x[1] == d)[:6]:
        print(d, f"{r[0]*1e3:.1f} us", r[2:])
