"""One launch of a cluster kernel on GRID programs, checked against torch.

    python3 scripts/repro-synccheck-cluster16/cluster_sync.py KIND GRID [CTAS]

from the repository root (build/lib/libblockjit_c.so); CTAS per cluster,
16 by default.
KIND columns: softmax_columns 1823x781 f32, BLOCK_M=256, BLOCK_N=32, chunks,
              8 warps
KIND rows:    softmax f32 rows of 262144, 4 warps, 3 stages"""
import sys, torch
sys.path.insert(0, "bench")
from blockjit_ctypes import Blockjit, constexpr
lib = Blockjit("build/lib/libblockjit_c.so")
kind, grid = sys.argv[1], int(sys.argv[2])
ctas = int(sys.argv[3]) if len(sys.argv) > 3 else 16
torch.manual_seed(0)
if kind == "columns":
    M, N = 1823, 781
    x = torch.randn(M, N, device="cuda"); y = torch.full_like(x, float("nan"))
    args = [y, x, N, N, M, N, constexpr(256), constexpr(32), constexpr(0)]
    name, w, s, ref = "softmax_columns", 8, 1, lambda: torch.softmax(x, 0)
else:
    M, N = 64, 262144
    x = torch.randn(M, N, device="cuda"); y = torch.full_like(x, float("nan"))
    args = [y, x, N, N, M, N, constexpr(262144)]
    name, w, s, ref = "softmax", 4, 3, lambda: torch.softmax(x, 1)
lib.launch(name, args, grid=(grid,), num_warps=w, num_stages=s, num_ctas=ctas)
torch.cuda.synchronize()
err = (y - ref()).abs().max().item()
print(f"{kind} grid={grid} ctas={ctas} max_err={err:.2e}")
