//===- ImportFolding.cpp - What the TorchScript import computes itself ---===//
//
// Values that do not depend on the inputs, computed when importing as
// TorchScript's constant propagation or torch.fx's tracer would: calls of
// constants, predicates of constants and static sizes, lists the import
// holds and mutates, and traced arithmetic on sizes kept on ints.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Dialect/FX/IR/FXOps.h"

#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>

#include <cstring>

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::torchscript;

/// Whether `v` is a constant (or a list or tuple of constants).
static bool isConstantFx(const FxValue &v) {
  if (v.kind == FxValue::Constant)
    return true;
  if (v.kind != FxValue::List && v.kind != FxValue::Tuple)
    return false;
  return llvm::all_of(v.elements,
                      [](const FxValue &e) { return isConstantFx(e); });
}

bool mlir::fx::torchscript::holdsNoTensor(const c10::TypePtr &type) {
  switch (type->kind()) {
  case c10::TypeKind::IntType:
  case c10::TypeKind::FloatType:
  case c10::TypeKind::BoolType:
  case c10::TypeKind::StringType:
  case c10::TypeKind::NoneType:
    return true;
  case c10::TypeKind::ListType:
  case c10::TypeKind::TupleType:
    return llvm::all_of(type->containedTypes(), holdsNoTensor);
  default:
    return false;
  }
}

/// A call of constants only that makes no tensor (`not False`, `"row" ==
/// "row"`, `"row" in ["batch", "row"]`, `1.0 - p` of scripted code, where
/// the module's attributes are constants) is its value, as TorchScript's
/// constant propagation and torch.fx's tracing would compute it: the
/// value the graph's run on the example inputs gave it. A branch on it
/// is then the branch taken (importIf).
bool Importer::foldConstantCall(
    torch::jit::Node *node, ArrayRef<FxValue> args,
    ArrayRef<std::pair<std::string, FxValue>> kwargs) {
  if (node->hasSideEffects() || node->isNondeterministic() ||
      node->outputs().empty())
    return false;
  // An operator that writes an argument (`lst.pop()`) is more than its
  // value.
  if (const c10::FunctionSchema *schema = node->maybeSchema();
      schema && schema->is_mutable())
    return false;
  // Strings (an assert's message formatted from a shape: `f"got
  // {x.shape}"`) are what the example run made: only messages and
  // constant comparisons read them.
  bool strings = llvm::all_of(node->outputs(), [](const torch::jit::Value *v) {
    return v->type()->kind() == c10::TypeKind::StringType;
  });
  if (!strings && (!llvm::all_of(args, [](const FxValue &a) {
        return isConstantFx(a);
      }) || !llvm::all_of(kwargs, [](const auto &kv) {
        return isConstantFx(kv.second);
      })))
    return false;
  // In a branch the example run did not take: run it on its inputs' values.
  if (!concrete.count(node->outputs()[0]) && node->maybeOperator()) {
    torch::jit::Stack stack;
    for (const torch::jit::Value *input : node->inputs()) {
      auto it = concrete.find(input);
      if (it == concrete.end())
        return false;
      stack.push_back(it->second);
    }
    try {
      node->getOperation()(stack);
    } catch (const std::exception &) {
      return false;
    }
    if (stack.size() != node->outputs().size())
      return false;
    for (size_t i = 0; i < stack.size(); ++i)
      concrete[node->outputs()[i]] = stack[i];
  }
  std::vector<FxValue> folded;
  for (const torch::jit::Value *output : node->outputs()) {
    auto it = concrete.find(output);
    if (!holdsNoTensor(output->type()) || it == concrete.end())
      return false;
    folded.push_back(constantOf(it->second, node, output->type()));
    if (!isConstantFx(folded.back()))
      return false;
  }
  for (size_t i = 0; i < folded.size(); ++i)
    values[node->outputs()[i]] = folded[i];
  return true;
}

/// Whether `v` is the same whatever the inputs' values: constants, module
/// attributes that are no tensors, the rank and static sizes of a tensor,
/// and what calls without side effects compute from those. (Its value is
/// then the example run's.)
/// Whether an imported value holds no input data: constants, sizes of
/// static dims, lists and tuples of them (a value passed into a method,
/// whose TorchScript node is the method's parameter).
static bool isStaticFx(const FxValue &value) {
  switch (value.kind) {
  case FxValue::Constant:
    return true;
  case FxValue::List:
  case FxValue::Tuple:
    return llvm::all_of(value.elements, isStaticFx);
  case FxValue::Node: {
    auto size = value.node.getDefiningOp<CallFunctionOp>();
    if (!size || size.getTarget() != "aten::size.int" ||
        size.getNumOperands() != 1 || size.getArgs().size() != 2)
      return false;
    auto type = dyn_cast<RankedTensorType>(size.getOperand(0).getType());
    auto dim = dyn_cast<IntegerAttr>(size.getArgs()[1]);
    if (!type || !dim)
      return false;
    int64_t d = dim.getInt() < 0 ? dim.getInt() + type.getRank() : dim.getInt();
    return d >= 0 && d < type.getRank() && !type.isDynamicDim(d);
  }
  default:
    return false;
  }
}

bool Importer::isStaticValue(const torch::jit::Value *v, int depth) {
  using namespace torch::jit;
  if (depth > 64)
    return false;
  if (auto it = values.find(v); it != values.end() && isStaticFx(it->second))
    return true;
  const torch::jit::Node *node = v->node();
  NodeKind kind = node->kind();
  if (kind == prim::Constant)
    return true;
  if (kind == prim::GetAttr)
    return holdsNoTensor(v->type());
  auto rankedType = [&](const torch::jit::Value *t) {
    auto it = values.find(t);
    return it != values.end() && it->second.kind == FxValue::Node
               ? dyn_cast<RankedTensorType>(it->second.node.getType())
               : RankedTensorType();
  };
  if (kind == aten::dim && node->inputs().size() == 1)
    return bool(rankedType(node->input(0)));
  if (kind == aten::size) {
    RankedTensorType type = rankedType(node->input(0));
    if (!type)
      return false;
    if (node->inputs().size() == 1)
      return type.hasStaticShape();
    std::optional<c10::IValue> dim = toIValue(node->input(1));
    if (!dim || !dim->isInt())
      return false;
    int64_t d = dim->toInt() < 0 ? dim->toInt() + type.getRank() : dim->toInt();
    return d >= 0 && d < type.getRank() && !type.isDynamicDim(d);
  }
  // An output of a branch imported in line (its predicate known): the
  // taken branch's value.
  if (kind == prim::If)
    for (const torch::jit::Block *block : node->blocks())
      if (inlinedBlocks.count(block))
        return isStaticValue(block->outputs()[v->offset()], depth + 1);
  if (node->hasSideEffects() || node->isNondeterministic() ||
      !node->blocks().empty() || !holdsNoTensor(v->type()))
    return false;
  if (const c10::FunctionSchema *schema = node->maybeSchema();
      schema && schema->is_mutable())
    return false;
  for (const torch::jit::Value *input : node->inputs())
    if (!isStaticValue(input, depth + 1))
      return false;
  return kind.is_aten() || kind == prim::ListConstruct ||
         kind == prim::TupleConstruct || kind == prim::TupleIndex ||
         kind == prim::ListUnpack || kind == prim::TupleUnpack ||
         kind == prim::unchecked_cast || kind == prim::min || kind == prim::max;
}

bool Importer::isSizeDerivedTensor(const torch::jit::Value *v, int depth) {
  using namespace torch::jit;
  if (depth > 64 || !v->type()->cast<c10::TensorType>())
    return false;
  const torch::jit::Node *node = v->node();
  NodeKind kind = node->kind();
  if (kind == prim::Constant)
    return true;
  if ((!kind.is_aten() && kind != prim::NumToTensor) ||
      node->hasSideEffects() || node->isNondeterministic() ||
      !node->blocks().empty())
    return false;
  if (const c10::FunctionSchema *schema = node->maybeSchema();
      !schema || schema->is_mutable())
    return false;
  return llvm::all_of(node->inputs(), [&](const torch::jit::Value *input) {
    return isStaticValue(input, depth + 1) ||
           isSizeDerivedTensor(input, depth + 1);
  });
}

/// Whether a mutation of the list `node` writes (its first input) can be
/// made to the list the import holds: the list was made by the graph
/// (a list display, a copy, a read of a module attribute), in `node`'s
/// block or one that holds it
/// through branches imported in line only (so the mutation happens
/// whenever the list exists).
bool Importer::mutatesHeldList(const torch::jit::Node *node) {
  // A list made here, or a module attribute's list read once in this
  // graph (torchvision 0.14's swin writes `self.shift_size` so; another
  // read of the attribute would not see the write).
  const torch::jit::Value *list = node->input(0);
  const torch::jit::Node *maker = list->node();
  if (maker->kind() == c10::prim::GetAttr) {
    for (const torch::jit::Node *other : maker->owningGraph()->nodes())
      if (other != maker && other->kind() == c10::prim::GetAttr &&
          other->input(0) == maker->input(0) &&
          other->s(c10::attr::name) == maker->s(c10::attr::name))
        return false;
  } else if (maker->kind() != c10::prim::ListConstruct &&
             maker->kind() != c10::prim::DictConstruct &&
             maker->kind() != c10::aten::dict &&
             maker->kind() != c10::aten::copy &&
             maker->kind() != c10::aten::list) {
    return false;
  }
  const torch::jit::Block *block = node->owningBlock();
  while (block != list->node()->owningBlock()) {
    if (!inlinedBlocks.count(block) || !block->owningNode())
      return false;
    block = block->owningNode()->owningBlock();
  }
  return true;
}

/// The int a 0-d tensor of traced size arithmetic holds: the operand of
/// the prim::NumToTensor.Scalar node that made it, wherever the tensor
/// was passed (a method's argument or result, a tuple's element).
std::optional<FxValue> Importer::sizeIntOf(const torch::jit::Value *v) {
  auto it = values.find(v);
  if (it == values.end() || it->second.kind != FxValue::Node)
    return std::nullopt;
  auto call = it->second.node.getDefiningOp<CallFunctionOp>();
  if (!call || call.getTarget() != "prim::NumToTensor.Scalar" ||
      call.getArgs().size() != 1)
    return std::nullopt;
  Attribute arg = call.getArgs()[0];
  if (auto ref = dyn_cast<NodeAttr>(arg)) {
    mlir::Value operand = call.getOperand(ref.getIndex());
    if (!operand.getType().isInteger(64))
      return std::nullopt;
    return FxValue::ofNode(operand);
  }
  if (!isa<IntegerAttr>(arg) || isa<BoolAttr>(arg))
    return std::nullopt;
  return FxValue::ofConstant(arg);
}

/// torch.jit.trace records the arithmetic on sizes (`c // groups` where
/// `c` is `x.size(1)`) on 0-d tensors: prim::NumToTensor of the size,
/// aten::floor_divide by a 0-d tensor constant, aten::Int back. FX keeps
/// such arithmetic on ints (operator.floordiv), which fold to constants
/// where the shapes are static: so does the import. An add, sub, rsub
/// (other - self), mul, floor_divide, div rounding down (or truncating,
/// on operands known not negative: sizes, and sums, products, quotients
/// of them) or remainder of such tensors (sizeIntOf), ints and 0-d
/// integer tensor constants is imported on the ints, its tensor made by
/// a NumToTensor of the result (dropped at the end if nothing reads it).
bool Importer::importSizeArithmetic(torch::jit::Node *node) {
  using namespace torch::jit;
  NodeKind kind = node->kind();
  auto numToTensor = [&](const FxValue &n, bool nonNegative) {
    SmallVector<mlir::Value> inputs;
    auto [args, kwargs] = callArgs({n}, {}, inputs, node);
    std::string name = uniqueName("NumToTensor");
    mlir::Value t = CallFunctionOp::create(
                        builder, nodeLoc(name, node), typeOf(node->output()),
                        name, "prim::NumToTensor.Scalar", args, kwargs, inputs)
                        .getResult();
    values[node->output()] = FxValue::ofNode(t);
    if (nonNegative)
      nonNegativeSizes.insert(t);
  };
  if (kind == prim::NumToTensor) {
    if (node->inputs().size() != 1 || !values.count(node->input(0)) ||
        node->input(0)->type()->kind() != c10::TypeKind::IntType)
      return false;
    NodeKind maker = node->input(0)->node()->kind();
    numToTensor(values.at(node->input(0)),
                maker == aten::size ||
                    maker == c10::Symbol::fromQualString("aten::numel") ||
                    maker == aten::dim || maker == aten::len);
    return true;
  }
  static const std::map<NodeKind, const char *> scalarTargets = {
      {aten::add, "aten::add.int"},
      {aten::sub, "aten::sub.int"},
      {aten::rsub, "aten::sub.int"},
      {aten::mul, "aten::mul.int"},
      {aten::floor_divide, "aten::floordiv.int"},
      {aten::div, "aten::floordiv.int"},
      {aten::remainder, "aten::remainder.int"}};
  auto target = scalarTargets.find(kind);
  if (target == scalarTargets.end() || node->outputs().size() != 1 ||
      node->inputs().size() < 2 || node->inputs().size() > 3)
    return false;
  // add/sub's alpha: 1; div's rounding mode: floor, or trunc (the same on
  // operands that are not negative, checked below).
  bool truncates = false;
  if (node->inputs().size() == 3) {
    std::optional<c10::IValue> third = toIValue(node->input(2));
    if (!third)
      return false;
    if (kind == aten::div) {
      if (!third->isString())
        return false;
      truncates = third->toStringRef() == "trunc";
      if (!truncates && third->toStringRef() != "floor")
        return false;
    } else if (!third->isInt() || third->toInt() != 1) {
      return false;
    }
  } else if (kind == aten::div) {
    return false; // true division: a float
  }
  bool anySize = false, nonNegative = true;
  FxValue operands[2];
  for (size_t i = 0; i < 2; ++i) {
    const torch::jit::Value *in = node->input(i);
    if (std::optional<FxValue> size = sizeIntOf(in)) {
      operands[i] = *size;
      anySize = true;
      nonNegative &= nonNegativeSizes.count(values.at(in).node) > 0;
      continue;
    }
    std::optional<c10::IValue> constant = toIValue(in);
    if (constant && constant->isTensor()) {
      const at::Tensor &t = constant->toTensor();
      if (t.numel() != 1 || t.dim() != 0 ||
          !c10::isIntegralType(t.scalar_type(), /*includeBool=*/false))
        return false;
      operands[i] =
          FxValue::ofConstant(builder.getI64IntegerAttr(t.item<int64_t>()));
      nonNegative &= t.item<int64_t>() >= 0;
      continue;
    }
    if (constant && constant->isInt()) {
      operands[i] =
          FxValue::ofConstant(builder.getI64IntegerAttr(constant->toInt()));
      nonNegative &= constant->toInt() >= 0;
      continue;
    }
    return false;
  }
  if (!anySize || (truncates && !nonNegative))
    return false;
  if (kind == aten::rsub) // other - self
    std::swap(operands[0], operands[1]);
  SmallVector<mlir::Value> inputs;
  auto [args, kwargs] = callArgs({operands[0], operands[1]}, {}, inputs, node);
  StringRef scalarTarget = target->second;
  std::string name =
      uniqueName(scalarTarget.drop_front(strlen("aten::")).split('.').first);
  mlir::Value result =
      CallFunctionOp::create(builder, nodeLoc(name, node), builder.getI64Type(),
                             name, scalarTarget, args, kwargs, inputs)
          .getResult();
  // Sums, products, quotients and remainders of sizes are sizes too.
  numToTensor(FxValue::ofNode(result),
              nonNegative && kind != aten::sub && kind != aten::rsub);
  return true;
}

bool Importer::importHeldDictOp(torch::jit::Node *node) {
  using namespace torch::jit;
  NodeKind kind = node->kind();
  // `OrderedDict()` in scripted code: an empty dict.
  if (kind == aten::dict && node->inputs().empty() &&
      node->outputs().size() == 1) {
    FxValue empty;
    empty.kind = FxValue::Dict;
    values[node->output()] = empty;
    return true;
  }
  if (node->inputs().empty() ||
      node->input(0)->type()->kind() != c10::TypeKind::DictType)
    return false;
  auto held = values.find(node->input(0));
  if (held == values.end() || held->second.kind != FxValue::Dict)
    return false;
  FxValue &dict = held->second;
  auto keyAt = [&](size_t i) -> Attribute {
    auto it = values.find(node->input(i));
    if (it == values.end() || it->second.kind != FxValue::Constant ||
        !isa<StringAttr, IntegerAttr>(it->second.constant))
      return {};
    return it->second.constant;
  };
  auto find = [&](Attribute key) -> std::optional<size_t> {
    for (size_t i = 0; i < dict.keys.size(); ++i)
      if (dict.keys[i] == key)
        return i;
    return std::nullopt;
  };
  if (kind == aten::len && node->inputs().size() == 1) {
    values[node->output()] = FxValue::ofConstant(
        builder.getI64IntegerAttr(int64_t(dict.keys.size())));
    return true;
  }
  if (node->inputs().size() < 2)
    return false;
  Attribute key = keyAt(1);
  if (!key)
    return false;
  std::optional<size_t> at = find(key);
  if (kind == aten::__contains__ && node->inputs().size() == 2) {
    values[node->output()] = FxValue::ofConstant(builder.getBoolAttr(bool(at)));
    return true;
  }
  if (kind == aten::__getitem__ && node->inputs().size() == 2 && at) {
    values[node->output()] = FxValue(dict.elements[*at]);
    return true;
  }
  if (kind == aten::_set_item && node->inputs().size() == 3 &&
      mutatesHeldList(node)) {
    FxValue element = values.at(node->input(2));
    if (at) {
      dict.elements[*at] = element;
    } else {
      dict.keys.push_back(key);
      dict.elements.push_back(element);
    }
    return true;
  }
  return false;
}

bool Importer::importHeldListOp(torch::jit::Node *node) {
  using namespace torch::jit;
  NodeKind kind = node->kind();
  auto input = [&](size_t i) -> FxValue & { return inputValue(node, i); };
  // A list of tensors a node made (`x.split(2, 1)`, typed as the tuple of
  // its tensors) that is copied, sliced or measured: held as the list of
  // its items (getitem nodes), as a list the import built is.
  if ((kind == aten::list || kind == aten::slice || kind == aten::len) &&
      node->inputs().size() >= 1 &&
      node->input(0)->type()->kind() == c10::TypeKind::ListType &&
      input(0).kind == FxValue::Node) {
    if (auto tuple = dyn_cast<TupleType>(input(0).node.getType())) {
      FxValue list;
      list.kind = FxValue::List;
      mlir::Value of = input(0).node;
      for (auto [i, type] : llvm::enumerate(tuple.getTypes()))
        list.elements.push_back(FxValue::ofNode(getitem(of, i, type, node)));
      input(0) = list;
    }
  }
  // `features.append(y)` of a list made in this block (densenet's list of
  // features): the list the import holds grows; readers before the append
  // read it as it was.
  if (kind == aten::append && node->inputs().size() == 2 &&
      mutatesHeldList(node)) {
    FxValue element = input(1);
    FxValue &list = input(0);
    if (list.kind == FxValue::List) {
      list.elements.push_back(element);
      values[node->output()] = list;
      return true;
    }
  }
  // `shift_size[i] = 0` (swin's shifts, on a copy of a module attribute)
  // of a list the import holds, at a constant index.
  if (kind == aten::_set_item && node->inputs().size() == 3 &&
      mutatesHeldList(node)) {
    FxValue element = input(2);
    FxValue &list = input(0);
    std::optional<c10::IValue> index = toIValue(node->input(1));
    if (list.kind == FxValue::List && index && index->isInt()) {
      int64_t n = list.elements.size(), i = index->toInt();
      if (i < 0)
        i += n;
      if (i >= 0 && i < n) {
        list.elements[i] = element;
        values[node->output()] = list;
        return true;
      }
    }
  }
  // `list(x.shape)`: a copy of a list the import holds.
  if (kind == aten::list && node->inputs().size() == 1 &&
      node->input(0)->type()->kind() == c10::TypeKind::ListType) {
    const FxValue &list = input(0);
    if (list.kind == FxValue::List) {
      values[node->output()] = list;
      return true;
    }
  }
  // A slice of constant bounds of a list the import holds (`x.shape[-3:]`,
  // `parts[::-1]`), with Python's bounds for either sign of the step.
  if (kind == aten::slice && node->inputs().size() == 4 &&
      node->input(0)->type()->kind() == c10::TypeKind::ListType) {
    const FxValue &list = input(0);
    std::optional<c10::IValue> start = toIValue(node->input(1)),
                               end = toIValue(node->input(2)),
                               step = toIValue(node->input(3));
    if (list.kind == FxValue::List && start && end && step && step->isInt() &&
        step->toInt() != 0 && (start->isInt() || start->isNone()) &&
        (end->isInt() || end->isNone())) {
      int64_t n = list.elements.size(), by = step->toInt();
      // Python's PySlice_AdjustIndices: bounds in [0, n] going up, in
      // [-1, n - 1] going down.
      auto bound = [&](const c10::IValue &v, int64_t dflt) {
        if (v.isNone())
          return dflt;
        int64_t b = v.toInt();
        if (b < 0)
          b += n;
        return by > 0 ? std::clamp<int64_t>(b, 0, n)
                      : std::clamp<int64_t>(b, -1, n - 1);
      };
      FxValue sliced;
      sliced.kind = FxValue::List;
      int64_t first = bound(*start, by > 0 ? 0 : n - 1),
              last = bound(*end, by > 0 ? n : -1);
      for (int64_t i = first; by > 0 ? i < last : i > last; i += by)
        sliced.elements.push_back(list.elements[i]);
      values[node->output()] = sliced;
      return true;
    }
  }
  // `len(features)` of a list the import holds (densenet's list of
  // features): its length.
  if (kind == aten::len && node->inputs().size() == 1) {
    const FxValue &list = input(0);
    if (list.kind == FxValue::List || list.kind == FxValue::Tuple) {
      values[node->output()] = FxValue::ofConstant(
          builder.getI64IntegerAttr(int64_t(list.elements.size())));
      return true;
    }
  }
  return false;
}
