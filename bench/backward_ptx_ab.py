#!/usr/bin/env python3
"""softmax_backward's PTX, blockjit's and Triton's, timed side by side
through the CUDA driver (cuModuleLoadData, cuLaunchKernel: the same JIT
and the same launch for both), one program a row, bf16, by
bench_common.bench_ms (L2 flushed before each run, the median of a fixed
count), each file in turn, three medians each.

    python3 bench/backward_ptx_ab.py --shapes 4096x4096,32768x4096 \
        --ptx bj8.ptx:8 --ptx bj16.ptx:16 --triton-warps 8,16

--ptx FILE:WARPS: a blockjit kernel's PTX (blockjit-dump softmax_backward
--dtype bf16 --block-size 4096 --num-warps 8 --load-eviction evict_last
--arg-value=7=4096 --stage=ptx), hand-edited or not: its arguments are
blockjit's (dx, y, dy, three row strides, n_rows, n_cols). Triton's kernel
(eviction_hints_triton.backward_kernel, evict_last loads, the row read
once) is compiled here for each --triton-warps. It answers whether a
difference between the two is in the code, since the launch, the timer and
the data are the same. GB/s of the minimal traffic 3*M*N*2.
"""
import argparse
import ctypes
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

CU_FUNC_ATTRIBUTE_NUM_REGS = 4


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shapes", default="4096x4096,32768x4096")
    p.add_argument("--ptx", action="append", default=[],
                   help="FILE:WARPS, a blockjit softmax_backward's PTX")
    p.add_argument("--triton-warps", default="8,16")
    p.add_argument("--reps", type=int, default=40)
    a = p.parse_args()
    import torch
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from bench_common import bench_ms
    from eviction_hints_triton import backward_kernel

    cuda = ctypes.CDLL("libcuda.so.1")
    torch.zeros(1, device="cuda")  # the primary context, current

    def check(result, what):
        if result != 0:
            raise RuntimeError(f"{what}: CUresult {result}")

    def load(ptx):
        module, function = ctypes.c_void_p(), ctypes.c_void_p()
        check(cuda.cuModuleLoadData(ctypes.byref(module), ptx.encode() + b"\0"),
              "cuModuleLoadData")
        name = next(line.split()[-1].rstrip("(") for line in ptx.splitlines()
                    if line.startswith(".visible .entry"))
        check(cuda.cuModuleGetFunction(ctypes.byref(function), module,
                                       name.encode()), "cuModuleGetFunction")
        regs = ctypes.c_int()
        check(cuda.cuFuncGetAttribute(ctypes.byref(regs),
                                      CU_FUNC_ATTRIBUTE_NUM_REGS, function),
              "cuFuncGetAttribute")
        return function, regs.value

    capability = torch.cuda.get_device_capability()
    kernels = []  # (name, PTX, warps, abi, dynamic shared bytes)
    for spec in a.ptx:
        path, warps = spec.rsplit(":", 1)
        kernels.append((os.path.basename(path), open(path).read(), int(warps),
                        "blockjit", 0))
    for warps in map(int, a.triton_warps.split(",")):
        source = ASTSource(
            fn=backward_kernel,
            signature={"dx": "*bf16", "y": "*bf16", "dy": "*bf16",
                       "stride": "i32", "n": "i32", "BLOCK": "constexpr",
                       "EL": "constexpr", "ES": "constexpr"},
            constexprs={"BLOCK": 4096, "EL": 2, "ES": 0},
            attrs={(i,): [["tt.divisibility", 16]] for i in range(5)})
        compiled = triton.compile(
            source, target=GPUTarget("cuda", capability[0] * 10 + capability[1], 32),
            options={"num_warps": warps})
        kernels.append((f"triton w{warps}", compiled.asm["ptx"], warps,
                        "triton", compiled.metadata.shared))
    # Each module loaded once, for every shape.
    kernels = [(name, *load(ptx), warps, abi, shared)
               for name, ptx, warps, abi, shared in kernels]
    stream = torch.cuda.current_stream().cuda_stream
    for shape in a.shapes.split(","):
        m, n = map(int, shape.split("x"))
        if n > 4096:
            sys.exit("the Triton kernel is compiled for rows of up to 4096")
        y = torch.softmax(torch.randn(m, n, device="cuda"), -1).bfloat16()
        dy = torch.randn(m, n, device="cuda").bfloat16()
        yd, dyd = y.double(), dy.double()
        ref = yd * (dyd - (yd * dyd).sum(-1, keepdim=True))
        print(f"softmax_backward bf16 {m}x{n}", flush=True)
        for name, function, regs, warps, abi, shared in kernels:
            dx = torch.empty_like(y)
            pointers = [ctypes.c_uint64(t.data_ptr()) for t in (dx, y, dy)]
            if abi == "blockjit":
                values = pointers + [ctypes.c_int32(v) for v in (n, n, n, m, n)]
            else:  # Triton 3.6 adds two scratch pointers, unused here
                values = pointers + [ctypes.c_int32(n), ctypes.c_int32(n),
                                     ctypes.c_uint64(0), ctypes.c_uint64(0)]
            params = (ctypes.c_void_p * len(values))(
                *[ctypes.cast(ctypes.byref(v), ctypes.c_void_p) for v in values])

            def launch():
                check(cuda.cuLaunchKernel(function, m, 1, 1, warps * 32, 1, 1,
                                          shared, ctypes.c_void_p(stream),
                                          params, None), "cuLaunchKernel")

            launch()
            torch.cuda.synchronize()
            err = (dx.double() - ref).abs().max().item()
            gbps = [3 * m * n * 2 / bench_ms(launch, a.reps) / 1e6
                    for _ in range(3)]
            print(f"  {name:24} warps={warps:2} regs={regs:3} err={err:.1e} "
                  "GB/s " + " ".join(f"{g:.0f}" for g in gbps), flush=True)


if __name__ == "__main__":
    main()
