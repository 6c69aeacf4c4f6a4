//===- Registry.h - The target registry: schemas, aliases, binding -*- C++
//-*-===//
//
// The in-memory form of Targets.def: the canonical operators with their
// parsed LibTorch schemas, the aliases that spell them in FX graphs, and
// the binding of an FX node's args to a canonical schema that
// normalization and the reference interpreter share.
//
//===----------------------------------------------------------------------===//

#ifndef FX_MLIR_DIALECT_FX_REGISTRY_REGISTRY_H
#define FX_MLIR_DIALECT_FX_REGISTRY_REGISTRY_H

#include "fx-mlir/Dialect/FX/IR/FXOps.h"
#include "llvm/ADT/StringMap.h"
#include <memory>
#include <string>
#include <vector>

namespace mlir::fx {

/// What a schema parameter or result holds, without optionality.
enum class ArgKind {
  Tensor,
  Int,
  Float,
  Bool,
  Str,
  Scalar,
  ScalarType,
  MemoryFormat,
  Layout,
  Device,
  Generator,
  Any,
};

/// The type of one schema parameter or result: `Tensor?`, `int[2]`, ...
struct ArgType {
  ArgKind kind = ArgKind::Any;
  bool isList = false;
  /// `int[2]`: 2 (a single int stands for the whole list); 0 otherwise.
  unsigned fixedSize = 0;
  bool optional = false;
  /// `T[]?` is a list that may be None; `T?[]` a list of optionals.
  bool optionalElements = false;
};

/// One parameter of a canonical schema.
struct SchemaParam {
  std::string name;
  ArgType type;
  bool kwargOnly = false;
  bool hasDefault = false;
  /// The default as the schema spells it (`None`, `[1, 1]`, `"valid"`).
  std::string defaultValue;
};

/// A canonical target: one LibTorch operator overload.
struct OpSchema {
  /// `aten::add`.
  std::string name;
  /// `Tensor`, or "" for the default overload.
  std::string overload;
  std::vector<SchemaParam> params;
  std::vector<ArgType> results;
  bool pure = true;
  /// The schema as LibTorch prints it.
  std::string text;

  /// `aten::add.Tensor`, or `aten::relu` for a default overload: the
  /// canonical `call_function` target.
  std::string qualifiedName() const;
  /// Index of the parameter `name`, or -1.
  int findParam(llvm::StringRef name) const;
};

enum class AliasKind { Function, Method, Module };

/// One parameter of an alias's Python signature.
struct AliasParam {
  std::string name;
  /// The canonical parameter it binds (`name` unless renamed).
  std::string canonical;
  bool hasDefault = false;
  std::string defaultValue;
  bool kwargOnly = false;
  bool varargs = false;
};

/// One spelling of a canonical operator in FX graphs.
struct Alias {
  AliasKind kind;
  std::string name;
  /// `aten::add` (any overload) or `aten::add.Tensor`.
  std::string op;
  /// True when the alias takes the canonical schema's own parameters.
  bool schemaParams = true;
  std::vector<AliasParam> params;
  /// canonical parameter -> `literal`, `@field`, `%hparam`.
  std::vector<std::pair<std::string, std::string>> bindings;
  /// name or `%hparam` -> literal it must equal.
  std::vector<std::pair<std::string, std::string>> requirements;
  /// The SPEC string of Targets.def.
  std::string spec;
};

/// A node's call bound to a canonical schema: one value per schema
/// parameter. A value is an FX value attribute whose #fx.node references
/// index `operands`, or the qualified name of module state to read with
/// `fx.get_attr` (`stateName`, when `value` is null).
struct BoundArg {
  Attribute value;
  std::string stateName;
};
struct BoundCall {
  const OpSchema *schema = nullptr;
  std::vector<BoundArg> args;
  llvm::SmallVector<Value> operands;
};

/// The registry of Targets.def. Built once, immutable, thread safe to read.
class TargetRegistry {
public:
  static const TargetRegistry &get();

  llvm::ArrayRef<std::unique_ptr<OpSchema>> getOps() const { return ops; }
  llvm::ArrayRef<std::unique_ptr<Alias>> getAliases() const { return aliases; }

  /// The canonical op `aten::add.Tensor` (or `aten::relu`), or null.
  const OpSchema *lookupOp(llvm::StringRef qualifiedName) const;
  /// The overloads of `aten::add` in table order, or one overload when
  /// `op` names one.
  std::vector<const OpSchema *> getOverloads(llvm::StringRef op) const;
  /// The aliases spelled `name` for nodes of `kind`.
  std::vector<const Alias *> lookupAliases(AliasKind kind,
                                           llvm::StringRef name) const;

  /// Binds the call node `node` (call_function, call_method or
  /// call_module) to a canonical target. On failure returns null and sets
  /// `why` to a one-line reason ("unsupported target", "padding_mode must
  /// be 'zeros'", ...). Canonical call_function nodes bind to themselves.
  std::unique_ptr<BoundCall> bind(Operation *node, std::string &why) const;

private:
  TargetRegistry();
  std::vector<std::unique_ptr<OpSchema>> ops;
  std::vector<std::unique_ptr<Alias>> aliases;
  llvm::StringMap<const OpSchema *> opsByName;
  llvm::StringMap<std::vector<const OpSchema *>> overloadsByName;
  llvm::StringMap<std::vector<const Alias *>> aliasesByKey;
};

/// Parses a LibTorch schema string into `schema`; returns false (with a
/// message in `error`) on syntax it does not know.
bool parseSchema(llvm::StringRef text, OpSchema &schema, std::string &error);

/// The FX value attribute of a literal as schemas and Targets.def spell it
/// (`None`, `True`, `-1`, `1e-05`, `"valid"`, `'zeros'`, `[0, 0]`,
/// `contiguous_format`, `torch.float32`); `type`, when given, expands a
/// scalar default of an `int[N]` parameter to a list. Null if malformed.
Attribute parseLiteral(MLIRContext *ctx, llvm::StringRef text,
                       const ArgType *type = nullptr);

/// Whether `name` (an operator, method or function name without its
/// namespace: `add_`, `relu_`) names an in-place operation as PyTorch
/// does: a trailing `_`, and neither a dunder (`__iadd__`) nor private
/// (`_foo_`).
bool isInplaceName(llvm::StringRef name);

/// The display name of an alias kind ("function", "method", "module").
llvm::StringRef stringifyAliasKind(AliasKind kind);

} // namespace mlir::fx

#endif // FX_MLIR_DIALECT_FX_REGISTRY_REGISTRY_H
