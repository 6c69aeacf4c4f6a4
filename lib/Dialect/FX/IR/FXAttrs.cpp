//===- FXAttrs.cpp - Attributes of the fx dialect ---------------*- C++ -*-===//

#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"

#include "fx-mlir/Dialect/FX/IR/FXDialect.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"
#include <deque>

using namespace mlir;
using namespace mlir::fx;

#include "fx-mlir/Dialect/FX/IR/FXEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "fx-mlir/Dialect/FX/IR/FXAttrs.cpp.inc"

void FXDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "fx-mlir/Dialect/FX/IR/FXAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Value helpers
//===----------------------------------------------------------------------===//

bool mlir::fx::isValue(Attribute attr) {
  if (!attr)
    return false;
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return i.getType().isSignlessInteger(64) || i.getType().isInteger(1);
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getType().isF64();
  if (isa<StringAttr, NoneAttr, EllipsisAttr, NodeAttr, DTypeAttr,
          MemoryFormatAttr, LayoutAttr, DeviceAttr, SizeAttr, ComplexAttr>(
          attr))
    return true;
  if (auto list = dyn_cast<ListAttr>(attr))
    return llvm::all_of(list.getElements(), isValue);
  if (auto tuple = dyn_cast<TupleAttr>(attr))
    return llvm::all_of(tuple.getElements(), isValue);
  if (auto dict = dyn_cast<DictAttr>(attr))
    return llvm::all_of(dict.getKeys(), isValue) &&
           llvm::all_of(dict.getValues(), isValue);
  if (auto slice = dyn_cast<SliceAttr>(attr))
    return isValue(slice.getStart()) && isValue(slice.getStop()) &&
           isValue(slice.getStep());
  return false;
}

void mlir::fx::walkNodeRefs(Attribute attr,
                            llvm::function_ref<void(NodeAttr)> fn) {
  if (!attr)
    return;
  if (auto node = dyn_cast<NodeAttr>(attr))
    return fn(node);
  if (auto list = dyn_cast<ListAttr>(attr))
    for (Attribute element : list.getElements())
      walkNodeRefs(element, fn);
  else if (auto tuple = dyn_cast<TupleAttr>(attr))
    for (Attribute element : tuple.getElements())
      walkNodeRefs(element, fn);
  else if (auto array = dyn_cast<ArrayAttr>(attr))
    for (Attribute element : array)
      walkNodeRefs(element, fn);
  else if (auto dict = dyn_cast<DictAttr>(attr))
    for (auto [key, value] : llvm::zip(dict.getKeys(), dict.getValues())) {
      walkNodeRefs(key, fn);
      walkNodeRefs(value, fn);
    }
  else if (auto slice = dyn_cast<SliceAttr>(attr)) {
    walkNodeRefs(slice.getStart(), fn);
    walkNodeRefs(slice.getStop(), fn);
    walkNodeRefs(slice.getStep(), fn);
  }
}

bool mlir::fx::isConstantValue(Attribute attr) {
  bool hasNode = false;
  walkNodeRefs(attr, [&](NodeAttr) { hasNode = true; });
  return isValue(attr) && !hasNode;
}

Attribute
mlir::fx::replaceNodeRefs(Attribute attr,
                          llvm::function_ref<Attribute(NodeAttr)> replace) {
  MLIRContext *ctx = attr.getContext();
  std::deque<SmallVector<Attribute>> storage;
  auto replaceAll = [&](ArrayRef<Attribute> elements) -> ArrayRef<Attribute> {
    storage.push_back(llvm::map_to_vector(
        elements, [&](Attribute a) { return replaceNodeRefs(a, replace); }));
    return storage.back();
  };
  if (auto node = dyn_cast<NodeAttr>(attr))
    return replace(node);
  if (auto list = dyn_cast<ListAttr>(attr))
    return ListAttr::get(ctx, replaceAll(list.getElements()));
  if (auto tuple = dyn_cast<TupleAttr>(attr))
    return TupleAttr::get(ctx, replaceAll(tuple.getElements()));
  if (auto array = dyn_cast<ArrayAttr>(attr))
    return ArrayAttr::get(ctx, replaceAll(array.getValue()));
  if (auto dict = dyn_cast<DictAttr>(attr))
    return DictAttr::get(ctx, replaceAll(dict.getKeys()),
                         replaceAll(dict.getValues()));
  if (auto slice = dyn_cast<SliceAttr>(attr))
    return SliceAttr::get(ctx, replaceNodeRefs(slice.getStart(), replace),
                          replaceNodeRefs(slice.getStop(), replace),
                          replaceNodeRefs(slice.getStep(), replace));
  return attr;
}

Attribute mlir::fx::remapNodeRefs(Attribute attr,
                                  llvm::function_ref<unsigned(unsigned)> map) {
  return replaceNodeRefs(attr, [&](NodeAttr node) -> Attribute {
    return NodeAttr::get(node.getContext(), map(node.getIndex()));
  });
}

//===----------------------------------------------------------------------===//
// DictAttr
//===----------------------------------------------------------------------===//

Attribute DictAttr::lookup(StringRef key) const {
  for (auto [k, v] : llvm::zip(getKeys(), getValues()))
    if (auto str = dyn_cast<StringAttr>(k); str && str.getValue() == key)
      return v;
  return {};
}

LogicalResult DictAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<Attribute> keys,
                               ArrayRef<Attribute> values) {
  if (keys.size() != values.size())
    return emitError() << "dict has " << keys.size() << " keys but "
                       << values.size() << " values";
  llvm::SmallDenseSet<Attribute> seen;
  for (Attribute key : keys) {
    auto intKey = dyn_cast<IntegerAttr>(key);
    if (!isa<StringAttr>(key) &&
        !(intKey && intKey.getType().isSignlessInteger(64)))
      return emitError() << "dict key " << key << " is not a str or an int";
    if (!seen.insert(key).second)
      return emitError() << "duplicate dict key " << key;
  }
  return success();
}

// #fx.dict<"dim" = 1, "keepdim" = true>
Attribute DictAttr::parse(AsmParser &parser, Type) {
  SmallVector<Attribute> keys, values;
  if (parser.parseLess())
    return {};
  if (failed(parser.parseOptionalGreater())) {
    auto parseEntry = [&]() -> ParseResult {
      Attribute key, value;
      if (parser.parseAttribute(key) || parser.parseEqual() ||
          parser.parseAttribute(value))
        return failure();
      keys.push_back(key);
      values.push_back(value);
      return success();
    };
    if (parser.parseCommaSeparatedList(parseEntry) || parser.parseGreater())
      return {};
  }
  return parser.getChecked<DictAttr>(parser.getContext(), keys, values);
}

void DictAttr::print(AsmPrinter &printer) const {
  printer << '<';
  llvm::interleaveComma(llvm::zip(getKeys(), getValues()), printer,
                        [&](auto entry) {
                          printer.printAttribute(std::get<0>(entry));
                          printer << " = ";
                          printer.printAttribute(std::get<1>(entry));
                        });
  printer << '>';
}

//===----------------------------------------------------------------------===//
// Keyword attributes: dtype, memory_format, layout
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> DTypeAttr::getKnownNames() {
  static const StringRef names[] = {"float32",
                                    "float64",
                                    "float16",
                                    "bfloat16",
                                    "complex32",
                                    "complex64",
                                    "complex128",
                                    "uint8",
                                    "int8",
                                    "int16",
                                    "int32",
                                    "int64",
                                    "bool",
                                    "qint8",
                                    "quint8",
                                    "qint32",
                                    "quint4x2",
                                    "quint2x4",
                                    "uint16",
                                    "uint32",
                                    "uint64",
                                    "float8_e4m3fn",
                                    "float8_e5m2",
                                    "float8_e4m3fnuz",
                                    "float8_e5m2fnuz",
                                    "bits8",
                                    "bits16",
                                    "bits1x8",
                                    "bits2x4",
                                    "bits4x2"};
  return names;
}

/// The dtypes whose tensors the IR holds, with their element types as
/// text (DTypes.def).
static const std::pair<StringRef, StringRef> kStoredDTypes[] = {
#define FX_DTYPE(NAME, ELEMENT_TYPE, BYTES, SCALAR_TYPE, NPY)                  \
  {#NAME, ELEMENT_TYPE},
#include "fx-mlir/Dialect/FX/IR/DTypes.def"
};

Type mlir::fx::getDTypeElementType(MLIRContext *ctx, StringRef name) {
  for (auto [dtype, text] : kStoredDTypes)
    if (dtype == name)
      return parseType(text, ctx);
  return Type();
}

StringRef mlir::fx::getElementDTypeName(Type elementType) {
  // si64 holds what i64 holds.
  if (auto integer = dyn_cast<IntegerType>(elementType);
      integer && integer.isSigned())
    elementType = IntegerType::get(integer.getContext(), integer.getWidth());
  std::string text;
  llvm::raw_string_ostream os(text);
  elementType.print(os);
  for (auto [dtype, spelling] : kStoredDTypes)
    if (spelling == text)
      return dtype;
  return "";
}

StringRef mlir::fx::getQuantizedDTypeName(Type elementType) {
  auto quantized = dyn_cast<quant::QuantizedType>(elementType);
  if (!quantized ||
      !isa<quant::UniformQuantizedType, quant::UniformQuantizedPerAxisType>(
          quantized) ||
      !quantized.getExpressedType().isF32())
    return "";
  unsigned width = quantized.getStorageTypeIntegralWidth();
  // torch's quantized dtypes use the full range of their storage type.
  if (quantized.getStorageTypeMin() !=
          quant::QuantizedType::getDefaultMinimumForInteger(
              quantized.isSigned(), width) ||
      quantized.getStorageTypeMax() !=
          quant::QuantizedType::getDefaultMaximumForInteger(
              quantized.isSigned(), width))
    return "";
  if (!quantized.isSigned() && width == 8)
    return "quint8";
  if (quantized.isSigned() && width == 8)
    return "qint8";
  if (quantized.isSigned() && width == 32)
    return "qint32";
  return "";
}

Type mlir::fx::getStorageElementType(Type elementType) {
  auto quantized = dyn_cast<quant::QuantizedType>(elementType);
  if (!quantized)
    return elementType;
  unsigned width = quantized.getStorageTypeIntegralWidth();
  return IntegerType::get(elementType.getContext(), width,
                          quantized.isSigned() ? IntegerType::Signless
                                               : IntegerType::Unsigned);
}

ArrayRef<char> mlir::fx::getElementsData(Attribute value) {
  if (auto resource = dyn_cast_or_null<DenseResourceElementsAttr>(value)) {
    if (AsmResourceBlob *blob = resource.getRawHandle().getBlob())
      return blob->getData();
    return {};
  }
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(value))
    if (!dense.isSplat())
      return dense.getRawData();
  return {};
}

ArrayRef<StringRef> MemoryFormatAttr::getKnownNames() {
  static const StringRef names[] = {"contiguous_format", "channels_last",
                                    "channels_last_3d", "preserve_format"};
  return names;
}

ArrayRef<StringRef> LayoutAttr::getKnownNames() {
  static const StringRef names[] = {"strided",    "sparse_coo", "sparse_csr",
                                    "sparse_csc", "sparse_bsr", "sparse_bsc",
                                    "_mkldnn",    "jagged"};
  return names;
}

static LogicalResult
verifyKnownName(function_ref<InFlightDiagnostic()> emitError, StringRef kind,
                StringRef name, ArrayRef<StringRef> known) {
  if (llvm::is_contained(known, name))
    return success();
  return emitError() << "unknown " << kind << " 'torch." << name << "'";
}

LogicalResult DTypeAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                StringRef name) {
  return verifyKnownName(emitError, "torch.dtype", name, getKnownNames());
}

LogicalResult
MemoryFormatAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         StringRef name) {
  return verifyKnownName(emitError, "torch.memory_format", name,
                         getKnownNames());
}

LogicalResult LayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef name) {
  return verifyKnownName(emitError, "torch.layout", name, getKnownNames());
}

template <typename AttrT> static Attribute parseKeywordAttr(AsmParser &parser) {
  std::string name;
  if (parser.parseLess() || parser.parseKeywordOrString(&name) ||
      parser.parseGreater())
    return {};
  return parser.getChecked<AttrT>(parser.getContext(), name);
}

static void printKeywordAttr(AsmPrinter &printer, StringRef name) {
  printer << '<';
  printer.printKeywordOrString(name);
  printer << '>';
}

Attribute DTypeAttr::parse(AsmParser &parser, Type) {
  return parseKeywordAttr<DTypeAttr>(parser);
}
void DTypeAttr::print(AsmPrinter &printer) const {
  printKeywordAttr(printer, getName());
}
Attribute MemoryFormatAttr::parse(AsmParser &parser, Type) {
  return parseKeywordAttr<MemoryFormatAttr>(parser);
}
void MemoryFormatAttr::print(AsmPrinter &printer) const {
  printKeywordAttr(printer, getName());
}
Attribute LayoutAttr::parse(AsmParser &parser, Type) {
  return parseKeywordAttr<LayoutAttr>(parser);
}
void LayoutAttr::print(AsmPrinter &printer) const {
  printKeywordAttr(printer, getName());
}

//===----------------------------------------------------------------------===//
// DeviceAttr
//===----------------------------------------------------------------------===//

LogicalResult DeviceAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef device) {
  // torch.device("type") or torch.device("type:index").
  auto [type, index] = device.split(':');
  unsigned number;
  if (type.empty() ||
      !llvm::all_of(type, [](char c) { return llvm::isAlnum(c) || c == '_'; }))
    return emitError() << "invalid torch.device '" << device << "'";
  if (device.contains(':') && index.getAsInteger(10, number))
    return emitError() << "invalid torch.device '" << device
                       << "': the index must be a non-negative integer";
  return success();
}

//===----------------------------------------------------------------------===//
// ComplexAttr
//===----------------------------------------------------------------------===//

// #fx.complex<1.0, -2.5>
Attribute ComplexAttr::parse(AsmParser &parser, Type) {
  double real, imag;
  if (parser.parseLess() || parser.parseFloat(real) || parser.parseComma() ||
      parser.parseFloat(imag) || parser.parseGreater())
    return {};
  return ComplexAttr::get(parser.getContext(), llvm::APFloat(real),
                          llvm::APFloat(imag));
}

void ComplexAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printer.printFloat(getReal());
  printer << ", ";
  printer.printFloat(getImag());
  printer << '>';
}
