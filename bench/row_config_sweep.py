#!/usr/bin/env python3
"""A row kernel (softmax, softmax_backward or layernorm), one config at a time: GB/s,
registers, shared memory and resident programs of each (warps, stages,
grid) beside the autotuner's pick, so that the space around a tuned point
can be read rather than only its winner.

    python3 bench/row_config_sweep.py --lib build/lib/libblockjit_c.so \
        --kernels layernorm,softmax --shapes 4096x12288 --dtypes bf16

Grids (--grids): one program a row (`rows`), the persistent grid of
resident programs (`resident`), and R rows a program for R in
--rows-per-program (`per-program`). layernorm's CHUNK_SIZE values: --chunks. GB/s =
minimal traffic / time (bench_common.bench_ms: L2 flushed before each run,
the median of a fixed count), beside a device copy of the same bytes.
--compile also times torch.compile of the kernel's torch expression on
the same tensors (the family bench's compiled peer). --out writes a CSV.
"""
import argparse
import itertools
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blockjit_ctypes import Blockjit, BlockjitError, constexpr  # noqa: E402
from bench_common import bench_ms, copy_gbps, next_power_of_2, write_rows_csv  # noqa: E402

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}
EPS = 1e-5


def make_case(kernel, m, n, dt):
    """(arguments without constexprs, constexprs, reference, output, bytes)."""
    x = torch.randn(m, n, device="cuda", dtype=torch.float32).to(dt)
    y = torch.empty_like(x)
    block = next_power_of_2(n)
    if kernel == "softmax":
        args = [y, x, x.stride(0), y.stride(0), m, n]
        ref = torch.softmax(x.double(), -1)
        peer = lambda: torch.softmax(x, -1)  # noqa: E731
        return args, [constexpr(block)], ref, y, 2 * m * n * x.element_size(), peer
    if kernel == "softmax_backward":
        # y a softmax output, dy a gradient: dx = y * (dy - sum(y * dy)).
        sm = torch.softmax(x.float(), -1).to(dt)
        dy = torch.randn(m, n, device="cuda", dtype=torch.float32).to(dt)
        args = [y, sm, dy, y.stride(0), sm.stride(0), dy.stride(0), m, n]
        smd, dyd = sm.double(), dy.double()
        ref = smd * (dyd - (smd * dyd).sum(-1, keepdim=True))
        peer = lambda: sm * (dy - (sm * dy).sum(-1, keepdim=True))  # noqa: E731
        return args, [constexpr(block)], ref, y, 3 * m * n * x.element_size(), peer
    w = (1 + 0.1 * torch.randn(n, device="cuda")).to(dt)
    b = (0.1 * torch.randn(n, device="cuda")).to(dt)
    args = [y, x, w, b, x.stride(0), y.stride(0), m, n, EPS]
    ref = F.layer_norm(x.double(), (n,), w.double(), b.double(), EPS)
    peer = lambda: F.layer_norm(x, (n,), w, b, EPS)  # noqa: E731
    return (args, [constexpr(block), constexpr(0)], ref, y,
            2 * m * n * x.element_size() + 2 * n * x.element_size(), peer)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--lib", default="build/lib/libblockjit_c.so")
    p.add_argument("--kernels", default="layernorm,softmax",
                   help="comma-separated: softmax, softmax_backward, layernorm")
    p.add_argument("--shapes", default="4096x12288")
    p.add_argument("--dtypes", default="bf16")
    p.add_argument("--warps", default="4,8,16")
    p.add_argument("--stages", default="1,2,3")
    p.add_argument("--rows-per-program", default="2,4,8")
    p.add_argument("--chunks", default="0",
                   help="layernorm: CHUNK_SIZE values to sweep (0: the whole row)")
    p.add_argument("--grids", default="rows,resident,per-program",
                   help="which grids: rows, resident, per-program (the "
                        "--rows-per-program ones)")
    p.add_argument("--loads", default="normal",
                   help="load eviction hints to time each config with "
                        "(normal,evict_last)")
    p.add_argument("--programs-per-cta", default="1",
                   help="programs a CTA runs at once (1,2,...)")
    p.add_argument("--reps", type=int, default=30)
    p.add_argument("--out", default=None)
    p.add_argument("--compile", action="store_true",
                   help="also time torch.compile of the kernel's torch expression")
    a = p.parse_args()
    lib = Blockjit(a.lib)
    rows = []
    for kernel in a.kernels.split(","):
        for dname in a.dtypes.split(","):
            for shape in a.shapes.split(","):
                m, n = map(int, shape.split("x"))
                args, consts, ref, y, nbytes, peer = make_case(kernel, m, n, DTYPES[dname])
                src = args[1]
                # A copy of the input's bytes, rated by what it moves; ratios
                # compare the kernel's minimal traffic at that rate.
                copy = copy_gbps(2 * src.numel() * src.element_size(), a.reps)
                print(f"{kernel} {dname} {m}x{n} copy {copy:.0f} GB/s", flush=True)
                if a.compile:
                    compiled = torch.compile(peer)
                    compiled()
                    peer_ms = bench_ms(compiled, reps=a.reps)
                    print(f"  torch.compile: {nbytes / peer_ms / 1e6:.0f} GB/s"
                          f" {nbytes / peer_ms / 1e6 / copy:.3f} x copy", flush=True)

                def record(name, prep, info, grid, cfg):
                    prep(*args)
                    torch.cuda.synchronize()
                    err = (y.double() - ref).abs().max().item()
                    ms = bench_ms(lambda: prep(*args), reps=a.reps)
                    gbps = nbytes / ms / 1e6
                    rows.append(dict(kernel=kernel, dtype=dname, M=m, N=n, config=name,
                                     registers=info.registers,
                                     shared=info.shared_memory_bytes,
                                     resident=info.max_resident_programs, grid=grid,
                                     gbps=round(gbps, 1),
                                     over_copy=round(gbps / copy, 3), err=f"{err:.1e}"))
                    print(f"  {name}: regs={info.registers} smem={info.shared_memory_bytes}"
                          f" resident={info.max_resident_programs} grid={grid}"
                          f" {gbps:.0f} GB/s {gbps / copy:.3f} x copy err={err:.1e}"
                          f" {cfg}", flush=True)

                tuned = lib.prepare(kernel, args + consts, autotune=True,
                                    stream=torch.cuda.current_stream().cuda_stream)
                record("tuned", tuned, tuned.info, "-", tuned.config)
                chunks = list(map(int, a.chunks.split(",")))
                if kernel != "layernorm":
                    chunks = [None]
                kinds = a.grids.split(",")
                for chunk in chunks:
                    these = consts if chunk is None else consts[:1] + [constexpr(chunk)]
                    tag = f" chunk={chunk}" if chunk else ""
                    for warps, stages, ppc in itertools.product(
                            map(int, a.warps.split(",")), map(int, a.stages.split(",")),
                            map(int, a.programs_per_cta.split(","))):
                        name = f"w={warps} s={stages}{tag}" + (
                            f" programs={ppc}" if ppc > 1 else "")
                        try:
                            # Registers and residency of this build: a CTA of
                            # ppc programs holds fewer of them an SM.
                            info = lib.warmup(kernel, args + these, num_warps=warps,
                                              num_stages=stages, programs_per_cta=ppc)
                        except BlockjitError as e:
                            print(f"  {name}: {str(e).splitlines()[0][:100]}")
                            continue
                        grids = {}
                        if "rows" in kinds:
                            grids["rows"] = m
                        if "resident" in kinds:
                            grids["resident"] = max(1, info.max_resident_programs)
                        if "per-program" in kinds:
                            for r in map(int, a.rows_per_program.split(",")):
                                grids[f"{r}rows"] = -(-m // r)
                        for (gname, grid), loads in itertools.product(
                                grids.items(), a.loads.split(",")):
                            hint = f" loads={loads}" if loads != "normal" else ""
                            try:
                                prep = lib.prepare(kernel, args + these, grid=(grid,),
                                                   num_warps=warps, num_stages=stages,
                                                   programs_per_cta=ppc,
                                                   load_eviction=loads)
                            except BlockjitError as e:
                                print(f"  {name} grid={gname}{hint}: "
                                      f"{str(e).splitlines()[0][:100]}")
                                continue
                            record(f"w={warps} s={stages} grid={gname}{tag}{hint}"
                                   + (f" programs={ppc}" if ppc > 1 else ""),
                                   prep, info, grid, "")
    if a.out and rows:
        write_rows_csv(a.out, rows)


if __name__ == "__main__":
    main()
