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

#endif // FX_MLIR_DIALECT_FX_TRANSFORMS_PASSES_TD
