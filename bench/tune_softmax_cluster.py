#!/usr/bin/env python3
"""Which num_ctas, num_warps and num_stages are fastest for blockjit's softmax on long rows?

    python3 bench/tune_softmax_cluster.py --lib build/lib/libblockjit_c.so --out results/

For QuACK's shapes (M = 32768 for N <= 32768, else M * N = 2^31) it times
every configuration that compiles (do_bench median, L2 flushed) after
checking it against torch on the first rows, beside a device copy of the
same bytes, and writes tune_softmax_cluster.csv. The long-row heuristic
(examples::softmaxConfig, softmax_gpu.blockjit_config) comes from this table.
"""
import argparse
import csv
import itertools
import os
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blockjit_ctypes import Blockjit, BlockjitError, constexpr  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lib", default="build/lib/libblockjit_c.so")
    parser.add_argument("--out", default="bench-results")
    parser.add_argument("--n", default="16384,32768,65536,131072,262144")
    parser.add_argument("--dtypes", default="float32,bfloat16")
    parser.add_argument("--ctas", default="1,2,4,8,16")
    parser.add_argument("--warps", default="4,8,16,32")
    parser.add_argument("--stages", default="1,2")
    parser.add_argument("--grids", default="persistent",
                        help="persistent (resident programs) and/or rows (one program per row)")
    opts = parser.parse_args()
    os.makedirs(opts.out, exist_ok=True)
    lib = Blockjit(opts.lib)
    stream = torch.cuda.current_stream().cuda_stream
    rows = []
    for dtype_name in opts.dtypes.split(","):
        dtype = getattr(torch, dtype_name)
        for n in [int(v) for v in opts.n.split(",")]:
            m = 32768 if n <= 32768 else (1 << 31) // n
            x = torch.randn(m, n, device="cuda", dtype=dtype)
            y = torch.empty_like(x)
            ref = torch.softmax(x[:8].double(), dim=-1)
            tol = 1e-6 if dtype == torch.float32 else 1e-2
            gbs = lambda ms: 2 * x.numel() * x.element_size() / (ms * 1e-3) / 1e9
            copy = gbs(triton.testing.do_bench(lambda: y.copy_(x), warmup=10, rep=100,
                                               return_mode="median"))
            block = triton.next_power_of_2(n)
            results = []
            for ctas, warps, stages, grid_mode in itertools.product(
                    [int(v) for v in opts.ctas.split(",")],
                    [int(v) for v in opts.warps.split(",")],
                    [int(v) for v in opts.stages.split(",")],
                    opts.grids.split(",")):
                if block // (ctas * warps * 32) > 256:
                    continue  # spills: not worth timing
                args = [y, x, n, n, m, n, constexpr(block)]
                try:
                    info = lib.warmup("softmax", args, num_warps=warps, num_stages=stages,
                                      target="cuda", num_ctas=ctas)
                    grid = m if grid_mode == "rows" else min(m, info.max_resident_programs)
                    fn = lambda: lib.launch("softmax", args, grid=(grid,), num_warps=warps,
                                            num_stages=stages, target="cuda", stream=stream,
                                            num_ctas=ctas)
                    y.fill_(float("nan"))
                    fn()
                    torch.cuda.synchronize()
                    err = (y[:8].double() - ref).abs().max().item()
                    if not err <= tol:
                        raise RuntimeError(f"wrong: max error {err}")
                    ms = triton.testing.do_bench(fn, warmup=10, rep=100, return_mode="median")
                except (BlockjitError, RuntimeError) as e:
                    print(f"  {dtype_name} N={n} ctas={ctas} warps={warps} stages={stages}: "
                          f"{str(e).splitlines()[0][:100]}", flush=True)
                    continue
                row = {"dtype": dtype_name, "N": n, "M": m, "num_ctas": ctas,
                       "effective_ctas": info.ctas_per_program, "num_warps": warps,
                       "num_stages": stages, "registers": info.registers,
                       "ctas_per_sm": info.max_programs_per_processor,
                       "grid": grid, "GBps": round(gbs(ms), 1), "copy_GBps": round(copy, 1)}
                row["over_copy"] = round(row["GBps"] / copy, 3)
                rows.append(row)
                results.append(row)
            results.sort(key=lambda r: -r["GBps"])
            print(f"{dtype_name:9} N={n:7} copy {copy:6.0f}  best: " + "  ".join(
                f"c{r['num_ctas']}w{r['num_warps']}s{r['num_stages']}"
                f"(r{r['registers']},{r['ctas_per_sm']}/SM,g{r['grid']}):{r['GBps']:.0f}"
                for r in results[:5]), flush=True)
            del x, y
            torch.cuda.empty_cache()
    path = os.path.join(opts.out, "tune_softmax_cluster.csv")
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else ["dtype"])
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
