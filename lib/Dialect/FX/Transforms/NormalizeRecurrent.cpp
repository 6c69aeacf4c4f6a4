//===- NormalizeRecurrent.cpp - Recurrent layers unrolled -----------------===//
//
// The ATen operators of nn.LSTM, nn.GRU and nn.RNN, as torch.jit.trace
// records them (`aten::lstm.input`, `aten::gru.input`,
// `aten::rnn_tanh.input`, `aten::rnn_relu.input`), unrolled over the
// sequence into the calls ATen's CPU kernels make, step by step:
//
// - for each layer and direction, the input's product with `w_ih` (and
//   `b_ih`) for the whole sequence first, as ATen precomputes it;
// - then one cell per time step (backwards for the reverse direction) on
//   that step's row: `linear(h, w_hh, b_hh)` plus the input's part, the
//   gates sliced from it (LSTM: i, f, g, o; GRU: r, z, n), the new state;
// - the steps' outputs stacked in time order, the two directions' joined
//   on the feature dim, the final states stacked as h_n (and c_n).
//
// The sequence length comes from the input's static shape (the graph
// imported with example inputs), as the Python tracer's reference forwards
// (python/fx_mlir/reference.py) unroll nn.LSTM. Dropout between layers in
// training mode and LSTM projections (proj_size) are refused.
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"
#include "NormalizeSpecial.h"

using namespace mlir;
using namespace mlir::fx;

namespace {

enum class Cell { LSTM, GRU, Tanh, Relu };

/// Builds the unrolled nodes before one recurrent call, named after it.
class Unroller {
public:
  Unroller(GraphBuilder &gb, CallFunctionOp call, Type element)
      : gb(gb), call(call), ctx(call.getContext()), element(element) {}

  RankedTensorType tensorOf(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, element);
  }
  Attribute ref(unsigned i) { return NodeAttr::get(ctx, i); }
  Attribute i64(int64_t v) {
    return IntegerAttr::get(IntegerType::get(ctx, 64), v);
  }

  /// `target(args)` on `values` (referenced by the args as 0, 1, ...).
  Value node(StringRef target, ArrayRef<Attribute> args, ArrayRef<Value> values,
             ArrayRef<int64_t> shape) {
    std::string name =
        gb.uniqueName(call.getNodeName().str() + "_" +
                      target.rsplit("::").second.split('.').first.str());
    return gb.call(call, name, target, args, {}, {}, values, tensorOf(shape))
        .getResult();
  }
  static ArrayRef<int64_t> shapeOf(Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  }
  Value unary(StringRef target, Value x) {
    return node(target, {ref(0)}, {x}, shapeOf(x));
  }
  Value add(Value a, Value b) {
    return node("aten::add.Tensor", {ref(0), ref(1), i64(1)}, {a, b},
                shapeOf(a));
  }
  Value sub(Value a, Value b) {
    return node("aten::sub.Tensor", {ref(0), ref(1), i64(1)}, {a, b},
                shapeOf(a));
  }
  Value mul(Value a, Value b) {
    return node("aten::mul.Tensor", {ref(0), ref(1)}, {a, b}, shapeOf(a));
  }
  /// x @ w^T + b over x's last dim (b may be null).
  Value linear(Value x, Value w, Value b) {
    SmallVector<int64_t> shape(shapeOf(x));
    shape.back() = shapeOf(w)[0];
    if (!b)
      return node("aten::linear", {ref(0), ref(1), NoneAttr::get(ctx)}, {x, w},
                  shape);
    return node("aten::linear", {ref(0), ref(1), ref(2)}, {x, w, b}, shape);
  }
  Value select(Value x, int64_t dim, int64_t index) {
    SmallVector<int64_t> shape(shapeOf(x));
    shape.erase(shape.begin() + dim);
    return node("aten::select.int", {ref(0), i64(dim), i64(index)}, {x}, shape);
  }
  /// Gate `k` of `n` along the last dim.
  Value gate(Value x, int64_t k, int64_t n) {
    SmallVector<int64_t> shape(shapeOf(x));
    int64_t width = shape.back() / n;
    shape.back() = width;
    return node("aten::slice.Tensor",
                {ref(0), i64(int64_t(shape.size()) - 1), i64(k * width),
                 i64((k + 1) * width), i64(1)},
                {x}, shape);
  }
  Value join(StringRef target, ArrayRef<Value> parts, int64_t dim) {
    SmallVector<Attribute> refs;
    for (unsigned i = 0; i < parts.size(); ++i)
      refs.push_back(ref(i));
    SmallVector<int64_t> shape(shapeOf(parts[0]));
    if (target == "aten::stack") {
      shape.insert(shape.begin() + dim, int64_t(parts.size()));
    } else {
      int64_t last = int64_t(shape.size()) - 1;
      shape[dim < 0 ? last : dim] = 0;
      for (Value p : parts)
        shape[dim < 0 ? last : dim] += shapeOf(p)[dim < 0 ? last : dim];
    }
    return node(target, {ListAttr::get(ctx, refs), i64(dim)}, parts, shape);
  }
  Value transpose01(Value x) {
    SmallVector<int64_t> shape(shapeOf(x));
    std::swap(shape[0], shape[1]);
    return node("aten::transpose.int", {ref(0), i64(0), i64(1)}, {x}, shape);
  }

  /// One step of `cell` on the input's part `xw` (x @ w_ih^T + b_ih), state
  /// h (and c); returns the new (h, c), as ATen's cells compute them.
  std::pair<Value, Value> step(Cell cell, Value xw, Value h, Value c, Value wHH,
                               Value bHH) {
    Value hw = linear(h, wHH, bHH);
    switch (cell) {
    case Cell::LSTM: {
      Value gates = add(hw, xw);
      Value i = unary("aten::sigmoid", gate(gates, 0, 4));
      Value f = unary("aten::sigmoid", gate(gates, 1, 4));
      Value g = unary("aten::tanh", gate(gates, 2, 4));
      Value o = unary("aten::sigmoid", gate(gates, 3, 4));
      Value cNew = add(mul(f, c), mul(i, g));
      return {mul(o, unary("aten::tanh", cNew)), cNew};
    }
    case Cell::GRU: {
      Value r = unary("aten::sigmoid", add(gate(hw, 0, 3), gate(xw, 0, 3)));
      Value z = unary("aten::sigmoid", add(gate(hw, 1, 3), gate(xw, 1, 3)));
      Value n =
          unary("aten::tanh", add(gate(xw, 2, 3), mul(gate(hw, 2, 3), r)));
      return {add(mul(sub(h, n), z), n), Value()};
    }
    case Cell::Tanh:
      return {unary("aten::tanh", add(hw, xw)), Value()};
    case Cell::Relu:
      return {unary("aten::relu", add(hw, xw)), Value()};
    }
    llvm_unreachable("unknown cell");
  }

private:
  GraphBuilder &gb;
  CallFunctionOp call;
  MLIRContext *ctx;
  Type element;
};

/// The node values of a list argument, or nullopt.
std::optional<SmallVector<Value>> listValues(CallFunctionOp call,
                                             Attribute arg) {
  auto list = dyn_cast_or_null<ListAttr>(arg);
  if (!list)
    return std::nullopt;
  SmallVector<Value> values;
  for (Attribute e : list.getElements()) {
    auto ref = dyn_cast<NodeAttr>(e);
    if (!ref)
      return std::nullopt;
    values.push_back(call.getOperand(ref.getIndex()));
  }
  return values;
}

bool isRankedFloat(Value v, int64_t rank) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.getRank() == rank && t.hasStaticShape() &&
         isa<FloatType>(t.getElementType());
}

/// The `getitem(call, i)` nodes that read `call`'s results, 0 <= i <
/// `numResults`; nullopt when anything else reads them.
std::optional<SmallVector<CallFunctionOp>> indexReaders(CallFunctionOp call,
                                                        int64_t numResults) {
  SmallVector<CallFunctionOp> readers;
  for (Operation *user : call.getResult().getUsers()) {
    auto get = dyn_cast<CallFunctionOp>(user);
    auto index = get && get.getArgs().size() == 2
                     ? dyn_cast<IntegerAttr>(get.getArgs()[1])
                     : IntegerAttr();
    if (!get || get.getTarget() != "operator.getitem" || !index ||
        index.getInt() < 0 || index.getInt() >= numResults)
      return std::nullopt;
    readers.push_back(get);
  }
  return readers;
}

/// One step of a cell operator (`aten::lstm_cell(input, [h, c], w_ih,
/// w_hh, b_ih, b_hh) -> (h', c')`, `aten::gru_cell`, `aten::rnn_tanh_cell`,
/// `aten::rnn_relu_cell(input, h, ...) -> h'`: nn.LSTMCell, nn.GRUCell and
/// nn.RNNCell as TorchScript records them) on a batch of rows.
LogicalResult rewriteCellCall(GraphBuilder &gb, CallFunctionOp call, Cell cell,
                              std::string &why) {
  ArrayAttr args = call.getArgs();
  auto tensorAt = [&](unsigned i) { return tensorArg(call, argAt(call, i)); };
  Value input = tensorAt(0), wIH = tensorAt(2), wHH = tensorAt(3),
        bIH = tensorAt(4), bHH = tensorAt(5);
  SmallVector<Value> hx;
  if (cell == Cell::LSTM) {
    if (auto states = listValues(call, args.size() > 1 ? args[1] : nullptr))
      hx = *states;
  } else if (Value h = tensorAt(1)) {
    hx.push_back(h);
  }
  auto hasStaticShape = [](Value v) {
    auto t = v ? dyn_cast<RankedTensorType>(v.getType()) : nullptr;
    return t && t.hasStaticShape();
  };
  if (args.size() < 4 || call.getKwargs().size() != 0 ||
      !isRankedFloat(input, 2) || hx.size() != (cell == Cell::LSTM ? 2u : 1u) ||
      !llvm::all_of(hx, [](Value h) { return isRankedFloat(h, 2); }) ||
      !hasStaticShape(wIH) || !hasStaticShape(wHH) ||
      (bIH && !hasStaticShape(bIH)) || (bHH && !hasStaticShape(bHH))) {
    why = "needs a batch of input rows, states and weights of static shapes";
    return failure();
  }
  int64_t gates = cell == Cell::LSTM ? 4 : cell == Cell::GRU ? 3 : 1;
  int64_t hidden = Unroller::shapeOf(hx[0])[1];
  ArrayRef<int64_t> inShape = Unroller::shapeOf(input);
  if (Unroller::shapeOf(wIH) !=
          ArrayRef<int64_t>({gates * hidden, inShape[1]}) ||
      Unroller::shapeOf(wHH) != ArrayRef<int64_t>({gates * hidden, hidden}) ||
      llvm::any_of(hx, [&](Value h) {
        return Unroller::shapeOf(h) != ArrayRef<int64_t>({inShape[0], hidden});
      })) {
    why = "the states' and weights' shapes do not fit the input";
    return failure();
  }
  SmallVector<CallFunctionOp> readers;
  if (cell == Cell::LSTM) {
    std::optional<SmallVector<CallFunctionOp>> byIndex = indexReaders(call, 2);
    if (!byIndex) {
      why = "its results must be read by index";
      return failure();
    }
    readers = *byIndex;
  }
  Unroller u(gb, call,
             cast<RankedTensorType>(input.getType()).getElementType());
  auto [h, c] = u.step(cell, u.linear(input, wIH, bIH), hx[0],
                       cell == Cell::LSTM ? hx[1] : Value(), wHH, bHH);
  if (cell != Cell::LSTM) {
    call.getResult().replaceAllUsesWith(h);
  } else {
    for (CallFunctionOp get : readers) {
      get.getResult().replaceAllUsesWith(
          cast<IntegerAttr>(get.getArgs()[1]).getInt() == 0 ? h : c);
      gb.erase(get);
    }
  }
  gb.erase(call);
  return success();
}

} // namespace

LogicalResult mlir::fx::rewriteRecurrentCall(GraphBuilder &gb, Operation *op,
                                             std::string &why) {
  auto call = dyn_cast<CallFunctionOp>(op);
  if (!call)
    return failure();
  StringRef target = call.getTarget();
  if (target == "aten::lstm_cell")
    return rewriteCellCall(gb, call, Cell::LSTM, why);
  if (target == "aten::gru_cell")
    return rewriteCellCall(gb, call, Cell::GRU, why);
  if (target == "aten::rnn_tanh_cell")
    return rewriteCellCall(gb, call, Cell::Tanh, why);
  if (target == "aten::rnn_relu_cell")
    return rewriteCellCall(gb, call, Cell::Relu, why);
  Cell cell;
  if (target == "aten::lstm.input")
    cell = Cell::LSTM;
  else if (target == "aten::gru.input")
    cell = Cell::GRU;
  else if (target == "aten::rnn_tanh.input")
    cell = Cell::Tanh;
  else if (target == "aten::rnn_relu.input")
    cell = Cell::Relu;
  else
    return failure();
  // (input, hx, params, has_biases, num_layers, dropout, train,
  //  bidirectional, batch_first); hx is [h0, c0] for LSTM.
  ArrayAttr args = call.getArgs();
  if (args.size() != 9 || call.getKwargs().size() != 0) {
    why = "expected the 9 arguments of the ATen operator";
    return failure();
  }
  auto flag = [&](unsigned i) -> std::optional<bool> {
    if (auto b = dyn_cast<BoolAttr>(args[i]))
      return b.getValue();
    return std::nullopt;
  };
  auto number = [&](unsigned i) -> std::optional<double> {
    if (auto f = dyn_cast<FloatAttr>(args[i]))
      return f.getValueAsDouble();
    if (auto n = dyn_cast<IntegerAttr>(args[i]))
      return double(n.getInt());
    return std::nullopt;
  };
  std::optional<bool> hasBiases = flag(3), train = flag(6),
                      bidirectional = flag(7), batchFirst = flag(8);
  std::optional<double> layers = number(4), dropout = number(5);
  auto inputRef = dyn_cast<NodeAttr>(args[0]);
  std::optional<SmallVector<Value>> params = listValues(call, args[2]);
  SmallVector<Value> hx;
  if (cell == Cell::LSTM) {
    if (auto states = listValues(call, args[1]))
      hx = *states;
  } else if (auto ref = dyn_cast<NodeAttr>(args[1])) {
    hx.push_back(call.getOperand(ref.getIndex()));
  }
  if (!hasBiases || !train || !bidirectional || !batchFirst || !layers ||
      !dropout || !inputRef || !params ||
      hx.size() != (cell == Cell::LSTM ? 2u : 1u)) {
    why = "needs constant flags and sizes, and tensors for the input, "
          "states and weights";
    return failure();
  }
  if (*train && *dropout != 0.0) {
    why = "dropout between layers in training mode is not supported";
    return failure();
  }
  Value input = call.getOperand(inputRef.getIndex());
  int64_t numLayers = int64_t(*layers), dirs = *bidirectional ? 2 : 1;
  size_t perCell = *hasBiases ? 4 : 2;
  if (params->size() == size_t(numLayers * dirs) * (perCell + 1)) {
    why = "LSTM projections (proj_size) are not supported";
    return failure();
  }
  if (params->size() != size_t(numLayers * dirs) * perCell) {
    why = "unexpected number of weights";
    return failure();
  }
  if (!isRankedFloat(input, 3) ||
      !llvm::all_of(hx, [](Value h) { return isRankedFloat(h, 3); }) ||
      !llvm::all_of(*params, [](Value p) {
        auto t = dyn_cast<RankedTensorType>(p.getType());
        return t && t.hasStaticShape();
      })) {
    why = "needs a batched input and states of static shapes";
    return failure();
  }
  // The shapes ATen checks: states of (layers x directions, batch,
  // hidden), weights of gates x hidden rows, w_hh of hidden columns, each
  // layer's w_ih as wide as its input.
  int64_t gates = cell == Cell::LSTM ? 4 : cell == Cell::GRU ? 3 : 1;
  ArrayRef<int64_t> inShape = Unroller::shapeOf(input),
                    h0Shape = Unroller::shapeOf(hx[0]);
  int64_t batch = *batchFirst ? inShape[0] : inShape[1];
  int64_t hidden = h0Shape[2], width = inShape[2];
  bool shapesFit = llvm::all_of(hx, [&](Value h) {
    return Unroller::shapeOf(h) ==
           ArrayRef<int64_t>({numLayers * dirs, batch, hidden});
  });
  for (int64_t layer = 0; layer < numLayers && shapesFit; ++layer) {
    for (int64_t dir = 0; dir < dirs && shapesFit; ++dir) {
      ArrayRef<Value> w = ArrayRef<Value>(*params).slice(
          (layer * dirs + dir) * perCell, perCell);
      shapesFit =
          Unroller::shapeOf(w[0]) ==
              ArrayRef<int64_t>({gates * hidden, width}) &&
          Unroller::shapeOf(w[1]) ==
              ArrayRef<int64_t>({gates * hidden, hidden}) &&
          (!*hasBiases ||
           (Unroller::shapeOf(w[2]) == ArrayRef<int64_t>({gates * hidden}) &&
            Unroller::shapeOf(w[3]) == ArrayRef<int64_t>({gates * hidden})));
    }
    width = hidden * dirs;
  }
  if (!shapesFit || numLayers < 1) {
    why = "the states' and weights' shapes do not fit the input";
    return failure();
  }
  // The results: (output, h_n) or (output, h_n, c_n), read by getitems.
  int64_t numResults = cell == Cell::LSTM ? 3 : 2;
  std::optional<SmallVector<CallFunctionOp>> readers =
      indexReaders(call, numResults);
  if (!readers) {
    why = "its results must be read by index";
    return failure();
  }

  Unroller u(gb, call,
             cast<RankedTensorType>(input.getType()).getElementType());
  Value x = *batchFirst ? u.transpose01(input) : input;
  int64_t steps = Unroller::shapeOf(x)[0];
  SmallVector<Value> hN, cN;
  for (int64_t layer = 0; layer < numLayers; ++layer) {
    SmallVector<Value> outputs;
    for (int64_t dir = 0; dir < dirs; ++dir) {
      ArrayRef<Value> w = ArrayRef<Value>(*params).slice(
          (layer * dirs + dir) * perCell, perCell);
      Value bIH = *hasBiases ? w[2] : Value(),
            bHH = *hasBiases ? w[3] : Value();
      Value xw = u.linear(x, w[0], bIH);
      Value h = u.select(hx[0], 0, layer * dirs + dir);
      Value c =
          cell == Cell::LSTM ? u.select(hx[1], 0, layer * dirs + dir) : Value();
      SmallVector<Value> hs(steps);
      for (int64_t k = 0; k < steps; ++k) {
        int64_t t = dir ? steps - 1 - k : k;
        std::tie(h, c) = u.step(cell, u.select(xw, 0, t), h, c, w[1], bHH);
        hs[t] = h;
      }
      outputs.push_back(u.join("aten::stack", hs, 0));
      hN.push_back(h);
      if (c)
        cN.push_back(c);
    }
    x = dirs == 1 ? outputs[0] : u.join("aten::cat", outputs, -1);
  }
  SmallVector<Value> results = {*batchFirst ? u.transpose01(x) : x,
                                u.join("aten::stack", hN, 0)};
  if (cell == Cell::LSTM)
    results.push_back(u.join("aten::stack", cN, 0));
  for (CallFunctionOp get : *readers) {
    int64_t i = cast<IntegerAttr>(get.getArgs()[1]).getInt();
    get.getResult().replaceAllUsesWith(results[i]);
    gb.erase(get);
  }
  gb.erase(call);
  return success();
}
