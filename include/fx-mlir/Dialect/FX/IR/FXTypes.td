//===- FXTypes.td - Types of the fx dialect ----------------*- tablegen -*-===//

#ifndef FX_MLIR_DIALECT_FX_IR_FXTYPES_TD
#define FX_MLIR_DIALECT_FX_IR_FXTYPES_TD

include "fx-mlir/Dialect/FX/IR/FXDialect.td"

def FX_AnyType : FX_Type<"Any", "any"> {
  let summary = "A Python value whose type is not known";
  let description = [{
    The type of an FX node whose value has not been typed: a graph traced
    without example inputs, or a node that produces a Python object the IR
    has no better type for (a `torch.dtype`, a list of sizes, ...). Nodes
    whose type is known use builtin types instead: `tensor<...>` (with `?`
    for dynamic dimensions), `i64` for a Python `int`, `f64` for a `float`,
    `i1` for a `bool`, and `tuple<...>` for a tuple of known types.

    ```mlir
    %x = fx.placeholder "x" : !fx.any
    ```
  }];
}

#endif // FX_MLIR_DIALECT_FX_IR_FXTYPES_TD
