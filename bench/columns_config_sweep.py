#!/usr/bin/env python3
"""softmax_columns, one config at a time: GB/s, registers, shared memory and
resident CTAs of each (warps, stages, CTAs a cluster, BLOCK_M, BLOCK_N,
WHOLE_COLUMN) on the persistent grid the tuner would give it, so that a
config space can be read rather than only its winner.

    python3 bench/columns_config_sweep.py --lib build/lib/libblockjit_c.so \
        --shapes 4096x4096,32768x4096 --dtypes fp32,bf16 [--whole-only]

GB/s = 2*M*N*s / time (bench_common.bench_ms: L2 flushed before each run, the
median of a fixed count), beside torch's copy of the same bytes. Prints one
line a config and the best per shape; --out writes a CSV.
"""
import argparse
import os
import sys
from concurrent.futures import ThreadPoolExecutor

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blockjit_ctypes import Blockjit, BlockjitError, constexpr  # noqa: E402
from bench_common import bench_ms, write_rows_csv  # noqa: E402

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}


def next_power_of_2(n):
    return 1 << max(0, (n - 1).bit_length())


def configs(m, n, whole_only, cta_counts):
    whole_m = next_power_of_2(m)
    for bn in (8, 16, 32, 64, 128):
        if bn > max(8, next_power_of_2(n)):
            continue
        for ctas in cta_counts:
            for warps in (4, 8, 16):
                for stages in (1, 2):
                    per_thread = whole_m * bn / (32 * warps * ctas)
                    if 4 <= per_thread <= 128 and whole_m * bn // ctas >= 4 * 32 * warps:
                        yield (warps, stages, ctas, whole_m, bn, 1)
                    if whole_only:
                        continue
                    for bm in (64, 128, 256, 512, 1024):
                        per_thread = bm * bn / (32 * warps * ctas)
                        if bm < m and 4 <= per_thread <= 32 and \
                                bm * bn // ctas >= 4 * 32 * warps:
                            yield (warps, stages, ctas, bm, bn, 0)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--lib", default="build/lib/libblockjit_c.so")
    p.add_argument("--shapes", default="4096x4096")
    p.add_argument("--dtypes", default="fp32,bf16")
    p.add_argument("--whole-only", action="store_true")
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--ctas", default="1,2,4,8,16", help="cluster sizes")
    p.add_argument("--configs", default=None,
                   help="only these: 'warps,stages,ctas,BLOCK_M,BLOCK_N,WHOLE;...'")
    p.add_argument("--out", default=None)
    a = p.parse_args()
    lib = Blockjit(a.lib)
    rows = []
    for dname in a.dtypes.split(","):
        dt = DTYPES[dname]
        for shape in a.shapes.split(","):
            m, n = map(int, shape.split("x"))
            x = torch.randn(m, n, device="cuda", dtype=torch.float32).to(dt)
            y = torch.empty_like(x)
            ref = torch.softmax(x.double(), 0)
            nbytes = 2 * m * n * x.element_size()
            copy_ms = bench_ms(lambda: y.copy_(x), reps=a.reps)
            copy = nbytes / copy_ms / 1e6
            print(f"{dname} {m}x{n} copy {copy:.0f} GB/s", flush=True)
            best = None
            if a.configs:
                space = [tuple(int(v) for v in c.split(","))
                         for c in a.configs.split(";")]
            else:
                space = list(configs(m, n, a.whole_only,
                                     [int(c) for c in a.ctas.split(",")]))

            def arguments(bm, bn, whole):
                return [y, x, x.stride(0), y.stride(0), m, n,
                        constexpr(bm), constexpr(bn), constexpr(whole)]

            def compile_one(c):
                warps, stages, ctas, bm, bn, whole = c
                try:
                    return lib.warmup("softmax_columns", arguments(bm, bn, whole),
                                      num_warps=warps, num_stages=stages,
                                      num_ctas=ctas)
                except BlockjitError as e:
                    return e
            # Compiled in parallel first (ctypes drops the GIL), timed one by one.
            with ThreadPoolExecutor(os.cpu_count()) as pool:
                infos = list(pool.map(compile_one, space))
            for (warps, stages, ctas, bm, bn, whole), info in zip(space, infos):
                args = arguments(bm, bn, whole)
                name = f"w={warps} s={stages} c={ctas} BM={bm} BN={bn} whole={whole}"
                try:
                    if isinstance(info, BlockjitError):
                        raise info
                    strips = -(-n // bn)
                    clusters = max(1, info.max_resident_programs)
                    grid = min(strips, clusters)
                    prep = lib.prepare("softmax_columns", args, grid=(grid,),
                                       num_warps=warps, num_stages=stages,
                                       num_ctas=ctas)
                    vals = [y, x, x.stride(0), y.stride(0), m, n]
                    prep(*vals)
                    torch.cuda.synchronize()
                    err = (y.double() - ref).abs().max().item()
                    ms = bench_ms(lambda: prep(*vals), reps=a.reps)
                except BlockjitError as e:
                    print(f"  {name}: {str(e).splitlines()[0][:100]}", flush=True)
                    continue
                gbps = nbytes / ms / 1e6
                row = dict(dtype=dname, M=m, N=n, warps=warps, stages=stages,
                           ctas=ctas, BLOCK_M=bm, BLOCK_N=bn, whole=whole,
                           registers=info.registers,
                           shared=info.shared_memory_bytes,
                           resident=info.max_resident_programs, grid=grid,
                           gbps=round(gbps, 1), over_copy=round(gbps / copy, 3),
                           err=f"{err:.1e}")
                rows.append(row)
                print(f"  {name}: regs={info.registers} smem={info.shared_memory_bytes}"
                      f" resident={info.max_resident_programs} grid={grid}"
                      f" {gbps:.0f} GB/s {gbps / copy:.3f} x copy err={err:.1e}",
                      flush=True)
                if best is None or gbps > best[0]:
                    best = (gbps, name)
            if best:
                print(f"BEST {dname} {m}x{n}: {best[0]:.0f} GB/s {best[0] / copy:.3f}"
                      f" x copy {best[1]}", flush=True)
    if a.out and rows:
        write_rows_csv(a.out, rows)


if __name__ == "__main__":
    main()
