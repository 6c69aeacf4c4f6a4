//===- ExportPython.cpp - fx dialect to a torch.fx GraphModule ------------===//
//
// An fx.graph_module leaves as data: a JSON description (its submodules,
// state and nodes) that python/fx_mlir/_rebuild.py turns back into a
// torch.fx.GraphModule. --export-fx-json writes the description alone;
// --export-python writes a script made of the loader and the description.
// No text of the IR is ever written as Python code: names are checked here
// (for diagnostics on the op) and again by the loader, and every string is
// a JSON string inside one raw string literal.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Target/Python/ExportPython.h"
#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Dialect/FX/IR/FXDialect.h"
#include "fx-mlir/Dialect/FX/IR/FXOps.h"
#include "fx-mlir/Dialect/FX/IR/PythonRepr.h"
#include "fx-mlir/Support/ParseText.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Base64.h"
#include "llvm/Support/ConvertUTF.h"

using namespace mlir;
using namespace mlir::fx;

/// python/fx_mlir/_rebuild.py, embedded by the build.
static constexpr const char *kLoader =
#include "RebuildLoader.inc"
    ;

//===----------------------------------------------------------------------===//
// Python name rules (the loader checks them again)
//===----------------------------------------------------------------------===//

static bool isPythonKeyword(StringRef name) {
  static const llvm::StringSet<> keywords = {
      "False",  "None",   "True",    "and",      "as",       "assert", "async",
      "await",  "break",  "class",   "continue", "def",      "del",    "elif",
      "else",   "except", "finally", "for",      "from",     "global", "if",
      "import", "in",     "is",      "lambda",   "nonlocal", "not",    "or",
      "pass",   "raise",  "return",  "try",      "while",    "with",   "yield"};
  return keywords.contains(name);
}

/// A Python identifier that is not a keyword. Non-ASCII letters are left to
/// the loader's str.isidentifier.
static bool isIdentifier(StringRef name) {
  if (name.empty() || llvm::isDigit(name.front()) || isPythonKeyword(name))
    return false;
  return llvm::all_of(name, [](char c) {
    return llvm::isAlnum(c) || c == '_' ||
           static_cast<unsigned char>(c) >= 0x80;
  });
}

static bool isDunder(StringRef name) {
  return name.size() > 4 && name.starts_with("__") && name.ends_with("__");
}

/// Dotted identifiers, none of them a dunder but a leading `__main__`:
/// `torch.nn.Conv2d`, `__main__.scaled_add`.
static bool isQualifiedName(StringRef name) {
  name.consume_front("__main__.");
  SmallVector<StringRef> parts;
  name.split(parts, '.');
  return llvm::all_of(parts, [](StringRef part) {
    return isIdentifier(part) && !isDunder(part);
  });
}

/// A dotted attribute path inside a module: `layer1.0.conv1`. Non-ASCII
/// letters (a Python identifier `ß`) are left to the loader's checks.
static bool isModulePath(StringRef path) {
  SmallVector<StringRef> parts;
  path.split(parts, '.');
  return llvm::all_of(parts, [](StringRef part) {
    return !part.empty() && !isDunder(part) && llvm::all_of(part, [](char c) {
      return llvm::isAlnum(c) || c == '_' || c == '-' ||
             static_cast<unsigned char>(c) >= 0x80;
    });
  });
}

/// `namespace::name[.overload]`.
static bool isOperatorName(StringRef name) {
  auto [ns, rest] = name.split("::");
  auto [op, overload] = rest.split('.');
  return isIdentifier(ns) && isIdentifier(op) &&
         (overload.empty() || isIdentifier(overload)) && !rest.contains("::");
}

//===----------------------------------------------------------------------===//
// JSON text
//===----------------------------------------------------------------------===//

/// `value` as a JSON string of ASCII characters (the rest as \u escapes),
/// or failure when it is not UTF-8.
static FailureOr<std::string> jsonString(StringRef value) {
  SmallVector<llvm::UTF16> units;
  if (!llvm::convertUTF8ToUTF16String(value, units))
    return failure();
  std::string out = "\"";
  for (llvm::UTF16 unit : units) {
    if (unit == '"' || unit == '\\') {
      out += '\\';
      out += char(unit);
    } else if (unit >= 0x20 && unit < 0x7f) {
      out += char(unit);
    } else {
      out += "\\u";
      for (int shift = 12; shift >= 0; shift -= 4)
        out += llvm::hexdigit((unit >> shift) & 15, /*LowerCase=*/true);
    }
  }
  return out + "\"";
}

/// The tensor's elements as the little-endian bytes torch stores (one byte
/// per bool).
static FailureOr<std::string> tensorBytes(StateOp state, ElementsAttr value) {
  auto type = cast<ShapedType>(value.getType());
  int64_t count = type.getNumElements();
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return state.emitOpError()
             << "'" << state.getSymName() << "': the resource '"
             << resource.getRawHandle().getKey() << "' holds no data";
    ArrayRef<char> data = blob->getData();
    Type element = getStorageElementType(type.getElementType());
    int64_t width;
    if (auto complex = dyn_cast<ComplexType>(element))
      width = 2 * complex.getElementType().getIntOrFloatBitWidth() / 8;
    else if (element.isInteger(1))
      width = 1;
    else
      width = (element.getIntOrFloatBitWidth() + 7) / 8;
    if (int64_t(data.size()) != count * width)
      return state.emitOpError()
             << "'" << state.getSymName() << "': the resource holds "
             << data.size() << " bytes, the type needs " << count * width;
    return std::string(data.begin(), data.end());
  }
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense)
    return state.emitOpError()
           << "'" << state.getSymName() << "': cannot export a " << value
           << " value; use dense or dense_resource";
  if (type.getElementType().isInteger(1)) {
    std::string bytes;
    for (bool element : dense.getValues<bool>())
      bytes.push_back(element ? 1 : 0);
    return bytes;
  }
  ArrayRef<char> raw = dense.getRawData();
  if (!dense.isSplat())
    return std::string(raw.begin(), raw.end());
  std::string bytes;
  for (int64_t i = 0; i < count; ++i)
    bytes.append(raw.begin(), raw.end());
  return bytes;
}

namespace {
/// Writes the JSON description of one graph module: one submodule, state
/// tensor or node per line.
class JsonExporter {
public:
  explicit JsonExporter(raw_ostream &os) : os(os) {}

  LogicalResult exportGraphModule(GraphModuleOp module);

private:
  LogicalResult checkNames(GraphModuleOp module, GraphOp graph);
  LogicalResult writeString(StringRef value, Operation *op);
  LogicalResult writeValue(Attribute value, Operation *op);
  LogicalResult writeSubmodule(SubmoduleOp submodule);
  LogicalResult writeState(StateOp state);
  void writeQParams(Type elementType);
  LogicalResult writeNode(NodeOpInterface node);

  raw_ostream &os;
};
} // namespace

LogicalResult JsonExporter::writeString(StringRef value, Operation *op) {
  FailureOr<std::string> json = jsonString(value);
  if (failed(json)) {
    std::string escaped;
    llvm::raw_string_ostream escapedOs(escaped);
    llvm::printEscapedString(value, escapedOs);
    return op->emitOpError() << "holds the string \"" << escaped
                             << "\", which is not valid UTF-8";
  }
  os << *json;
  return success();
}

LogicalResult JsonExporter::writeValue(Attribute value, Operation *op) {
  auto writeAll = [&](StringRef tag, ArrayRef<Attribute> elements) {
    os << "{\"" << tag << "\": [";
    for (auto [i, element] : llvm::enumerate(elements)) {
      if (i)
        os << ", ";
      if (failed(writeValue(element, op)))
        return failure();
    }
    os << "]}";
    return success();
  };
  auto tagged = [&](StringRef tag, StringRef text) {
    os << "{\"" << tag << "\": ";
    if (failed(writeString(text, op)))
      return failure();
    os << '}';
    return success();
  };

  if (auto node = dyn_cast<NodeAttr>(value)) {
    Operation *def = op->getOperand(node.getIndex()).getDefiningOp();
    auto producer = dyn_cast_or_null<NodeOpInterface>(def);
    if (!producer)
      return op->emitOpError() << "refers to a value no FX node defines";
    return tagged("node", producer.getNodeName());
  }
  if (auto boolean = dyn_cast<BoolAttr>(value)) {
    os << (boolean.getValue() ? "true" : "false");
    return success();
  }
  if (auto integer = dyn_cast<IntegerAttr>(value)) {
    if (integer.getType().isInteger(1))
      os << (integer.getValue().isZero() ? "false" : "true");
    else
      os << integer.getValue().getSExtValue();
    return success();
  }
  if (auto real = dyn_cast<FloatAttr>(value))
    return tagged("float", pythonFloatRepr(real.getValueAsDouble()));
  if (auto str = dyn_cast<StringAttr>(value))
    return writeString(str.getValue(), op);
  if (isa<NoneAttr>(value)) {
    os << "null";
    return success();
  }
  if (isa<EllipsisAttr>(value)) {
    os << "{\"ellipsis\": null}";
    return success();
  }
  if (auto list = dyn_cast<ListAttr>(value))
    return writeAll("list", list.getElements());
  if (auto tuple = dyn_cast<TupleAttr>(value))
    return writeAll("tuple", tuple.getElements());
  if (auto array = dyn_cast<ArrayAttr>(value))
    return writeAll("tuple", array.getValue());
  if (auto dict = dyn_cast<DictAttr>(value)) {
    os << "{\"dict\": [";
    for (auto [i, key, item] :
         llvm::enumerate(dict.getKeys(), dict.getValues())) {
      os << (i ? ", [" : "[");
      if (failed(writeValue(key, op)))
        return failure();
      os << ", ";
      if (failed(writeValue(item, op)))
        return failure();
      os << ']';
    }
    os << "]}";
    return success();
  }
  if (auto slice = dyn_cast<SliceAttr>(value))
    return writeAll("slice",
                    {slice.getStart(), slice.getStop(), slice.getStep()});
  if (auto dtype = dyn_cast<DTypeAttr>(value))
    return tagged("dtype", dtype.getName());
  if (auto format = dyn_cast<MemoryFormatAttr>(value))
    return tagged("memory_format", format.getName());
  if (auto layout = dyn_cast<LayoutAttr>(value))
    return tagged("layout", layout.getName());
  if (auto device = dyn_cast<DeviceAttr>(value))
    return tagged("device", device.getDevice());
  if (auto size = dyn_cast<SizeAttr>(value)) {
    os << "{\"size\": [";
    llvm::interleaveComma(size.getDims(), os);
    os << "]}";
    return success();
  }
  if (auto complex = dyn_cast<ComplexAttr>(value)) {
    os << "{\"complex\": [\""
       << pythonFloatRepr(complex.getReal().convertToDouble()) << "\", \""
       << pythonFloatRepr(complex.getImag().convertToDouble()) << "\"]}";
    return success();
  }
  return op->emitOpError() << "holds " << value
                           << ", which is not a Python value";
}

/// Every name the loader uses as Python syntax is checked before anything
/// is written, so the diagnostic points at the op that holds it.
LogicalResult JsonExporter::checkNames(GraphModuleOp module, GraphOp graph) {
  auto notA = [](Operation *op, StringRef what, StringRef name,
                 StringRef kind) {
    return op->emitOpError()
           << what << " " << pythonStrRepr(name) << " is not " << kind;
  };
  auto checkKeys = [&](Operation *op, DictAttr dict,
                       StringRef what) -> LogicalResult {
    for (Attribute key : dict.getKeys()) {
      auto name = dyn_cast<StringAttr>(key);
      if (!name || !isIdentifier(name.getValue()))
        return op->emitOpError() << what << " key "
                                 << (name ? pythonStrRepr(name.getValue())
                                          : std::string("(not a string)"))
                                 << " is not a Python identifier";
    }
    return success();
  };

  // The class name is data (make_fx names its modules `<lambda>`), but
  // print_readable() prints it as a class header: one line without control
  // characters (nor U+0085, U+2028, U+2029, which Python breaks lines at).
  StringRef className = module.getSymName();
  if (className.empty() || className.contains("\xC2\x85") ||
      className.contains("\xE2\x80\xA8") ||
      className.contains("\xE2\x80\xA9") || llvm::any_of(className, [](char c) {
        return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
      }))
    return notA(module, "graph module name", className, "one line of text");
  for (auto submodule : module.getOps<SubmoduleOp>()) {
    if (!isModulePath(submodule.getSymName()))
      return notA(submodule, "submodule path", submodule.getSymName(),
                  "a dotted attribute path");
    if (!isQualifiedName(submodule.getModuleType()))
      return notA(submodule, "module type", submodule.getModuleType(),
                  "a qualified Python name");
    if (failed(checkKeys(submodule, submodule.getHparams(), "hyperparameter")))
      return failure();
  }
  for (auto state : module.getOps<StateOp>()) {
    if (!isModulePath(state.getSymName()))
      return notA(state, "state path", state.getSymName(),
                  "a dotted attribute path");
    if (auto alias = state.getAliasAttr();
        alias && !isModulePath(alias.getValue()))
      return notA(state, "alias", alias.getValue(), "a dotted attribute path");
  }
  for (auto node : graph.getOps<NodeOpInterface>()) {
    Operation *op = node;
    if (!isIdentifier(node.getNodeName()))
      return notA(op, "node name", node.getNodeName(), "a Python identifier");
    StringRef target = node.getTargetName();
    if (isa<PlaceholderOp>(op) &&
        !isIdentifier(target.drop_while([](char c) { return c == '*'; })))
      return notA(op, "placeholder target", target, "a parameter name");
    if (isa<CallMethodOp>(op) && !isIdentifier(target))
      return notA(op, "method", target, "a Python identifier");
    if (isa<GetAttrOp, CallModuleOp>(op) && !isModulePath(target))
      return notA(op, "target", target, "a dotted attribute path");
    if (isa<CallFunctionOp>(op) && !isQualifiedName(target) &&
        !isOperatorName(target))
      return notA(op, "function", target,
                  "a qualified Python name or an operator name");
    if (failed(checkKeys(op, node.getKwargs(), "kwargs")))
      return failure();
  }
  return success();
}

LogicalResult JsonExporter::writeSubmodule(SubmoduleOp submodule) {
  os << "{\"path\": ";
  if (failed(writeString(submodule.getSymName(), submodule)))
    return failure();
  os << ", \"type\": ";
  if (failed(writeString(submodule.getModuleType(), submodule)))
    return failure();
  os << ", \"hparams\": ";
  if (failed(writeValue(submodule.getHparams(), submodule)))
    return failure();
  os << ", \"training\": " << (submodule.getTraining() ? "true" : "false")
     << '}';
  return success();
}

/// The scale(s), zero point(s) and axis of a quantized state tensor, as
/// `"qparams"`: torch keeps them in the tensor, the IR in its type.
void JsonExporter::writeQParams(Type elementType) {
  if (auto perTensor = dyn_cast<quant::UniformQuantizedType>(elementType)) {
    os << ", \"qparams\": {\"scale\": " << pythonFloatRepr(perTensor.getScale())
       << ", \"zero_point\": " << perTensor.getZeroPoint() << '}';
    return;
  }
  auto perAxis = dyn_cast<quant::UniformQuantizedPerAxisType>(elementType);
  if (!perAxis)
    return;
  os << ", \"qparams\": {\"scales\": [";
  llvm::interleaveComma(perAxis.getScales(), os,
                        [&](double s) { os << pythonFloatRepr(s); });
  os << "], \"zero_points\": [";
  llvm::interleaveComma(perAxis.getZeroPoints(), os);
  os << "], \"axis\": " << perAxis.getQuantizedDimension() << '}';
}

LogicalResult JsonExporter::writeState(StateOp state) {
  os << "{\"path\": ";
  if (failed(writeString(state.getSymName(), state)))
    return failure();
  os << ", \"kind\": \"" << stringifyStateKind(state.getKind()) << '"';
  if (auto alias = state.getAliasAttr()) {
    os << ", \"alias\": ";
    if (failed(writeString(alias.getValue(), state)))
      return failure();
    os << '}';
    return success();
  }
  auto type = dyn_cast<RankedTensorType>(state.getType());
  StringRef dtype = type ? getElementDTypeName(type.getElementType()) : "";
  if (type && dtype.empty())
    dtype = getQuantizedDTypeName(type.getElementType());
  if (dtype.empty())
    return state.emitOpError()
           << "'" << state.getSymName() << "' of type " << state.getType()
           << " is not a tensor torch can hold";
  os << ", \"dtype\": \"" << dtype << "\", \"shape\": [";
  llvm::interleaveComma(type.getShape(), os);
  os << "]";
  writeQParams(type.getElementType());
  // A frozen parameter: `{requires_grad = false}` on the state.
  if (auto grad = state->getAttrOfType<BoolAttr>("requires_grad"))
    os << ", \"requires_grad\": " << (grad.getValue() ? "true" : "false");
  os << ", \"data\": \"";
  if (auto value = state.getValueAttr()) {
    FailureOr<std::string> bytes = tensorBytes(state, value);
    if (failed(bytes))
      return failure();
    os << llvm::encodeBase64(*bytes);
  }
  os << "\"}";
  return success();
}

LogicalResult JsonExporter::writeNode(NodeOpInterface node) {
  Operation *op = node;
  os << "{\"op\": \"" << node.getOpcode() << "\", \"name\": ";
  if (failed(writeString(node.getNodeName(), op)))
    return failure();
  os << ", \"target\": ";
  if (failed(writeString(
          isa<OutputOp>(op) ? StringRef("output") : node.getTargetName(), op)))
    return failure();
  os << ", \"args\": ";
  if (failed(writeValue(node.getArgs(), op)))
    return failure();
  os << ", \"kwargs\": ";
  if (failed(writeValue(node.getKwargs(), op)))
    return failure();
  // The node's type, as the IR prints it: the importer types the node
  // with it again (an exact round trip), where nothing else types it.
  if (op->getNumResults() == 1 && !isa<AnyType>(op->getResult(0).getType())) {
    std::string type;
    llvm::raw_string_ostream typeOs(type);
    op->getResult(0).getType().print(typeOs);
    os << ", \"type\": ";
    if (failed(writeString(type, op)))
      return failure();
  }
  os << '}';
  return success();
}

LogicalResult JsonExporter::exportGraphModule(GraphModuleOp module) {
  GraphOp graph;
  for (auto candidate : module.getOps<GraphOp>())
    if (candidate.getSymName() == "forward")
      graph = candidate;
  if (!graph)
    return module.emitOpError() << "'" << module.getSymName()
                                << "' has no fx.graph @forward to export";
  if (failed(checkNames(module, graph)))
    return failure();
  // The other graphs (the branches and bodies of control flow) are
  // GraphModule submodules named by their symbols.
  SmallVector<GraphOp> graphs;
  for (auto other : module.getOps<GraphOp>()) {
    if (other == graph)
      continue;
    if (!isIdentifier(other.getSymName()))
      return other.emitOpError()
             << "graph name " << pythonStrRepr(other.getSymName())
             << " is not a Python identifier";
    if (failed(checkNames(module, other)))
      return failure();
    graphs.push_back(other);
  }

  auto writeList = [&](StringRef key, auto ops, auto write) {
    os << ",\n \"" << key << "\": [";
    bool first = true;
    for (auto op : ops) {
      os << (first ? "\n  " : ",\n  ");
      first = false;
      if (failed(write(op)))
        return failure();
    }
    os << "]";
    return success();
  };
  os << "{\"format\": \"fx-mlir.graph_module\", \"version\": 1,\n \"name\": ";
  if (failed(writeString(module.getSymName(), module)))
    return failure();
  os << ", \"training\": " << (module.getTraining() ? "true" : "false");
  if (failed(writeList("submodules", module.getOps<SubmoduleOp>(),
                       [&](SubmoduleOp op) { return writeSubmodule(op); })) ||
      failed(writeList("state", module.getOps<StateOp>(),
                       [&](StateOp op) { return writeState(op); })) ||
      failed(writeList("nodes", graph.getOps<NodeOpInterface>(),
                       [&](NodeOpInterface op) { return writeNode(op); })))
    return failure();
  if (!graphs.empty() && failed(writeList("graphs", graphs, [&](GraphOp other) {
        os << "{\"name\": ";
        if (failed(writeString(other.getSymName(), other)))
          return failure();
        if (failed(
                writeList("nodes", other.getOps<NodeOpInterface>(),
                          [&](NodeOpInterface op) { return writeNode(op); })))
          return failure();
        os << '}';
        return success();
      })))
    return failure();
  os << "}\n";
  return success();
}

/// The graph module `op` is or holds (the one named `name` if not empty).
static FailureOr<GraphModuleOp> findGraphModule(Operation *op, StringRef name) {
  if (auto module = dyn_cast<GraphModuleOp>(op))
    return module;
  SmallVector<GraphModuleOp> candidates;
  op->walk([&](GraphModuleOp candidate) {
    if (name.empty() || candidate.getSymName() == name)
      candidates.push_back(candidate);
    return WalkResult::skip();
  });
  if (candidates.size() != 1)
    return op->emitError() << "expected one fx.graph_module"
                           << (name.empty() ? "" : " named '" + name + "'")
                           << " to export, found " << candidates.size();
  return candidates.front();
}

LogicalResult mlir::fx::exportGraphModuleJson(Operation *op, raw_ostream &os,
                                              StringRef graphModuleName) {
  FailureOr<GraphModuleOp> module = findGraphModule(op, graphModuleName);
  if (failed(module))
    return failure();
  // Nothing is written unless the whole module exports.
  std::string text;
  llvm::raw_string_ostream buffer(text);
  if (failed(JsonExporter(buffer).exportGraphModule(*module)))
    return failure();
  os << text;
  return success();
}

LogicalResult mlir::fx::exportPython(Operation *op, raw_ostream &os,
                                     StringRef graphModuleName,
                                     ArrayRef<std::string> allowedModules) {
  FailureOr<GraphModuleOp> module = findGraphModule(op, graphModuleName);
  if (failed(module))
    return failure();
  for (const std::string &name : allowedModules)
    if (!isQualifiedName(name))
      return module->emitError()
             << "--export-allow-module=" << pythonStrRepr(name)
             << " is not a dotted Python module name";
  std::string description;
  llvm::raw_string_ostream buffer(description);
  if (failed(JsonExporter(buffer).exportGraphModule(*module)))
    return failure();
  // The description is ASCII JSON: a `"""` or a backslash before the
  // closing quotes cannot occur in it, so it is one raw string literal.
  if (StringRef(description).contains("\"\"\""))
    return module->emitError() << "cannot quote the description";

  os << "# Generated by fx-translate --export-python from fx.graph_module "
     << *jsonString(module->getSymName()) << ".\n"
     << "# Running it rebuilds the torch.fx.GraphModule: graph_module = "
        "build().\n"
     << "# GRAPH_MODULE at the end is the graph module as data (JSON); the "
        "code\n"
     << "# before it is fx_mlir's loader (python/fx_mlir/_rebuild.py), "
        "which checks\n"
     << "# every name and constructs only torch.nn.Module subclasses from "
        "torch,\n"
     << "# fx_mlir and ALLOWED_MODULES. Running the graph calls its "
        "targets.\n\n"
     << kLoader << "\n\nimport json  # noqa: E402\n\n"
     << "ALLOWED_MODULES = (";
  for (const std::string &name : allowedModules)
    os << pythonStrRepr(name) << ", ";
  os << ")\n"
     << "GRAPH_MODULE = r\"\"\"\n"
     << description << "\"\"\"\n\n\n"
     << "def build(allowed_modules=ALLOWED_MODULES):\n"
     << "    \"\"\"A new torch.fx.GraphModule from GRAPH_MODULE.\"\"\"\n"
     << "    return rebuild(json.loads(GRAPH_MODULE), allowed_modules)\n\n\n"
     << "graph_module = build()\n";
  return success();
}

/// Registers translation `name` from MLIR text, as
/// TranslateFromMLIRRegistration does, but parsing the input with a final
/// newline (fx-mlir/Support/ParseText.h). The copy keeps the input's
/// name, so diagnostics (and -verify-diagnostics) see the same file,
/// lines and columns.
static void
registerFromText(StringRef name, StringRef description,
                 std::function<LogicalResult(Operation *, raw_ostream &)> fn) {
  TranslateRegistration registration(
      name, description,
      [fn](const std::shared_ptr<llvm::SourceMgr> &sourceMgr, raw_ostream &os,
           MLIRContext *context) -> LogicalResult {
        DialectRegistry registry;
        registry.insert<FXDialect>();
        context->appendDialectRegistry(registry);
        const llvm::MemoryBuffer *input =
            sourceMgr->getMemoryBuffer(sourceMgr->getMainFileID());
        auto text = std::make_shared<llvm::SourceMgr>();
        text->AddNewSourceBuffer(
            withFinalNewline(llvm::MemoryBuffer::getMemBuffer(
                input->getMemBufferRef(), /*RequiresNullTerminator=*/false)),
            llvm::SMLoc());
        OwningOpRef<ModuleOp> module =
            parseSourceFile<ModuleOp>(text, ParserConfig(context));
        if (!module)
          return failure();
        return fn(module.get(), os);
      });
}

void mlir::fx::registerExportPythonTranslation() {
  static llvm::cl::opt<std::string> graphModuleName(
      "export-graph-module",
      llvm::cl::desc("With --export-python or --export-fx-json: the "
                     "fx.graph_module to export when the input holds several"),
      llvm::cl::init(""));
  static llvm::cl::list<std::string> allowedModules(
      "export-allow-module",
      llvm::cl::desc("With --export-python: a package whose torch.nn.Module "
                     "subclasses the script may construct as submodules "
                     "(besides torch and fx_mlir); repeatable"));
  registerFromText(
      "export-python",
      "Emit a Python script that rebuilds the torch.fx.GraphModule "
      "of an fx.graph_module",
      [](Operation *op, raw_ostream &os) {
        return exportPython(op, os, graphModuleName,
                            SmallVector<std::string>(allowedModules.begin(),
                                                     allowedModules.end()));
      });
  registerFromText("export-fx-json",
                   "Emit the JSON description of an fx.graph_module that "
                   "fx_mlir.export_graph_module rebuilds",
                   [](Operation *op, raw_ostream &os) {
                     return exportGraphModuleJson(op, os, graphModuleName);
                   });
}
