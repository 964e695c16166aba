//===- VectorAdd.cpp - out = x + y, one block per program ----------------===//
#include "examples/kernels/Kernels.h"
#include "runtime/Registry.h"

namespace blockjit::examples {

void vector_add_kernel(Ptr<> x_ptr, Ptr<> y_ptr, Ptr<> output_ptr,
                       Int n_elements, Constexpr BLOCK_SIZE) {
  Int pid = program_id(0);
  Tensor offsets = pid * BLOCK_SIZE + arange(0, BLOCK_SIZE);
  Tensor mask = offsets < n_elements;
  Tensor x = load(x_ptr + offsets, mask);
  Tensor y = load(y_ptr + offsets, mask);
  store(output_ptr + offsets, x + y, mask);
}

const std::shared_ptr<KernelDef> &vectorAdd() {
  static auto kernel =
      jit("vector_add", vector_add_kernel,
          {"x_ptr", "y_ptr", "output_ptr", "n_elements", "BLOCK_SIZE"});
  return kernel;
}

static KernelRegistration registration({
    "vector_add",
    "elementwise x + y over a 1-D grid of blocks",
    vectorAdd(),
    [](const ExampleConfig &c) {
      SpecializationKey key;
      key.argTypes = {c.dtype, c.dtype, c.dtype, DType::I32};
      key.constexprs = {c.blockSize};
      key.divisibility = {16, 16, 16, 16}; // aligned buffers, n a multiple of 16
      key.options = c.options;
      return key;
    },
});

} // namespace blockjit::examples
