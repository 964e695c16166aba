/*===- blockjit_c.h - C ABI: JIT and launch registered kernels -----------===*
 *
 * For other languages (Python's ctypes, Rust, ...): launch kernels that are
 * registered by name (blockjit-dump --list) on raw host or device pointers.
 * Every call returns 0 on success, or nonzero with a message available from
 * blockjit_last_error() on the same thread.
 *
 *===----------------------------------------------------------------------===*/
#ifndef BLOCKJIT_RUNTIME_BLOCKJIT_C_H
#define BLOCKJIT_RUNTIME_BLOCKJIT_C_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum blockjit_arg_kind {
  BLOCKJIT_ARG_POINTER = 0,
  BLOCKJIT_ARG_I32 = 1,
  BLOCKJIT_ARG_I64 = 2,
  BLOCKJIT_ARG_F32 = 3,
  BLOCKJIT_ARG_CONSTEXPR = 4,
};

/* Element types of pointer arguments (blockjit::DType order). */
enum blockjit_dtype {
  BLOCKJIT_I1 = 0,
  BLOCKJIT_I8,
  BLOCKJIT_I16,
  BLOCKJIT_I32,
  BLOCKJIT_I64,
  BLOCKJIT_F16,
  BLOCKJIT_BF16,
  BLOCKJIT_F32,
  BLOCKJIT_F64,
};

enum blockjit_target {
  BLOCKJIT_TARGET_AUTO = 0,
  BLOCKJIT_TARGET_CPU = 1,
  BLOCKJIT_TARGET_CUDA = 2
};

enum blockjit_eviction {
  BLOCKJIT_EVICTION_NORMAL = 0,
  BLOCKJIT_EVICTION_FIRST = 1,
  BLOCKJIT_EVICTION_LAST = 2
};

typedef struct blockjit_arg {
  int32_t kind;  /* blockjit_arg_kind */
  int32_t dtype; /* blockjit_dtype, for pointers */
  union {
    const void *pointer;
    int32_t i32;
    int64_t i64; /* also constexpr values */
    float f32;
  } value;
} blockjit_arg;

typedef struct blockjit_launch_options {
  int32_t grid[3];    /* programs per axis; 0 counts as 1 */
  int32_t num_warps;  /* 0: 4 */
  int32_t num_stages; /* 0: 1 */
  int32_t target;     /* blockjit_target; another value is an error */
  void *stream;       /* CUstream, or NULL for the default stream */
  int32_t num_ctas;   /* 0: 1; CTAs per program (a thread-block cluster) */
  /* Nonzero: the kernel's autotuner (registered with it) chooses num_warps,
   * num_stages, num_ctas, programs_per_cta, its tuned constexprs and the
   * grid; those fields are ignored. The first launch of a tuning key times
   * the configs (or reads the result from the disk cache). */
  int32_t autotune;
  /* 0: 1; programs sharing one CTA, each on its own num_warps warps (GPU;
   * 1 with num_ctas > 1) */
  int32_t programs_per_cta;
  /* blockjit_eviction: the L2 eviction hint of global loads, and of stores,
   * whose kernel source gives none (GPU; ignored with autotune, whose
   * configs choose it); another value is an error */
  int32_t load_eviction;
  int32_t store_eviction;
  /* 0: none; else registers a thread may take at most, 24..255 (GPU: PTX's
   * .maxnreg; ignored with autotune, whose configs choose it) */
  int32_t max_registers;
} blockjit_launch_options;

typedef struct blockjit_kernel_info {
  int32_t registers;
  int32_t shared_memory_bytes;
  int32_t threads_per_program;
  int32_t max_programs_per_processor; /* per SM: CTAs x programs_per_cta */
  int32_t processors;
  int32_t ctas_per_program;      /* the cluster a program runs on (1: none) */
  int32_t max_resident_programs; /* device-wide: a persistent grid */
  int32_t programs_per_cta;      /* programs sharing one CTA (1: one) */
} blockjit_kernel_info;

/* Compiles if needed, then launches (asynchronously on the GPU). `kernel`
 * names a registered kernel or operation (blockjit_operation_names). */
int blockjit_launch(const char *kernel, const blockjit_arg *args,
                    int32_t num_args, const blockjit_launch_options *options);

/* Compiles if needed and reports resources and occupancy. */
int blockjit_warmup(const char *kernel, const blockjit_arg *args,
                    int32_t num_args, const blockjit_launch_options *options,
                    blockjit_kernel_info *info);

/* A launch fixed once (kernel, specialization, options, grid) and repeated
 * with new runtime argument values, for callers whose own per-call overhead
 * counts (Python). */
typedef struct blockjit_prepared blockjit_prepared;

/* Compiles (and tunes, with options->autotune) for these arguments and
 * returns a handle in *prepared (release it with blockjit_release). The grid
 * is options->grid, or the autotuner's for these arguments. */
int blockjit_prepare(const char *kernel, const blockjit_arg *args,
                     int32_t num_args, const blockjit_launch_options *options,
                     blockjit_prepared **prepared);

/* Launches `prepared` on `stream` with one 64-bit word per runtime argument
 * (constexprs left out), in order: a pointer's address, an integer's value
 * (sign-extended), a float's bits in the low 32 bits. Each value is checked
 * against what the specialization assumed (alignment and divisibility, an
 * integer that was 0 still 0, a mask bound such as n_cols within its range,
 * null pointers, i32 range); one that breaks an
 * assumption makes this launch take the general path (compiling what it
 * needs) instead of failing. */
int blockjit_launch_prepared(const blockjit_prepared *prepared,
                             const uint64_t *values, int32_t num_values,
                             void *stream);

/* Resources and occupancy of the prepared kernel, and its configuration as
 * text ("warps=8,stages=2,ctas=1,grid=132"; valid until the release). */
int blockjit_prepared_info(const blockjit_prepared *prepared,
                           blockjit_kernel_info *info, const char **config);

void blockjit_release(blockjit_prepared *prepared);

/* sizeof(blockjit_launch_options) as this library was built: a caller
 * compiled against another blockjit_c.h (the struct grows at its end) can
 * compare it with its own sizeof before launching. */
int32_t blockjit_launch_options_size(void);

/* The last error message of this thread ("" if none). */
const char *blockjit_last_error(void);

/* Names of the registered kernels, comma-separated. */
const char *blockjit_kernel_names(void);

/* Names of the registered operations, comma-separated: computations with
 * several algorithms (e.g. softmax_dim0, one launch or three), launched and
 * prepared by name like kernels. An operation takes no constexprs and no
 * launch configuration: the first launch for a choice key times its
 * algorithms and keeps the faster (in memory and on disk), and each
 * algorithm's kernels launch through their autotuners (options: only the
 * target and the stream count). A prepared operation owns its scratch
 * memory: its launches must be ordered (one stream). */
const char *blockjit_operation_names(void);

#ifdef __cplusplus
}
#endif

#endif /* BLOCKJIT_RUNTIME_BLOCKJIT_C_H */
