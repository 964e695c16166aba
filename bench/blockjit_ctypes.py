"""ctypes binding of blockjit's C ABI (runtime/blockjit_c.h).

    lib = Blockjit("build/lib/libblockjit_c.so")
    lib.launch("softmax", [ptr(y), ptr(x), 1024, 1024, 4096, 1024, constexpr(1024)],
               grid=(132,), num_warps=4, stream=torch.cuda.current_stream().cuda_stream)

    # Tuned once (or read from the disk cache), then launched cheaply:
    softmax = lib.prepare("softmax", [y, x, 1024, 1024, 4096, 1024, constexpr(1024)],
                          autotune=True, target="cuda")
    softmax(y, x, 1024, 1024, 4096, 1024)   # runtime arguments only

Pointer arguments are (address, dtype name) pairs; torch tensors can be
passed directly (their data_ptr() and dtype are used).
"""
import ctypes
import struct

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
                ("stream", ctypes.c_void_p), ("num_ctas", ctypes.c_int32),
                ("autotune", ctypes.c_int32),
                ("programs_per_cta", ctypes.c_int32),
                ("load_eviction", ctypes.c_int32),
                ("store_eviction", ctypes.c_int32),
                ("max_registers", ctypes.c_int32)]


class KernelInfo(ctypes.Structure):
    _fields_ = [("registers", ctypes.c_int32),
                ("shared_memory_bytes", ctypes.c_int32),
                ("threads_per_program", ctypes.c_int32),
                ("max_programs_per_processor", ctypes.c_int32),
                ("processors", ctypes.c_int32),
                ("ctas_per_program", ctypes.c_int32),
                ("max_resident_programs", ctypes.c_int32),
                ("programs_per_cta", ctypes.c_int32)]


# The C structs' sizes (static_assert'ed in runtime/CAPI.cpp): a mismatch
# means this mirror is stale.
assert ctypes.sizeof(_Options) == 56 and ctypes.sizeof(KernelInfo) == 32, \
    "bench/blockjit_ctypes.py does not match runtime/blockjit_c.h"


class constexpr(int):
    """Marks an integer argument as a compile-time constant."""


class BlockjitError(RuntimeError):
    pass


def _stream_getter():
    """A function giving torch's current CUDA stream on the current device
    (through the accessor Triton's launcher uses, cheaper than
    torch.cuda.current_stream()), or one giving None without torch or CUDA."""
    try:
        import torch
        if torch.cuda.is_available():
            device = torch.cuda.current_device()
            raw = torch._C._cuda_getCurrentRawStream
            return lambda: raw(device)
    except ImportError:
        pass
    return lambda: None


class Prepared:
    """A launch fixed once by Blockjit.prepare: call it with the runtime
    arguments only (tensors or addresses, ints, floats; constexprs are
    fixed). Each call checks what the specialization assumed (alignment,
    divisibility) in C and falls back to the general path if a value breaks
    it. `stream`: a CUstream, or None for torch's current stream."""

    def __init__(self, lib, handle, kinds):
        self._lib = lib
        self._handle = handle
        self._values = (ctypes.c_uint64 * len(kinds))()
        self._kinds = kinds
        info, config = KernelInfo(), ctypes.c_char_p()
        lib.blockjit_prepared_info(handle, ctypes.byref(info), ctypes.byref(config))
        self.info, self.config = info, config.value.decode()
        # One assignment per argument, chosen now: the call does no type
        # dispatch of its own.
        setters = []
        for i, kind in enumerate(kinds):
            if kind == "tensor":
                setters.append(f"v[{i}] = a{i}.data_ptr()")
            elif kind == "f32":
                setters.append(f"v[{i}] = _f32_bits(a{i})")
            else:  # ints and (address, dtype) pairs
                setters.append(f"v[{i}] = a{i}[0] if a{i}.__class__ is tuple else a{i}")
        names = ", ".join(f"a{i}" for i in range(len(kinds)))
        source = (f"def call({names}{', ' if names else ''}stream=None):\n"
                  + "".join(f"    {line}\n" for line in setters)
                  + "    if stream is None:\n        stream = current()\n"
                  + f"    if launch(handle, v, {len(kinds)}, stream):\n"
                  + "        raise BlockjitError(error().decode())\n")
        scope = {"v": self._values, "_f32_bits": _f32_bits, "current": _stream_getter(),
                 "launch": lib.blockjit_launch_prepared, "handle": handle,
                 "error": lib.blockjit_last_error, "BlockjitError": BlockjitError}
        exec(source, scope)
        # The generated function itself: calling it skips a Python frame.
        self.launch = scope["call"]

    def __call__(self, *args, stream=None):
        return self.launch(*args, stream=stream)

    def __del__(self):
        if getattr(self, "_handle", None):
            self._lib.blockjit_release(self._handle)
            self._handle = None


def _f32_bits(value):
    return struct.unpack("<I", struct.pack("<f", value))[0]


class Blockjit:
    TARGETS = {"auto": 0, "cpu": 1, "cuda": 2}

    def __init__(self, path):
        self._lib = ctypes.CDLL(path)
        for name in ("blockjit_launch", "blockjit_warmup", "blockjit_prepare",
                     "blockjit_launch_prepared", "blockjit_prepared_info"):
            getattr(self._lib, name).restype = ctypes.c_int
        self._lib.blockjit_last_error.restype = ctypes.c_char_p
        self._lib.blockjit_kernel_names.restype = ctypes.c_char_p
        # The library's own struct size (an older library cannot say): a
        # library built from another blockjit_c.h would read these options
        # wrongly.
        if hasattr(self._lib, "blockjit_launch_options_size"):
            self._lib.blockjit_launch_options_size.restype = ctypes.c_int32
            size = self._lib.blockjit_launch_options_size()
            if size != ctypes.sizeof(_Options):
                raise RuntimeError(
                    f"{path}: blockjit_launch_options is {size} bytes there, "
                    f"{ctypes.sizeof(_Options)} in bench/blockjit_ctypes.py: "
                    "rebuild the library or update the mirror")
        # Operations came later: an older library has none.
        if hasattr(self._lib, "blockjit_operation_names"):
            self._lib.blockjit_operation_names.restype = ctypes.c_char_p
        self._lib.blockjit_launch_prepared.argtypes = [
            ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint64), ctypes.c_int32,
            ctypes.c_void_p]
        self._lib.blockjit_release.argtypes = [ctypes.c_void_p]
        self._lib.blockjit_prepared_info.argtypes = [
            ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]

    def kernels(self):
        return self._lib.blockjit_kernel_names().decode().split(",")

    def operations(self):
        """Registered operations (several algorithms, the faster chosen on
        first use): launched and prepared by name like kernels, with no
        constexprs or launch configuration."""
        if not hasattr(self._lib, "blockjit_operation_names"):
            return []
        names = self._lib.blockjit_operation_names().decode()
        return names.split(",") if names else []

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

    # blockjit_eviction (runtime/blockjit_c.h) by its names in configs.
    EVICTIONS = {"normal": 0, "evict_first": 1, "evict_last": 2}

    def _prepare(self, args, grid, num_warps, num_stages, target, stream,
                 num_ctas=1, autotune=False, programs_per_cta=1,
                 load_eviction="normal", max_registers=0):
        c_args = (_Arg * len(args))(*[self._arg(a) for a in args])
        grid = tuple(grid) + (1,) * (3 - len(grid))
        options = _Options((ctypes.c_int32 * 3)(*grid), num_warps, num_stages,
                           self.TARGETS[target], stream or None, num_ctas,
                           1 if autotune else 0, programs_per_cta,
                           self.EVICTIONS[load_eviction], 0, max_registers)
        return c_args, options

    def launch(self, kernel, args, grid=(1,), num_warps=4, num_stages=1,
               target="auto", stream=None, num_ctas=1, autotune=False,
               programs_per_cta=1):
        """Compiles if needed and launches. autotune=True: the kernel's
        autotuner picks num_warps, num_stages, num_ctas, programs_per_cta
        and the grid."""
        c_args, options = self._prepare(args, grid, num_warps, num_stages,
                                        target, stream, num_ctas, autotune,
                                        programs_per_cta)
        if self._lib.blockjit_launch(kernel.encode(), c_args, len(args),
                                     ctypes.byref(options)):
            raise BlockjitError(self._lib.blockjit_last_error().decode())

    def prepare(self, kernel, args, grid=(1,), num_warps=4, num_stages=1,
                target="auto", num_ctas=1, autotune=False, stream=None,
                programs_per_cta=1, load_eviction="normal", max_registers=0):
        """A Prepared launch of `kernel` for arguments like `args` (all of
        them, constexprs included); autotune=True tunes it (on `stream`) and
        takes the tuner's grid. load_eviction: the hint of every load
        without one of its own (normal, evict_first, evict_last);
        max_registers: a thread's register cap (0: none)."""
        c_args, options = self._prepare(args, grid, num_warps, num_stages,
                                        target, stream, num_ctas, autotune,
                                        programs_per_cta, load_eviction,
                                        max_registers)
        handle = ctypes.c_void_p()
        if self._lib.blockjit_prepare(kernel.encode(), c_args, len(args),
                                      ctypes.byref(options), ctypes.byref(handle)):
            raise BlockjitError(self._lib.blockjit_last_error().decode())
        kinds = []
        for a in args:
            if isinstance(a, constexpr):
                continue
            kinds.append("tensor" if hasattr(a, "data_ptr") else
                         "f32" if isinstance(a, float) else "int")
        return Prepared(self._lib, handle, kinds)

    def warmup(self, kernel, args, num_warps=4, num_stages=1, target="auto",
               num_ctas=1, autotune=False, programs_per_cta=1):
        c_args, options = self._prepare(args, (1,), num_warps, num_stages,
                                        target, None, num_ctas, autotune,
                                        programs_per_cta)
        info = KernelInfo()
        if self._lib.blockjit_warmup(kernel.encode(), c_args, len(args),
                                     ctypes.byref(options), ctypes.byref(info)):
            raise BlockjitError(self._lib.blockjit_last_error().decode())
        return info
