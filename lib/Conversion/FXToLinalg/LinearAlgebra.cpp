//===- LinearAlgebra.cpp - linear, matmul, mm, bmm, addmm, t --------------===//
//
// Contractions become linalg.matmul / linalg.batch_matmul where the shapes
// are plain, and a broadcasting linalg.generic contraction otherwise
// (torch.matmul's batch broadcasting, linear's transposed weight). A bias
// initializes the accumulator, so it costs no separate pass.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::lowering;

namespace {

Value zero(Lowering &l, Type t) { return l.constant(t, 0); }

/// `a (..., m, k) x b (..., k, n)` with batch broadcasting, or, with
/// `transposeB`, `b (n, k)` (no batch). `init` (already shaped as the
/// result) is accumulated into when given.
Value contract(Lowering &l, Value a, Value b, bool transposeB, Type elem,
               Value init = {}) {
  OpBuilder &builder = l.b;
  auto at = cast<RankedTensorType>(a.getType());
  auto bt = cast<RankedTensorType>(b.getType());
  a = l.castTensor(a, elem);
  b = l.castTensor(b, elem);
  int64_t batch = std::max(at.getRank(), bt.getRank()) - 2;
  int64_t loops = batch + 3; // batch..., m, n, k
  int64_t m = batch, n = batch + 1, k = batch + 2;
  // Result sizes.
  SmallVector<OpFoldResult> sizes;
  for (int64_t i = 0; i < batch; ++i) {
    OpFoldResult chosen;
    for (auto [v, t] : {std::pair(a, at), std::pair(b, bt)}) {
      int64_t j = i - (batch - (t.getRank() - 2));
      if (j < 0)
        continue;
      if (!t.isDynamicDim(j) && t.getDimSize(j) != 1) {
        chosen = builder.getIndexAttr(t.getDimSize(j));
        break;
      }
      if (t.isDynamicDim(j) && !chosen)
        chosen = l.dim(v, j);
    }
    sizes.push_back(chosen ? chosen : builder.getIndexAttr(1));
  }
  sizes.push_back(l.dim(a, at.getRank() - 2));
  sizes.push_back(transposeB ? l.dim(b, 0) : l.dim(b, bt.getRank() - 1));
  // Plain 2-D and same-batch 3-D products use the named ops.
  if (!init)
    init = l.filled(sizes, zero(l, elem));
  if (!transposeB && at.getRank() == 2 && bt.getRank() == 2)
    return linalg::MatmulOp::create(builder, l.loc, ValueRange{a, b},
                                    ValueRange{init})
        .getResult(0);
  auto operandMap = [&](RankedTensorType t, bool isB) {
    SmallVector<AffineExpr> exprs;
    int64_t tb = t.getRank() - 2;
    if (!(isB && transposeB))
      for (int64_t j = 0; j < tb; ++j) {
        int64_t i = j + (batch - tb);
        bool broadcast =
            !t.isDynamicDim(j) && t.getDimSize(j) == 1 &&
            getConstantIntValue(sizes[i]) != std::optional<int64_t>(1);
        exprs.push_back(broadcast ? builder.getAffineConstantExpr(0)
                                  : builder.getAffineDimExpr(i));
      }
    if (!isB) {
      exprs.push_back(builder.getAffineDimExpr(m));
      exprs.push_back(builder.getAffineDimExpr(k));
    } else if (transposeB) {
      exprs.push_back(builder.getAffineDimExpr(n));
      exprs.push_back(builder.getAffineDimExpr(k));
    } else {
      exprs.push_back(builder.getAffineDimExpr(k));
      exprs.push_back(builder.getAffineDimExpr(n));
    }
    return AffineMap::get(loops, 0, exprs, builder.getContext());
  };
  SmallVector<AffineExpr> outExprs;
  for (int64_t i = 0; i < batch + 2; ++i)
    outExprs.push_back(builder.getAffineDimExpr(i));
  SmallVector<AffineMap> maps = {
      operandMap(at, false), operandMap(bt, true),
      AffineMap::get(loops, 0, outExprs, builder.getContext())};
  SmallVector<utils::IteratorType> iterators(loops,
                                             utils::IteratorType::parallel);
  iterators[k] = utils::IteratorType::reduction;
  return linalg::GenericOp::create(
             builder, l.loc, TypeRange{init.getType()}, ValueRange{a, b},
             ValueRange{init}, maps, iterators, "", "",
             [&](OpBuilder &nb, Location loc, ValueRange v) {
               Value p, s;
               if (isFloat(elem)) {
                 p = arith::MulFOp::create(nb, loc, v[0], v[1]);
                 s = arith::AddFOp::create(nb, loc, v[2], p);
               } else {
                 p = arith::MulIOp::create(nb, loc, v[0], v[1]);
                 s = arith::AddIOp::create(nb, loc, v[2], p);
               }
               linalg::YieldOp::create(nb, loc, s);
             })
      .getResult(0);
}

/// torch.matmul for every rank combination.
Value matmul(Lowering &l, Value a, Value b, Type elem) {
  int64_t ra = cast<RankedTensorType>(a.getType()).getRank();
  int64_t rb = cast<RankedTensorType>(b.getType()).getRank();
  if (ra == 0 || rb == 0)
    return {};
  if (ra == 1)
    a = l.unsqueeze(a, 0);
  if (rb == 1)
    b = l.unsqueeze(b, 1);
  Value r = contract(l, a, b, /*transposeB=*/false, elem);
  int64_t rank = cast<RankedTensorType>(r.getType()).getRank();
  if (rb == 1)
    r = l.squeeze(r, rank - 1), --rank;
  if (ra == 1)
    r = l.squeeze(r, rank - (rb == 1 ? 1 : 2));
  return r;
}

/// torch.einsum: one linalg.generic whose loops are the equation's
/// letters, each operand read through its subscripts (a letter repeated in
/// one operand reads its diagonal), the letters missing from the output
/// reduced; the body multiplies the operands and accumulates. `...` stands
/// for the same dims, right-aligned and broadcast, in every operand.
LogicalResult lowerEinsum(Lowering &l) {
  using P = args::aten::einsum;
  auto equation = dyn_cast_or_null<StringAttr>(l.arg(P::equation));
  auto list = dyn_cast_or_null<ListAttr>(l.arg(P::tensors));
  Type elem = l.resultElementType();
  if (!equation || !list || list.getElements().empty() || !elem)
    return l.fail("needs an equation and a list of tensors");
  SmallVector<Value> operands;
  for (Attribute a : list.getElements()) {
    Value t = l.tensor(a);
    if (!t)
      return failure();
    operands.push_back(l.castTensor(t, elem));
  }
  std::string text;
  for (char c : equation.getValue())
    if (c != ' ')
      text.push_back(c);
  StringRef eq(text);
  auto [lhs, rhs] = eq.split("->");
  bool explicitOutput = eq.contains("->");
  SmallVector<StringRef> inputs;
  lhs.split(inputs, ',');
  if (inputs.size() != operands.size())
    return l.fail("the equation names " + Twine(inputs.size()) +
                  " operands, got " + Twine(operands.size()));
  auto isLetter = [](char c) { return llvm::isAlpha(c); };
  // Per operand: its dims as letters; `...` becomes the letters '0'.. of
  // the broadcast dims, right-aligned ('0' is the outermost).
  int64_t ellipsisRank = 0;
  SmallVector<SmallVector<char>> subscripts;
  for (auto [spec, v] : llvm::zip(inputs, operands)) {
    int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
    int64_t letters = llvm::count_if(spec, isLetter);
    bool ellipsis = spec.contains("...");
    if (ellipsis ? letters > rank : letters != rank)
      return l.fail("subscripts '" + spec + "' do not fit a " + Twine(rank) +
                    "-D operand");
    if (ellipsis)
      ellipsisRank = std::max(ellipsisRank, rank - letters);
  }
  // The dims of `spec`, whose `...` stands for the last `own` broadcast
  // dims; false at a character that is neither a letter nor `...`.
  auto parse = [&](StringRef spec, int64_t own, SmallVector<char> &dims) {
    for (size_t i = 0; i < spec.size(); ++i) {
      if (spec.substr(i).starts_with("...")) {
        for (int64_t e = ellipsisRank - own; e < ellipsisRank; ++e)
          dims.push_back(char('0' + e));
        i += 2;
      } else if (isLetter(spec[i])) {
        dims.push_back(spec[i]);
      } else {
        (void)l.fail("unexpected '" + Twine(spec[i]) + "' in the equation");
        return false;
      }
    }
    return true;
  };
  for (auto [spec, v] : llvm::zip(inputs, operands)) {
    int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
    if (!parse(spec, rank - llvm::count_if(spec, isLetter),
               subscripts.emplace_back()))
      return failure();
  }
  SmallVector<char> output;
  if (explicitOutput) {
    if (!parse(rhs, ellipsisRank, output))
      return failure();
  } else {
    // Implicit output: the broadcast dims, then the letters used once, in
    // alphabetical order.
    for (int64_t e = 0; e < ellipsisRank; ++e)
      output.push_back(char('0' + e));
    std::map<char, int> uses;
    for (auto &dims : subscripts)
      for (char c : dims)
        if (isLetter(c))
          ++uses[c];
    for (auto [c, n] : uses)
      if (n == 1)
        output.push_back(c);
  }
  // Loops: the output's letters, then the reduced ones in order of
  // appearance. A loop's size comes from an operand dim that is not a
  // broadcast 1.
  SmallVector<char> loops(output);
  for (auto &dims : subscripts)
    for (char c : dims)
      if (!llvm::is_contained(loops, c))
        loops.push_back(c);
  for (char c : output)
    if (llvm::count(output, c) != 1 ||
        !llvm::any_of(subscripts,
                      [&](auto &dims) { return llvm::is_contained(dims, c); }))
      return l.fail("output subscript '" + Twine(c) +
                    "' must appear once and in an input");
  SmallVector<OpFoldResult> loopSizes(loops.size());
  for (auto [i, c] : llvm::enumerate(loops))
    for (auto [dims, v] : llvm::zip(subscripts, operands)) {
      auto type = cast<RankedTensorType>(v.getType());
      for (auto [d, letter] : llvm::enumerate(dims)) {
        if (letter != c)
          continue;
        bool one = !type.isDynamicDim(d) && type.getDimSize(d) == 1;
        if (!loopSizes[i] || (!one && getConstantIntValue(loopSizes[i]) ==
                                          std::optional<int64_t>(1)))
          loopSizes[i] = l.dim(v, d);
      }
    }
  MLIRContext *ctx = l.b.getContext();
  auto loopOf = [&](char c) {
    return int64_t(llvm::find(loops, c) - loops.begin());
  };
  SmallVector<AffineMap> maps;
  for (auto [dims, v] : llvm::zip(subscripts, operands)) {
    auto type = cast<RankedTensorType>(v.getType());
    SmallVector<AffineExpr> exprs;
    for (auto [d, c] : llvm::enumerate(dims)) {
      int64_t loop = loopOf(c);
      bool broadcast =
          !type.isDynamicDim(d) && type.getDimSize(d) == 1 &&
          getConstantIntValue(loopSizes[loop]) != std::optional<int64_t>(1);
      exprs.push_back(broadcast ? getAffineConstantExpr(0, ctx)
                                : getAffineDimExpr(loop, ctx));
    }
    maps.push_back(AffineMap::get(loops.size(), 0, exprs, ctx));
  }
  SmallVector<AffineExpr> outExprs;
  SmallVector<OpFoldResult> outSizes;
  for (char c : output) {
    outExprs.push_back(getAffineDimExpr(loopOf(c), ctx));
    outSizes.push_back(loopSizes[loopOf(c)]);
  }
  maps.push_back(AffineMap::get(loops.size(), 0, outExprs, ctx));
  SmallVector<utils::IteratorType> iterators;
  for (char c : loops)
    iterators.push_back(llvm::is_contained(output, c)
                            ? utils::IteratorType::parallel
                            : utils::IteratorType::reduction);
  Value init = l.filled(outSizes, zero(l, elem));
  bool isF = isFloat(elem);
  return l.replace(
      linalg::GenericOp::create(
          l.b, l.loc, TypeRange{init.getType()}, operands, ValueRange{init},
          maps, iterators, "", "",
          [&](OpBuilder &nb, Location loc, ValueRange v) {
            Value p = v[0];
            for (Value x : v.drop_front().drop_back())
              p = isF ? arith::MulFOp::create(nb, loc, p, x).getResult()
                      : arith::MulIOp::create(nb, loc, p, x).getResult();
            Value s =
                isF ? arith::AddFOp::create(nb, loc, v.back(), p).getResult()
                    : arith::AddIOp::create(nb, loc, v.back(), p).getResult();
            linalg::YieldOp::create(nb, loc, s);
          })
          .getResult(0));
}

LogicalResult lowerMatmul(Lowering &l) {
  // Parameters as aten::bmm names them, at the same positions in aten::dot and
  // 3 more.
  using P = args::aten::bmm;
  // The second factor, named differently by each of the five.
  namespace A = args::aten;
  static constexpr Param kOther = sameParam(
      A::matmul::other, A::mm::mat2, A::bmm::mat2, A::mv::vec, A::dot::tensor);
  Value a = l.tensor(P::self), b = l.tensor(kOther);
  Type elem = l.resultElementType();
  if (!a || !b || !elem)
    return l.fail("needs typed tensors");
  Value r = matmul(l, a, b, elem);
  return r ? l.replace(r) : l.fail("matmul of a 0-d tensor");
}

LogicalResult lowerLinear(Lowering &l) {
  using P = args::aten::linear;
  Value x = l.tensor(P::input), w = l.tensor(P::weight);
  Type elem = l.resultElementType();
  if (!x || !w || !elem)
    return l.fail("needs typed tensors");
  auto xt = cast<RankedTensorType>(x.getType());
  if (cast<RankedTensorType>(w.getType()).getRank() != 2 || xt.getRank() < 1)
    return l.fail("linear needs a 2-D weight");
  // A quantized linear fx-fold-quant left in reference form: in int8.
  if (elem.isF32()) {
    Value bias = l.isNone(P::bias) ? Value() : l.tensor(P::bias);
    auto biasType =
        bias ? dyn_cast<RankedTensorType>(bias.getType()) : RankedTensorType();
    if (l.isNone(P::bias) ||
        (biasType && biasType.getRank() == 1 &&
         biasType.getElementType().isF32() && biasType.hasStaticShape()))
      if (Value r = int8Linear(l, bias))
        return l.replace(r);
  }
  // Flatten the leading dims of x into one.
  SmallVector<OpFoldResult> lead;
  for (int64_t d = 0; d + 1 < xt.getRank(); ++d)
    lead.push_back(l.dim(x, d));
  Value x2 = x;
  if (xt.getRank() == 1) {
    x2 = l.unsqueeze(x, 0);
  } else if (xt.getRank() > 2) {
    SmallVector<ReassociationIndices> groups(2);
    for (int64_t d = 0; d + 1 < xt.getRank(); ++d)
      groups[0].push_back(d);
    groups[1].push_back(xt.getRank() - 1);
    x2 = tensor::CollapseShapeOp::create(l.b, l.loc, x, groups);
  }
  SmallVector<OpFoldResult> sizes = {l.dim(x2, 0), l.dim(w, 0)};
  Value init;
  if (!l.isNone(P::bias)) {
    Value bias = l.tensor(P::bias);
    if (!bias)
      return failure();
    Value zeros = l.empty(sizes, elem);
    // Broadcast the bias into the accumulator.
    auto biasType = cast<RankedTensorType>(bias.getType());
    SmallVector<AffineExpr> exprs;
    if (biasType.getRank() == 1)
      exprs.push_back(l.b.getAffineDimExpr(1));
    SmallVector<AffineMap> maps = {
        AffineMap::get(2, 0, exprs, l.b.getContext()),
        l.b.getMultiDimIdentityMap(2)};
    init =
        linalg::GenericOp::create(
            l.b, l.loc, TypeRange{zeros.getType()}, ValueRange{bias},
            ValueRange{zeros}, maps,
            SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
            "", "",
            [&](OpBuilder &nb, Location loc, ValueRange v) {
              linalg::YieldOp::create(nb, loc, l.convert(v[0], elem));
            })
            .getResult(0);
  }
  Value r = contract(l, x2, w, /*transposeB=*/true, elem, init);
  if (xt.getRank() == 1)
    return l.replace(l.squeeze(r, 0));
  if (xt.getRank() > 2) {
    lead.push_back(l.dim(w, 0));
    SmallVector<int64_t> shape;
    for (OpFoldResult s : lead)
      shape.push_back(getConstantIntValue(s).value_or(ShapedType::kDynamic));
    SmallVector<ReassociationIndices> groups(2);
    for (int64_t d = 0; d + 1 < xt.getRank(); ++d)
      groups[0].push_back(d);
    groups[1].push_back(xt.getRank() - 1);
    r = tensor::ExpandShapeOp::create(
        l.b, l.loc, RankedTensorType::get(shape, elem), r, groups, lead);
  }
  return l.replace(r);
}

/// The product of addmm's family on the lowered operands `a`, `b`:
/// mat1 @ mat2 (addmm), batches of them (baddbmm), mat @ vec (addmv), the
/// outer product of two vectors (addr), or the sum over the batches of
/// batch1 @ batch2 (addbmm); null with the reason recorded.
Value addProduct(Lowering &l, Value a, Value b, Type elem) {
  StringRef target = l.target();
  auto at = cast<RankedTensorType>(a.getType());
  auto bt = cast<RankedTensorType>(b.getType());
  auto ranks = llvm::StringSwitch<std::pair<int64_t, int64_t>>(target)
                   .Case("aten::addmv", {2, 1})
                   .Case("aten::addr", {1, 1})
                   .Cases({"aten::baddbmm", "aten::addbmm"}, {3, 3})
                   .Default({2, 2});
  auto names =
      llvm::StringSwitch<std::pair<StringRef, StringRef>>(target)
          .Case("aten::addmv", {"mat", "vec"})
          .Case("aten::addr", {"vec1", "vec2"})
          .Cases({"aten::baddbmm", "aten::addbmm"}, {"batch1", "batch2"})
          .Default({"mat1", "mat2"});
  if (at.getRank() != ranks.first || bt.getRank() != ranks.second) {
    std::string expected =
        ranks.first == ranks.second
            ? llvm::formatv("{0}-D", ranks.first).str()
            : llvm::formatv("{0}-D and {1}-D", ranks.first, ranks.second).str();
    (void)l.fail(llvm::formatv("{0} and {1} must be {2}, got {3}-D and {4}-D",
                               names.first, names.second, expected,
                               at.getRank(), bt.getRank())
                     .str());
    return {};
  }
  OpFoldResult one = l.b.getIndexAttr(1);
  if (target == "aten::addr")
    return l.elementwise(
        {l.reshape(a, {l.dim(a, 0), one}), l.reshape(b, {one, l.dim(b, 0)})},
        elem, elem, [&](OpBuilder &nb, Location loc, ValueRange v) {
          return isFloat(elem)
                     ? arith::MulFOp::create(nb, loc, v[0], v[1]).getResult()
                     : arith::MulIOp::create(nb, loc, v[0], v[1]).getResult();
        });
  // The columns of `a` meet the rows of `b` (mat1's last dim, mat2's or
  // vec's first after the batch), as PyTorch checks.
  int64_t ka = at.getDimSize(at.getRank() - 1);
  int64_t kb = bt.getDimSize(ranks.second == 1 ? 0 : bt.getRank() - 2);
  if (!ShapedType::isDynamic(ka) && !ShapedType::isDynamic(kb) && ka != kb) {
    (void)l.fail(llvm::formatv("{0}'s {1} columns do not match {2}'s {3} rows",
                               names.first, ka, names.second, kb)
                     .str());
    return {};
  }
  if (target == "aten::addmv")
    return l.reshape(
        contract(l, a, l.reshape(b, {l.dim(b, 0), one}), false, elem),
        {l.dim(a, 0)});
  if (target == "aten::addbmm") {
    // sum_i A_i B_i = [A_0 .. A_n-1] @ [B_0; ..; B_n-1]: one matrix
    // product of k * batches.
    if (at.isDynamicDim(0) || at.isDynamicDim(2)) {
      (void)l.fail("needs a static batch and depth");
      return {};
    }
    OpFoldResult depth = l.b.getIndexAttr(at.getDimSize(0) * at.getDimSize(2));
    Value wide = l.reshape(l.transpose(a, {1, 0, 2}), {l.dim(a, 1), depth});
    Value tall = l.reshape(b, {depth, l.dim(b, 2)});
    return contract(l, wide, tall, false, elem);
  }
  return contract(l, a, b, false, elem);
}

LogicalResult lowerAddmm(Lowering &l) {
  // Parameters as aten::addbmm names them, at the same positions in aten::addmm
  // and 3 more.
  using P = args::aten::addbmm;
  // addmm(input, mat1, mat2, *, beta=1, alpha=1) = beta input + alpha
  // mat1 @ mat2; the others with their products (addProduct). A beta of 0
  // leaves input out, its NaNs too, as PyTorch does.
  namespace A = args::aten;
  static constexpr Param kFirst =
      sameParam(A::addmm::mat1, A::addbmm::batch1, A::baddbmm::batch1,
                A::addmv::mat, A::addr::vec1);
  static constexpr Param kSecond =
      sameParam(A::addmm::mat2, A::addbmm::batch2, A::baddbmm::batch2,
                A::addmv::vec, A::addr::vec2);
  Value input = l.tensor(P::self), a = l.tensor(kFirst), b = l.tensor(kSecond);
  Type elem = l.resultElementType();
  if (!input || !a || !b || !elem)
    return l.fail("needs typed tensors");
  Value product = addProduct(l, a, b, elem);
  if (!product)
    return failure();
  Attribute betaAttr = l.kwarg("beta"), alphaAttr = l.kwarg("alpha");
  Value beta = betaAttr ? l.scalar(betaAttr, elem) : l.constant(elem, 1);
  Value alpha = alphaAttr ? l.scalar(alphaAttr, elem) : l.constant(elem, 1);
  auto mul = [&](OpBuilder &nb, Location loc, Value x, Value y) -> Value {
    if (isFloat(elem))
      return arith::MulFOp::create(nb, loc, x, y);
    return arith::MulIOp::create(nb, loc, x, y);
  };
  if (betaAttr && l.constFloat(betaAttr) == 0.0) {
    // The result still has input's broadcast shape with the product's.
    Value zeros = l.elementwise({input}, elem, elem,
                                [&](OpBuilder &nb, Location loc, ValueRange) {
                                  return constantOf(nb, loc, elem, 0);
                                });
    return l.replace(
        l.elementwise({zeros, product}, elem, elem,
                      [&](OpBuilder &nb, Location loc, ValueRange v) -> Value {
                        return add(nb, loc, v[0], mul(nb, loc, alpha, v[1]));
                      }));
  }
  return l.replace(
      l.elementwise({input, product}, elem, elem,
                    [&](OpBuilder &nb, Location loc, ValueRange v) -> Value {
                      return add(nb, loc, mul(nb, loc, beta, v[0]),
                                 mul(nb, loc, alpha, v[1]));
                    }));
}

LogicalResult lowerT(Lowering &l) {
  using P = args::aten::t;
  Value x = l.tensor(P::self);
  if (!x)
    return failure();
  if (cast<RankedTensorType>(x.getType()).getRank() < 2)
    return l.replace(x);
  return l.replace(l.transpose(x, {1, 0}));
}

} // namespace

void mlir::fx::lowering::addLinearAlgebraLowerings(
    llvm::StringMap<LowerFn> &t) {
  addLowering(
      t, {"aten::matmul", "aten::mm", "aten::bmm", "aten::mv", "aten::dot"},
      lowerMatmul);
  addLowering(t, {"aten::linear"}, lowerLinear);
  addLowering(t, {"aten::einsum"}, lowerEinsum);
  addLowering(t,
              {"aten::addmm", "aten::baddbmm", "aten::addmv", "aten::addr",
               "aten::addbmm"},
              lowerAddmm);
  addLowering(t, {"aten::t"}, lowerT);
}
