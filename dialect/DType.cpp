//===- DType.cpp - element types and host fp16/bf16 conversions ----------===//
#include "dialect/DType.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Casting.h"

#include <bit>
#include <cmath>

namespace blockjit {

half::half(float value) {
  // Round to nearest even, with overflow to inf and NaN kept quiet.
  uint32_t x = std::bit_cast<uint32_t>(value);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t absx = x & 0x7fffffff;
  if (absx > 0x7f800000) {
    bits = uint16_t(sign | 0x7e00);
    return;
  }
  if (absx >= 0x477ff000) {
    bits = uint16_t(sign | 0x7c00);
    return;
  }                        // inf
  if (absx < 0x38800000) { // subnormal or zero in fp16
    float magnitude = std::bit_cast<float>(absx);
    // 2^-24 is the fp16 subnormal unit; nearbyint rounds to nearest even.
    bits = uint16_t(sign | uint32_t(std::nearbyint(magnitude * 16777216.0f)));
    return;
  }
  uint32_t mantissa = absx + 0xc8000fff + ((absx >> 13) & 1); // rebias, round
  bits = uint16_t(sign | (mantissa >> 13));
}

half::operator float() const {
  uint32_t sign = uint32_t(bits & 0x8000) << 16;
  uint32_t exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  if (exponent == 0) // zero or subnormal
    return std::bit_cast<float>(sign) +
           (sign ? -1.0f : 1.0f) * float(mantissa) * 5.9604644775390625e-8f;
  if (exponent == 31)
    return std::bit_cast<float>(sign | 0x7f800000 | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) |
                              (mantissa << 13));
}

bfloat16::bfloat16(float value) {
  uint32_t x = std::bit_cast<uint32_t>(value);
  if ((x & 0x7fffffff) > 0x7f800000) {
    bits = uint16_t((x >> 16) | 0x40);
    return;
  }
  x += 0x7fff + ((x >> 16) & 1); // round to nearest even
  bits = uint16_t(x >> 16);
}

bfloat16::operator float() const {
  return std::bit_cast<float>(uint32_t(bits) << 16);
}

std::string_view dtypeName(DType type) {
  switch (type) {
  case DType::I1:
    return "i1";
  case DType::I8:
    return "i8";
  case DType::I16:
    return "i16";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::F32:
    return "f32";
  case DType::F64:
    return "f64";
  }
  return "?";
}

std::optional<DType> parseDType(std::string_view name) {
  for (DType t : {DType::I1, DType::I8, DType::I16, DType::I32, DType::I64,
                  DType::F16, DType::BF16, DType::F32, DType::F64})
    if (dtypeName(t) == name)
      return t;
  if (name == "fp32" || name == "float32")
    return DType::F32;
  if (name == "fp16" || name == "float16")
    return DType::F16;
  if (name == "bfloat16")
    return DType::BF16;
  return std::nullopt;
}

unsigned dtypeBytes(DType type) {
  switch (type) {
  case DType::I1:
  case DType::I8:
    return 1;
  case DType::I16:
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::I32:
  case DType::F32:
    return 4;
  case DType::I64:
  case DType::F64:
    return 8;
  }
  return 0;
}

bool isFloat(DType type) {
  return type == DType::F16 || type == DType::BF16 || type == DType::F32 ||
         type == DType::F64;
}

mlir::Type toMLIRType(mlir::MLIRContext *context, DType type) {
  mlir::Builder b(context);
  switch (type) {
  case DType::I1:
    return b.getI1Type();
  case DType::I8:
    return b.getI8Type();
  case DType::I16:
    return b.getI16Type();
  case DType::I32:
    return b.getI32Type();
  case DType::I64:
    return b.getI64Type();
  case DType::F16:
    return b.getF16Type();
  case DType::BF16:
    return b.getBF16Type();
  case DType::F32:
    return b.getF32Type();
  case DType::F64:
    return b.getF64Type();
  }
  return {};
}

std::optional<DType> fromMLIRType(mlir::Type type) {
  if (type.isF16())
    return DType::F16;
  if (type.isBF16())
    return DType::BF16;
  if (type.isF32())
    return DType::F32;
  if (type.isF64())
    return DType::F64;
  if (auto i = llvm::dyn_cast<mlir::IntegerType>(type)) {
    switch (i.getWidth()) {
    case 1:
      return DType::I1;
    case 8:
      return DType::I8;
    case 16:
      return DType::I16;
    case 32:
      return DType::I32;
    case 64:
      return DType::I64;
    }
  }
  return std::nullopt;
}

} // namespace blockjit
