"""ctypes binding of blockjit's C ABI (runtime/blockjit_c.h).

    lib = Blockjit("build/lib/libblockjit_c.so")
    lib.launch("softmax", [ptr(y), ptr(x), 1024, 1024, 4096, 1024, constexpr(1024)],
               grid=(132,), num_warps=4, stream=torch.cuda.current_stream().cuda_stream)

Pointer arguments are (address, dtype name) pairs; torch tensors can be
passed directly (their data_ptr() and dtype are used).
"""
import ctypes

_KINDS = {"pointer": 0, "i32": 1, "i64": 2, "f32": 3, "constexpr": 4}
_DTYPES = {"i1": 0, "i8": 1, "i16": 2, "i32": 3, "i64": 4, "f16": 5, "bf16": 6,
           "f32": 7, "f64": 8}
_TORCH_DTYPES = {"torch.float32": "f32", "torch.float16": "f16",
                 "torch.bfloat16": "bf16", "torch.int32": "i32",
                 "torch.int64": "i64", "torch.float64": "f64", "torch.int8": "i8",
                 "torch.bool": "i1"}


class _Value(ctypes.Union):
    _fields_ = [("pointer", ctypes.c_void_p), ("i32", ctypes.c_int32),
                ("i64", ctypes.c_int64), ("f32", ctypes.c_float)]


class _Arg(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int32), ("dtype", ctypes.c_int32),
                ("value", _Value)]


class _Options(ctypes.Structure):
    _fields_ = [("grid", ctypes.c_int32 * 3), ("num_warps", ctypes.c_int32),
                ("num_stages", ctypes.c_int32), ("target", ctypes.c_int32),
                ("stream", ctypes.c_void_p), ("num_ctas", ctypes.c_int32)]


class KernelInfo(ctypes.Structure):
    _fields_ = [("registers", ctypes.c_int32),
                ("shared_memory_bytes", ctypes.c_int32),
                ("threads_per_program", ctypes.c_int32),
                ("max_programs_per_processor", ctypes.c_int32),
                ("processors", ctypes.c_int32),
                ("ctas_per_program", ctypes.c_int32),
                ("max_resident_programs", ctypes.c_int32)]


class constexpr(int):
    """Marks an integer argument as a compile-time constant."""


class BlockjitError(RuntimeError):
    pass


class Blockjit:
    TARGETS = {"auto": 0, "cpu": 1, "cuda": 2}

    def __init__(self, path):
        self._lib = ctypes.CDLL(path)
        for name in ("blockjit_launch", "blockjit_warmup"):
            getattr(self._lib, name).restype = ctypes.c_int
        self._lib.blockjit_last_error.restype = ctypes.c_char_p
        self._lib.blockjit_kernel_names.restype = ctypes.c_char_p

    def kernels(self):
        return self._lib.blockjit_kernel_names().decode().split(",")

    @staticmethod
    def _arg(value):
        arg = _Arg()
        if hasattr(value, "data_ptr"):  # a torch tensor
            arg.kind, arg.dtype = _KINDS["pointer"], _DTYPES[_TORCH_DTYPES[str(value.dtype)]]
            arg.value.pointer = value.data_ptr()
        elif isinstance(value, tuple):  # (address, dtype name)
            arg.kind, arg.dtype = _KINDS["pointer"], _DTYPES[value[1]]
            arg.value.pointer = value[0]
        elif isinstance(value, constexpr):
            arg.kind, arg.value.i64 = _KINDS["constexpr"], int(value)
        elif isinstance(value, int):
            arg.kind, arg.value.i32 = _KINDS["i32"], value
        elif isinstance(value, float):
            arg.kind, arg.value.f32 = _KINDS["f32"], value
        else:
            raise TypeError(f"unsupported argument {value!r}")
        return arg

    def _prepare(self, args, grid, num_warps, num_stages, target, stream,
                 num_ctas=1):
        c_args = (_Arg * len(args))(*[self._arg(a) for a in args])
        grid = tuple(grid) + (1,) * (3 - len(grid))
        options = _Options((ctypes.c_int32 * 3)(*grid), num_warps, num_stages,
                           self.TARGETS[target], stream or None, num_ctas)
        return c_args, options

    def launch(self, kernel, args, grid=(1,), num_warps=4, num_stages=1,
               target="auto", stream=None, num_ctas=1):
        c_args, options = self._prepare(args, grid, num_warps, num_stages,
                                        target, stream, num_ctas)
        if self._lib.blockjit_launch(kernel.encode(), c_args, len(args),
                                     ctypes.byref(options)):
            raise BlockjitError(self._lib.blockjit_last_error().decode())

    def warmup(self, kernel, args, num_warps=4, num_stages=1, target="auto",
               num_ctas=1):
        c_args, options = self._prepare(args, (1,), num_warps, num_stages,
                                        target, None, num_ctas)
        info = KernelInfo()
        if self._lib.blockjit_warmup(kernel.encode(), c_args, len(args),
                                     ctypes.byref(options), ctypes.byref(info)):
            raise BlockjitError(self._lib.blockjit_last_error().decode())
        return info
