//===- TutorialPasses.cpp - The passes of docs/Tutorial.md ----------------===//
//
// Two rewrites of fx graphs written with rewrite patterns and the greedy
// pattern driver, as docs/Tutorial.md ("Writing your own pass") builds them:
//
//   tutorial-fuse-conv-relu   `aten::relu(aten::conv2d(...))` in a normalized
//                             graph becomes one `fx_mlir.fused.conv2d(...,
//                             activation="relu")` node.
//   tutorial-relu-to-sigmoid  `torch.relu(x)` and `x.relu()` become
//                             `torch.sigmoid(x)`, as the torch.fx Transformer
//                             example does.
//
// The tutorial quotes this file; the test suite checks that every quoted
// block is still here, verbatim.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Dialect/FX/IR/FXOps.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
using namespace mlir::fx;

namespace {

//===----------------------------------------------------------------------===//
// tutorial-fuse-conv-relu
//===----------------------------------------------------------------------===//

/// `relu = aten::relu(conv)` with `conv = aten::conv2d(x, w, b, ...)` read by
/// nothing else becomes `relu = fx_mlir.fused.conv2d(x, w, b, ...,
/// activation="relu")`.
struct FuseConvRelu : OpRewritePattern<CallFunctionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(CallFunctionOp relu,
                                PatternRewriter &rewriter) const override {
    // A canonical relu: one arg, a node, and no kwargs.
    if (relu.getTarget() != "aten::relu" || relu.getArgs().size() != 1 ||
        !isa<NodeAttr>(relu.getArgs()[0]) || !relu.getKwargs().empty())
      return rewriter.notifyMatchFailure(relu, "not a canonical aten::relu");
    // That node is a conv2d whose only user is the relu.
    auto conv = relu.getInputs()[0].getDefiningOp<CallFunctionOp>();
    if (!conv || conv.getTarget() != "aten::conv2d")
      return rewriter.notifyMatchFailure(relu, "input is not aten::conv2d");
    if (!conv.getResult().hasOneUse())
      return rewriter.notifyMatchFailure(relu, "the conv2d has other users");

    // The fused node takes the conv's args and operands as they are (the
    // #fx.node<i> references in the args index the operands) and adds the
    // kwarg activation="relu".
    SmallVector<Attribute> keys(conv.getKwargs().getKeys());
    SmallVector<Attribute> values(conv.getKwargs().getValues());
    keys.push_back(rewriter.getStringAttr("activation"));
    values.push_back(rewriter.getStringAttr("relu"));
    auto kwargs = DictAttr::get(rewriter.getContext(), keys, values);

    // It replaces the relu, keeping its name and location; the conv is dead.
    rewriter.replaceOpWithNewOp<CallFunctionOp>(
        relu, relu.getType(), relu.getNodeName(), "fx_mlir.fused.conv2d",
        conv.getArgs(), kwargs, conv.getInputs());
    rewriter.eraseOp(conv);
    return success();
  }
};

struct FuseConvReluPass : PassWrapper<FuseConvReluPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FuseConvReluPass)

  StringRef getArgument() const override { return "tutorial-fuse-conv-relu"; }
  StringRef getDescription() const override {
    return "Fuse aten::relu(aten::conv2d(...)) into fx_mlir.fused.conv2d";
  }

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseConvRelu>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

//===----------------------------------------------------------------------===//
// tutorial-relu-to-sigmoid
//===----------------------------------------------------------------------===//

/// `torch.relu(x)` becomes `torch.sigmoid(x)`.
struct ReluFunctionToSigmoid : OpRewritePattern<CallFunctionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(CallFunctionOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getTarget() != "torch.relu")
      return rewriter.notifyMatchFailure(op, "not torch.relu");
    rewriter.replaceOpWithNewOp<CallFunctionOp>(
        op, op.getType(), op.getNodeName(), "torch.sigmoid", op.getArgs(),
        op.getKwargs(), op.getInputs());
    return success();
  }
};

/// `x.relu()` becomes `torch.sigmoid(x)`: a method's first arg is `self`,
/// which is the function's first arg.
struct ReluMethodToSigmoid : OpRewritePattern<CallMethodOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(CallMethodOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getTarget() != "relu")
      return rewriter.notifyMatchFailure(op, "not the relu method");
    rewriter.replaceOpWithNewOp<CallFunctionOp>(
        op, op.getType(), op.getNodeName(), "torch.sigmoid", op.getArgs(),
        op.getKwargs(), op.getInputs());
    return success();
  }
};

struct ReluToSigmoidPass : PassWrapper<ReluToSigmoidPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ReluToSigmoidPass)

  StringRef getArgument() const override { return "tutorial-relu-to-sigmoid"; }
  StringRef getDescription() const override {
    return "Replace torch.relu(x) and x.relu() by torch.sigmoid(x)";
  }

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ReluFunctionToSigmoid, ReluMethodToSigmoid>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

namespace tutorial {

/// Makes the two passes available to tutorial-opt's command line.
void registerTutorialPasses() {
  PassRegistration<FuseConvReluPass>();
  PassRegistration<ReluToSigmoidPass>();
}

} // namespace tutorial
