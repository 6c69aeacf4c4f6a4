//===- Passes.td - Passes on the fx dialect ----------------*- tablegen -*-===//

#ifndef FX_MLIR_DIALECT_FX_TRANSFORMS_PASSES_TD
#define FX_MLIR_DIALECT_FX_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FXPrintTabular : Pass<"fx-print-tabular"> {
  let summary = "Print every fx graph as a node table";
  let description = [{
    Prints each `fx.graph` reachable from the anchor op as the table
    `torch.fx.Graph.print_tabular()` prints: one row per node with its
    opcode, name, target, args and kwargs, the values in Python syntax. The
    tables go to stdout (or to `output`), one per graph, each preceded by a
    line naming the graph module and graph; the IR is not changed.

    Given

    ```mlir
    fx.graph_module @M {
      fx.submodule @linear "torch.nn.Linear"(in_features=5, out_features=5)
      fx.graph @forward {
        %x = fx.placeholder "x" : !fx.any
        %linear = fx.call_module @linear(%x) : (!fx.any) -> !fx.any
        %relu = fx.call_function "torch.relu"(%linear) : (!fx.any) -> !fx.any
        fx.output %relu : !fx.any
      }
    }
    ```

    the pass prints

    ```
    graph M.forward:
    opcode         name    target      args       kwargs
    -------------  ------  ----------  ---------  --------
    placeholder    x       x           ()         {}
    call_module    linear  linear      (x,)       {}
    call_function  relu    torch.relu  (linear,)  {}
    output         output  output      (relu,)    {}
    ```
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Where to print the tables: a file name, or `-` for stdout">,
  ];
}

def FXNormalize : Pass<"fx-normalize"> {
  let summary = "Rewrite every supported call into its canonical aten call";
  let description = [{
    Rewrites each `fx.call_function`, `fx.call_method` and `fx.call_module`
    whose target the target registry (`Targets.def`) knows into one
    `fx.call_function` of the canonical target, a LibTorch operator
    overload, with every schema argument explicit: positional parameters in
    `args`, keyword-only ones in `kwargs`, defaults filled in. The overload
    is the first one, in registry order, whose schema accepts the kinds of
    the arguments (a tensor node, an int, a float, ...). Module calls take
    their hyperparameters from the `fx.submodule` and their weights through
    new (or reused) `fx.get_attr` nodes. Node names and locations are kept.

    Some forms map to several nodes and are expanded by the pass itself:
    tensor indexing (`operator.getitem` with ints, slices, `None` and
    `...`) becomes `aten::select.int`, `aten::slice.Tensor` and
    `aten::unsqueeze`; `getattr(x, "shape")` becomes `aten::size`;
    `nn.Identity` disappears; `nn.MultiheadAttention` (eval mode, no masks)
    becomes its input projections, per-head scaled dot products, softmax
    and output projection. `operator.getitem` of a tuple or list stays.

    Calls the registry does not know, or whose arguments fit no overload,
    are left as they are and reported by a warning naming the node, its
    module and the target (an error with `strict`).

    ```mlir
    fx.submodule @fc "torch.nn.Linear"(in_features=8, out_features=4, bias=True)
    ...
    %fc = fx.call_module @fc(%x) : (tensor<2x8xf32>) -> tensor<2x4xf32>
    %relu = fx.call_method "relu"(%fc) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    ```

    becomes

    ```mlir
    %fc_weight = fx.get_attr @fc.weight : tensor<4x8xf32>
    %fc_bias = fx.get_attr @fc.bias : tensor<4xf32>
    %fc = fx.call_function "aten::linear"(%x, %fc_weight, %fc_bias) : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    %relu = fx.call_function "aten::relu"(%fc) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    ```
  }];
  let options = [
    Option<"strict", "strict", "bool", /*default=*/"false",
           "Fail on calls that cannot be normalized instead of warning">,
  ];
}

#endif // FX_MLIR_DIALECT_FX_TRANSFORMS_PASSES_TD
