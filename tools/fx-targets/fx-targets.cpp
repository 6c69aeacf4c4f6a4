//===- fx-targets.cpp - Print the target registry as a Markdown table -----===//
//
// The supported-op reference (build/docs/FX/SupportedTargets.md) is this
// tool's output: every canonical target of Targets.def with its schema,
// whether convert-fx-to-linalg lowers it, and the spellings that normalize
// to it. With --names-json it prints the names the Python package's
// tracer reads instead (build/python/fx_mlir/_names.json).
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Conversion/FXToLinalg/FXToLinalg.h"
#include "fx-mlir/Dialect/FX/Registry/Registry.h"
#include "fx-mlir/Dialect/FX/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <string>
#include <vector>

using namespace mlir::fx;

/// Prints `"module_requirements": {type: [alias, ...]}`: per module alias,
/// what it needs of the module's hyperparameters, so that the tracer keeps
/// a module as a call only when an alias binds it with them (as
/// compilesModule decides for the TorchScript importer): "requires" maps a
/// hyperparameter to the literal it must equal; "binds" lists those it
/// reads, of which "not_none" may not be None (their parameter is not
/// optional and has no default).
static void printModuleRequirements(llvm::raw_ostream &os) {
  const TargetRegistry &registry = TargetRegistry::get();
  auto quoted = [&](llvm::StringRef text) {
    os << '"';
    llvm::printEscapedString(text, os);
    os << '"';
  };
  std::map<std::string, std::vector<const Alias *>> byType;
  for (const auto &alias : registry.getAliases())
    if (alias->kind == AliasKind::Module)
      byType[alias->name].push_back(alias.get());
  os << "  \"module_requirements\": {";
  bool firstType = true;
  for (const auto &[type, aliases] : byType) {
    os << (firstType ? "\n    " : ",\n    ");
    firstType = false;
    quoted(type);
    os << ": [";
    for (size_t a = 0; a < aliases.size(); ++a) {
      const Alias *alias = aliases[a];
      os << (a ? ", " : "") << "{\"requires\": {";
      bool first = true;
      for (const auto &[name, literal] : alias->requirements) {
        llvm::StringRef key = name;
        if (!key.consume_front("%") || key == "training")
          continue;
        os << (first ? "" : ", ");
        first = false;
        quoted(key);
        os << ": ";
        quoted(literal);
      }
      os << "}, \"binds\": [";
      std::vector<std::string> notNone;
      first = true;
      std::string op = llvm::StringRef(alias->op).split('.').first.str();
      for (const auto &[param, value] : alias->bindings) {
        llvm::StringRef key = value;
        if (!key.consume_front("%") || key == "training")
          continue;
        os << (first ? "" : ", ");
        first = false;
        quoted(key);
        bool noneAllowed = llvm::any_of(
            registry.getOverloads(op), [&](const OpSchema *schema) {
              int i = schema->findParam(param);
              return i >= 0 && (schema->params[i].type.optional ||
                                schema->params[i].hasDefault);
            });
        if (!noneAllowed)
          notNone.push_back(key.str());
      }
      os << "], \"not_none\": [";
      for (size_t i = 0; i < notNone.size(); ++i) {
        os << (i ? ", " : "");
        quoted(notNone[i]);
      }
      os << "]}";
    }
    os << "]";
  }
  os << "\n  }\n";
}

/// Prints `{"module_types": [...], "function_names": [...],
/// "expanded_module_types": [...], "expanded_functions": [...],
/// "module_requirements": {...}}`: the names the Python package's tracer
/// keeps as calls, read before the compiler is loaded
/// (build/python/fx_mlir/_names.json).
static int printNamesJson() {
  auto &os = llvm::outs();
  auto list = [&](llvm::StringRef key, const std::vector<std::string> &names,
                  bool last) {
    os << "  \"" << key << "\": [";
    for (size_t i = 0; i < names.size(); ++i) {
      os << (i ? ", " : "") << '"';
      llvm::printEscapedString(names[i], os);
      os << '"';
    }
    os << "]" << (last ? "\n" : ",\n");
  };
  std::vector<std::string> modules, functions, expandedModules,
      expandedFunctions;
  for (const auto &alias : TargetRegistry::get().getAliases()) {
    if (alias->kind == AliasKind::Module)
      modules.push_back(alias->name);
    else if (alias->kind == AliasKind::Function)
      functions.push_back(alias->name);
  }
  for (llvm::StringRef type : getExpandedModuleTypes())
    expandedModules.push_back(type.str());
  for (llvm::StringRef name : getExpandedFunctions())
    expandedFunctions.push_back(name.str());
  os << "{\n";
  list("module_types", modules, false);
  list("function_names", functions, false);
  list("expanded_module_types", expandedModules, false);
  list("expanded_functions", expandedFunctions, false);
  printModuleRequirements(os);
  os << "}\n";
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 2 && llvm::StringRef(argv[1]) == "--names-json")
    return printNamesJson();
  if (argc != 1) {
    llvm::errs() << "usage: fx-targets [--names-json]\n";
    return 1;
  }
  const TargetRegistry &registry = TargetRegistry::get();
  // Aliases per operator name (`aten::add`), in table order.
  std::map<std::string, std::vector<const Alias *>> aliasesOf;
  for (const auto &alias : registry.getAliases()) {
    llvm::StringRef op = alias->op;
    aliasesOf[op.split('.').first.str()].push_back(alias.get());
  }
  auto &os = llvm::outs();
  size_t lowered = 0;
  for (const auto &op : registry.getOps())
    lowered += isLowerableTarget(op->qualifiedName());
  os << "# Supported targets\n\n"
     << "Generated from `include/fx-mlir/Dialect/FX/Registry/Targets.def` by "
        "`fx-targets`: "
     << registry.getOps().size() << " canonical targets (" << lowered
     << " lowered by `convert-fx-to-linalg`) and "
     << registry.getAliases().size()
     << " spellings that `fx-normalize` rewrites into them. A target that is "
        "not lowered still runs in the reference interpreter "
        "(`fx-run --interpret`).\n\n"
     << "| Canonical target | Schema | Lowered | Spellings |\n"
     << "|---|---|---|---|\n";
  for (const auto &op : registry.getOps()) {
    std::string spellings;
    for (const Alias *alias : aliasesOf[op->name]) {
      // An alias naming one overload belongs to that overload only.
      llvm::StringRef target = alias->op;
      if (target.contains('.') && target != op->qualifiedName())
        continue;
      if (!spellings.empty())
        spellings += ", ";
      spellings += "`" +
                   (alias->kind == AliasKind::Method ? "Tensor." + alias->name
                                                     : alias->name) +
                   "`";
      if (alias->kind == AliasKind::Module)
        spellings += " (module)";
    }
    std::string schema = op->text.substr(op->text.find('('));
    os << "| `" << op->qualifiedName() << "` | `" << schema << "` | "
       << (isLowerableTarget(op->qualifiedName()) ? "yes" : "no") << " | "
       << spellings << " |\n";
  }
  os << "\nAlso expanded by `fx-normalize` itself: tensor indexing "
        "(`operator.getitem` with ints, slices, `None`, `...`), "
        "`getattr(x, 'shape' | 'T' | 'mT' | 'ndim')`, `.values`/`.indices` "
        "of max/min, `torch.nn.Identity` and `torch.nn.MultiheadAttention`.\n";
  return 0;
}
