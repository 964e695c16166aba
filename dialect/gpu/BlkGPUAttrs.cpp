//===- BlkGPUAttrs.cpp - the layout attributes: syntax and verifiers -----===//
//
// Every layout is written as a dictionary, `#blkgpu.NAME<{field = value,
// ...}>`, with its fields in any order; the printer writes them in a fixed
// order and leaves out a default CTA part.
//
//===----------------------------------------------------------------------===//
#include "dialect/gpu/BlkGPUDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

using namespace mlir;
using namespace blockjit::blkgpu;

#define GET_ATTRDEF_CLASSES
#include "dialect/gpu/BlkGPUAttrs.cpp.inc"

void BlkGPUDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialect/gpu/BlkGPUAttrs.cpp.inc"
      >();
}

namespace blockjit::blkgpu {

CTALayout CTALayout::single(unsigned rank) {
  CTALayout layout;
  layout.CTAsPerCluster.assign(rank, 1);
  layout.CTASplitNum.assign(rank, 1);
  for (unsigned d = rank; d-- > 0;)
    layout.CTAOrder.push_back(d);
  return layout;
}

unsigned CTALayout::numCTAs() const {
  return std::accumulate(CTAsPerCluster.begin(), CTAsPerCluster.end(), 1u,
                         std::multiplies<unsigned>());
}

bool isDistributedLayout(Attribute layout) {
  return isa_and_nonnull<BlockedLayoutAttr, SliceLayoutAttr>(layout);
}

BlockedLayoutAttr rootBlockedLayout(Attribute layout) {
  while (auto slice = dyn_cast_or_null<SliceLayoutAttr>(layout))
    layout = slice.getParent();
  return dyn_cast_or_null<BlockedLayoutAttr>(layout);
}

int64_t warpsOf(Attribute layout) {
  BlockedLayoutAttr root = rootBlockedLayout(layout);
  if (!root)
    return 0;
  int64_t warps = 1;
  for (unsigned w : root.getWarpsPerCTA())
    warps *= w;
  return warps;
}

int64_t clusterCTAsOf(Attribute layout) {
  BlockedLayoutAttr root = rootBlockedLayout(layout);
  return root ? int64_t(root.getCTALayout().numCTAs()) : 0;
}

} // namespace blockjit::blkgpu

namespace {

using EmitError = function_ref<InFlightDiagnostic()>;

//===----------------------------------------------------------------------===//
// Syntax
//===----------------------------------------------------------------------===//

/// The fields of one `<{name = value, ...}>`: each read once by name, and
/// any left unread reported (a misspelt field is an error, not ignored).
class Fields {
public:
  Fields(AsmParser &parser, StringRef attrName)
      : parser(parser), attrName(attrName) {}

  ParseResult parse() {
    loc = parser.getCurrentLocation();
    NamedAttrList list;
    if (parser.parseLess())
      return failure();
    SMLoc start = parser.getCurrentLocation();
    if (parser.parseOptionalAttrDict(list))
      return failure();
    if (parser.getCurrentLocation() == start)
      return parser.emitError(start) << attrName << " is written " << attrName
                                     << "<{field = value, ...}>";
    dict = list.getDictionary(parser.getContext());
    return parser.parseGreater();
  }

  /// An array of non-negative 32-bit integers; `fallback` when absent, if
  /// one is given.
  FailureOr<SmallVector<unsigned>>
  array(StringRef name, std::optional<ArrayRef<unsigned>> fallback = {}) {
    Attribute value = take(name);
    if (!value) {
      if (fallback)
        return SmallVector<unsigned>(*fallback);
      return missing(name);
    }
    auto array = dyn_cast<ArrayAttr>(value);
    SmallVector<unsigned> result;
    for (Attribute element : array ? array.getValue() : ArrayRef<Attribute>{})
      if (std::optional<unsigned> v = asUnsigned(element))
        result.push_back(*v);
    if (!array || result.size() != array.size())
      return parser.emitError(loc)
             << "'" << name << "' of " << attrName
             << " must be an array of non-negative 32-bit integers, got "
             << value;
    return result;
  }

  FailureOr<unsigned> integer(StringRef name) {
    Attribute value = take(name);
    if (!value)
      return missing(name);
    if (std::optional<unsigned> v = asUnsigned(value))
      return *v;
    return parser.emitError(loc)
           << "'" << name << "' of " << attrName
           << " must be a non-negative 32-bit integer, got " << value;
  }

  FailureOr<Attribute> attribute(StringRef name) {
    if (Attribute value = take(name))
      return value;
    return missing(name);
  }

  /// Errors for the fields nobody asked for.
  ParseResult finish() {
    for (NamedAttribute field : dict)
      if (!read.contains(field.getName().getValue()))
        return parser.emitError(loc) << attrName << " has no field '"
                                     << field.getName().getValue() << "'";
    return success();
  }

  /// Errors at the layout (a callable for getChecked, to keep in a local:
  /// a function_ref to it must not outlive it).
  auto errorEmitter() {
    return [this] { return parser.emitError(loc); };
  }

private:
  AsmParser &parser;
  StringRef attrName;
  SMLoc loc;
  DictionaryAttr dict;
  llvm::StringSet<> read;

  Attribute take(StringRef name) {
    read.insert(name);
    return dict.get(name);
  }

  ParseResult missing(StringRef name) {
    return parser.emitError(loc)
           << attrName << " needs the field '" << name << "'";
  }

  static std::optional<unsigned> asUnsigned(Attribute attr) {
    auto integer = dyn_cast<IntegerAttr>(attr);
    if (!integer || !integer.getType().isSignlessInteger() ||
        integer.getValue().isNegative() ||
        integer.getValue().getActiveBits() > 32)
      return std::nullopt;
    return unsigned(integer.getValue().getZExtValue());
  }
};

FailureOr<CTALayout> parseCTALayout(Fields &fields, unsigned rank) {
  CTALayout single = CTALayout::single(rank);
  auto perCluster = fields.array("CTAsPerCluster", single.CTAsPerCluster);
  auto splitNum = fields.array("CTASplitNum", single.CTASplitNum);
  auto order = fields.array("CTAOrder", single.CTAOrder);
  if (failed(perCluster) || failed(splitNum) || failed(order))
    return failure();
  return CTALayout{*perCluster, *splitNum, *order};
}

void printArray(AsmPrinter &printer, StringRef name, ArrayRef<unsigned> values,
                bool comma = true) {
  if (comma)
    printer << ", ";
  printer << name << " = [";
  llvm::interleaveComma(values, printer);
  printer << "]";
}

void printCTALayout(AsmPrinter &printer, const CTALayout &cta) {
  if (cta.isSingle())
    return;
  printArray(printer, "CTAsPerCluster", cta.CTAsPerCluster);
  printArray(printer, "CTASplitNum", cta.CTASplitNum);
  printArray(printer, "CTAOrder", cta.CTAOrder);
}

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

LogicalResult verifyRanks(EmitError emitError, StringRef attrName,
                          ArrayRef<std::pair<StringRef, size_t>> fields) {
  if (fields.front().second == 0)
    return emitError() << attrName << " needs at least one dimension ('"
                       << fields.front().first << "' is empty)";
  for (auto [name, rank] : fields.drop_front())
    if (rank != fields.front().second)
      return emitError() << attrName
                         << " has one entry per dimension in every field: '"
                         << fields.front().first << "' has "
                         << fields.front().second << ", '" << name << "' has "
                         << rank;
  return success();
}

LogicalResult verifyPowersOfTwo(EmitError emitError, StringRef field,
                                ArrayRef<unsigned> values) {
  for (auto [d, value] : llvm::enumerate(values))
    if (!llvm::isPowerOf2_32(value))
      return emitError() << field << "[" << d << "] = " << value
                         << " is not a power of two";
  return success();
}

LogicalResult verifyPowerOfTwo(EmitError emitError, StringRef field,
                               unsigned value) {
  if (!llvm::isPowerOf2_32(value))
    return emitError() << field << " = " << value << " is not a power of two";
  return success();
}

LogicalResult verifyPermutation(EmitError emitError, StringRef field,
                                ArrayRef<unsigned> values) {
  SmallVector<unsigned> sorted(values);
  llvm::sort(sorted);
  for (auto [i, value] : llvm::enumerate(sorted))
    if (value != i) {
      InFlightDiagnostic diag = emitError() << field << " = [";
      llvm::interleaveComma(values, diag);
      return diag << "] is not a permutation of 0.." << values.size() - 1;
    }
  return success();
}

/// log2 of the product of powers of two (no overflow, whatever the rank).
unsigned log2Product(ArrayRef<unsigned> values) {
  unsigned log2 = 0;
  for (unsigned value : values)
    log2 += llvm::Log2_32(value);
  return log2;
}

LogicalResult verifyCTALayout(EmitError emitError, StringRef attrName,
                              unsigned rank, ArrayRef<unsigned> perCluster,
                              ArrayRef<unsigned> splitNum,
                              ArrayRef<unsigned> order) {
  if (perCluster.size() != rank || splitNum.size() != rank ||
      order.size() != rank)
    return emitError() << attrName << " has a rank-" << rank
                       << " layout but a CTA part of ranks "
                       << perCluster.size() << ", " << splitNum.size() << ", "
                       << order.size()
                       << " (CTAsPerCluster, CTASplitNum, CTAOrder)";
  if (failed(verifyPowersOfTwo(emitError, "CTAsPerCluster", perCluster)) ||
      failed(verifyPowersOfTwo(emitError, "CTASplitNum", splitNum)) ||
      failed(verifyPermutation(emitError, "CTAOrder", order)))
    return failure();
  for (unsigned d = 0; d < rank; ++d)
    if (splitNum[d] > perCluster[d])
      return emitError() << "CTASplitNum[" << d << "] = " << splitNum[d]
                         << " exceeds CTAsPerCluster[" << d
                         << "] = " << perCluster[d]
                         << ": a dimension is cut into at most one piece per "
                            "CTA along it";
  return success();
}

/// A layout on a block of `shape`: ranks agree, and the map (which wraps
/// and repeats by powers of two) needs static power-of-two dimensions.
LogicalResult verifyBlockShape(EmitError emitError, StringRef attrName,
                               unsigned rank, ArrayRef<int64_t> shape) {
  if (shape.size() != rank)
    return emitError() << "a rank-" << rank << " " << attrName
                       << " layout cannot describe a rank-" << shape.size()
                       << " block";
  for (auto [d, size] : llvm::enumerate(shape))
    if (size <= 0 || !llvm::isPowerOf2_64(size))
      return emitError() << attrName
                         << " lays out blocks of static power-of-two "
                            "dimensions; dimension "
                         << d << " is "
                         << (ShapedType::isDynamic(size)
                                 ? std::string("?")
                                 : std::to_string(size));
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// #blkgpu.blocked
//===----------------------------------------------------------------------===//

Attribute BlockedLayoutAttr::parse(AsmParser &parser, Type) {
  Fields fields(parser, "#blkgpu.blocked");
  if (fields.parse())
    return {};
  auto sizePerThread = fields.array("sizePerThread");
  auto threadsPerWarp = fields.array("threadsPerWarp");
  auto warpsPerCTA = fields.array("warpsPerCTA");
  auto order = fields.array("order");
  if (failed(sizePerThread) || failed(threadsPerWarp) || failed(warpsPerCTA) ||
      failed(order))
    return {};
  FailureOr<CTALayout> cta = parseCTALayout(fields, order->size());
  if (failed(cta) || fields.finish())
    return {};
  auto emitError = fields.errorEmitter();
  return getChecked(emitError, parser.getContext(), *sizePerThread,
                    *threadsPerWarp, *warpsPerCTA, *order, cta->CTAsPerCluster,
                    cta->CTASplitNum, cta->CTAOrder);
}

void BlockedLayoutAttr::print(AsmPrinter &printer) const {
  printer << "<{";
  printArray(printer, "sizePerThread", getSizePerThread(), /*comma=*/false);
  printArray(printer, "threadsPerWarp", getThreadsPerWarp());
  printArray(printer, "warpsPerCTA", getWarpsPerCTA());
  printArray(printer, "order", getOrder());
  printCTALayout(printer, getCTALayout());
  printer << "}>";
}

LogicalResult BlockedLayoutAttr::verify(
    EmitError emitError, ArrayRef<unsigned> sizePerThread,
    ArrayRef<unsigned> threadsPerWarp, ArrayRef<unsigned> warpsPerCTA,
    ArrayRef<unsigned> order, ArrayRef<unsigned> CTAsPerCluster,
    ArrayRef<unsigned> CTASplitNum, ArrayRef<unsigned> CTAOrder) {
  StringRef name = "#blkgpu.blocked";
  if (failed(verifyRanks(emitError, name,
                         {{"sizePerThread", sizePerThread.size()},
                          {"threadsPerWarp", threadsPerWarp.size()},
                          {"warpsPerCTA", warpsPerCTA.size()},
                          {"order", order.size()}})) ||
      failed(verifyPowersOfTwo(emitError, "sizePerThread", sizePerThread)) ||
      failed(verifyPowersOfTwo(emitError, "threadsPerWarp", threadsPerWarp)) ||
      failed(verifyPowersOfTwo(emitError, "warpsPerCTA", warpsPerCTA)) ||
      failed(verifyPermutation(emitError, "order", order)))
    return failure();
  if (log2Product(threadsPerWarp) != llvm::Log2_32(kWarpSize)) {
    InFlightDiagnostic diag = emitError() << "threadsPerWarp = [";
    llvm::interleaveComma(threadsPerWarp, diag);
    return diag << "] makes 2^" << log2Product(threadsPerWarp)
                << " threads; a warp has " << kWarpSize;
  }
  if (log2Product(warpsPerCTA) > llvm::Log2_32(kMaxWarpsPerCTA)) {
    InFlightDiagnostic diag = emitError() << "warpsPerCTA = [";
    llvm::interleaveComma(warpsPerCTA, diag);
    return diag << "] makes 2^" << log2Product(warpsPerCTA)
                << " warps; a CTA has at most " << kMaxWarpsPerCTA << " ("
                << kMaxWarpsPerCTA * kWarpSize << " threads)";
  }
  return verifyCTALayout(emitError, name, order.size(), CTAsPerCluster,
                         CTASplitNum, CTAOrder);
}

LogicalResult BlockedLayoutAttr::verifyEncoding(ArrayRef<int64_t> shape, Type,
                                                EmitError emitError) const {
  return verifyBlockShape(emitError, "#blkgpu.blocked", getRank(), shape);
}

//===----------------------------------------------------------------------===//
// #blkgpu.slice
//===----------------------------------------------------------------------===//

unsigned SliceLayoutAttr::getRank() const {
  if (auto blocked = dyn_cast<BlockedLayoutAttr>(getParent()))
    return blocked.getRank() - 1;
  return cast<SliceLayoutAttr>(getParent()).getRank() - 1;
}

Attribute SliceLayoutAttr::parse(AsmParser &parser, Type) {
  Fields fields(parser, "#blkgpu.slice");
  if (fields.parse())
    return {};
  FailureOr<unsigned> dim = fields.integer("dim");
  if (failed(dim))
    return {};
  FailureOr<Attribute> parent = fields.attribute("parent");
  if (failed(parent) || fields.finish())
    return {};
  auto emitError = fields.errorEmitter();
  return getChecked(emitError, parser.getContext(), *dim, *parent);
}

void SliceLayoutAttr::print(AsmPrinter &printer) const {
  printer << "<{dim = " << getDim() << ", parent = ";
  printer.printAttribute(getParent());
  printer << "}>";
}

LogicalResult SliceLayoutAttr::verify(EmitError emitError, unsigned dim,
                                      Attribute parent) {
  if (!isDistributedLayout(parent))
    return emitError() << "the parent of #blkgpu.slice is a #blkgpu.blocked "
                          "or #blkgpu.slice layout, not "
                       << parent;
  unsigned parentRank =
      TypeSwitch<Attribute, unsigned>(parent)
          .Case([](BlockedLayoutAttr blocked) { return blocked.getRank(); })
          .Case([](SliceLayoutAttr slice) { return slice.getRank(); });
  if (parentRank < 2)
    return emitError() << "#blkgpu.slice of a rank-1 layout would leave no "
                          "dimension (reducing a 1-D block gives a scalar)";
  if (dim >= parentRank)
    return emitError() << "#blkgpu.slice dim = " << dim
                       << " is out of range for a rank-" << parentRank
                       << " parent (0.." << parentRank - 1 << ")";
  return success();
}

LogicalResult SliceLayoutAttr::verifyEncoding(ArrayRef<int64_t> shape, Type,
                                              EmitError emitError) const {
  return verifyBlockShape(emitError, "#blkgpu.slice", getRank(), shape);
}

//===----------------------------------------------------------------------===//
// #blkgpu.shared
//===----------------------------------------------------------------------===//

Attribute SharedLayoutAttr::parse(AsmParser &parser, Type) {
  Fields fields(parser, "#blkgpu.shared");
  if (fields.parse())
    return {};
  FailureOr<unsigned> vec = fields.integer("vec");
  FailureOr<unsigned> perPhase = fields.integer("perPhase");
  FailureOr<unsigned> maxPhase = fields.integer("maxPhase");
  if (failed(vec) || failed(perPhase) || failed(maxPhase))
    return {};
  auto order = fields.array("order");
  if (failed(order))
    return {};
  FailureOr<CTALayout> cta = parseCTALayout(fields, order->size());
  if (failed(cta) || fields.finish())
    return {};
  auto emitError = fields.errorEmitter();
  return getChecked(emitError, parser.getContext(), *vec, *perPhase, *maxPhase,
                    *order, cta->CTAsPerCluster, cta->CTASplitNum,
                    cta->CTAOrder);
}

void SharedLayoutAttr::print(AsmPrinter &printer) const {
  printer << "<{vec = " << getVec() << ", perPhase = " << getPerPhase()
          << ", maxPhase = " << getMaxPhase();
  printArray(printer, "order", getOrder());
  printCTALayout(printer, getCTALayout());
  printer << "}>";
}

LogicalResult SharedLayoutAttr::verify(EmitError emitError, unsigned vec,
                                       unsigned perPhase, unsigned maxPhase,
                                       ArrayRef<unsigned> order,
                                       ArrayRef<unsigned> CTAsPerCluster,
                                       ArrayRef<unsigned> CTASplitNum,
                                       ArrayRef<unsigned> CTAOrder) {
  StringRef name = "#blkgpu.shared";
  if (failed(verifyRanks(emitError, name, {{"order", order.size()}})) ||
      failed(verifyPowerOfTwo(emitError, "vec", vec)) ||
      failed(verifyPowerOfTwo(emitError, "perPhase", perPhase)) ||
      failed(verifyPowerOfTwo(emitError, "maxPhase", maxPhase)) ||
      failed(verifyPermutation(emitError, "order", order)))
    return failure();
  return verifyCTALayout(emitError, name, order.size(), CTAsPerCluster,
                         CTASplitNum, CTAOrder);
}

LogicalResult SharedLayoutAttr::verifyEncoding(ArrayRef<int64_t> shape, Type,
                                               EmitError emitError) const {
  return verifyBlockShape(emitError, "#blkgpu.shared", getRank(), shape);
}
