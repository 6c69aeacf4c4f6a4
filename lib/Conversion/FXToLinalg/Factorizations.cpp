//===- Factorizations.cpp - LU and Cholesky, and what is built on them ----===//
//
// The matrix factorizations LAPACK computes for PyTorch, as loops over
// the elements of tensors (scf.for carrying the tensors, tensor.extract
// and tensor.insert: bufferization makes the updates in place): LU with
// partial pivoting in getf2's order (the pivot the first of the largest
// magnitude; a zero pivot column left as it is and reported in `info`),
// Cholesky in potf2's order, and the forward and backward substitutions.
// On them: linalg_lu_factor(_ex), det, slogdet, logdet, inv(_ex), solve(_ex),
// cholesky(_ex). The matrices are small in practice; each batch item is
// one iteration of an outer loop. Where PyTorch raises on a singular or
// not positive-definite input (inv, solve, cholesky), the code reports it
// as it runs (Lowering::check); the `_ex` forms return `info` instead.
//
//===----------------------------------------------------------------------===//

#include "Compose.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::lowering;
using namespace mlir::fx::lowering::compose;

namespace {

using Body =
    function_ref<SmallVector<Value>(OpBuilder &, Location, Value, ValueRange)>;

/// for iv in [lo, hi): iter = body(iv, iter); the final values.
SmallVector<Value> loop(OpBuilder &b, Location loc, Value lo, Value hi,
                        ValueRange inits, Body body) {
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto op = scf::ForOp::create(
      b, loc, lo, hi, one, inits,
      [&](OpBuilder &nb, Location loc, Value iv, ValueRange iter) {
        scf::YieldOp::create(nb, loc, body(nb, loc, iv, iter));
      });
  return SmallVector<Value>(op.getResults());
}

Value idx(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}
Value get(OpBuilder &b, Location loc, Value t, ValueRange at) {
  return tensor::ExtractOp::create(b, loc, t, at);
}
Value put(OpBuilder &b, Location loc, Value v, Value t, ValueRange at) {
  return tensor::InsertOp::create(b, loc, v, t, at);
}

/// A stack of matrices (batch..., m, n) of static sizes as (B, m, n), B
/// the batch dims' product (1 without batch dims); square unless
/// `rectangular`.
struct Matrices {
  Value value;                        // (B, m, n)
  SmallVector<int64_t> batch;         // the batch dims
  int64_t count = 0, n = 0, rows = 0; // B, n and m
};

std::optional<Matrices> matricesOf(Lowering &l, Value a, Type elem,
                                   bool rectangular = false) {
  auto type = cast<RankedTensorType>(a.getType());
  if (type.getRank() < 2 || !type.hasStaticShape() || !isFloat(elem)) {
    (void)l.fail("needs float matrices of static sizes");
    return std::nullopt;
  }
  int64_t n = type.getDimSize(type.getRank() - 1),
          rows = type.getDimSize(type.getRank() - 2);
  if (rows != n && !rectangular) {
    (void)l.fail("needs square matrices");
    return std::nullopt;
  }
  Matrices m;
  m.batch.assign(type.getShape().begin(), type.getShape().end() - 2);
  m.count = 1;
  for (int64_t d : m.batch)
    m.count *= d;
  m.n = n;
  m.rows = rows;
  OpBuilder &b = l.b;
  m.value = l.reshape(
      l.castTensor(a, elem),
      {b.getIndexAttr(m.count), b.getIndexAttr(rows), b.getIndexAttr(n)});
  return m;
}

/// `x` of shape (B, tail...) as (batch..., tail...).
Value unbatched(Lowering &l, Value x, ArrayRef<int64_t> batch) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<OpFoldResult> shape;
  for (int64_t d : batch)
    shape.push_back(l.b.getIndexAttr(d));
  for (int64_t d : type.getShape().drop_front())
    shape.push_back(l.b.getIndexAttr(d));
  return l.reshape(x, shape);
}

struct LU {
  Value lu;     // (B, m, n): L below the diagonal (unit), U on and above
  Value pivots; // (B, min(m, n)) i32, 1-based: row k was swapped with
                // pivots[k]
  Value info;   // (B) i32: the first zero pivot's column + 1, else 0
};

/// getf2: for each column k < min(m, n), the row p >= k of the largest |a[p,
/// k]| (the first of them) is swapped with row k unless that value is 0 (info
/// records the first such column), the column below the pivot divided by
/// it, and the trailing matrix updated: a[i, j] -= a[i, k] * a[k, j].
LU luFactor(Lowering &l, const Matrices &m) {
  OpBuilder &b = l.b;
  Location loc = l.loc;
  Type elem = cast<RankedTensorType>(m.value.getType()).getElementType();
  Type i32 = b.getI32Type();
  int64_t n = m.n, rows = m.rows, steps = std::min(rows, n);
  Value pivots = l.filled({b.getIndexAttr(m.count), b.getIndexAttr(steps)},
                          l.constant(i32, 0));
  Value info = l.filled({b.getIndexAttr(m.count)}, l.constant(i32, 0));
  Value zero = idx(b, loc, 0), nIdx = idx(b, loc, n), mIdx = idx(b, loc, rows),
        count = idx(b, loc, m.count);
  SmallVector<Value> r = loop(
      b, loc, zero, count, {m.value, pivots, info},
      [&](OpBuilder &b, Location loc, Value bi, ValueRange it) {
        return loop(
            b, loc, idx(b, loc, 0), idx(b, loc, steps), it,
            [&](OpBuilder &b, Location loc, Value k,
                ValueRange it) -> SmallVector<Value> {
              Value a = it[0], piv = it[1], inf = it[2];
              Value one = idx(b, loc, 1);
              Value kNext = arith::AddIOp::create(b, loc, k, one);
              // The pivot row.
              SmallVector<Value> best =
                  loop(b, loc, k, mIdx, {constantOf(b, loc, elem, -1), k},
                       [&](OpBuilder &b, Location loc, Value i, ValueRange it) {
                         Value v = math::AbsFOp::create(
                             b, loc, get(b, loc, a, {bi, i, k}));
                         Value take = arith::CmpFOp::create(
                             b, loc, arith::CmpFPredicate::OGT, v, it[0]);
                         return SmallVector<Value>{
                             arith::SelectOp::create(b, loc, take, v, it[0]),
                             arith::SelectOp::create(b, loc, take, i, it[1])};
                       });
              Value p = best[1];
              Value pivot = get(b, loc, a, {bi, p, k});
              Value nonzero =
                  arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE,
                                        pivot, constantOf(b, loc, elem, 0));
              Value p1 = arith::IndexCastOp::create(
                  b, loc, i32, arith::AddIOp::create(b, loc, p, one));
              piv = put(b, loc,
                        arith::SelectOp::create(
                            b, loc, nonzero, p1,
                            arith::IndexCastOp::create(b, loc, i32, kNext))
                            .getResult(),
                        piv, {bi, k});
              Value old = get(b, loc, inf, {bi});
              Value first = arith::AndIOp::create(
                  b, loc,
                  arith::XOrIOp::create(
                      b, loc, nonzero,
                      arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1)),
                  arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, old,
                                        constantOf(b, loc, i32, 0)));
              inf = put(b, loc,
                        arith::SelectOp::create(
                            b, loc, first,
                            arith::IndexCastOp::create(b, loc, i32, kNext), old)
                            .getResult(),
                        inf, {bi});
              // Swap rows k and p (when the pivot is nonzero).
              Value row = arith::SelectOp::create(b, loc, nonzero, p, k);
              a = loop(
                  b, loc, idx(b, loc, 0), nIdx, {a},
                  [&](OpBuilder &b, Location loc, Value j, ValueRange it) {
                    Value x = get(b, loc, it[0], {bi, k, j});
                    Value y = get(b, loc, it[0], {bi, row, j});
                    Value t = put(b, loc, y, it[0], {bi, k, j});
                    return SmallVector<Value>{put(b, loc, x, t, {bi, row, j})};
                  })[0];
              // Scale the column below the pivot, update the rest.
              Value d = get(b, loc, a, {bi, k, k});
              a = loop(b, loc, kNext, mIdx, {a},
                       [&](OpBuilder &b, Location loc, Value i, ValueRange it) {
                         Value x = get(b, loc, it[0], {bi, i, k});
                         Value q = arith::SelectOp::create(
                             b, loc, nonzero,
                             arith::DivFOp::create(b, loc, x, d), x);
                         Value t = put(b, loc, q, it[0], {bi, i, k});
                         return loop(b, loc, kNext, nIdx, {t},
                                     [&](OpBuilder &b, Location loc, Value j,
                                         ValueRange it) {
                                       Value u = get(b, loc, it[0], {bi, k, j});
                                       Value v = get(b, loc, it[0], {bi, i, j});
                                       Value w = arith::SubFOp::create(
                                           b, loc, v,
                                           arith::MulFOp::create(b, loc, q, u));
                                       return SmallVector<Value>{
                                           put(b, loc, w, it[0], {bi, i, j})};
                                     });
                       })[0];
              return {a, piv, inf};
            });
      });
  return {r[0], r[1], r[2]};
}

/// Solves M X = rhs for each batch item, rhs (B, n, k) and M = T or (with
/// `transposed`) T^T, T (B, n, n) taken as triangular: its lower part
/// when `lower`, else its upper part, with a diagonal of ones when `unit`.
/// M lower is solved forward, x[i] = (b[i] - sum_{j < i} m[i, j] x[j]) /
/// m[i, i], M upper backward.
Value triangularSolve(Lowering &l, Value t, Value rhs, bool lower,
                      bool transposed, bool unit) {
  OpBuilder &b = l.b;
  Location loc = l.loc;
  auto type = cast<RankedTensorType>(rhs.getType());
  int64_t count = type.getDimSize(0), n = type.getDimSize(1),
          k = type.getDimSize(2);
  bool forward = lower != transposed;
  return loop(
      b, loc, idx(b, loc, 0), idx(b, loc, count), {rhs},
      [&](OpBuilder &b, Location loc, Value bi, ValueRange it) {
        auto m = [&](OpBuilder &b, Value i, Value j) {
          return transposed ? get(b, loc, t, {bi, j, i})
                            : get(b, loc, t, {bi, i, j});
        };
        return loop(
            b, loc, idx(b, loc, 0), idx(b, loc, n), it,
            [&](OpBuilder &b, Location loc, Value r, ValueRange it) {
              Value i =
                  forward ? r
                          : arith::SubIOp::create(b, loc, idx(b, loc, n - 1), r)
                                .getResult();
              Value lo = forward
                             ? idx(b, loc, 0)
                             : arith::AddIOp::create(b, loc, i, idx(b, loc, 1))
                                   .getResult();
              Value hi = forward ? i : idx(b, loc, n);
              return loop(
                  b, loc, idx(b, loc, 0), idx(b, loc, k), it,
                  [&](OpBuilder &b, Location loc, Value c, ValueRange it) {
                    Value s = loop(
                        b, loc, lo, hi, {get(b, loc, it[0], {bi, i, c})},
                        [&](OpBuilder &b, Location loc, Value j,
                            ValueRange acc) {
                          Value xj = get(b, loc, it[0], {bi, j, c});
                          return SmallVector<Value>{arith::SubFOp::create(
                              b, loc, acc[0],
                              arith::MulFOp::create(b, loc, m(b, i, j), xj))};
                        })[0];
                    if (!unit)
                      s = arith::DivFOp::create(b, loc, s, m(b, i, i));
                    return SmallVector<Value>{
                        put(b, loc, s, it[0], {bi, i, c})};
                  });
            });
      })[0];
}

/// The row swaps of LU pivots (B, p), 1-based, applied to x (B, n, k) in
/// order (row r with row pivots[r] - 1), or in reverse order to undo them.
Value applySwaps(Lowering &l, Value pivots, Value x, bool reverse) {
  OpBuilder &b = l.b;
  Location loc = l.loc;
  auto type = cast<RankedTensorType>(x.getType());
  int64_t count = type.getDimSize(0), k = type.getDimSize(2),
          steps = cast<RankedTensorType>(pivots.getType()).getDimSize(1);
  return loop(
      b, loc, idx(b, loc, 0), idx(b, loc, count), {x},
      [&](OpBuilder &b, Location loc, Value bi, ValueRange it) {
        return loop(
            b, loc, idx(b, loc, 0), idx(b, loc, steps), it,
            [&](OpBuilder &b, Location loc, Value q, ValueRange it) {
              Value r =
                  reverse
                      ? arith::SubIOp::create(b, loc, idx(b, loc, steps - 1), q)
                            .getResult()
                      : q;
              Value p1 = get(b, loc, pivots, {bi, r});
              Value p = arith::SubIOp::create(
                  b, loc,
                  arith::IndexCastOp::create(b, loc, b.getIndexType(), p1),
                  idx(b, loc, 1));
              // A pivot outside the rows (a corrupt pivots tensor) is
              // clamped: never memory outside x.
              p = clampIndex(b, loc, p, idx(b, loc, type.getDimSize(1)));
              return loop(
                  b, loc, idx(b, loc, 0), idx(b, loc, k), it,
                  [&](OpBuilder &b, Location loc, Value c, ValueRange it) {
                    Value u = get(b, loc, it[0], {bi, r, c});
                    Value v = get(b, loc, it[0], {bi, p, c});
                    Value t = put(b, loc, v, it[0], {bi, r, c});
                    return SmallVector<Value>{put(b, loc, u, t, {bi, p, c})};
                  });
            });
      })[0];
}

/// Solves A X = rhs (or A^T X = rhs when `adjoint`) given A's LU (P A = L
/// U): the row swaps, L y = b forward (unit diagonal), U x = y backward;
/// adjoint: U^T y = b, L^T z = y, then the swaps undone.
Value luSolve(Lowering &l, Value lu, Value pivots, Value rhs,
              bool adjoint = false) {
  if (!adjoint) {
    Value x = applySwaps(l, pivots, rhs, /*reverse=*/false);
    x = triangularSolve(l, lu, x, /*lower=*/true, false, /*unit=*/true);
    return triangularSolve(l, lu, x, /*lower=*/false, false, false);
  }
  Value x = triangularSolve(l, lu, rhs, /*lower=*/false, true, false);
  x = triangularSolve(l, lu, x, /*lower=*/true, true, /*unit=*/true);
  return applySwaps(l, pivots, x, /*reverse=*/true);
}

/// The matrices `a` (..., n, n) and right-hand sides `rhs` (..., n, k)
/// with their batch dims broadcast, as (B, n, n) and (B, n, k); the
/// broadcast batch dims in `batch`.
std::optional<std::pair<Value, Value>>
broadcastSystems(Lowering &l, Value a, Value rhs, Type elem,
                 SmallVector<int64_t> &batch) {
  auto aType = cast<RankedTensorType>(a.getType());
  auto rType = cast<RankedTensorType>(rhs.getType());
  if (aType.getRank() < 2 || rType.getRank() < 2 || !aType.hasStaticShape() ||
      !rType.hasStaticShape()) {
    (void)l.fail("needs matrices of static sizes");
    return std::nullopt;
  }
  int64_t n = aType.getDimSize(aType.getRank() - 1);
  if (aType.getDimSize(aType.getRank() - 2) != n ||
      rType.getDimSize(rType.getRank() - 2) != n) {
    (void)l.fail("needs square matrices and as many rows in B");
    return std::nullopt;
  }
  int64_t k = rType.getDimSize(rType.getRank() - 1);
  SmallVector<int64_t> batchA(aType.getShape().drop_back(2)),
      batchB(rType.getShape().drop_back(2));
  batch.clear();
  int64_t dims = std::max(batchA.size(), batchB.size());
  for (int64_t i = 0; i < dims; ++i) {
    int64_t x = i < dims - int64_t(batchA.size())
                    ? 1
                    : batchA[i - (dims - batchA.size())];
    int64_t y = i < dims - int64_t(batchB.size())
                    ? 1
                    : batchB[i - (dims - batchB.size())];
    if (x != y && x != 1 && y != 1) {
      (void)l.fail("the batch dims of A and B do not broadcast");
      return std::nullopt;
    }
    batch.push_back(std::max(x, y));
  }
  int64_t count = 1;
  for (int64_t d : batch)
    count *= d;
  OpBuilder &b = l.b;
  auto expanded = [&](Value x, int64_t cols) -> Value {
    SmallVector<int64_t> shape(batch);
    shape.push_back(n);
    shape.push_back(cols);
    Value e = l.lowerCall("aten::expand", {ref(l, 0), ints(l, shape)},
                          {l.castTensor(x, elem)}, tensorOf(elem));
    if (!e)
      return e;
    return l.reshape(
        e, {b.getIndexAttr(count), b.getIndexAttr(n), b.getIndexAttr(cols)});
  };
  Value ea = expanded(a, n), er = expanded(rhs, k);
  if (!ea || !er)
    return std::nullopt;
  return std::make_pair(ea, er);
}

/// The last two dims of `x` swapped.
Value swapLast(Lowering &l, Value x) {
  int64_t r = rankOf(x);
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, r));
  std::swap(perm[r - 1], perm[r - 2]);
  return l.transpose(x, perm);
}

/// The n x n identity matrix.
Value identity(Lowering &l, int64_t n, Type elem) {
  return l.identityMatrix(l.b.getIndexAttr(n), l.b.getIndexAttr(n), elem);
}

/// A copy of `x`: the loops update their operand, which may be the
/// caller's tensor.
Value copyOf(Lowering &l, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  return l.elementwise(
      {x}, type.getElementType(), type.getElementType(),
      [](OpBuilder &, Location, ValueRange v) { return v[0]; });
}

/// Reports a nonzero `info` (B) as an error of the node when it runs.
void checkInfo(Lowering &l, Value info, const Twine &message) {
  Value bad = l.elementwise(
      {info}, l.b.getI32Type(), l.b.getI1Type(),
      [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
        return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v[0],
                                     constantOf(b, loc, b.getI32Type(), 0));
      });
  l.check(bad, message);
}

/// linalg_lu_factor(A, pivot) -> (LU, pivots);
/// linalg_lu_factor_ex(A, pivot, check_errors) -> (LU, pivots, info).
LogicalResult lowerLuFactor(Lowering &l) {
  // Parameters as aten::linalg_lu_factor names them, at the same positions in
  // aten::linalg_lu_factor_ex.
  using P = args::aten::linalg_lu_factor;
  Value a = l.tensor(P::A);
  Type elem = l.resultElementType(0);
  if (!a || !elem)
    return l.fail("needs a typed tensor");
  Attribute pivot = l.kwarg("pivot");
  if (pivot && l.constBool(pivot) != std::optional<bool>(true))
    return l.fail("only pivot=True is supported");
  auto m = matricesOf(l, a, elem, /*rectangular=*/true);
  if (!m)
    return failure();
  LU f = luFactor(l, {copyOf(l, m->value), m->batch, m->count, m->n, m->rows});
  SmallVector<Value> parts = {unbatched(l, f.lu, m->batch),
                              unbatched(l, f.pivots, m->batch)};
  if (l.target() == "aten::linalg_lu_factor_ex")
    parts.push_back(unbatched(l, f.info, m->batch));
  return l.replaceTuple(parts);
}

/// The product of U's diagonal and the sign of the row permutation (sign:
/// -1 for each pivots[k] != k + 1), per matrix: (prod or sign*prod,
/// sum of log|u_kk|, sign) as (B) tensors.
struct Diagonal {
  Value det, logabs, sign;
};
Diagonal diagonalOf(Lowering &l, const LU &f, int64_t count, int64_t n,
                    Type elem) {
  OpBuilder &b = l.b;
  Location loc = l.loc;
  Value det = l.filled({b.getIndexAttr(count)}, l.constant(elem, 1));
  Value logabs = l.filled({b.getIndexAttr(count)}, l.constant(elem, 0));
  Value sign = l.filled({b.getIndexAttr(count)}, l.constant(elem, 1));
  SmallVector<Value> r = loop(
      b, loc, idx(b, loc, 0), idx(b, loc, count), {det, logabs, sign},
      [&](OpBuilder &b, Location loc, Value bi, ValueRange it) {
        SmallVector<Value> acc = loop(
            b, loc, idx(b, loc, 0), idx(b, loc, n),
            {constantOf(b, loc, elem, 1), constantOf(b, loc, elem, 0),
             constantOf(b, loc, elem, 1), constantOf(b, loc, elem, 1)},
            [&](OpBuilder &b, Location loc, Value k, ValueRange acc) {
              Value u = get(b, loc, f.lu, {bi, k, k});
              Value p = get(b, loc, f.pivots, {bi, k});
              Value k1 = arith::IndexCastOp::create(
                  b, loc, b.getI32Type(),
                  arith::AddIOp::create(b, loc, k, idx(b, loc, 1)));
              Value swapped = arith::CmpIOp::create(
                  b, loc, arith::CmpIPredicate::ne, p, k1);
              Value flip = arith::SelectOp::create(b, loc, swapped,
                                                   constantOf(b, loc, elem, -1),
                                                   constantOf(b, loc, elem, 1));
              // sign(u): -1, 0 or 1.
              Value positive =
                  arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, u,
                                        constantOf(b, loc, elem, 0));
              Value negative =
                  arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, u,
                                        constantOf(b, loc, elem, 0));
              Value su = arith::SelectOp::create(
                  b, loc, positive, constantOf(b, loc, elem, 1),
                  arith::SelectOp::create(b, loc, negative,
                                          constantOf(b, loc, elem, -1),
                                          constantOf(b, loc, elem, 0)));
              return SmallVector<Value>{
                  arith::MulFOp::create(b, loc, acc[0], u),
                  arith::AddFOp::create(
                      b, loc, acc[1],
                      math::LogOp::create(b, loc,
                                          math::AbsFOp::create(b, loc, u))),
                  arith::MulFOp::create(b, loc, acc[2], su),
                  arith::MulFOp::create(b, loc, acc[3], flip)};
            });
        Value perm = acc[3];
        return SmallVector<Value>{
            put(b, loc, arith::MulFOp::create(b, loc, acc[0], perm), it[0],
                {bi}),
            put(b, loc, acc[1], it[1], {bi}),
            put(b, loc, arith::MulFOp::create(b, loc, acc[2], perm), it[2],
                {bi})};
      });
  return {r[0], r[1], r[2]};
}

/// det, linalg_det, slogdet, linalg_slogdet, logdet: from the LU of each
/// matrix; logdet is NaN where the determinant is negative.
LogicalResult lowerDeterminant(Lowering &l) {
  Value a = l.subject();
  Type elem = l.resultElementType(0);
  if (!a || !elem)
    return l.fail("needs a typed tensor");
  auto m = matricesOf(l, a, elem);
  if (!m)
    return failure();
  LU f = luFactor(l, {copyOf(l, m->value), m->batch, m->count, m->n, m->n});
  Diagonal d = diagonalOf(l, f, m->count, m->n, elem);
  StringRef target = l.target();
  if (target == "aten::det" || target == "aten::linalg_det")
    return l.replace(unbatched(l, d.det, m->batch));
  if (target == "aten::logdet") {
    Value r = l.elementwise(
        {d.sign, d.logabs}, elem, elem,
        [&](OpBuilder &b, Location loc, ValueRange v) -> Value {
          Value negative =
              arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, v[0],
                                    constantOf(b, loc, elem, -1));
          return arith::SelectOp::create(b, loc, negative,
                                         constantOf(b, loc, elem, NAN), v[1]);
        });
    return l.replace(unbatched(l, r, m->batch));
  }
  return l.replaceTuple(
      {unbatched(l, d.sign, m->batch), unbatched(l, d.logabs, m->batch)});
}

/// linalg_solve(A, B, left) and linalg_solve_ex: B a vector (1-D, or A's
/// shape without its last dim) or matrices; batch dims broadcast. left =
/// False solves X A = B as A^T X^T = B^T. inv(A) and linalg_inv(_ex) solve
/// A X = I.
LogicalResult lowerSolve(Lowering &l) {
  Value a = l.subject();
  StringRef target = l.target();
  bool inverse = target.contains("inv");
  bool ex = target.ends_with("_ex");
  Type elem = l.resultElementType(0);
  if (!a || !elem || !isFloat(elem))
    return l.fail("needs typed float tensors");
  static constexpr Param kB =
      sameParam(args::aten::linalg_solve::B, args::aten::linalg_solve_ex::B);
  static constexpr Param kLeft = sameParam(args::aten::linalg_solve::left,
                                           args::aten::linalg_solve_ex::left);
  Attribute leftAttr = inverse ? Attribute() : l.arg(kLeft);
  auto left = leftAttr ? l.constBool(leftAttr) : std::optional<bool>(true);
  if (!left)
    return l.fail("left must be a constant");
  auto aType = cast<RankedTensorType>(a.getType());
  if (aType.getRank() < 2 || !aType.hasStaticShape())
    return l.fail("needs matrices of static sizes");
  int64_t rank = aType.getRank(), n = aType.getDimSize(rank - 1);
  a = l.castTensor(a, elem);
  Value rhs;
  bool vector = false;
  if (inverse) {
    rhs = identity(l, n, elem);
  } else {
    rhs = l.tensor(kB);
    if (!rhs)
      return failure();
    auto bType = cast<RankedTensorType>(rhs.getType());
    if (!bType.hasStaticShape())
      return l.fail("needs static sizes");
    vector = bType.getRank() == 1 ||
             (bType.getRank() == rank - 1 &&
              bType.getShape() == aType.getShape().drop_back());
    rhs = l.castTensor(rhs, elem);
  }
  if (!*left)
    a = swapLast(l, a);
  if (vector)
    rhs = l.unsqueeze(rhs, rankOf(rhs));
  else if (!*left)
    rhs = swapLast(l, rhs);
  SmallVector<int64_t> batch;
  auto systems = broadcastSystems(l, a, rhs, elem, batch);
  if (!systems)
    return failure();
  auto m = matricesOf(l, systems->first, elem);
  if (!m)
    return failure();
  LU f = luFactor(l, {copyOf(l, m->value), m->batch, m->count, m->n, m->n});
  Value x = luSolve(l, f.lu, f.pivots, copyOf(l, systems->second));
  x = unbatched(l, x, batch);
  if (vector)
    x = l.squeeze(x, rankOf(x) - 1);
  else if (!*left)
    x = swapLast(l, x);
  Value info = unbatched(l, f.info, batch);
  if (!ex) {
    checkInfo(l, f.info,
              inverse ? "torch.linalg.inv: The diagonal element of U is zero, "
                        "the inversion could not be completed because the "
                        "input matrix is singular."
                      : "torch.linalg.solve: The solver failed because the "
                        "input matrix is singular.");
    return l.replace(x);
  }
  return l.replaceTuple({x, info});
}

/// linalg_cholesky(A, upper), linalg_cholesky_ex (with info), cholesky(A,
/// upper): potf2, column by column: l[j, j] = sqrt(a[j, j] - sum_k<j
/// l[j, k]^2), l[i, j] = (a[i, j] - sum_k<j l[i, k] l[j, k]) / l[j, j];
/// info is the first j whose pivot is not positive. Zeros above the
/// diagonal; `upper` gives the transpose.
LogicalResult lowerCholesky(Lowering &l) {
  // Parameters as aten::cholesky names them, at the same positions in
  // aten::linalg_cholesky, aten::linalg_cholesky_ex.
  using P = args::aten::cholesky;
  Value a = l.tensor(P::self);
  Type elem = l.resultElementType(0);
  if (!a || !elem)
    return l.fail("needs a typed tensor");
  StringRef target = l.target();
  static constexpr Param kUpper =
      sameParam(args::aten::linalg_cholesky::upper,
                args::aten::linalg_cholesky_ex::upper);
  Attribute upperAttr =
      target == "aten::cholesky" ? l.arg(P::upper) : l.arg(kUpper);
  auto upper = upperAttr && !l.isNone(upperAttr) ? l.constBool(upperAttr)
                                                 : std::optional<bool>(false);
  if (!upper)
    return l.fail("upper must be a constant");
  auto m = matricesOf(l, a, elem);
  if (!m)
    return failure();
  OpBuilder &b = l.b;
  Location loc = l.loc;
  int64_t n = m->n;
  Type i32 = b.getI32Type();
  Value lower =
      l.filled({b.getIndexAttr(m->count), b.getIndexAttr(n), b.getIndexAttr(n)},
               l.constant(elem, 0));
  Value info = l.filled({b.getIndexAttr(m->count)}, l.constant(i32, 0));
  Value nIdx = idx(b, loc, n);
  SmallVector<Value> r = loop(
      b, loc, idx(b, loc, 0), idx(b, loc, m->count), {lower, info},
      [&](OpBuilder &b, Location loc, Value bi, ValueRange it) {
        return loop(
            b, loc, idx(b, loc, 0), nIdx, it,
            [&](OpBuilder &b, Location loc, Value j,
                ValueRange it) -> SmallVector<Value> {
              Value L = it[0], inf = it[1];
              auto dotTo = [&](Value i, Value start) {
                return loop(
                    b, loc, idx(b, loc, 0), j, {start},
                    [&](OpBuilder &b, Location loc, Value k, ValueRange acc) {
                      Value x = get(b, loc, L, {bi, i, k});
                      Value y = get(b, loc, L, {bi, j, k});
                      return SmallVector<Value>{arith::SubFOp::create(
                          b, loc, acc[0], arith::MulFOp::create(b, loc, x, y))};
                    })[0];
              };
              Value s = dotTo(j, get(b, loc, m->value, {bi, j, j}));
              Value bad =
                  arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ULE, s,
                                        constantOf(b, loc, elem, 0));
              Value old = get(b, loc, inf, {bi});
              Value first = arith::AndIOp::create(
                  b, loc, bad,
                  arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, old,
                                        constantOf(b, loc, i32, 0)));
              Value j1 = arith::IndexCastOp::create(
                  b, loc, i32,
                  arith::AddIOp::create(b, loc, j, idx(b, loc, 1)));
              inf = put(
                  b, loc,
                  arith::SelectOp::create(b, loc, first, j1, old).getResult(),
                  inf, {bi});
              Value d = math::SqrtOp::create(b, loc, s);
              L = put(b, loc, d, L, {bi, j, j});
              L = loop(b, loc, arith::AddIOp::create(b, loc, j, idx(b, loc, 1)),
                       nIdx, {L},
                       [&](OpBuilder &b, Location loc, Value i, ValueRange it) {
                         Value t = loop(
                             b, loc, idx(b, loc, 0), j,
                             {get(b, loc, m->value, {bi, i, j})},
                             [&](OpBuilder &b, Location loc, Value k,
                                 ValueRange acc) {
                               Value x = get(b, loc, it[0], {bi, i, k});
                               Value y = get(b, loc, it[0], {bi, j, k});
                               return SmallVector<Value>{arith::SubFOp::create(
                                   b, loc, acc[0],
                                   arith::MulFOp::create(b, loc, x, y))};
                             })[0];
                         return SmallVector<Value>{
                             put(b, loc, arith::DivFOp::create(b, loc, t, d),
                                 it[0], {bi, i, j})};
                       })[0];
              return {L, inf};
            });
      });
  Value out = r[0];
  if (*upper)
    out = l.transpose(out, {0, 2, 1});
  out = unbatched(l, out, m->batch);
  if (target == "aten::linalg_cholesky_ex")
    return l.replaceTuple({out, unbatched(l, r[1], m->batch)});
  checkInfo(l, r[1],
            "torch.linalg.cholesky: The factorization could not be completed "
            "because the input is not positive-definite.");
  return l.replace(out);
}

/// linalg_lu_solve(LU, pivots, B, left, adjoint) and lu_solve(B, LU,
/// pivots): A X = B from A's LU (A^H X = B with adjoint; X A = B, i.e.
/// A^T X^T = B^T, without left), batch dims broadcast.
LogicalResult lowerLuSolve(Lowering &l) {
  using Legacy = args::aten::lu_solve;
  using Linalg = args::aten::linalg_lu_solve;
  bool legacy = l.target() == Legacy::target;
  Value lu = l.tensor(legacy ? Legacy::LU_data : Linalg::LU),
        pivots = l.tensor(legacy ? Legacy::LU_pivots : Linalg::pivots),
        rhs = l.tensor(legacy ? Legacy::self : Linalg::B);
  Type elem = l.resultElementType();
  if (!lu || !pivots || !rhs || !elem || !isFloat(elem))
    return l.fail("needs typed float tensors");
  auto flag = [&](Param p, bool otherwise) -> std::optional<bool> {
    Attribute a = legacy ? Attribute() : l.arg(p);
    return a ? l.constBool(a) : std::optional<bool>(otherwise);
  };
  auto left = flag(Linalg::left, true), adjoint = flag(Linalg::adjoint, false);
  if (!left || !adjoint)
    return l.fail("left and adjoint must be constants");
  bool transposedSystem = *adjoint;
  if (!*left) {
    rhs = swapLast(l, rhs);
    transposedSystem = !transposedSystem;
  }
  SmallVector<int64_t> batch;
  auto systems = broadcastSystems(l, lu, rhs, elem, batch);
  if (!systems)
    return failure();
  auto pType = cast<RankedTensorType>(pivots.getType());
  int64_t n = staticDim(systems->first, 1);
  SmallVector<int64_t> pShape(batch);
  pShape.push_back(n);
  if (!pType.hasStaticShape() || pType.getDimSize(pType.getRank() - 1) != n)
    return l.fail("needs one pivot per row");
  Value p = l.lowerCall("aten::expand", {ref(l, 0), ints(l, pShape)},
                        {l.castTensor(pivots, l.b.getI32Type())},
                        tensorOf(l.b.getI32Type()));
  if (!p)
    return failure();
  OpBuilder &b = l.b;
  p = l.reshape(
      p, {b.getIndexAttr(staticDim(systems->first, 0)), b.getIndexAttr(n)});
  Value x = luSolve(l, systems->first, p, copyOf(l, systems->second),
                    transposedSystem);
  x = unbatched(l, x, batch);
  return l.replace(*left ? x : swapLast(l, x));
}

/// cholesky_solve(B, L, upper) solves (L L^T) X = B (U^T U with upper) by
/// two triangular solves; cholesky_inverse(L, upper) is that with B = I.
LogicalResult lowerCholeskySolve(Lowering &l) {
  using Inverse = args::aten::cholesky_inverse;
  using Solve = args::aten::cholesky_solve;
  bool inverse = l.target() == Inverse::target;
  Value factor = l.tensor(inverse ? Inverse::self : Solve::input2);
  Type elem = l.resultElementType();
  if (!factor || !elem || !isFloat(elem))
    return l.fail("needs typed float tensors");
  auto upper = l.constBool(inverse ? Inverse::upper : Solve::upper);
  if (!upper)
    return l.fail("upper must be a constant");
  Value rhs;
  if (inverse) {
    rhs = identity(l, staticDim(factor, rankOf(factor) - 1), elem);
  } else {
    rhs = l.tensor(Solve::self);
    if (!rhs)
      return failure();
  }
  SmallVector<int64_t> batch;
  auto systems = broadcastSystems(l, factor, rhs, elem, batch);
  if (!systems)
    return failure();
  Value t = systems->first, x = copyOf(l, systems->second);
  if (*upper) {
    x = triangularSolve(l, t, x, /*lower=*/false, /*transposed=*/true, false);
    x = triangularSolve(l, t, x, /*lower=*/false, /*transposed=*/false, false);
  } else {
    x = triangularSolve(l, t, x, /*lower=*/true, /*transposed=*/false, false);
    x = triangularSolve(l, t, x, /*lower=*/true, /*transposed=*/true, false);
  }
  return l.replace(unbatched(l, x, batch));
}

/// linalg_solve_triangular(A, B, upper, left, unitriangular) and
/// triangular_solve(B, A, upper, transpose, unitriangular) -> (X, A):
/// one triangular solve (X A = B as A^T X^T = B^T without left).
LogicalResult lowerTriangularSolve(Lowering &l) {
  using Legacy = args::aten::triangular_solve;
  using Linalg = args::aten::linalg_solve_triangular;
  bool legacy = l.target() == "aten::triangular_solve";
  Value a = legacy ? l.tensor(Legacy::A) : l.tensor(Linalg::self),
        rhs = legacy ? l.tensor(Legacy::self) : l.tensor(Linalg::B);
  Type elem = l.resultElementType(0);
  if (!a || !rhs || !elem || !isFloat(elem))
    return l.fail("needs typed float tensors");
  std::optional<bool> upper, left = true, transpose = false, unit;
  if (legacy) {
    upper = l.constBool(Legacy::upper);
    transpose = l.constBool(Legacy::transpose);
    unit = l.constBool(Legacy::unitriangular);
  } else {
    upper = l.constBool(Linalg::upper);
    if (Attribute la = l.arg(Linalg::left))
      left = l.constBool(la);
    Attribute ua = l.arg(Linalg::unitriangular);
    unit = ua ? l.constBool(ua) : std::optional<bool>(false);
  }
  if (!upper || !left || !transpose || !unit)
    return l.fail("upper, left, transpose and unitriangular must be "
                  "constants");
  bool transposed = *transpose;
  if (!*left) {
    rhs = swapLast(l, rhs);
    transposed = !transposed;
  }
  SmallVector<int64_t> batch;
  auto systems = broadcastSystems(l, a, rhs, elem, batch);
  if (!systems)
    return failure();
  Value x = triangularSolve(l, systems->first, copyOf(l, systems->second),
                            !*upper, transposed, *unit);
  x = unbatched(l, x, batch);
  if (!*left)
    x = swapLast(l, x);
  if (!legacy)
    return l.replace(x);
  return l.replaceTuple({x, unbatched(l, systems->first, batch)});
}

} // namespace

void mlir::fx::lowering::addFactorizationLowerings(
    llvm::StringMap<LowerFn> &t) {
  addLowering(t, {"aten::linalg_lu_factor", "aten::linalg_lu_factor_ex"},
              lowerLuFactor);
  addLowering(t,
              {"aten::det", "aten::linalg_det", "aten::slogdet",
               "aten::linalg_slogdet", "aten::logdet"},
              lowerDeterminant);
  addLowering(t,
              {"aten::linalg_solve", "aten::linalg_solve_ex",
               "aten::linalg_inv", "aten::linalg_inv_ex", "aten::inverse"},
              lowerSolve);
  addLowering(
      t,
      {"aten::linalg_cholesky", "aten::linalg_cholesky_ex", "aten::cholesky"},
      lowerCholesky);
  addLowering(t, {"aten::linalg_lu_solve", "aten::lu_solve"}, lowerLuSolve);
  addLowering(t, {"aten::cholesky_solve", "aten::cholesky_inverse"},
              lowerCholeskySolve);
  addLowering(t, {"aten::linalg_solve_triangular", "aten::triangular_solve"},
              lowerTriangularSolve);
}
