//===- Harness.cpp - running a differential case on one target ------------===//
#include "tests/differential/Harness.h"

#include "runtime/DeviceBuffer.h"
#include "runtime/Launch.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

namespace blockjit::difftest {

namespace {

void encode(DType type, double v, void *out) {
  auto put = [&](auto x) { std::memcpy(out, &x, sizeof(x)); };
  switch (type) {
  case DType::I1:
    return put(uint8_t(v != 0));
  case DType::I8:
    return put(int8_t(int64_t(v)));
  case DType::I16:
    return put(int16_t(int64_t(v)));
  case DType::I32:
    return put(int32_t(int64_t(v)));
  case DType::I64:
    return put(int64_t(v));
  case DType::F16:
    return put(half(float(v)));
  case DType::BF16:
    return put(bfloat16(float(v)));
  case DType::F32:
    return put(float(v));
  case DType::F64:
    return put(v);
  }
}

double decode(DType type, const void *in) {
  auto get = [&](auto x) {
    std::memcpy(&x, in, sizeof(x));
    return x;
  };
  switch (type) {
  case DType::I1:
    return get(uint8_t()) != 0;
  case DType::I8:
    return get(int8_t());
  case DType::I16:
    return get(int16_t());
  case DType::I32:
    return get(int32_t());
  case DType::I64:
    return double(get(int64_t()));
  case DType::F16:
    return float(get(half()));
  case DType::BF16:
    return float(get(bfloat16()));
  case DType::F32:
    return get(float());
  case DType::F64:
    return get(double());
  }
  return 0;
}

bool matches(double got, double want, const Tolerance &t, double scale) {
  if (std::isnan(want) || std::isnan(got))
    return std::isnan(want) && std::isnan(got);
  if (std::isinf(want) || std::isinf(got))
    return got == want;
  return std::fabs(got - want) <= scale * (t.abs + t.rel * std::fabs(want));
}

std::string show(double v) {
  char text[40];
  std::snprintf(text, sizeof(text), "%.9g", v);
  return text;
}

} // namespace

double roundTo(DType type, double v) {
  // Out-of-range integers are the reference's business (it wraps them).
  if (!isFloat(type) && !std::isfinite(v))
    return v;
  unsigned char bytes[8];
  encode(type, v, bytes);
  return decode(type, bytes);
}

Buffers initialBuffers(const Case &c) {
  Buffers result;
  for (const Buffer &b : c.buffers) {
    std::vector<double> values;
    for (double v : b.init)
      values.push_back(roundTo(b.type, v));
    result.push_back(std::move(values));
  }
  return result;
}

llvm::Expected<Buffers> runOn(TargetKind target, const Case &c) {
  Buffers initial = initialBuffers(c);
  std::vector<DeviceBuffer> device;
  for (size_t i = 0; i < c.buffers.size(); ++i) {
    const Buffer &b = c.buffers[i];
    unsigned width = dtypeBytes(b.type);
    std::vector<unsigned char> bytes(b.leadBytes + width * b.init.size());
    for (size_t j = 0; j < b.init.size(); ++j)
      encode(b.type, initial[i][j], bytes.data() + b.leadBytes + j * width);
    auto buffer = DeviceBuffer::allocate(target, bytes.size());
    if (!buffer)
      return buffer.takeError();
    if (llvm::Error e = buffer->uploadBytes(bytes.data(), bytes.size()))
      return std::move(e);
    device.push_back(std::move(*buffer));
  }
  std::vector<Arg> args;
  for (const ArgSpec &a : c.args) {
    switch (a.kind) {
    case ArgSpec::Kind::Buffer: {
      const Buffer &b = c.buffers[a.buffer];
      args.push_back(Arg::typedPointer(
          static_cast<char *>(device[a.buffer].data()) + b.leadBytes, b.type));
      break;
    }
    case ArgSpec::Kind::I32:
      args.push_back(Arg(int32_t(a.integer)));
      break;
    case ArgSpec::Kind::I64:
      args.push_back(Arg(int64_t(a.integer)));
      break;
    case ArgSpec::Kind::F32:
      args.push_back(Arg(a.real));
      break;
    case ArgSpec::Kind::Constexpr:
      args.push_back(Arg(Constexpr(a.integer)));
      break;
    }
  }
  LaunchOptions options;
  options.grid = c.grid;
  options.numWarps = c.numWarps;
  options.numStages = c.numStages;
  options.numCTAs = c.numCTAs;
  options.programsPerCTA = c.programsPerCTA;
  options.loadEviction = c.loadEviction;
  options.storeEviction = c.storeEviction;
  options.maxRegisters = c.maxRegisters;
  options.target = target;
  if (llvm::Error e = launch(*c.kernel, options, args))
    return std::move(e);
  if (llvm::Error e = executorFor(target).synchronize(0))
    return std::move(e);
  Buffers result;
  for (size_t i = 0; i < c.buffers.size(); ++i) {
    const Buffer &b = c.buffers[i];
    unsigned width = dtypeBytes(b.type);
    std::vector<unsigned char> bytes(b.leadBytes + width * b.init.size());
    if (llvm::Error e = device[i].downloadBytes(bytes.data(), bytes.size()))
      return std::move(e);
    std::vector<double> values;
    for (size_t j = 0; j < b.init.size(); ++j)
      values.push_back(decode(b.type, bytes.data() + b.leadBytes + j * width));
    result.push_back(std::move(values));
  }
  if (c.canonicalize)
    c.canonicalize(initial, result);
  return result;
}

std::string compare(const Case &c, const Buffers &initial, const Buffers &got,
                    const Buffers &want, const char *gotName,
                    const char *wantName, double toleranceScale) {
  size_t mismatches = 0;
  std::ostringstream first;
  for (size_t b = 0; b < want.size(); ++b) {
    for (size_t i = 0; i < want[b].size(); ++i) {
      if (matches(got[b][i], want[b][i], c.tolerance, toleranceScale))
        continue;
      if (mismatches++)
        continue;
      first << "buffer " << b << " (" << dtypeName(c.buffers[b].type)
            << ") index " << i << ": " << gotName << " " << show(got[b][i])
            << ", " << wantName << " " << show(want[b][i]) << " (tolerance "
            << c.tolerance.rule << ")\n  inputs at index " << i << ":";
      for (size_t k = 0; k < initial.size(); ++k)
        if (i < initial[k].size())
          first << " b" << k << "=" << show(initial[k][i]);
    }
  }
  if (!mismatches)
    return "";
  return llvm::formatv("{0}: {1} mismatching element(s); first at {2}", c.name,
                       mismatches, first.str())
      .str();
}

} // namespace blockjit::difftest
