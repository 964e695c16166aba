"""Launch kernel.ptx (or kernel_async.ptx) on thread-block clusters through the CUDA driver.

usage: python3 launch.py kernel.ptx CLUSTER_SIZE NUM_CLUSTERS

kernel.ptx has no divergent branch: a uniform loop of shared-memory
exchanges, one store per thread into the next CTA's shared memory and
cluster barriers. Under `compute-sanitizer --tool synccheck` it reports
"Barrier error: Divergent thread(s) in warp" with clusters of 16 CTAs when
the launch takes more than one wave (64 clusters on the H100), and nothing
at 8 clusters or with clusters of 1, 2, 4 or 8 (see README.md).
"""
import ctypes
import sys

import torch

torch.zeros(1, device="cuda")  # a current context
cu = ctypes.CDLL("libcuda.so.1")


def check(result, what):
    if result != 0:
        raise SystemExit(f"{what} failed: CUresult {result}")


CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14
CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4


class LaunchAttribute(ctypes.Structure):
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_int),
                ("value", ctypes.c_uint * 16)]


class LaunchConfig(ctypes.Structure):
    _fields_ = [("gridX", ctypes.c_uint), ("gridY", ctypes.c_uint),
                ("gridZ", ctypes.c_uint), ("blockX", ctypes.c_uint),
                ("blockY", ctypes.c_uint), ("blockZ", ctypes.c_uint),
                ("sharedBytes", ctypes.c_uint), ("stream", ctypes.c_void_p),
                ("attrs", ctypes.POINTER(LaunchAttribute)),
                ("numAttrs", ctypes.c_uint)]


module = ctypes.c_void_p()
check(cu.cuModuleLoadData(ctypes.byref(module),
                          open(sys.argv[1], "rb").read() + b"\0"), "load")
kernel = ctypes.c_void_p()
check(cu.cuModuleGetFunction(ctypes.byref(kernel), module, b"k"), "function")
check(cu.cuFuncSetAttribute(
    kernel, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
    "non-portable cluster size")
cluster, clusters = int(sys.argv[2]), int(sys.argv[3])
out = torch.zeros(cluster * clusters, dtype=torch.int32, device="cuda")
attr = LaunchAttribute(id=CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
attr.value[0], attr.value[1], attr.value[2] = cluster, 1, 1
config = LaunchConfig(cluster * clusters, 1, 1, 256, 1, 1, 0, None,
                      ctypes.pointer(attr), 1)
pointer = ctypes.c_uint64(out.data_ptr())
args = (ctypes.c_void_p * 1)(ctypes.cast(ctypes.byref(pointer),
                                         ctypes.c_void_p))
check(cu.cuLaunchKernelEx(ctypes.byref(config), kernel, args, None), "launch")
check(cu.cuCtxSynchronize(), "synchronize")
# Every CTA ends with the same count.
print("values", torch.unique(out).tolist())
