//===- Registry.cpp - The target registry: schemas, aliases, binding ------===//

#include "fx-mlir/Dialect/FX/Registry/Registry.h"
#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Dialect/FX/IR/FXTypes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace mlir::fx;

//===----------------------------------------------------------------------===//
// Lexing helpers
//===----------------------------------------------------------------------===//

/// Splits `text` at top-level occurrences of `sep` (outside brackets,
/// parentheses and quotes), trimming each part.
static SmallVector<StringRef> splitTopLevel(StringRef text, char sep) {
  SmallVector<StringRef> parts;
  int depth = 0;
  char quote = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote) {
      if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '"' || c == '\'')
      quote = c;
    else if (c == '(' || c == '[')
      ++depth;
    else if (c == ')' || c == ']')
      --depth;
    else if (c == sep && depth == 0) {
      parts.push_back(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  StringRef last = text.substr(start).trim();
  if (!last.empty() || !parts.empty())
    parts.push_back(last);
  return parts;
}

/// Parses a schema type (`Tensor(a!)`, `int[2]`, `Tensor?[]`, `SymInt[]`).
static bool parseArgType(StringRef text, ArgType &type) {
  size_t baseEnd = text.find_first_of("([?");
  StringRef base = text.substr(0, baseEnd);
  StringRef rest = baseEnd == StringRef::npos ? "" : text.substr(baseEnd);
  type.kind = llvm::StringSwitch<ArgKind>(base)
                  .Case("Tensor", ArgKind::Tensor)
                  .Cases({"int", "SymInt"}, ArgKind::Int)
                  .Case("float", ArgKind::Float)
                  .Case("bool", ArgKind::Bool)
                  .Case("str", ArgKind::Str)
                  .Case("Scalar", ArgKind::Scalar)
                  .Case("ScalarType", ArgKind::ScalarType)
                  .Case("MemoryFormat", ArgKind::MemoryFormat)
                  .Case("Layout", ArgKind::Layout)
                  .Case("Device", ArgKind::Device)
                  .Case("Generator", ArgKind::Generator)
                  .Default(ArgKind::Any);
  while (!rest.empty()) {
    if (rest.front() == '(') {
      size_t close = rest.find(')');
      if (close == StringRef::npos)
        return false;
      rest = rest.substr(close + 1);
    } else if (rest.front() == '?') {
      if (type.isList)
        type.optional = true;
      else
        type.optional = true;
      rest = rest.drop_front();
    } else if (rest.front() == '[') {
      size_t close = rest.find(']');
      if (close == StringRef::npos)
        return false;
      StringRef size = rest.slice(1, close);
      if (type.optional) {
        // `Tensor?[]`: a list of optionals, not an optional list.
        type.optional = false;
        type.optionalElements = true;
      }
      type.isList = true;
      if (!size.empty() && size.getAsInteger(10, type.fixedSize))
        return false;
      rest = rest.substr(close + 1);
    } else {
      return false;
    }
  }
  return true;
}

bool mlir::fx::parseSchema(StringRef text, OpSchema &schema,
                           std::string &error) {
  schema.text = text.str();
  size_t open = text.find('(');
  size_t arrow = text.rfind("->");
  if (open == StringRef::npos || arrow == StringRef::npos || arrow < open) {
    error = "expected 'name(params) -> results'";
    return false;
  }
  StringRef qualified = text.substr(0, open);
  auto [name, overload] = qualified.split('.');
  schema.name = name.str();
  schema.overload = overload.str();
  size_t close = text.rfind(')', arrow);
  StringRef params = text.slice(open + 1, close);
  bool kwargOnly = false;
  for (StringRef param : splitTopLevel(params, ',')) {
    if (param == "*") {
      kwargOnly = true;
      continue;
    }
    auto [decl, defaultValue] = param.split('=');
    decl = decl.trim();
    size_t space = decl.rfind(' ');
    if (space == StringRef::npos) {
      error = ("bad parameter '" + param + "'").str();
      return false;
    }
    SchemaParam p;
    p.name = decl.substr(space + 1).str();
    p.kwargOnly = kwargOnly;
    if (!parseArgType(decl.substr(0, space).trim(), p.type)) {
      error = ("bad parameter type in '" + param + "'").str();
      return false;
    }
    if (param.contains('=')) {
      p.hasDefault = true;
      p.defaultValue = defaultValue.trim().str();
    }
    schema.params.push_back(std::move(p));
  }
  StringRef results = text.substr(arrow + 2).trim();
  if (results.starts_with("(") && results.ends_with(")"))
    results = results.drop_front().drop_back();
  for (StringRef result : splitTopLevel(results, ',')) {
    // A named result: `Tensor values`.
    StringRef typeText = result.split(' ').first;
    ArgType type;
    if (!parseArgType(typeText, type)) {
      error = ("bad result type '" + result + "'").str();
      return false;
    }
    schema.results.push_back(type);
  }
  return true;
}

bool mlir::fx::isInplaceName(StringRef name) {
  return name.ends_with("_") && !name.ends_with("__") && !name.starts_with("_");
}

std::string OpSchema::qualifiedName() const {
  return overload.empty() ? name : name + "." + overload;
}

int OpSchema::findParam(StringRef paramName) const {
  for (auto [i, p] : llvm::enumerate(params))
    if (p.name == paramName)
      return i;
  return -1;
}

StringRef mlir::fx::stringifyAliasKind(AliasKind kind) {
  switch (kind) {
  case AliasKind::Function:
    return "function";
  case AliasKind::Method:
    return "method";
  case AliasKind::Module:
    return "module";
  }
  llvm_unreachable("unknown alias kind");
}

//===----------------------------------------------------------------------===//
// Literals
//===----------------------------------------------------------------------===//

Attribute mlir::fx::parseLiteral(MLIRContext *ctx, StringRef text,
                                 const ArgType *type) {
  text = text.trim();
  auto i64 = IntegerType::get(ctx, 64);
  if (text.empty())
    return {};
  if (text == "None")
    return NoneAttr::get(ctx);
  if (text == "True" || text == "False")
    return BoolAttr::get(ctx, text == "True");
  if ((text.front() == '"' || text.front() == '\'') && text.size() >= 2 &&
      text.back() == text.front())
    return StringAttr::get(ctx, text.drop_front().drop_back());
  if ((text.front() == '[' && text.back() == ']') ||
      (text.front() == '(' && text.back() == ')')) {
    SmallVector<Attribute> elements;
    StringRef inner = text.drop_front().drop_back();
    for (StringRef element : splitTopLevel(inner, ',')) {
      if (element.empty())
        continue; // `(1,)`
      Attribute attr = parseLiteral(ctx, element);
      if (!attr)
        return {};
      elements.push_back(attr);
    }
    if (text.front() == '(')
      return TupleAttr::get(ctx, elements);
    return ListAttr::get(ctx, elements);
  }
  int64_t intValue;
  if (!text.getAsInteger(10, intValue)) {
    // LibTorch prints enum defaults as their numbers (`memory_format=0`).
    static const char *memoryFormats[] = {"contiguous_format",
                                          "preserve_format", "channels_last",
                                          "channels_last_3d"};
    if (type && type->kind == ArgKind::MemoryFormat && intValue >= 0 &&
        intValue < 4)
      return MemoryFormatAttr::get(ctx, memoryFormats[intValue]);
    Attribute attr = IntegerAttr::get(i64, intValue);
    if (type && type->isList && type->fixedSize)
      return ListAttr::get(ctx, SmallVector<Attribute>(type->fixedSize, attr));
    if (type && type->kind == ArgKind::Float && !type->isList)
      return FloatAttr::get(Float64Type::get(ctx), double(intValue));
    return attr;
  }
  double floatValue;
  if (!text.getAsDouble(floatValue))
    return FloatAttr::get(Float64Type::get(ctx), floatValue);
  if (text == "inf" || text == "-inf")
    return FloatAttr::get(Float64Type::get(ctx),
                          text == "inf" ? INFINITY : -INFINITY);
  text.consume_front("torch.");
  if (llvm::is_contained(MemoryFormatAttr::getKnownNames(), text))
    return MemoryFormatAttr::get(ctx, text);
  if (llvm::is_contained(LayoutAttr::getKnownNames(), text))
    return LayoutAttr::get(ctx, text);
  if (llvm::is_contained(DTypeAttr::getKnownNames(), text))
    return DTypeAttr::get(ctx, text);
  // Enum-like defaults (`Mean` of losses) are kept as their name.
  return StringAttr::get(ctx, text);
}

//===----------------------------------------------------------------------===//
// Alias specs
//===----------------------------------------------------------------------===//

static bool parseAliasSpec(Alias &alias, std::string &error) {
  SmallVector<StringRef> sections;
  StringRef(alias.spec).split(sections, '|');
  if (sections.size() > 3) {
    error = "more than three sections";
    return false;
  }
  StringRef params = sections[0].trim();
  alias.schemaParams = params.empty();
  bool kwargOnly = false;
  if (!params.empty()) {
    for (StringRef param : splitTopLevel(params, ',')) {
      if (param == "*") {
        kwargOnly = true;
        continue;
      }
      AliasParam p;
      auto [decl, defaultValue] = param.split('=');
      decl = decl.trim();
      if (decl.consume_front("*")) {
        p.varargs = true;
        kwargOnly = true;
      }
      auto [name, canonical] = decl.split(':');
      p.name = name.trim().str();
      p.canonical = canonical.empty() ? p.name : canonical.trim().str();
      p.kwargOnly = kwargOnly && !p.varargs;
      if (param.contains('=')) {
        p.hasDefault = true;
        p.defaultValue = defaultValue.trim().str();
      }
      alias.params.push_back(std::move(p));
    }
  }
  auto parsePairs = [&](StringRef section, auto &out) {
    for (StringRef item : splitTopLevel(section.trim(), ',')) {
      auto [name, value] = item.split('=');
      if (value.empty()) {
        error = ("expected 'name=value', got '" + item + "'").str();
        return false;
      }
      out.emplace_back(name.trim().str(), value.trim().str());
    }
    return true;
  };
  if (sections.size() > 1 && !parsePairs(sections[1], alias.bindings))
    return false;
  if (sections.size() > 2 && !parsePairs(sections[2], alias.requirements))
    return false;
  return true;
}

//===----------------------------------------------------------------------===//
// The registry
//===----------------------------------------------------------------------===//

static std::string aliasKey(AliasKind kind, StringRef name) {
  return (stringifyAliasKind(kind) + ":" + name).str();
}

TargetRegistry::TargetRegistry() {
  enum Flags { Pure, Impure };
  auto addOp = [&](const char *text, Flags flags) {
    auto schema = std::make_unique<OpSchema>();
    std::string error;
    if (!parseSchema(text, *schema, error))
      llvm::report_fatal_error(llvm::Twine("Targets.def: bad schema '") + text +
                               "': " + error);
    schema->pure = flags == Pure;
    opsByName[schema->qualifiedName()] = schema.get();
    overloadsByName[schema->name].push_back(schema.get());
    ops.push_back(std::move(schema));
  };
  auto addAlias = [&](AliasKind kind, const char *name, const char *op,
                      const char *spec) {
    auto alias = std::make_unique<Alias>();
    alias->kind = kind;
    alias->name = name;
    alias->op = op;
    alias->spec = spec;
    std::string error;
    if (!parseAliasSpec(*alias, error))
      llvm::report_fatal_error(llvm::Twine("Targets.def: bad alias '") + name +
                               "': " + error);
    aliasesByKey[aliasKey(kind, name)].push_back(alias.get());
    aliases.push_back(std::move(alias));
  };
  constexpr AliasKind Function = AliasKind::Function;
  constexpr AliasKind Method = AliasKind::Method;
  constexpr AliasKind Module = AliasKind::Module;
#define FX_OP(SCHEMA, FLAGS) addOp(SCHEMA, FLAGS);
#define FX_ALIAS(KIND, NAME, OP, SPEC) addAlias(KIND, NAME, OP, SPEC);
#include "fx-mlir/Dialect/FX/Registry/Targets.def"
  (void)Function;
  (void)Method;
  (void)Module;
  for (const auto &alias : aliases)
    if (getOverloads(alias->op).empty())
      llvm::report_fatal_error(llvm::Twine("Targets.def: alias '") +
                               alias->name + "' names unknown op '" +
                               alias->op + "'");
}

const TargetRegistry &TargetRegistry::get() {
  static TargetRegistry registry;
  return registry;
}

const OpSchema *TargetRegistry::lookupOp(StringRef qualifiedName) const {
  // `aten::relu.default` (torch.ops.aten.relu.default) is `aten::relu`.
  qualifiedName.consume_back(".default");
  return opsByName.lookup(qualifiedName);
}

std::vector<const OpSchema *> TargetRegistry::getOverloads(StringRef op) const {
  if (op.consume_back(".default")) {
    const OpSchema *schema = lookupOp(op);
    return schema ? std::vector<const OpSchema *>{schema}
                  : std::vector<const OpSchema *>{};
  }
  if (const OpSchema *schema = lookupOp(op))
    if (schema->qualifiedName() == op && op.contains('.'))
      return {schema};
  auto it = overloadsByName.find(op);
  if (it == overloadsByName.end())
    return {};
  return it->second;
}

std::vector<const Alias *> TargetRegistry::lookupAliases(AliasKind kind,
                                                         StringRef name) const {
  auto it = aliasesByKey.find(aliasKey(kind, name));
  if (it == aliasesByKey.end())
    return {};
  return it->second;
}

//===----------------------------------------------------------------------===//
// Binding
//===----------------------------------------------------------------------===//

namespace {
/// What a node reference holds, from the referenced value's type.
enum class RefKind { Tensor, Int, Float, Bool, Any };

RefKind getRefKind(Type type) {
  if (isa<TensorType>(type))
    return RefKind::Tensor;
  if (auto intType = dyn_cast<IntegerType>(type))
    return intType.getWidth() == 1 ? RefKind::Bool : RefKind::Int;
  if (isa<FloatType>(type))
    return RefKind::Float;
  return RefKind::Any;
}

/// Binds one node to one (alias, overload) pair.
class Binder {
public:
  Binder(Operation *node, const Alias *alias, const OpSchema &schema,
         SubmoduleOp submodule)
      : node(node), ctx(node->getContext()), alias(alias), schema(schema),
        submodule(submodule) {}

  std::unique_ptr<BoundCall> bind(std::string &why);

private:
  bool bindAliasParams(std::string &why);
  bool checkRequirements(std::string &why);
  Attribute coerce(const ArgType &type, Attribute value);
  bool accepts(const ArgType &type, Attribute value, bool element = false);
  Attribute lookupHParam(StringRef name, std::string &why);

  Operation *node;
  MLIRContext *ctx;
  const Alias *alias;
  const OpSchema &schema;
  SubmoduleOp submodule;
  /// Alias parameter name -> bound value.
  llvm::StringMap<Attribute> bound;
  /// Canonical parameter -> alias parameter it comes from.
  llvm::StringMap<std::string> canonicalSource;
};
} // namespace

Attribute Binder::lookupHParam(StringRef name, std::string &why) {
  if (!submodule) {
    why = "'%" + name.str() + "' needs a module";
    return {};
  }
  if (name == "training")
    return BoolAttr::get(ctx, submodule.getTraining());
  Attribute value = submodule.getHparams().lookup(name);
  if (!value)
    why = "module '" + submodule.getSymName().str() +
          "' records no hyperparameter '" + name.str() + "'";
  return value;
}

bool Binder::bindAliasParams(std::string &why) {
  auto iface = cast<NodeOpInterface>(node);
  ArrayAttr args = iface.getArgs();
  DictAttr kwargs = iface.getKwargs();
  // The alias's parameters, or the schema's own.
  std::vector<AliasParam> params;
  if (alias && !alias->schemaParams) {
    params = alias->params;
  } else {
    for (const SchemaParam &p : schema.params) {
      AliasParam ap;
      ap.name = ap.canonical = p.name;
      ap.kwargOnly = p.kwargOnly;
      params.push_back(ap);
    }
  }
  for (const AliasParam &p : params)
    canonicalSource[p.canonical] = p.name;
  size_t next = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    while (next < params.size() && params[next].kwargOnly &&
           !params[next].varargs)
      ++next;
    if (next >= params.size()) {
      why = "takes " + std::to_string(i) + " positional args but " +
            std::to_string(args.size()) + " were given";
      return false;
    }
    const AliasParam &p = params[next];
    if (p.varargs) {
      ArrayRef<Attribute> rest = args.getValue().drop_front(i);
      Attribute single = rest.size() == 1 ? rest[0] : Attribute();
      bool wholeList = single && (isa<ListAttr, TupleAttr, SizeAttr>(single));
      if (auto ref = dyn_cast_or_null<NodeAttr>(single))
        wholeList = getRefKind(node->getOperand(ref.getIndex()).getType()) ==
                    RefKind::Any;
      bound[p.name] = wholeList ? single : ListAttr::get(ctx, rest);
      next = params.size();
      break;
    }
    bound[p.name] = args[i];
    ++next;
  }
  for (auto [key, value] : llvm::zip(kwargs.getKeys(), kwargs.getValues())) {
    StringRef name = cast<StringAttr>(key).getValue();
    auto it = llvm::find_if(params, [&](const AliasParam &p) {
      return p.name == name && !p.varargs;
    });
    if (it == params.end() && (name == "input" || name == "self")) {
      StringRef other = name == "input" ? "self" : "input";
      it = llvm::find_if(params,
                         [&](const AliasParam &p) { return p.name == other; });
    }
    if (it == params.end()) {
      why = "unexpected keyword argument '" + name.str() + "'";
      return false;
    }
    if (bound.count(it->name)) {
      why = "got multiple values for argument '" + name.str() + "'";
      return false;
    }
    bound[it->name] = value;
  }
  for (const AliasParam &p : params) {
    if (bound.count(p.name) || !p.hasDefault)
      continue;
    Attribute value = parseLiteral(ctx, p.defaultValue);
    if (!value) {
      why = "bad default '" + p.defaultValue + "'";
      return false;
    }
    bound[p.name] = value;
  }
  return true;
}

/// The reasons the aliases of one name did not apply, as one: when each
/// is a requirement on the same parameter ("reduction must be 'none'",
/// one alias per value), the values it may take ("reduction must be
/// 'none', 'mean' or 'sum'"); else the first.
static std::string mergeRequirements(ArrayRef<std::string> reasons) {
  if (reasons.empty())
    return "";
  constexpr StringLiteral kMust = " must be ";
  size_t at = reasons.front().find(kMust);
  if (at == std::string::npos)
    return reasons.front();
  std::string subject = reasons.front().substr(0, at + kMust.size());
  SmallVector<std::string> values;
  for (const std::string &reason : reasons) {
    if (!StringRef(reason).starts_with(subject))
      return reasons.front();
    std::string value = reason.substr(subject.size());
    if (!llvm::is_contained(values, value))
      values.push_back(value);
  }
  std::string merged = subject;
  for (size_t i = 0; i < values.size(); ++i)
    merged += (i == 0                   ? ""
               : i + 1 == values.size() ? " or "
                                        : ", ") +
              values[i];
  return merged;
}

bool Binder::checkRequirements(std::string &why) {
  if (!alias)
    return true;
  for (const auto &[name, literal] : alias->requirements) {
    Attribute expected = parseLiteral(ctx, literal);
    Attribute actual;
    StringRef key = name;
    if (key.consume_front("%")) {
      actual = lookupHParam(key, why);
      if (!actual)
        return false;
    } else {
      actual = bound.lookup(name);
    }
    if (actual != expected) {
      why = name + " must be " + literal;
      return false;
    }
  }
  return true;
}

Attribute Binder::coerce(const ArgType &type, Attribute value) {
  if (!type.isList)
    return value;
  if (auto tuple = dyn_cast<TupleAttr>(value))
    return ListAttr::get(ctx, tuple.getElements());
  if (auto size = dyn_cast<SizeAttr>(value)) {
    SmallVector<Attribute> dims;
    for (int64_t d : size.getDims())
      dims.push_back(IntegerAttr::get(IntegerType::get(ctx, 64), d));
    return ListAttr::get(ctx, dims);
  }
  if (type.fixedSize) {
    bool scalarInt = isa<IntegerAttr>(value) && !isa<BoolAttr>(value);
    if (auto ref = dyn_cast<NodeAttr>(value))
      scalarInt = getRefKind(node->getOperand(ref.getIndex()).getType()) ==
                  RefKind::Int;
    if (scalarInt)
      return ListAttr::get(ctx, SmallVector<Attribute>(type.fixedSize, value));
  }
  return value;
}

bool Binder::accepts(const ArgType &type, Attribute value, bool element) {
  if (isa<NoneAttr>(value))
    return element ? type.optionalElements : type.optional;
  if (auto ref = dyn_cast<NodeAttr>(value)) {
    RefKind kind = getRefKind(node->getOperand(ref.getIndex()).getType());
    if (kind == RefKind::Any)
      return true;
    if (type.isList && !element)
      return false;
    switch (type.kind) {
    case ArgKind::Tensor:
      return kind == RefKind::Tensor;
    case ArgKind::Int:
      return kind == RefKind::Int || kind == RefKind::Bool;
    case ArgKind::Float:
      return kind == RefKind::Float || kind == RefKind::Int;
    case ArgKind::Bool:
      return kind == RefKind::Bool;
    case ArgKind::Scalar:
      return kind != RefKind::Tensor;
    case ArgKind::Any:
      return true;
    default:
      return false;
    }
  }
  if (type.isList && !element) {
    auto list = dyn_cast<ListAttr>(value);
    if (!list)
      return false;
    return llvm::all_of(list.getElements(), [&](Attribute e) {
      return accepts(type, e, /*element=*/true);
    });
  }
  switch (type.kind) {
  case ArgKind::Tensor:
    return false;
  case ArgKind::Int:
    return isa<IntegerAttr>(value);
  case ArgKind::Float:
    return isa<FloatAttr>(value) ||
           (isa<IntegerAttr>(value) && !isa<BoolAttr>(value));
  case ArgKind::Bool:
    return isa<BoolAttr>(value);
  case ArgKind::Str:
    return isa<StringAttr>(value);
  case ArgKind::Scalar:
    return isa<IntegerAttr, FloatAttr, BoolAttr, ComplexAttr>(value);
  case ArgKind::ScalarType:
    return isa<DTypeAttr>(value);
  case ArgKind::MemoryFormat:
    return isa<MemoryFormatAttr>(value);
  case ArgKind::Layout:
    return isa<LayoutAttr>(value);
  case ArgKind::Device:
    return isa<DeviceAttr, StringAttr>(value);
  case ArgKind::Generator:
    return false;
  case ArgKind::Any:
    return true;
  }
  return false;
}

std::unique_ptr<BoundCall> Binder::bind(std::string &why) {
  if (!bindAliasParams(why) || !checkRequirements(why))
    return nullptr;
  auto call = std::make_unique<BoundCall>();
  call->schema = &schema;
  call->operands.assign(node->getOperands().begin(), node->getOperands().end());
  llvm::StringMap<std::string> bindings;
  if (alias)
    for (const auto &[name, value] : alias->bindings)
      bindings[name] = value;
  for (const SchemaParam &param : schema.params) {
    BoundArg arg;
    auto binding = bindings.find(param.name);
    if (binding != bindings.end()) {
      StringRef spec = binding->second;
      if (spec.consume_front("@")) {
        std::string path =
            (submodule ? submodule.getSymName().str() + "." : "") + spec.str();
        auto module = node->getParentOfType<GraphModuleOp>();
        if (module && lookupModuleSymbol(module, StringAttr::get(ctx, path)))
          arg.stateName = path;
        else
          arg.value = NoneAttr::get(ctx);
      } else if (spec.consume_front("%")) {
        arg.value = lookupHParam(spec, why);
        if (!arg.value)
          return nullptr;
      } else {
        arg.value = parseLiteral(ctx, spec, &param.type);
      }
    } else {
      auto source = canonicalSource.find(param.name);
      StringRef from = source != canonicalSource.end()
                           ? StringRef(source->second)
                           : StringRef(param.name);
      arg.value = bound.lookup(from);
      if (!arg.value && (param.name == "self" || param.name == "input")) {
        StringRef other = param.name == "self" ? "input" : "self";
        auto otherSource = canonicalSource.find(other);
        arg.value = bound.lookup(otherSource != canonicalSource.end()
                                     ? StringRef(otherSource->second)
                                     : other);
      }
    }
    if (arg.stateName.empty()) {
      if ((!arg.value || (isa<NoneAttr>(arg.value) && !param.type.optional)) &&
          param.hasDefault)
        arg.value = parseLiteral(ctx, param.defaultValue, &param.type);
      if (!arg.value) {
        why = "missing argument '" + param.name + "'";
        return nullptr;
      }
      arg.value = coerce(param.type, arg.value);
      if (!accepts(param.type, arg.value)) {
        why = "argument '" + param.name + "' does not fit " +
              schema.qualifiedName();
        return nullptr;
      }
    }
    call->args.push_back(std::move(arg));
  }
  // Everything the caller passed must have found a place, unless the
  // canonical schema has none for it (`inplace`), which is dropped.
  return call;
}

std::unique_ptr<BoundCall> TargetRegistry::bind(Operation *node,
                                                std::string &why) const {
  auto iface = dyn_cast<NodeOpInterface>(node);
  if (!iface) {
    why = "not an fx node";
    return nullptr;
  }
  AliasKind kind;
  std::string name;
  SubmoduleOp submodule;
  if (auto call = dyn_cast<CallFunctionOp>(node)) {
    kind = AliasKind::Function;
    name = call.getTarget().str();
    if (const OpSchema *schema = lookupOp(name)) {
      Binder binder(node, nullptr, *schema, {});
      return binder.bind(why);
    }
    // `torch.ops.aten.mm` (an OpOverloadPacket: the overload the args fit)
    // and `torch.ops.aten.add.Tensor` (one overload), as Python spells
    // them, are `aten::mm` and `aten::add.Tensor`.
    StringRef rest = name;
    if (rest.consume_front("torch.ops.")) {
      auto [ns, opAndOverload] = rest.split('.');
      auto [op, overload] = opAndOverload.split('.');
      if (!ns.empty() && !op.empty() && !overload.contains('.')) {
        std::string opName = (ns + "::" + op).str();
        std::vector<const OpSchema *> overloads =
            overload.empty() ? getOverloads(opName)
                             : getOverloads(opName + "." + overload.str());
        std::string firstWhy;
        for (const OpSchema *schema : overloads) {
          std::string reason;
          Binder binder(node, nullptr, *schema, {});
          if (auto bound = binder.bind(reason))
            return bound;
          if (firstWhy.empty())
            firstWhy = reason;
        }
        if (!overloads.empty()) {
          why = "function '" + name + "': " + firstWhy;
          return nullptr;
        }
      }
    }
  } else if (auto call = dyn_cast<CallMethodOp>(node)) {
    kind = AliasKind::Method;
    name = call.getTarget().str();
  } else if (auto call = dyn_cast<CallModuleOp>(node)) {
    kind = AliasKind::Module;
    auto module = node->getParentOfType<GraphModuleOp>();
    if (module)
      submodule = dyn_cast_or_null<SubmoduleOp>(
          lookupModuleSymbol(module, call.getTargetAttr().getAttr()));
    if (!submodule) {
      why = "no submodule '" + call.getTarget().str() + "'";
      return nullptr;
    }
    name = submodule.getModuleType().str();
  } else {
    why = "not a call node";
    return nullptr;
  }
  std::vector<const Alias *> candidates = lookupAliases(kind, name);
  // An overload of an ATen alias operator (`aten::subtract.Tensor`,
  // `torch.ops.aten.arcsin.default`) binds as its packet
  // (`torch.ops.aten.subtract`) does: the alias's overloads take the same
  // arguments as the operator's.
  if (candidates.empty() && kind == AliasKind::Function) {
    StringRef rest = name, ns, op;
    if (rest.consume_front("torch.ops."))
      std::tie(ns, op) = rest.split('.');
    else if (rest.contains("::"))
      std::tie(ns, op) = rest.split("::");
    op = op.split('.').first;
    if (!ns.empty() && !op.empty())
      candidates = lookupAliases(kind, ("torch.ops." + ns + "." + op).str());
  }
  if (candidates.empty()) {
    why = "unsupported " + stringifyAliasKind(kind).str() + " '" + name + "'";
    // Operators whose result's size is the count of something in the
    // data: no static type holds it.
    SmallVector<StringRef> parts;
    StringRef(name).split(parts, '.');
    StringRef last = parts.back();
    if (last == "default" && parts.size() > 1)
      last = parts[parts.size() - 2];
    static const llvm::StringSet<> dataSized = {
        "masked_select",      "nonzero",  "argwhere",     "bincount", "unique",
        "unique_consecutive", "_unique2", "nonzero_numpy"};
    if (dataSized.contains(last))
      why += ": the size of its result depends on the values of its "
             "input, which compiled code of static types cannot return "
             "(fx_mlir.compile(..., fallback=True) runs it in PyTorch)";
    // A model prepare_fx or prepare_qat_fx made: its observers record
    // statistics as it runs, which compiled code would not.
    StringRef module(name);
    if (kind == AliasKind::Module &&
        (module.starts_with("torch.ao.quantization.observer.") ||
         module.starts_with("torch.ao.quantization.fake_quantize.") ||
         module.contains(".qat.")))
      why += ": a module of a model prepared for quantization (prepare_fx, "
             "prepare_qat_fx), which records statistics as it runs; "
             "calibrate or train it in PyTorch, then compile the model "
             "convert_fx makes of it";
    return nullptr;
  }
  std::vector<std::string> reasons;
  for (const Alias *alias : candidates) {
    for (const OpSchema *schema : getOverloads(alias->op)) {
      std::string reason;
      Binder binder(node, alias, *schema, submodule);
      if (auto call = binder.bind(reason))
        return call;
      reasons.push_back(reason);
    }
  }
  why = stringifyAliasKind(kind).str() + " '" + name +
        "': " + mergeRequirements(reasons);
  return nullptr;
}
