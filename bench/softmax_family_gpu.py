#!/usr/bin/env python3
"""The softmax family on the GPU: blockjit vs torch eager vs torch.compile vs a copy.

    python3 bench/softmax_family_gpu.py --lib build/lib/libblockjit_c.so --out results/
    python3 bench/softmax_family_gpu.py --quick                 # one shape per kernel
    python3 bench/softmax_family_gpu.py --kernels layernorm,softmax_backward --dtypes bf16
    python3 bench/softmax_family_gpu.py --device cpu            # correctness only, tiny shapes
    # A run split over several commands (one CSV; summary and plots of all of it):
    python3 bench/softmax_family_gpu.py --kernels softmax,log_softmax,softmax_temperature --out R
    python3 bench/softmax_family_gpu.py --kernels softmax_scale,softmax_masked --append --out R
    python3 bench/softmax_family_gpu.py --summarize --out R     # summary and plots only

For each kernel, shape (M x N: M in {4096, 32768}, N in {781, 1024, 4096,
12288}) and dtype (fp32; bf16 with --dtypes), one process times four
providers on the same tensors with the same timer (bench_common.bench_ms:
a fixed number of runs, each between CUDA events after an L2 flush; the
median), after checking every output against a float64 reference computed
by torch (DESIGN.md's benchmark protocol):

  blockjit       the registered kernel through the C ABI's prepared,
                 autotuned launch (bench_common.BlockjitKernel: the kernel's
                 tuner picks warps, stages, CTAs, its tuned constexprs and
                 the grid); a kernel registered without a tuner runs with a
                 fixed config (one program per row) and its config says
                 "untuned".
  torch          the eager torch equivalent below.
  torch_compile  torch.compile (default mode, dynamic=False, dynamo reset
                 for each case) of the function below; compiled and run once
                 outside the timing. A compile that fails is NaN, with the
                 error in `notes`.
  copy           a device copy (a flat uint8 tensor of bytes/2 into another)
                 of the kernel's minimal traffic, `bytes`.

Kernels (registered name and argument order; Ptr = a tensor, Int = i32,
Float = f32, constexprs last), their torch equivalents and minimal traffic
`bytes` (what the math must read and write once; s = sizeof(T)):

  softmax            (out, in, in_stride, out_stride, M, N; BLOCK_SIZE)
                     torch.softmax(x, -1)                        2*M*N*s
  log_softmax        (out, in, in_stride, out_stride, M, N; BLOCK_SIZE)
                     torch.log_softmax(x, -1)                    2*M*N*s
  softmax_temperature(out, in, in_stride, out_stride, M, N, Float T; BLOCK_SIZE)
                     torch.softmax(x / T, -1), T = 0.7           2*M*N*s
  softmax_scale      (out, in, in_stride, out_stride, M, N, Float s; BLOCK_SIZE)
                     torch.softmax(x, -1) * s, s = 0.37          2*M*N*s
  softmax_masked     (out, in, mask, in_stride, out_stride, mask_stride = 0, M, N; BLOCK_SIZE)
                     torch.softmax(x + mask, -1), mask: [N] in T (about 10 %
                     -inf, the rest randn)                       2*M*N*s + N*s
  softmax_causal     (out, in, in_stride, out_stride, M, N; BLOCK_SIZE), (r, c) with c > r is -inf
                     eager: torch.softmax(x.masked_fill(causal, -inf), -1)
                     with causal = torch.ones(M, N, dtype=bool).triu(1)
                     precomputed (eager reads it: M*N more bytes); compiled:
                     the same with the mask made in the kernel from two
                     aranges (no mask read, the stronger peer)   2*M*N*s
  softmax_columns    the operation softmax_dim0 (out, in, in_stride, out_stride, M, N):
                     softmax_columns in one launch or softmax_columns_split
                     in three, the faster for the shape timed by the library
                     on first use (runtime/Operation.h); its config names the
                     algorithm and each launch's config
                     torch.softmax(x, dim=0)                     2*M*N*s
  softmax_backward   (dx, y, dy, dx_stride, y_stride, dy_stride, M, N; BLOCK_SIZE)
                     eager: torch._softmax_backward_data(dy, y, -1, T), the
                     aten op autograd's SoftmaxBackward0 calls (only the
                     backward is timed); compiled: y * (dy - (y * dy).sum(-1,
                     keepdim=True))                              3*M*N*s
  layernorm          (out, in, weight, bias, in_stride, out_stride, M, N, Float eps; BLOCK_SIZE,
                      CHUNK_SIZE: 0 = the whole row; the tuner may pick chunks)
                     F.layer_norm(x, (N,), w, b, eps = 1e-5); both get the
                     same w, b in T (torch's layer_norm takes weights of x's
                     type), cast beforehand outside the timing   2*M*N*s + 2*N*s

BLOCK_SIZE = next_power_of_2(N). GB/s = bytes / time. Ratios:
blockjit/copy and blockjit/max(torch, torch_compile). Tolerances against
the float64 reference: |out - ref| <= atol + rtol * |ref| with fp32 rtol
1e-4, atol 1e-5 * max|ref|; bf16 rtol 2e-2, atol 1e-2 * max|ref|. A
blockjit mismatch is printed and kept in the CSV (`check`), and its row
left out of the win counts; a peer's is noted. A kernel the library does
not register is reported and skipped.

Writes softmax_family_gpu.csv (rows written as they finish) and, with
matplotlib, softmax_family_gpu_<dtype>.png (bench/plot_softmax_family.py)
to --out, and prints per kernel the min and median of blockjit/copy and
the shapes where blockjit >= max(torch, torch_compile) and where
blockjit/copy >= 0.90.
"""
import argparse
import csv
import os
import statistics
import sys
import time
import traceback

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blockjit_ctypes import Blockjit, constexpr  # noqa: E402
from bench_common import BlockjitKernel, bench_ms, next_power_of_2  # noqa: E402

TEMPERATURE = 0.7
SCALE = 0.37
EPS = 1e-5


# The functions torch.compile compiles (module level: dynamo keys its cache
# on their code).
def _c_softmax(x):
    return torch.softmax(x, -1)


def _c_log_softmax(x):
    return torch.log_softmax(x, -1)


def _c_temperature(x, t):
    return torch.softmax(x / t, -1)


def _c_scale(x, s):
    return torch.softmax(x, -1) * s


def _c_masked(x, mask):
    return torch.softmax(x + mask, -1)


def _c_causal(x):
    rows = torch.arange(x.shape[0], device=x.device)[:, None]
    cols = torch.arange(x.shape[1], device=x.device)[None, :]
    return torch.softmax(x.masked_fill(cols > rows, float("-inf")), -1)


def _c_columns(x):
    return torch.softmax(x, 0)


def _c_backward(y, dy):
    return y * (dy - (y * dy).sum(-1, keepdim=True))


def _c_layernorm(x, w, b, eps):
    return F.layer_norm(x, (x.shape[-1],), w, b, eps)


class Case:
    """One kernel of the family: its inputs, blockjit's arguments and output,
    torch's eager and compiled equivalents, the float64 reference and the
    minimal traffic."""

    def __init__(self, name, make, blockjit_args, out, eager, compiled, compile_args,
                 reference, traffic, formula, fallback=None, entry=None):
        self.name, self.make, self.blockjit_args, self.out = name, make, blockjit_args, out
        # What blockjit launches: a registered kernel or operation.
        self.entry = entry or name
        self.eager, self.compiled, self.compile_args = eager, compiled, compile_args
        self.reference, self.traffic, self.formula = reference, traffic, formula
        # (grid, num_warps) for a kernel registered without a tuner.
        self.fallback = fallback or _rows_fallback


def _warps_for(elements):
    # About 16 elements per thread, 1..16 warps.
    return max(1, min(16, elements // 512))


def _rows_fallback(args, m, n):
    return (m,), _warps_for(next_power_of_2(n))


def _randn(m, n, dtype, device):
    return torch.randn(m, n, device=device, dtype=torch.float32).to(dtype)


def _rows(x, y):
    """in/out row strides and sizes of a row kernel."""
    return [x.stride(0), y.stride(0), x.shape[0], x.shape[1]]


def _block(x):
    return constexpr(next_power_of_2(x.shape[1]))


def _plain(m, n, dtype, device):
    x = _randn(m, n, dtype, device)
    return {"x": x, "y": torch.empty_like(x)}


def _softmax_like(name, eager, compiled, reference, extra=None, compile_extra=()):
    """A row kernel (out, in, strides, M, N[, Float extra]; BLOCK_SIZE)."""
    scalars = [] if extra is None else [extra]
    return Case(
        name, _plain,
        lambda d: [d["y"], d["x"], *_rows(d["x"], d["y"]), *scalars, _block(d["x"])],
        lambda d: d["y"], eager, compiled, lambda d: (d["x"], *compile_extra),
        reference, lambda m, n, s: 2 * m * n * s, "2*M*N*s")


def _make_masked(m, n, dtype, device):
    d = _plain(m, n, dtype, device)
    mask = torch.randn(n, device=device, dtype=torch.float32)
    mask[torch.rand(n, device=device) < 0.1] = float("-inf")
    d["mask"] = mask.to(dtype)
    return d


def _make_causal(m, n, dtype, device):
    d = _plain(m, n, dtype, device)
    d["causal"] = torch.ones(m, n, dtype=torch.bool, device=device).triu(1)
    return d


def _make_backward(m, n, dtype, device):
    y = torch.softmax(torch.randn(m, n, device=device), -1).to(dtype)
    return {"y": y, "dy": _randn(m, n, dtype, device), "dx": torch.empty_like(y)}


def _make_layernorm(m, n, dtype, device):
    d = _plain(m, n, dtype, device)
    d["w"] = 1 + 0.1 * torch.randn(n, device=device)
    d["b"] = 0.1 * torch.randn(n, device=device)
    # torch's layer_norm takes weights of x's dtype: cast once, untimed.
    d["wt"], d["bt"] = d["w"].to(dtype), d["b"].to(dtype)
    return d


CASES = {c.name: c for c in [
    _softmax_like("softmax", lambda d: torch.softmax(d["x"], -1), _c_softmax,
                  lambda d: torch.softmax(d["x"].double(), -1)),
    _softmax_like("log_softmax", lambda d: torch.log_softmax(d["x"], -1), _c_log_softmax,
                  lambda d: torch.log_softmax(d["x"].double(), -1)),
    _softmax_like("softmax_temperature", lambda d: torch.softmax(d["x"] / TEMPERATURE, -1),
                  _c_temperature,
                  lambda d: torch.softmax(d["x"].double() / TEMPERATURE, -1),
                  extra=TEMPERATURE, compile_extra=(TEMPERATURE,)),
    _softmax_like("softmax_scale", lambda d: torch.softmax(d["x"], -1) * SCALE, _c_scale,
                  lambda d: torch.softmax(d["x"].double(), -1) * SCALE,
                  extra=SCALE, compile_extra=(SCALE,)),
    Case("softmax_masked", _make_masked,
         lambda d: [d["y"], d["x"], d["mask"], d["x"].stride(0), d["y"].stride(0), 0,
                    d["x"].shape[0], d["x"].shape[1], _block(d["x"])],
         lambda d: d["y"], lambda d: torch.softmax(d["x"] + d["mask"], -1), _c_masked,
         lambda d: (d["x"], d["mask"]),
         lambda d: torch.softmax(d["x"].double() + d["mask"].double(), -1),
         lambda m, n, s: 2 * m * n * s + n * s, "2*M*N*s + N*s (mask [N] in T)"),
    Case("softmax_causal", _make_causal,
         lambda d: [d["y"], d["x"], *_rows(d["x"], d["y"]), _block(d["x"])],
         lambda d: d["y"],
         lambda d: torch.softmax(d["x"].masked_fill(d["causal"], float("-inf")), -1),
         _c_causal, lambda d: (d["x"],),
         lambda d: torch.softmax(d["x"].double().masked_fill(d["causal"], float("-inf")), -1),
         lambda m, n, s: 2 * m * n * s, "2*M*N*s"),
    Case("softmax_columns", _plain,
         lambda d: [d["y"], d["x"], *_rows(d["x"], d["y"])],
         lambda d: d["y"], lambda d: torch.softmax(d["x"], 0), _c_columns,
         lambda d: (d["x"],), lambda d: torch.softmax(d["x"].double(), 0),
         lambda m, n, s: 2 * m * n * s, "2*M*N*s", entry="softmax_dim0"),
    Case("softmax_backward", _make_backward,
         lambda d: [d["dx"], d["y"], d["dy"], d["dx"].stride(0), d["y"].stride(0),
                    d["dy"].stride(0), d["y"].shape[0], d["y"].shape[1], _block(d["y"])],
         lambda d: d["dx"],
         lambda d: torch._softmax_backward_data(d["dy"], d["y"], -1, d["y"].dtype),
         _c_backward, lambda d: (d["y"], d["dy"]),
         lambda d: _c_backward(d["y"].double(), d["dy"].double()),
         lambda m, n, s: 3 * m * n * s, "3*M*N*s"),
    Case("layernorm", _make_layernorm,
         lambda d: [d["y"], d["x"], d["wt"], d["bt"], *_rows(d["x"], d["y"]), EPS,
                    _block(d["x"]), constexpr(0)],
         lambda d: d["y"], lambda d: F.layer_norm(d["x"], (d["x"].shape[1],), d["wt"],
                                                  d["bt"], EPS),
         _c_layernorm, lambda d: (d["x"], d["wt"], d["bt"], EPS),
         lambda d: F.layer_norm(d["x"].double(), (d["x"].shape[1],), d["w"].double(),
                                d["b"].double(), EPS),
         lambda m, n, s: 2 * m * n * s + 2 * n * s, "2*M*N*s + 2*N*s (w, b in T)"),
]}

DTYPES = {"fp32": torch.float32, "float32": torch.float32, "bf16": torch.bfloat16,
          "bfloat16": torch.bfloat16, "fp16": torch.float16, "float16": torch.float16}
SHAPES = [(m, n) for m in (4096, 32768) for n in (781, 1024, 4096, 12288)]
QUICK = [(4096, 1024)]
CPU_SHAPES = [(8, 17), (33, 64), (64, 100)]
CPU_QUICK = [(33, 100)]
PROVIDERS = ("blockjit", "torch", "torch_compile", "copy")
PEERS = ("torch", "torch_compile")
FIELDS = (["device", "kernel", "dtype", "M", "N", "bytes", "bytes_formula"] + list(PROVIDERS)
          + [f"{p}_ms" for p in PROVIDERS]
          + ["blockjit_over_copy", "blockjit_over_torch", "blockjit_over_torch_compile",
             "blockjit_over_best_peer", "check", "blockjit_max_err", "blockjit_config",
             "blockjit_first_call_s", "torch_compile_first_call_s", "notes"])


def tolerance(dtype):
    """(rtol, atol relative to max|ref|)."""
    return (1e-4, 1e-5) if dtype == torch.float32 else (2e-2, 1e-2)


def check(out, ref, dtype):
    """(ok, max abs error): |out - ref| <= atol + rtol * |ref| everywhere
    (chunked over rows to bound the float64 temporaries)."""
    rtol, arel = tolerance(dtype)
    finite = ref[torch.isfinite(ref)]
    atol = arel * (finite.abs().max().item() if finite.numel() else 1.0)
    ok, worst = True, 0.0
    step = max(1, (1 << 24) // max(1, out[0].numel()))
    for r in range(0, out.shape[0], step):
        o, e = out[r:r + step].double(), ref[r:r + step]
        ok &= bool(torch.isclose(o, e, rtol=rtol, atol=atol).all())
        diff = (o - e).abs()
        diff = diff[~(torch.isinf(o) & (o == e))]  # equal infinities
        if diff.numel():
            worst = max(worst, diff.max().item())  # NaN propagates
    return ok, worst


def wall_ms(fn, reps=50, warmup=2):
    """CPU timer (--device cpu): median wall milliseconds of `reps` runs."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def _reset_dynamo():
    import torch._dynamo
    torch._dynamo.reset()
    for name in ("recompile_limit", "cache_size_limit", "accumulated_recompile_limit",
                 "accumulated_cache_size_limit"):
        if hasattr(torch._dynamo.config, name):
            setattr(torch._dynamo.config, name, max(getattr(torch._dynamo.config, name), 1024))


def _first_line(e):
    """The error in one line: its non-empty lines joined, cut at 240 characters."""
    lines = [line.strip() for line in str(e).splitlines() if line.strip()]
    return (" | ".join(lines) or type(e).__name__)[:240]


def run_case(case, blockjit, dtype, m, n, device, opts, sync, timer):
    notes = []
    d = case.make(m, n, dtype, device)
    size = torch.tensor([], dtype=dtype).element_size()
    nbytes = case.traffic(m, n, size)
    ref = case.reference(d)
    fns, first = {}, {}
    check_text, bj_err = "", float("nan")

    # Correctness (and blockjit's tuning, torch.compile's compile) first.
    if blockjit is not None:
        try:
            args = case.blockjit_args(d)
            # Used only if the kernel has no tuner: a fixed config for this shape.
            blockjit.fallback = lambda a: case.fallback(a, m, n)
            case.out(d).fill_(float("nan"))
            t = time.time()
            fn = blockjit.bind(*args)
            fn()
            sync()
            first["blockjit"] = time.time() - t
            ok, bj_err = check(case.out(d), ref, dtype)
            check_text = "ok" if ok else f"MISMATCH max err {bj_err:.3g}"
            if not ok:
                print(f"!! blockjit {case.name} {dtype} {m}x{n}: output differs from the "
                      f"float64 reference (max abs err {bj_err:.3g}, tolerance rtol/atol "
                      f"{tolerance(dtype)})", flush=True)
            fns["blockjit"] = fn
        except Exception as e:
            check_text = "error"
            notes.append(f"blockjit: {_first_line(e)}")
            print(f"!! blockjit {case.name} {dtype} {m}x{n}: {_first_line(e)}", flush=True)
    else:
        check_text = "not registered"

    def try_peer(name, fn):
        try:
            t = time.time()
            out = fn()
            sync()
            first[name] = time.time() - t
            ok, err = check(out, ref, dtype)
            if not ok:
                notes.append(f"{name}: outside tolerance of the float64 reference "
                             f"(max err {err:.3g})")
            fns[name] = fn
        except Exception as e:
            notes.append(f"{name}: {_first_line(e)}")
            if opts.verbose:
                traceback.print_exc()

    try_peer("torch", lambda: case.eager(d))
    if not opts.no_compile:
        try:
            _reset_dynamo()
            compiled = torch.compile(case.compiled, dynamic=False)
            cargs = case.compile_args(d)
            try_peer("torch_compile", lambda: compiled(*cargs))
        except Exception as e:
            notes.append(f"torch_compile: {_first_line(e)}")
    else:
        notes.append("torch_compile: skipped (--no-compile)")
    ref = None  # frees the float64 reference before the timing

    # The copy of the minimal traffic: bytes/2 in, bytes/2 out.
    src = torch.empty(nbytes // 2, dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    fns["copy"] = lambda: dst.copy_(src)

    # Timing, provider after provider on the same tensors.
    ms = {}
    for name in PROVIDERS:
        if name not in fns:
            continue
        try:
            ms[name] = timer(fns[name], reps=opts.reps)
        except Exception as e:
            notes.append(f"{name} (timing): {_first_line(e)}")
            try:
                sync()
            except Exception:
                pass

    gbps = {p: nbytes / (ms[p] * 1e-3) / 1e9 if p in ms else float("nan") for p in PROVIDERS}

    def ratio(a, b):
        return round(a / b, 3) if a == a and b == b and b > 0 else float("nan")

    best = max((gbps[p] for p in PEERS if gbps[p] == gbps[p]), default=float("nan"))
    config = ""
    if "blockjit" in fns:
        try:
            config = blockjit.config(*case.blockjit_args(d))
        except Exception as e:
            config = f"? ({_first_line(e)})"
    return {
        "device": opts.device_name, "kernel": case.name, "dtype": str(dtype).replace("torch.", ""), "M": m, "N": n,
        "bytes": nbytes, "bytes_formula": case.formula,
        **{p: round(gbps[p], 1) for p in PROVIDERS},
        **{f"{p}_ms": round(ms[p], 5) if p in ms else float("nan") for p in PROVIDERS},
        "blockjit_over_copy": ratio(gbps["blockjit"], gbps["copy"]),
        "blockjit_over_torch": ratio(gbps["blockjit"], gbps["torch"]),
        "blockjit_over_torch_compile": ratio(gbps["blockjit"], gbps["torch_compile"]),
        "blockjit_over_best_peer": ratio(gbps["blockjit"], best),
        "check": check_text, "blockjit_max_err": f"{bj_err:.3g}", "blockjit_config": config,
        "blockjit_first_call_s": round(first.get("blockjit", float("nan")), 2),
        "torch_compile_first_call_s": round(first.get("torch_compile", float("nan")), 2),
        "notes": "; ".join(notes),
    }


def summarize(rows, skipped, device_name, what="summary"):
    print(f"\n{what} ({device_name}; win: blockjit >= max(torch, torch_compile); "
          "rows with a blockjit mismatch or error are not counted as wins):")
    groups = {}
    dtypes = list(dict.fromkeys(r["dtype"] for r in rows))
    for kernel in dict.fromkeys(r["kernel"] for r in rows):
        groups[kernel] = [r for r in rows if r["kernel"] == kernel]
        if len(dtypes) > 1:
            for dtype in dtypes:
                rs = [r for r in groups[kernel] if r["dtype"] == dtype]
                if rs:
                    groups[f"{kernel} {dtype}"] = rs
    for name, rs in groups.items():
        good = [r for r in rs if r["check"] == "ok"]
        bc = [r["blockjit_over_copy"] for r in good if r["blockjit_over_copy"] == r["blockjit_over_copy"]]
        wins = sum(r["blockjit_over_best_peer"] >= 1.0 for r in good)
        near = sum(r["blockjit_over_copy"] >= 0.90 for r in good)
        bad = len(rs) - len(good)
        text = (f"  {name:28} blockjit/copy min {min(bc):.3f} median {statistics.median(bc):.3f}"
                if bc else f"  {name:28} blockjit/copy: none")
        text += f"; blockjit >= best peer {wins}/{len(rs)}; blockjit/copy >= 0.90 {near}/{len(rs)}"
        if bad:
            text += f"; MISMATCH/ERROR {bad}"
        print(text)
    for name, why in skipped:
        print(f"  {name:28} skipped: {why}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lib", default="build/lib/libblockjit_c.so")
    parser.add_argument("--out", default="bench-results")
    parser.add_argument("--kernels", default=",".join(CASES),
                        help="comma-separated subset of: " + ", ".join(CASES))
    parser.add_argument("--dtypes", default="fp32", help="comma-separated: fp32, bf16, fp16")
    parser.add_argument("--quick", action="store_true", help="one small shape per kernel")
    parser.add_argument("--shapes", default=None, help="MxN,MxN,... instead of the set")
    parser.add_argument("--reps", type=int, default=50, help="timed runs per point (fixed)")
    parser.add_argument("--no-compile", action="store_true", help="leave out torch.compile")
    parser.add_argument("--device", default="cuda", choices=("cuda", "cpu"),
                        help="cpu: torch CPU and blockjit's CPU target, tiny shapes, a wall "
                             "clock timer (a dry run of the checks, not a benchmark)")
    parser.add_argument("--verbose", action="store_true", help="tracebacks of peer failures")
    parser.add_argument("--append", action="store_true",
                        help="add rows to the CSV in --out (a run split into several "
                             "commands); the summary and plots then cover the whole file")
    parser.add_argument("--summarize", action="store_true",
                        help="run nothing: summarize and plot the CSV in --out")
    opts = parser.parse_args()
    cuda = opts.device == "cuda"
    path = os.path.join(opts.out, "softmax_family_gpu.csv" if cuda else "softmax_family_cpu.csv")
    if opts.summarize:
        rows = read_rows(path)
        finish(path, rows, [], rows[0]["device"] if rows else "?", opts.out)
        return

    kernels = [k.strip() for k in opts.kernels.split(",") if k.strip()]
    unknown = [k for k in kernels if k not in CASES]
    if unknown:
        parser.error(f"unknown kernels {unknown}; known: {', '.join(CASES)}")
    dtypes = []
    for name in opts.dtypes.split(","):
        if name.strip() not in DTYPES:
            parser.error(f"unknown dtype {name!r}; known: {', '.join(DTYPES)}")
        dtypes.append(DTYPES[name.strip()])
    if cuda and not torch.cuda.is_available():
        raise SystemExit("no CUDA device (use --device cpu for a dry run of the checks)")
    if opts.shapes:
        shapes = [tuple(int(v) for v in s.lower().split("x")) for s in opts.shapes.split(",")]
    elif cuda:
        shapes = QUICK if opts.quick else SHAPES
    else:
        shapes = CPU_QUICK if opts.quick else CPU_SHAPES
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    timer = bench_ms if cuda else wall_ms
    device_name = torch.cuda.get_device_name() if cuda else "CPU (dry run)"
    opts.device_name = device_name

    os.makedirs(opts.out, exist_ok=True)
    lib = Blockjit(opts.lib)
    registered = set(lib.kernels()) | set(lib.operations())
    skipped = []
    blockjits = {}
    for k in kernels:
        entry = CASES[k].entry
        if entry in registered:
            blockjits[k] = BlockjitKernel(lib, entry, target="cuda" if cuda else "cpu")
        else:
            why = f"not registered in {opts.lib} (registered: {', '.join(sorted(registered))})"
            skipped.append((k, why))
            print(f"-- {k}: {why}; skipped", flush=True)
    kernels = [k for k in kernels if k in blockjits]
    if not kernels:
        summarize([], skipped, device_name)
        raise SystemExit("no kernel to run")

    append = opts.append and os.path.exists(path)
    if append:
        with open(path) as f:
            header = next(csv.reader(f), None)
        if header != FIELDS:
            raise SystemExit(f"--append: {path} has other columns than this script writes")
    f = open(path, "a" if append else "w", newline="")
    writer = csv.DictWriter(f, fieldnames=FIELDS)
    if not append:
        writer.writeheader()
    torch.manual_seed(0)
    print(f"device: {device_name}; GB/s = bytes/time (median of {opts.reps} runs"
          + (", CUDA events, L2 flushed before each" if cuda else ", wall clock") + ")")
    print(f"{'kernel':20} {'dtype':8} {'M':>6} {'N':>6} "
          + " ".join(f"{p:>13}" for p in PROVIDERS)
          + f"  {'bj/copy':>7} {'bj/best':>7}  check / config", flush=True)
    rows = []
    for dtype in dtypes:
        for m, n in shapes:
            for k in kernels:
                row = run_case(CASES[k], blockjits[k], dtype, m, n, opts.device, opts, sync,
                               timer)
                rows.append(row)
                writer.writerow(row)
                f.flush()
                print(f"{k:20} {row['dtype']:8} {m:>6} {n:>6} "
                      + " ".join(f"{row[p]:>13.1f}" for p in PROVIDERS)
                      + f"  {row['blockjit_over_copy']:>7.3f} {row['blockjit_over_best_peer']:>7.3f}"
                      + f"  {row['check']} {row['blockjit_config']}"
                      + f" first {row['blockjit_first_call_s']}s"
                      + (f"  [{row['notes']}]" if row["notes"] else ""), flush=True)
    f.close()
    if append:
        summarize(rows, skipped, device_name, "this run")
        rows = read_rows(path)
        print(f"(the whole of {path} follows)")
    finish(path, rows, skipped, device_name, opts.out)


def read_rows(path):
    """The rows of a CSV this script wrote, numbers as numbers."""
    with open(path) as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        for key in ("M", "N", "bytes"):
            r[key] = int(r[key])
        for key in list(PROVIDERS) + ["blockjit_over_copy", "blockjit_over_best_peer"]:
            r[key] = float(r[key]) if r[key] not in ("", None) else float("nan")
    return rows


def finish(path, rows, skipped, device_name, out):
    """The summary, then the plots (one per dtype) when matplotlib is there."""
    summarize(rows, skipped, device_name)
    print(f"wrote {path}")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("matplotlib not installed: no plot (bench/plot_softmax_family.py draws one "
              "from the CSV)")
        return
    from plot_softmax_family import plot
    for dtype in sorted({r["dtype"] for r in rows}):
        plot(path, os.path.join(out, f"{os.path.splitext(os.path.basename(path))[0]}"
                                f"_{dtype}.png"), device_name, dtype)


if __name__ == "__main__":
    main()
