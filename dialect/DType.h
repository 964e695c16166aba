//===- DType.h - element types of kernel arguments and blocks --*- C++ -*-===//
#ifndef BLOCKJIT_DIALECT_DTYPE_H
#define BLOCKJIT_DIALECT_DTYPE_H

#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

namespace mlir {
class MLIRContext;
class Type;
} // namespace mlir

namespace blockjit {

/// IEEE binary16, stored as bits: the host-side type of fp16 buffers.
struct half {
  uint16_t bits = 0;
  half() = default;
  explicit half(float value);
  explicit operator float() const;
};

/// bfloat16 (the upper half of an fp32), stored as bits.
struct bfloat16 {
  uint16_t bits = 0;
  bfloat16() = default;
  explicit bfloat16(float value);
  explicit operator float() const;
};

enum class DType : uint8_t { I1, I8, I16, I32, I64, F16, BF16, F32, F64 };

std::string_view dtypeName(DType type);
std::optional<DType> parseDType(std::string_view name);
unsigned dtypeBytes(DType type);
bool isFloat(DType type);
mlir::Type toMLIRType(mlir::MLIRContext *context, DType type);
std::optional<DType> fromMLIRType(mlir::Type type);

/// The DType of a host C++ element type.
template <typename T> struct DTypeOf;
template <> struct DTypeOf<bool> { static constexpr DType value = DType::I1; };
template <> struct DTypeOf<int8_t> {
  static constexpr DType value = DType::I8;
};
template <> struct DTypeOf<int16_t> {
  static constexpr DType value = DType::I16;
};
template <> struct DTypeOf<int32_t> {
  static constexpr DType value = DType::I32;
};
template <> struct DTypeOf<int64_t> {
  static constexpr DType value = DType::I64;
};
template <> struct DTypeOf<half> { static constexpr DType value = DType::F16; };
template <> struct DTypeOf<bfloat16> {
  static constexpr DType value = DType::BF16;
};
template <> struct DTypeOf<float> {
  static constexpr DType value = DType::F32;
};
template <> struct DTypeOf<double> {
  static constexpr DType value = DType::F64;
};
template <typename T> inline constexpr DType dtype_v = DTypeOf<T>::value;

} // namespace blockjit

#endif // BLOCKJIT_DIALECT_DTYPE_H
