#!/usr/bin/env python3
"""Softmax over dim 0 in column groups small enough for L2: the split's
three launches (softmax_columns_stats, _combine, _normalize) run per group
of G columns, so that normalize might re-read its group from L2 instead of
DRAM (an experiment; docs/softmax_columns_split_h200_where_time_goes.txt).

    SHAPES=32768x781,... DTYPES=fp32,bf16 GROUPS_MB=12,24 \
        python3 bench/columns_split_groups.py

Prints GB/s of 2*M*N*s for the whole-matrix split and for groups of
GROUPS_MB megabytes of x (G rounded down to 64 columns), each launched
eagerly and captured in one CUDA graph, with a device copy of the same
bytes; each result is checked against torch's float64 softmax(x, 0)."""
import os
import sys
import torch
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blockjit_ctypes import Blockjit, constexpr  # noqa: E402
from bench_common import BlockjitKernel, bench_ms, copy_gbps, next_power_of_2  # noqa: E402
from softmax_columns_split import case, matches, rows_per_split  # noqa: E402


lib = Blockjit(os.environ.get("LIB", "build/lib/libblockjit_c.so"))
stats_k = BlockjitKernel(lib, "softmax_columns_stats")
combine_k = BlockjitKernel(lib, "softmax_columns_combine")
normalize_k = BlockjitKernel(lib, "softmax_columns_normalize")
SHAPES = os.environ.get("SHAPES", "32768x781,32768x1024,32768x4096,32768x12288")
DTYPES = os.environ.get("DTYPES", "fp32,bf16")
GROUPS_MB = [int(g) for g in os.environ.get("GROUPS_MB", "8,16,24").split(",")]
RPS = os.environ.get("RPS", "")  # rows per split override in groups


def launches(x, y, c0, g, r, stats, colstats):
    m = x.shape[0]
    xg, yg = x[:, c0:c0 + g], y[:, c0:c0 + g]
    splits = -(-m // r)
    s = stats_k.bind(stats, xg, x.stride(0), m, g, r, constexpr(4), constexpr(1024))
    c = combine_k.bind(colstats, stats, splits, g,
                       constexpr(min(64, next_power_of_2(splits))), constexpr(64))
    n = normalize_k.bind(yg, xg, colstats, x.stride(0), y.stride(0), m, g,
                         constexpr(4), constexpr(max(64, min(1024, next_power_of_2(g)))))
    return [s, c, n]


for dname in DTYPES.split(","):
    dt = {"fp32": torch.float32, "bf16": torch.bfloat16}[dname]
    for shape in SHAPES.split(","):
        m, n = map(int, shape.split("x"))
        x, y, ref, nbytes = case(m, n, dt)
        copy = copy_gbps(nbytes)
        out = [f"{dname} {m}x{n} copy={copy:.0f}"]
        variants = [("whole", n)]
        for mb in GROUPS_MB:
            g = (mb << 20) // (m * x.element_size())
            g = max(64, g // 64 * 64)
            if g < n:
                variants.append((f"g{mb}MB", g))
        for name, g in variants:
            r = int(RPS) if RPS and name != "whole" else rows_per_split(m, min(g, n))
            splits = -(-m // r)
            stats = torch.empty(2 * splits * g, device="cuda", dtype=torch.float32)
            colstats = torch.empty(2 * g, device="cuda", dtype=torch.float32)
            seq = []
            for c0 in range(0, n, g):
                seq += launches(x, y, c0, min(g, n - c0), r, stats, colstats)

            def eager():
                for f in seq:
                    f()
            y.fill_(float("nan"))
            eager()
            torch.cuda.synchronize()
            ok = "ok" if matches(y, ref, (1e-2, 2e-2)) else "BAD"
            t_e = bench_ms(eager, 30)
            res = f"{name}(G={g},r={r},L={len(seq)}) eager={nbytes/t_e/1e6:.0f}"
            try:
                graph = torch.cuda.CUDAGraph()
                s = torch.cuda.Stream()
                s.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(s):
                    eager()
                torch.cuda.current_stream().wait_stream(s)
                with torch.cuda.graph(graph):
                    eager()
                t_g = bench_ms(graph.replay, 30)
                res += f" graph={nbytes/t_g/1e6:.0f} ({nbytes/t_g/1e6/copy:.3f}x)"
            except Exception as e:  # noqa: BLE001
                res += f" graph=ERR({str(e)[:60]})"
            out.append(res + f" {ok}")
        print(" | ".join(out), flush=True)
