//===- FXOps.cpp - Operations of the fx dialect -----------------*- C++ -*-===//
//
// Custom assembly (FX values printed as Python source would print them) and
// the verifiers that keep an fx graph a valid torch.fx graph.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Dialect/FX/IR/FXOps.h"
#include "fx-mlir/Dialect/FX/IR/ControlFlow.h"
#include "fx-mlir/Dialect/FX/IR/FXLocation.h"
#include "fx-mlir/Dialect/FX/IR/PythonRepr.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::fx;

#include "fx-mlir/Dialect/FX/IR/FXInterfaces.cpp.inc"

//===----------------------------------------------------------------------===//
// FX value syntax
//
//   value ::= `%`ssa-id | int | float | `inf` | `nan` | string
//           | `None` | `True` | `False` | `...`
//           | `[` values `]` | `(` values `)` | `{` key `:` value, ... `}`
//           | `slice(` value `,` value `,` value `)`
//           | `torch.`dtype | `torch.`memory_format | `torch.`layout
//           | `device(` string `)` | `torch.Size([` ints `])`
//           | `complex(` float `,` float `)`
//===----------------------------------------------------------------------===//

namespace {
/// Parses FX values, collecting node references as operands.
class ValueParser {
public:
  ValueParser(OpAsmParser &parser,
              SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands)
      : parser(parser), operands(operands), ctx(parser.getContext()) {}

  /// Parses one value. `keyword`, if set, is a bare identifier the caller
  /// already consumed while looking for `name=`.
  ParseResult parseValue(Attribute &result, StringRef keyword = {});
  /// Parses `value, ..., key=value, ...` up to and including `close`.
  ParseResult parseCallArgs(SmallVectorImpl<Attribute> &args,
                            SmallVectorImpl<Attribute> &kwargKeys,
                            SmallVectorImpl<Attribute> &kwargValues,
                            bool allowNodes = true);

private:
  ParseResult parseKeywordValue(StringRef keyword, Attribute &result,
                                SMLoc loc);
  ParseResult parseNumber(Attribute &result);
  ParseResult parseSequence(SmallVectorImpl<Attribute> &elements,
                            function_ref<ParseResult()> parseClose,
                            function_ref<bool()> tryClose,
                            bool *sawComma = nullptr);

  OpAsmParser &parser;
  SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands;
  MLIRContext *ctx;
  /// How deep the values being parsed nest (lists in tuples in dicts...).
  unsigned depth = 0;
};

/// The deepest nesting of FX values the parser reads: deeper, it would
/// recurse until the stack runs out (found by fuzz-parse); no FX graph
/// nests its args anywhere near this.
constexpr unsigned kMaxValueNesting = 200;
} // namespace

static StringRef canonicalDType(StringRef name) {
  return llvm::StringSwitch<StringRef>(name)
      .Case("float", "float32")
      .Case("double", "float64")
      .Case("half", "float16")
      .Case("cfloat", "complex64")
      .Case("cdouble", "complex128")
      .Case("chalf", "complex32")
      .Case("long", "int64")
      .Case("int", "int32")
      .Case("short", "int16")
      .Default(name);
}

ParseResult ValueParser::parseNumber(Attribute &result) {
  bool negative = succeeded(parser.parseOptionalMinus());
  if (succeeded(parser.parseOptionalKeyword("inf"))) {
    result =
        FloatAttr::get(Float64Type::get(ctx), negative ? -INFINITY : INFINITY);
    return success();
  }
  if (succeeded(parser.parseOptionalKeyword("nan"))) {
    result = FloatAttr::get(Float64Type::get(ctx), NAN);
    return success();
  }
  SMLoc loc = parser.getCurrentLocation();
  APInt integer;
  OptionalParseResult intResult = parser.parseOptionalInteger(integer);
  if (intResult.has_value()) {
    if (failed(*intResult))
      return failure();
    if (integer.getActiveBits() > 64)
      return parser.emitError(loc, "integer does not fit in 64 bits");
    uint64_t magnitude = integer.getZExtValue();
    uint64_t limit = negative ? (uint64_t(1) << 63) : (uint64_t(1) << 63) - 1;
    if (magnitude > limit)
      return parser.emitError(loc, "integer does not fit in 64 bits");
    int64_t value = negative ? int64_t(0 - magnitude) : int64_t(magnitude);
    result = IntegerAttr::get(IntegerType::get(ctx, 64), value);
    return success();
  }
  double real;
  if (parser.parseFloat(real))
    return failure();
  result = FloatAttr::get(Float64Type::get(ctx), negative ? -real : real);
  return success();
}

ParseResult ValueParser::parseSequence(SmallVectorImpl<Attribute> &elements,
                                       function_ref<ParseResult()> parseClose,
                                       function_ref<bool()> tryClose,
                                       bool *sawComma) {
  if (tryClose())
    return success();
  while (true) {
    Attribute element;
    if (parseValue(element))
      return failure();
    elements.push_back(element);
    if (failed(parser.parseOptionalComma()))
      return parseClose();
    if (sawComma)
      *sawComma = true;
    if (tryClose())
      return success();
  }
}

ParseResult ValueParser::parseKeywordValue(StringRef keyword, Attribute &result,
                                           SMLoc loc) {
  Builder b(ctx);
  if (keyword == "None") {
    result = NoneAttr::get(ctx);
  } else if (keyword == "True" || keyword == "False") {
    result = b.getBoolAttr(keyword == "True");
  } else if (keyword == "inf") {
    result = b.getF64FloatAttr(INFINITY);
  } else if (keyword == "nan") {
    result = b.getF64FloatAttr(NAN);
  } else if (keyword == "Ellipsis") {
    result = EllipsisAttr::get(ctx);
  } else if (keyword == "slice") {
    Attribute start, stop, step;
    if (parser.parseLParen() || parseValue(start) || parser.parseComma() ||
        parseValue(stop) || parser.parseComma() || parseValue(step) ||
        parser.parseRParen())
      return failure();
    result = SliceAttr::get(ctx, start, stop, step);
  } else if (keyword == "device") {
    std::string device;
    if (parser.parseLParen() || parser.parseString(&device) ||
        parser.parseRParen())
      return failure();
    result = DeviceAttr::getChecked([&] { return parser.emitError(loc); }, ctx,
                                    StringRef(device));
    if (!result)
      return failure();
  } else if (keyword == "complex") {
    Attribute re, im;
    if (parser.parseLParen() || parseNumber(re) || parser.parseComma() ||
        parseNumber(im) || parser.parseRParen())
      return failure();
    auto toFloat = [](Attribute number) {
      if (auto real = dyn_cast<FloatAttr>(number))
        return real.getValue();
      return APFloat(double(cast<IntegerAttr>(number).getInt()));
    };
    result = ComplexAttr::get(ctx, toFloat(re), toFloat(im));
  } else if (keyword == "torch.Size") {
    SmallVector<int64_t> dims;
    if (parser.parseLParen() || parser.parseLSquare())
      return failure();
    if (failed(parser.parseOptionalRSquare())) {
      if (parser.parseCommaSeparatedList([&]() -> ParseResult {
            return parser.parseInteger(dims.emplace_back());
          }) ||
          parser.parseRSquare())
        return failure();
    }
    if (parser.parseRParen())
      return failure();
    result = SizeAttr::get(ctx, ArrayRef<int64_t>(dims));
  } else if (keyword.consume_front("torch.")) {
    StringRef dtype = canonicalDType(keyword);
    if (llvm::is_contained(DTypeAttr::getKnownNames(), dtype))
      result = DTypeAttr::get(ctx, dtype);
    else if (llvm::is_contained(MemoryFormatAttr::getKnownNames(), keyword))
      result = MemoryFormatAttr::get(ctx, keyword);
    else if (llvm::is_contained(LayoutAttr::getKnownNames(), keyword))
      result = LayoutAttr::get(ctx, keyword);
    else
      return parser.emitError(loc, "unknown torch value 'torch.")
             << keyword << "'";
  } else {
    return parser.emitError(loc, "expected an FX value, found '")
           << keyword << "'";
  }
  return success();
}

ParseResult ValueParser::parseValue(Attribute &result, StringRef keyword) {
  SMLoc loc = parser.getCurrentLocation();
  if (depth >= kMaxValueNesting)
    return parser.emitError(loc)
           << "FX values nested deeper than " << kMaxValueNesting << " levels";
  ++depth;
  auto leave = llvm::make_scope_exit([&] { --depth; });
  if (!keyword.empty())
    return parseKeywordValue(keyword, result, loc);

  OpAsmParser::UnresolvedOperand operand;
  OptionalParseResult operandResult = parser.parseOptionalOperand(operand);
  if (operandResult.has_value()) {
    if (failed(*operandResult))
      return failure();
    result = NodeAttr::get(ctx, operands.size());
    operands.push_back(operand);
    return success();
  }

  SmallVector<Attribute> elements;
  if (succeeded(parser.parseOptionalLSquare())) {
    if (parseSequence(
            elements, [&] { return parser.parseRSquare(); },
            [&] { return succeeded(parser.parseOptionalRSquare()); }))
      return failure();
    result = ListAttr::get(ctx, ArrayRef<Attribute>(elements));
    return success();
  }
  if (succeeded(parser.parseOptionalLParen())) {
    bool sawComma = false;
    if (parseSequence(
            elements, [&] { return parser.parseRParen(); },
            [&] { return succeeded(parser.parseOptionalRParen()); }, &sawComma))
      return failure();
    // `(x)` is x, as in Python; `(x,)` and `()` are tuples.
    if (elements.size() == 1 && !sawComma)
      result = elements.front();
    else
      result = TupleAttr::get(ctx, ArrayRef<Attribute>(elements));
    return success();
  }
  if (succeeded(parser.parseOptionalLBrace())) {
    SmallVector<Attribute> keys, values;
    if (failed(parser.parseOptionalRBrace())) {
      auto parseEntry = [&]() -> ParseResult {
        Attribute key, value;
        std::string str;
        SMLoc keyLoc = parser.getCurrentLocation();
        if (succeeded(parser.parseOptionalString(&str))) {
          key = StringAttr::get(ctx, str);
        } else {
          int64_t integer;
          OptionalParseResult intKey = parser.parseOptionalInteger(integer);
          if (!intKey.has_value())
            return parser.emitError(keyLoc, "expected a str or int dict key");
          if (failed(*intKey))
            return failure();
          key = IntegerAttr::get(IntegerType::get(ctx, 64), integer);
        }
        if (parser.parseColon() || parseValue(value))
          return failure();
        keys.push_back(key);
        values.push_back(value);
        return success();
      };
      if (parser.parseCommaSeparatedList(parseEntry) || parser.parseRBrace())
        return failure();
    }
    result = DictAttr::getChecked([&] { return parser.emitError(loc); }, ctx,
                                  ArrayRef<Attribute>(keys),
                                  ArrayRef<Attribute>(values));
    return success(result != nullptr);
  }
  std::string str;
  if (succeeded(parser.parseOptionalString(&str))) {
    result = StringAttr::get(ctx, str);
    return success();
  }
  if (succeeded(parser.parseOptionalEllipsis())) {
    result = EllipsisAttr::get(ctx);
    return success();
  }
  StringRef kw;
  if (succeeded(parser.parseOptionalKeyword(&kw)))
    return parseKeywordValue(kw, result, loc);
  return parseNumber(result);
}

ParseResult ValueParser::parseCallArgs(SmallVectorImpl<Attribute> &args,
                                       SmallVectorImpl<Attribute> &kwargKeys,
                                       SmallVectorImpl<Attribute> &kwargValues,
                                       bool allowNodes) {
  SMLoc openLoc = parser.getCurrentLocation();
  if (parser.parseLParen())
    return failure();
  if (succeeded(parser.parseOptionalRParen()))
    return success();
  size_t operandsBefore = operands.size();
  auto parseArg = [&]() -> ParseResult {
    SMLoc loc = parser.getCurrentLocation();
    // A bare identifier or string followed by `=` is a keyword argument;
    // otherwise it is (the start of) a positional value.
    std::string name;
    StringRef keyword;
    bool isString = succeeded(parser.parseOptionalString(&name));
    if (!isString && succeeded(parser.parseOptionalKeyword(&keyword)))
      name = keyword.str();
    if (isString || !keyword.empty()) {
      if (succeeded(parser.parseOptionalEqual())) {
        Attribute value;
        if (parseValue(value))
          return failure();
        StringAttr key = StringAttr::get(ctx, name);
        if (llvm::is_contained(kwargKeys, key))
          return parser.emitError(loc, "keyword argument '")
                 << name << "' repeated";
        kwargKeys.push_back(key);
        kwargValues.push_back(value);
        return success();
      }
      if (!kwargKeys.empty())
        return parser.emitError(loc,
                                "positional argument follows keyword argument");
      Attribute value;
      if (isString)
        value = StringAttr::get(ctx, name);
      else if (parseKeywordValue(keyword, value, loc))
        return failure();
      args.push_back(value);
      return success();
    }
    if (!kwargKeys.empty())
      return parser.emitError(loc,
                              "positional argument follows keyword argument");
    Attribute value;
    if (parseValue(value))
      return failure();
    args.push_back(value);
    return success();
  };
  if (parser.parseCommaSeparatedList(parseArg) || parser.parseRParen())
    return failure();
  if (!allowNodes && operands.size() != operandsBefore)
    return parser.emitError(openLoc, "node references are not allowed here");
  return success();
}

namespace {
/// Prints FX values inside a node's custom assembly.
struct ValuePrinter {
  OpAsmPrinter &p;
  OperandRange operands;
  /// The types of the node references printed, in order: the parser makes
  /// one operand per reference, so the type list must follow them (an op
  /// that refers to one operand twice, or to its operands out of order, in
  /// its generic form prints as a custom form that parses back).
  SmallVector<Type> referenced = {};

  void printValue(Attribute value) {
    raw_ostream &os = p.getStream();
    auto printSeq = [&](ArrayRef<Attribute> elements) {
      llvm::interleaveComma(elements, os,
                            [&](Attribute element) { printValue(element); });
    };
    if (auto node = dyn_cast<NodeAttr>(value)) {
      if (node.getIndex() < operands.size()) {
        p.printOperand(operands[node.getIndex()]);
        referenced.push_back(operands[node.getIndex()].getType());
      } else
        os << "<<invalid node #" << node.getIndex() << ">>";
    } else if (auto boolean = dyn_cast<BoolAttr>(value)) {
      os << (boolean.getValue() ? "True" : "False");
    } else if (auto integer = dyn_cast<IntegerAttr>(value)) {
      os << integer.getValue().getSExtValue();
    } else if (auto real = dyn_cast<FloatAttr>(value)) {
      std::string repr = pythonFloatRepr(real.getValueAsDouble());
      // MLIR float literals need a `.` before any exponent.
      StringRef ref(repr);
      if (ref.contains('e') && !ref.contains('.'))
        repr.insert(ref.find('e'), ".0");
      os << repr;
    } else if (auto str = dyn_cast<StringAttr>(value)) {
      p.printString(str.getValue());
    } else if (isa<NoneAttr>(value)) {
      os << "None";
    } else if (isa<EllipsisAttr>(value)) {
      os << "...";
    } else if (auto list = dyn_cast<ListAttr>(value)) {
      os << '[';
      printSeq(list.getElements());
      os << ']';
    } else if (auto tuple = dyn_cast<TupleAttr>(value)) {
      os << '(';
      printSeq(tuple.getElements());
      if (tuple.getElements().size() == 1)
        os << ',';
      os << ')';
    } else if (auto dict = dyn_cast<DictAttr>(value)) {
      os << '{';
      llvm::interleaveComma(llvm::zip(dict.getKeys(), dict.getValues()), os,
                            [&](auto entry) {
                              printValue(std::get<0>(entry));
                              os << ": ";
                              printValue(std::get<1>(entry));
                            });
      os << '}';
    } else if (auto slice = dyn_cast<SliceAttr>(value)) {
      os << "slice(";
      printSeq({slice.getStart(), slice.getStop(), slice.getStep()});
      os << ')';
    } else if (auto dtype = dyn_cast<DTypeAttr>(value)) {
      os << "torch." << dtype.getName();
    } else if (auto format = dyn_cast<MemoryFormatAttr>(value)) {
      os << "torch." << format.getName();
    } else if (auto layout = dyn_cast<LayoutAttr>(value)) {
      os << "torch." << layout.getName();
    } else if (auto device = dyn_cast<DeviceAttr>(value)) {
      os << "device(";
      p.printString(device.getDevice());
      os << ')';
    } else if (auto size = dyn_cast<SizeAttr>(value)) {
      os << "torch.Size([";
      llvm::interleaveComma(size.getDims(), os);
      os << "])";
    } else if (auto complex = dyn_cast<ComplexAttr>(value)) {
      os << "complex(";
      printValue(FloatAttr::get(Float64Type::get(value.getContext()),
                                complex.getReal()));
      os << ", ";
      printValue(FloatAttr::get(Float64Type::get(value.getContext()),
                                complex.getImag()));
      os << ')';
    } else {
      // Not an FX value; the verifier rejects it. Keep it readable.
      p.printAttribute(value);
    }
  }

  /// Prints `(args..., key=value, ...)`.
  void printCallArgs(ArrayRef<Attribute> args, DictAttr kwargs) {
    raw_ostream &os = p.getStream();
    os << '(';
    bool first = true;
    for (Attribute arg : args) {
      if (!first)
        os << ", ";
      first = false;
      printValue(arg);
    }
    if (kwargs) {
      for (auto [key, value] :
           llvm::zip(kwargs.getKeys(), kwargs.getValues())) {
        if (!first)
          os << ", ";
        first = false;
        if (auto str = dyn_cast<StringAttr>(key))
          p.printKeywordOrString(str.getValue());
        else
          p.printAttribute(key);
        os << '=';
        printValue(value);
      }
    }
    os << ')';
  }
};
} // namespace

/// Sets `node_name` when the attribute dictionary has none: the SSA name of
/// the result, or `fallback` for a node without a result (fx.output).
static void setDefaultNodeName(OpAsmParser &parser, OperationState &result,
                               StringRef fallback) {
  StringAttr nameAttr = StringAttr::get(parser.getContext(), "node_name");
  if (result.attributes.get(nameAttr))
    return;
  StringRef name =
      result.types.empty() ? fallback : parser.getResultName(0).first;
  result.addAttribute(nameAttr, StringAttr::get(parser.getContext(), name));
}

/// Parses `attr-dict : type` ending a placeholder or get_attr node.
static ParseResult parseValueNodeTail(OpAsmParser &parser,
                                      OperationState &result) {
  Type type;
  if (parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(type))
    return failure();
  result.addTypes(type);
  setDefaultNodeName(parser, result, {});
  return success();
}

/// Prints the attribute dictionary, eliding the attributes the custom form
/// shows, and `node_name` when the printed SSA name already says it.
static void printNodeAttrDict(OpAsmPrinter &p, Operation *op,
                              ArrayRef<StringRef> elided,
                              StringRef defaultName = {}) {
  SmallVector<StringRef> elide(elided);
  StringRef name = cast<NodeOpInterface>(op).getNodeName();
  if (op->getNumResults() == 1) {
    std::string ssaName;
    llvm::raw_string_ostream os(ssaName);
    p.printOperand(op->getResult(0), os);
    if (StringRef(ssaName) == ("%" + name).str())
      elide.push_back("node_name");
  } else if (name == defaultName) {
    elide.push_back("node_name");
  }
  p.printOptionalAttrDict(op->getAttrs(), elide);
}

static void setNodeResultName(Operation *op, OpAsmSetValueNameFn setNameFn) {
  StringRef name = cast<NodeOpInterface>(op).getNodeName();
  if (!name.empty())
    setNameFn(op->getResult(0), name);
}

//===----------------------------------------------------------------------===//
// Node locations
//===----------------------------------------------------------------------===//

Location mlir::fx::getNodeLoc(MLIRContext *ctx, StringRef nodeName,
                              StringRef modulePath, Location source) {
  Location child =
      modulePath.empty()
          ? source
          : Location(NameLoc::get(StringAttr::get(ctx, modulePath), source));
  return NameLoc::get(StringAttr::get(ctx, nodeName), child);
}

StringRef mlir::fx::getModulePath(Location loc) {
  auto node = dyn_cast<NameLoc>(loc);
  if (!node)
    return {};
  if (auto module = dyn_cast<NameLoc>(node.getChildLoc()))
    return module.getName().getValue();
  return {};
}

std::string mlir::fx::getNodeLabel(Operation *op) {
  std::string label = "'";
  if (auto node = dyn_cast<NodeOpInterface>(op))
    label += node.getNodeName().str();
  label += "'";
  StringRef path = getModulePath(op->getLoc());
  if (!path.empty())
    label += (" (module '" + path + "')").str();
  return label;
}

//===----------------------------------------------------------------------===//
// Node verification shared by all node kinds
//===----------------------------------------------------------------------===//

/// Describes `op` for diagnostics: "call_function 'relu'".
static std::string describe(Operation *op) {
  auto node = dyn_cast<NodeOpInterface>(op);
  if (!node)
    return ("'" + op->getName().getStringRef() + "'").str();
  return (node.getOpcode() + " " + getNodeLabel(op)).str();
}

static LogicalResult verifyValueTree(Operation *op, Attribute value,
                                     StringRef where) {
  if (!isValue(value))
    return op->emitOpError()
           << "node " << getNodeLabel(op) << ": " << where << " holds " << value
           << ", which is not a value FX allows";
  return success();
}

static LogicalResult verifyNodeCommon(Operation *op) {
  auto node = cast<NodeOpInterface>(op);
  if (node.getNodeName().empty())
    return op->emitOpError("has an empty node name");
  if (!isa<OutputOp>(op) && node.getTargetName().empty())
    return op->emitOpError()
           << "node " << getNodeLabel(op) << " has an empty target";
  ArrayAttr args = node.getArgs();
  DictAttr kwargs = node.getKwargs();
  for (auto [i, arg] : llvm::enumerate(args))
    if (failed(verifyValueTree(op, arg, ("args[" + Twine(i) + "]").str())))
      return failure();
  for (auto [key, value] : llvm::zip(kwargs.getKeys(), kwargs.getValues())) {
    if (!isa<StringAttr>(key))
      return op->emitOpError() << "node " << getNodeLabel(op) << ": kwargs key "
                               << key << " is not a str";
    if (failed(verifyValueTree(
            op, value,
            ("kwargs['" + cast<StringAttr>(key).getValue() + "']").str())))
      return failure();
  }
  // Every node reference names an operand, and every operand is referenced.
  unsigned numOperands = op->getNumOperands();
  llvm::SmallBitVector used(numOperands);
  std::optional<unsigned> bad;
  auto check = [&](NodeAttr ref) {
    if (ref.getIndex() >= numOperands)
      bad = ref.getIndex();
    else
      used.set(ref.getIndex());
  };
  walkNodeRefs(args, check);
  walkNodeRefs(kwargs, check);
  if (bad)
    return op->emitOpError()
           << "node " << getNodeLabel(op) << ": args refer to node operand #"
           << *bad << ", but the node has " << numOperands << " operand"
           << (numOperands == 1 ? "" : "s");
  if (!used.all())
    return op->emitOpError()
           << "node " << getNodeLabel(op) << ": operand #"
           << used.find_first_unset() << " is not referenced by args or kwargs";
  return success();
}

//===----------------------------------------------------------------------===//
// GraphModuleOp
//===----------------------------------------------------------------------===//

void GraphModuleOp::build(OpBuilder &builder, OperationState &state,
                          StringRef name, bool training) {
  state.addAttribute(mlir::SymbolTable::getSymbolAttrName(),
                     builder.getStringAttr(name));
  if (training)
    state.addAttribute("training", builder.getUnitAttr());
  Region *body = state.addRegion();
  body->emplaceBlock();
}

//===----------------------------------------------------------------------===//
// Symbol lookups
//===----------------------------------------------------------------------===//

struct mlir::fx::SymbolLookupCache::Impl {
  llvm::DenseMap<Operation *, llvm::StringMap<Operation *>> tables;

  llvm::StringMap<Operation *> &tableOf(Operation *module) {
    auto [it, added] = tables.try_emplace(module);
    if (added)
      for (Operation &op : cast<GraphModuleOp>(module).getBody().front())
        if (auto name =
                op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
          it->second.try_emplace(name.getValue(), &op);
    return it->second;
  }
};

static thread_local mlir::fx::SymbolLookupCache *activeCache = nullptr;

mlir::fx::SymbolLookupCache::SymbolLookupCache()
    : impl(std::make_unique<Impl>()), previous(activeCache) {
  activeCache = this;
}

mlir::fx::SymbolLookupCache::~SymbolLookupCache() { activeCache = previous; }

Operation *mlir::fx::lookupModuleSymbol(GraphModuleOp module, StringAttr name) {
  if (!module || !name)
    return nullptr;
  if (!activeCache)
    return SymbolTable::lookupSymbolIn(module, name);
  return activeCache->impl->tableOf(module).lookup(name.getValue());
}

Operation *mlir::fx::lookupModuleSymbol(GraphModuleOp module, StringRef name) {
  if (!module)
    return nullptr;
  return lookupModuleSymbol(module, StringAttr::get(module.getContext(), name));
}

void mlir::fx::forgetModuleSymbols(GraphModuleOp module) {
  if (activeCache)
    activeCache->impl->tables.erase(module);
}

void mlir::fx::noteModuleSymbol(Operation *symbol) {
  if (!activeCache)
    return;
  auto module = dyn_cast_or_null<GraphModuleOp>(symbol->getParentOp());
  auto name =
      symbol->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
  if (module && name && activeCache->impl->tables.count(module))
    activeCache->impl->tables[module].try_emplace(name.getValue(), symbol);
}

GraphOp GraphModuleOp::getForward() {
  return dyn_cast_or_null<GraphOp>(lookupModuleSymbol(*this, "forward"));
}

Operation *GraphModuleOp::lookupTarget(StringRef qualifiedName) {
  return lookupModuleSymbol(*this, qualifiedName);
}

LogicalResult GraphModuleOp::verifyRegions() {
  GraphOp firstGraph;
  for (Operation &op : getBody().front()) {
    if (!isa<StateOp, SubmoduleOp, GraphOp>(op))
      return op.emitOpError()
             << "is not allowed in graph module '" << getSymName()
             << "', which holds only fx.state, fx.submodule and fx.graph";
    if (auto graph = dyn_cast<GraphOp>(op); graph && !firstGraph)
      firstGraph = graph;
  }
  if (!getForward())
    return emitOpError() << "graph module '" << getSymName()
                         << "' has no 'forward' graph";
  if (firstGraph.getSymName() != "forward")
    return firstGraph.emitOpError()
           << "graph '" << firstGraph.getSymName()
           << "' comes before 'forward'; 'forward' must be the first graph of "
              "graph module '"
           << getSymName() << "'";
  return success();
}

//===----------------------------------------------------------------------===//
// StateOp
//===----------------------------------------------------------------------===//

// fx.state parameter @"conv.weight" : tensor<8x3x3x3xf32> = dense_resource<w>
// fx.state parameter @"dec.weight" : tensor<4x8xf32> = @"enc.weight"
ParseResult StateOp::parse(OpAsmParser &parser, OperationState &result) {
  MLIRContext *ctx = parser.getContext();
  StringRef kindName;
  SMLoc kindLoc = parser.getCurrentLocation();
  if (parser.parseKeyword(&kindName))
    return failure();
  std::optional<StateKind> kind = symbolizeStateKind(kindName);
  if (!kind)
    return parser.emitError(kindLoc, "expected 'parameter', 'buffer' or "
                                     "'constant', found '")
           << kindName << "'";
  StringAttr name;
  Type type;
  if (parser.parseSymbolName(name) || parser.parseColonType(type))
    return failure();
  result.addAttribute("kind", StateKindAttr::get(ctx, *kind));
  result.addAttribute(mlir::SymbolTable::getSymbolAttrName(), name);
  result.addAttribute("type", TypeAttr::get(type));
  if (succeeded(parser.parseOptionalEqual())) {
    StringAttr aliasName;
    if (succeeded(parser.parseOptionalSymbolName(aliasName))) {
      result.addAttribute("alias", FlatSymbolRefAttr::get(aliasName));
    } else {
      Attribute value;
      SMLoc valueLoc = parser.getCurrentLocation();
      if (parser.parseAttribute(value, type))
        return failure();
      // An explicit `: type` after the value must repeat the declared type.
      if (succeeded(parser.parseOptionalColon())) {
        Type valueType;
        SMLoc typeLoc = parser.getCurrentLocation();
        if (parser.parseType(valueType))
          return failure();
        if (valueType != type)
          return parser.emitError(typeLoc, "state value type ")
                 << valueType << " differs from the declared type " << type;
      }
      auto elements = dyn_cast<ElementsAttr>(value);
      if (!elements)
        return parser.emitError(valueLoc, "expected an elements attribute");
      result.addAttribute("value", elements);
    }
  }
  return parser.parseOptionalAttrDict(result.attributes);
}

void StateOp::print(OpAsmPrinter &p) {
  p << ' ' << stringifyStateKind(getKind()) << ' ';
  p.printSymbolName(getSymName());
  p << " : " << getType();
  if (auto alias = getAliasAttr()) {
    p << " = ";
    p.printAttributeWithoutType(alias);
  } else if (auto value = getValueAttr()) {
    p << " = ";
    if (cast<TypedAttr>(value).getType() == getType())
      p.printAttributeWithoutType(value);
    else
      p.printAttribute(value);
  }
  p.printOptionalAttrDict((*this)->getAttrs(),
                          {"kind", "sym_name", "type", "value", "alias"});
}

LogicalResult StateOp::verify() {
  if (getSymName().empty())
    return emitOpError("has an empty name");
  if (getValueAttr() && getAliasAttr())
    return emitOpError() << "state '" << getSymName()
                         << "' has both a value and an alias";
  if (auto value = getValueAttr()) {
    Type valueType = cast<TypedAttr>(value).getType();
    if (valueType != getType())
      return emitOpError() << "state '" << getSymName() << "' is declared "
                           << getType() << " but its value is " << valueType;
  }
  if (!isa<TensorType>(getType()))
    return emitOpError() << "state '" << getSymName()
                         << "' must be a tensor, found " << getType();
  return success();
}

LogicalResult StateOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  FlatSymbolRefAttr alias = getAliasAttr();
  if (!alias)
    return success();
  auto target = symbolTables.lookupNearestSymbolFrom<StateOp>(*this, alias);
  if (!target)
    return emitOpError() << "state '" << getSymName() << "' aliases " << alias
                         << ", which is not state of the module";
  if (target.getAliasAttr())
    return emitOpError() << "state '" << getSymName() << "' aliases " << alias
                         << ", which is itself an alias";
  if (target.getType() != getType())
    return emitOpError() << "state '" << getSymName() << "' is declared "
                         << getType() << " but aliases " << alias << " of type "
                         << target.getType();
  return success();
}

//===----------------------------------------------------------------------===//
// SubmoduleOp
//===----------------------------------------------------------------------===//

// fx.submodule @"layer1.0.conv1" "torch.nn.Conv2d"(in_channels=3, ...)
ParseResult SubmoduleOp::parse(OpAsmParser &parser, OperationState &result) {
  StringAttr name;
  std::string type;
  if (parser.parseSymbolName(name) || parser.parseString(&type))
    return failure();
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  SmallVector<Attribute> args, keys, values;
  ValueParser values_(parser, operands);
  SMLoc loc = parser.getCurrentLocation();
  if (values_.parseCallArgs(args, keys, values, /*allowNodes=*/false))
    return failure();
  if (!args.empty())
    return parser.emitError(loc, "submodule hyperparameters must be given "
                                 "as name=value");
  MLIRContext *ctx = parser.getContext();
  result.addAttribute(mlir::SymbolTable::getSymbolAttrName(), name);
  result.addAttribute("module_type", StringAttr::get(ctx, type));
  result.addAttribute("hparams", DictAttr::get(ctx, ArrayRef<Attribute>(keys),
                                               ArrayRef<Attribute>(values)));
  if (succeeded(parser.parseOptionalKeyword("training")))
    result.addAttribute("training", UnitAttr::get(ctx));
  return parser.parseOptionalAttrDictWithKeyword(result.attributes);
}

void SubmoduleOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printSymbolName(getSymName());
  p << ' ';
  p.printString(getModuleType());
  ValuePrinter{p, getOperation()->getOperands()}.printCallArgs({},
                                                               getHparams());
  if (getTraining())
    p << " training";
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(), {"sym_name", "module_type", "hparams", "training"});
}

LogicalResult SubmoduleOp::verify() {
  if (getSymName().empty())
    return emitOpError("has an empty name");
  if (getModuleType().empty())
    return emitOpError() << "submodule '" << getSymName()
                         << "' has an empty module type";
  for (auto [key, value] :
       llvm::zip(getHparams().getKeys(), getHparams().getValues())) {
    if (!isa<StringAttr>(key))
      return emitOpError() << "submodule '" << getSymName()
                           << "': hyperparameter name " << key
                           << " is not a str";
    if (!isConstantValue(value))
      return emitOpError() << "submodule '" << getSymName()
                           << "': hyperparameter '"
                           << cast<StringAttr>(key).getValue()
                           << "' is not a constant FX value";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// GraphOp
//===----------------------------------------------------------------------===//

void GraphOp::build(OpBuilder &builder, OperationState &state, StringRef name) {
  state.addAttribute(mlir::SymbolTable::getSymbolAttrName(),
                     builder.getStringAttr(name));
  Region *body = state.addRegion();
  body->emplaceBlock();
}

OutputOp GraphOp::getOutput() {
  if (getBody().empty() || getBody().front().empty())
    return {};
  return dyn_cast<OutputOp>(getBody().front().back());
}

void GraphOp::getPlaceholders(SmallVectorImpl<PlaceholderOp> &result) {
  for (Operation &op : getBody().front())
    if (auto placeholder = dyn_cast<PlaceholderOp>(op))
      result.push_back(placeholder);
}

LogicalResult GraphOp::verifyRegions() {
  Block &block = getBody().front();
  llvm::StringMap<Operation *> names;
  Operation *firstNonPlaceholder = nullptr;
  OutputOp output;
  for (Operation &op : block) {
    auto node = dyn_cast<NodeOpInterface>(op);
    if (!node)
      return op.emitOpError() << "is not an FX node; graph '" << getSymName()
                              << "' holds only fx node ops";
    if (output)
      return output.emitOpError()
             << "must be the last node of graph '" << getSymName() << "', but "
             << describe(&op) << " follows it";
    auto [it, inserted] = names.try_emplace(node.getNodeName(), &op);
    if (!inserted)
      return op.emitOpError()
                 .append("node name '", node.getNodeName(),
                         "' is already used in graph '", getSymName(), "'")
                 .attachNote(it->second->getLoc())
             << "first used by " << describe(it->second);
    if (isa<PlaceholderOp>(op)) {
      if (firstNonPlaceholder)
        return op.emitOpError()
               << "placeholder " << getNodeLabel(&op)
               << " must come before all other nodes, but follows "
               << describe(firstNonPlaceholder);
    } else if (!firstNonPlaceholder) {
      firstNonPlaceholder = &op;
    }
    if (auto out = dyn_cast<OutputOp>(op))
      output = out;
  }
  if (!output)
    return emitOpError() << "graph '" << getSymName()
                         << "' has no fx.output node";
  return success();
}

//===----------------------------------------------------------------------===//
// PlaceholderOp
//===----------------------------------------------------------------------===//

ArrayAttr PlaceholderOp::getArgs() {
  // FX keeps a placeholder's default as its only arg.
  if (Attribute value = getDefaultValueAttr())
    return ArrayAttr::get(getContext(), {value});
  return ArrayAttr::get(getContext(), {});
}

// %x = fx.placeholder "x" (= default)? attr-dict : type
ParseResult PlaceholderOp::parse(OpAsmParser &parser, OperationState &result) {
  std::string target;
  if (parser.parseString(&target))
    return failure();
  result.addAttribute("target", StringAttr::get(parser.getContext(), target));
  if (succeeded(parser.parseOptionalEqual())) {
    SmallVector<OpAsmParser::UnresolvedOperand> operands;
    Attribute value;
    SMLoc loc = parser.getCurrentLocation();
    if (ValueParser(parser, operands).parseValue(value))
      return failure();
    if (!operands.empty())
      return parser.emitError(loc,
                              "a placeholder default cannot refer to a node");
    result.addAttribute("default_value", value);
  }
  return parseValueNodeTail(parser, result);
}

void PlaceholderOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printString(getTarget());
  if (Attribute value = getDefaultValueAttr()) {
    p << " = ";
    ValuePrinter{p, getOperation()->getOperands()}.printValue(value);
  }
  printNodeAttrDict(p, *this, {"target", "default_value"});
  p << " : " << getType();
}

LogicalResult PlaceholderOp::verify() {
  if (Attribute value = getDefaultValueAttr()) {
    if (!isConstantValue(value))
      return emitOpError() << "placeholder " << getNodeLabel(*this)
                           << ": default value " << value
                           << " is not a constant FX value";
  }
  return verifyNodeCommon(*this);
}

//===----------------------------------------------------------------------===//
// GetAttrOp
//===----------------------------------------------------------------------===//

// %w = fx.get_attr @"conv.weight" attr-dict : type
ParseResult GetAttrOp::parse(OpAsmParser &parser, OperationState &result) {
  StringAttr target;
  if (parser.parseSymbolName(target))
    return failure();
  result.addAttribute("target", FlatSymbolRefAttr::get(target));
  return parseValueNodeTail(parser, result);
}

void GetAttrOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printSymbolName(getTarget());
  printNodeAttrDict(p, *this, {"target"});
  p << " : " << getType();
}

LogicalResult GetAttrOp::verify() { return verifyNodeCommon(*this); }

/// Returns the graph module enclosing `op`'s graph, or null for a graph
/// outside any graph module (a pattern).
static GraphModuleOp getEnclosingGraphModule(Operation *op) {
  return op->getParentOfType<GraphModuleOp>();
}

LogicalResult GetAttrOp::verifySymbolUses(SymbolTableCollection &tables) {
  GraphModuleOp module = getEnclosingGraphModule(*this);
  if (!module)
    return success();
  Operation *target = tables.lookupSymbolIn(module, getTargetAttr());
  if (!target ||
      (isa<GraphOp>(target) && cast<GraphOp>(target).getSymName() == "forward"))
    return emitOpError() << "get_attr " << getNodeLabel(*this) << " refers to '"
                         << getTarget()
                         << "', which is not a parameter, buffer, constant, "
                            "submodule or graph (other than 'forward') of "
                            "graph module '"
                         << module.getSymName() << "'";
  if (isa<GraphOp>(target) && !isa<AnyType>(getType()))
    return emitOpError() << "get_attr " << getNodeLabel(*this) << " of graph '"
                         << getTarget() << "' must have type !fx.any";
  if (auto state = dyn_cast<StateOp>(target)) {
    Type type = getType();
    if (!isa<AnyType>(type) && type != state.getType())
      return emitOpError() << "get_attr " << getNodeLabel(*this) << " has type "
                           << type << " but '" << getTarget() << "' is "
                           << state.getType();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Call ops
//===----------------------------------------------------------------------===//

/// Parses `target(args..., kwargs...) attr-dict : (types) -> type` once the
/// target has been parsed.
static ParseResult parseCallTail(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  SmallVector<Attribute> args, keys, values;
  if (ValueParser(parser, operands).parseCallArgs(args, keys, values))
    return failure();
  MLIRContext *ctx = parser.getContext();
  result.addAttribute("args", ArrayAttr::get(ctx, args));
  result.addAttribute("kwargs", DictAttr::get(ctx, ArrayRef<Attribute>(keys),
                                              ArrayRef<Attribute>(values)));
  FunctionType type;
  SMLoc typeLoc = parser.getCurrentLocation();
  if (parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(type))
    return failure();
  if (type.getNumResults() != 1)
    return parser.emitError(typeLoc, "an FX node has exactly one result");
  if (parser.resolveOperands(operands, type.getInputs(), typeLoc,
                             result.operands))
    return failure();
  result.addTypes(type.getResults());
  setDefaultNodeName(parser, result, {});
  return success();
}

template <typename CallOp> static void printCall(OpAsmPrinter &p, CallOp op) {
  ValuePrinter printer{p, op->getOperands()};
  printer.printCallArgs(op.getArgs().getValue(), op.getKwargs());
  printNodeAttrDict(p, op, {"target", "args", "kwargs"});
  p << " : ";
  p.printFunctionalType(TypeRange(printer.referenced), op->getResultTypes());
}

ParseResult CallFunctionOp::parse(OpAsmParser &parser, OperationState &result) {
  std::string target;
  if (parser.parseString(&target))
    return failure();
  result.addAttribute("target", StringAttr::get(parser.getContext(), target));
  return parseCallTail(parser, result);
}
void CallFunctionOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printString(getTarget());
  printCall(p, *this);
}
LogicalResult CallFunctionOp::verify() { return verifyNodeCommon(*this); }

LogicalResult CallFunctionOp::verifySymbolUses(SymbolTableCollection &tables) {
  // A higher-order call's graphs are symbols of the graph module.
  if (!isControlFlowTarget(getTarget()) || !getEnclosingGraphModule(*this))
    return success();
  return success(succeeded(getControlFlowCall(*this, /*emit=*/true, &tables)));
}

ParseResult CallMethodOp::parse(OpAsmParser &parser, OperationState &result) {
  std::string target;
  if (parser.parseString(&target))
    return failure();
  result.addAttribute("target", StringAttr::get(parser.getContext(), target));
  return parseCallTail(parser, result);
}
void CallMethodOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printString(getTarget());
  printCall(p, *this);
}
LogicalResult CallMethodOp::verify() {
  if (failed(verifyNodeCommon(*this)))
    return failure();
  if (getArgs().empty())
    return emitOpError() << "call_method " << getNodeLabel(*this)
                         << " has no args; its first arg is the object the "
                            "method '"
                         << getTarget() << "' is called on";
  return success();
}

ParseResult CallModuleOp::parse(OpAsmParser &parser, OperationState &result) {
  StringAttr target;
  if (parser.parseSymbolName(target))
    return failure();
  result.addAttribute("target", FlatSymbolRefAttr::get(target));
  return parseCallTail(parser, result);
}
void CallModuleOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printSymbolName(getTarget());
  printCall(p, *this);
}
LogicalResult CallModuleOp::verify() { return verifyNodeCommon(*this); }

LogicalResult CallModuleOp::verifySymbolUses(SymbolTableCollection &tables) {
  GraphModuleOp module = getEnclosingGraphModule(*this);
  if (!module)
    return success();
  if (!isa_and_nonnull<SubmoduleOp>(
          tables.lookupSymbolIn(module, getTargetAttr())))
    return emitOpError() << "call_module " << getNodeLabel(*this)
                         << " refers to '" << getTarget()
                         << "', which is not a submodule of graph module '"
                         << module.getSymName() << "'";
  return success();
}

//===----------------------------------------------------------------------===//
// OutputOp
//===----------------------------------------------------------------------===//

StringRef OutputOp::getTargetName() { return "output"; }

// fx.output value attr-dict (: types)?
ParseResult OutputOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  SMLoc valueLoc = parser.getCurrentLocation();
  Attribute value;
  if (ValueParser(parser, operands).parseValue(value))
    return failure();
  result.addAttribute("args", ArrayAttr::get(parser.getContext(), {value}));
  SmallVector<Type> types;
  SMLoc typeLoc = parser.getCurrentLocation();
  if (parser.parseOptionalAttrDict(result.attributes))
    return failure();
  if (succeeded(parser.parseOptionalColon()) && parser.parseTypeList(types))
    return failure();
  if (operands.size() != types.size())
    return parser.emitError(valueLoc)
           << "fx.output refers to " << operands.size() << " node"
           << (operands.size() == 1 ? "" : "s") << " but lists " << types.size()
           << " type" << (types.size() == 1 ? "" : "s");
  if (parser.resolveOperands(operands, types, typeLoc, result.operands))
    return failure();
  setDefaultNodeName(parser, result, "output");
  return success();
}

void OutputOp::print(OpAsmPrinter &p) {
  p << ' ';
  ValuePrinter printer{p, getOperation()->getOperands()};
  if (getArgs().size() == 1)
    printer.printValue(getArgs()[0]);
  else
    printer.printValue(TupleAttr::get(getContext(), getArgs().getValue()));
  printNodeAttrDict(p, *this, {"args"}, "output");
  if (!printer.referenced.empty()) {
    p << " : ";
    llvm::interleaveComma(printer.referenced, p);
  }
}

LogicalResult OutputOp::verify() {
  if (failed(verifyNodeCommon(*this)))
    return failure();
  if (getArgs().size() != 1)
    return emitOpError() << "output " << getNodeLabel(*this)
                         << " must have exactly one arg (the returned "
                            "value), found "
                         << getArgs().size();
  return success();
}

#define GET_OP_CLASSES
#include "fx-mlir/Dialect/FX/IR/FXOps.cpp.inc"
