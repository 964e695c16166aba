#!/usr/bin/env python3
"""How many SMs a cluster config can keep busy: for softmax's long rows,
each (num_ctas, num_warps, num_stages) is compiled (warmup, no launch) and
its KernelInfo read: registers, shared memory, programs an SM, and clusters
resident at once (cuOccupancyMaxActiveClusters), as CTAs and as the SMs they
fill (CTAs / CTAs an SM) of the GPU's SMs. A cluster's CTAs must share one
GPC, so large clusters leave the SMs of a GPC that do not make up a whole
cluster idle.

    python3 bench/cluster_residency.py --lib build/lib/libblockjit_c.so

(docs/cluster_residency_h200.txt)
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blockjit_ctypes import Blockjit, BlockjitError, constexpr  # noqa: E402
from bench_common import next_power_of_2  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--lib", default="build/lib/libblockjit_c.so")
    p.add_argument("--n", default="50000,200000,262144")
    p.add_argument("--ctas", default="1,4,8,16")
    p.add_argument("--warps", default="4,8,16")
    p.add_argument("--stages", default="1,2")
    a = p.parse_args()
    lib = Blockjit(a.lib)
    print("dtype n ctas warps stages registers shared_bytes ctas_per_sm "
          "clusters_resident ctas_resident sms_filled sms")
    for dt in (torch.float32, torch.bfloat16):
        for n in map(int, a.n.split(",")):
            x = torch.randn(8, n, device="cuda", dtype=dt)
            y = torch.empty_like(x)
            args = [y, x, x.stride(0), y.stride(0), 8, n,
                    constexpr(next_power_of_2(n))]
            for ctas in map(int, a.ctas.split(",")):
                for w in map(int, a.warps.split(",")):
                    for s in map(int, a.stages.split(",")):
                        try:
                            i = lib.warmup("softmax", args, num_warps=w,
                                           num_stages=s, num_ctas=ctas)
                        except BlockjitError as e:
                            print(f"{dt} {n} {ctas} {w} {s}: "
                                  f"{str(e).splitlines()[0][:80]}")
                            continue
                        resident = i.max_resident_programs * i.ctas_per_program
                        filled = resident / max(1, i.max_programs_per_processor)
                        print(f"{str(dt).split('.')[-1]} {n} {i.ctas_per_program} {w} {s} "
                              f"{i.registers} {i.shared_memory_bytes} "
                              f"{i.max_programs_per_processor} {i.max_resident_programs} "
                              f"{resident} {filled:.1f} {i.processors}", flush=True)


if __name__ == "__main__":
    main()
