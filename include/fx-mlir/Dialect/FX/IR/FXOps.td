//===- FXOps.td - Operations of the fx dialect -------------*- tablegen -*-===//

#ifndef FX_MLIR_DIALECT_FX_IR_FXOPS_TD
#define FX_MLIR_DIALECT_FX_IR_FXOPS_TD

include "fx-mlir/Dialect/FX/IR/FXDialect.td"
include "fx-mlir/Dialect/FX/IR/FXAttrs.td"
include "fx-mlir/Dialect/FX/IR/FXTypes.td"
include "fx-mlir/Dialect/FX/IR/FXInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Containers
//===----------------------------------------------------------------------===//

def FX_GraphModuleOp : FX_Op<"graph_module", [
    IsolatedFromAbove, SymbolTable, Symbol, SingleBlock, NoTerminator,
    NoRegionArguments, HasOnlyGraphRegion, RegionKindInterface]> {
  let summary = "A torch.fx GraphModule: state, submodules and graphs";
  let description = [{
    The container for one `torch.fx.GraphModule`. Its body holds, in any
    order, the module state (`fx.state`: parameters, buffers, constants),
    the submodule hierarchy (`fx.submodule`) and one or more graphs
    (`fx.graph`). `forward` must exist and be the first graph. The op is a
    symbol table: `fx.get_attr` and `fx.call_module` name state and
    submodules by their qualified names, which are the symbols here. The
    keyword `training` records that the root module is in training mode
    (`GraphModule.training`).

    ```mlir
    fx.graph_module @Net {
      fx.state parameter @"fc.weight" : tensor<4x8xf32> = dense_resource<fc_w>
      fx.state parameter @"fc.bias" : tensor<4xf32> = dense_resource<fc_b>
      fx.submodule @fc "torch.nn.Linear"(in_features=8, out_features=4)
      fx.graph @forward {
        %x = fx.placeholder "x" : tensor<2x8xf32>
        %fc = fx.call_module @fc(%x) : (tensor<2x8xf32>) -> tensor<2x4xf32>
        fx.output %fc : tensor<2x4xf32>
      }
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, UnitAttr:$training);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat =
      "$sym_name (`training` $training^)? attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name,
                                 CArg<"bool", "false">:$training)>];
  let extraClassDeclaration = [{
    /// The `forward` graph, or null.
    GraphOp getForward();
    /// Looks up state or a submodule by qualified name.
    Operation *lookupTarget(::llvm::StringRef qualifiedName);
  }];
}

def FX_StateOp : FX_Op<"state", [Symbol, HasParent<"GraphModuleOp">,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "A parameter, buffer or tensor constant of a graph module";
  let description = [{
    One tensor of module state, named by its qualified name
    (`layer1.0.bn1.running_mean`). The value is an elements attribute,
    normally a `dense_resource` blob so that large weights stay cheap to
    parse and print; it may be omitted when the weights are not known. A
    tensor shared by several modules (tied weights) is stored once and the
    other names are aliases of it, so `fx.get_attr` of either name reads
    the same tensor. A parameter that does not train (a float one with
    `requires_grad=False`: frozen layers) carries `{requires_grad =
    false}`, which the export keeps.

    ```mlir
    fx.state parameter @"conv.weight" : tensor<8x3x3x3xf32> = dense_resource<conv_w>
    fx.state parameter @"conv.bias" : tensor<8xf32> = dense_resource<conv_b> {requires_grad = false}
    fx.state buffer @"bn.num_batches_tracked" : tensor<i64> = dense<0>
    fx.state parameter @"decoder.weight" : tensor<4x8xf32> = @"encoder.weight"
    fx.state constant @_tensor_constant0 : tensor<3xf32>
    ```
  }];
  let arguments = (ins FX_StateKindAttr:$kind, SymbolNameAttr:$sym_name,
                       TypeAttrOf<AnyType>:$type,
                       OptionalAttr<ElementsAttr>:$value,
                       OptionalAttr<FlatSymbolRefAttr>:$alias);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def FX_SubmoduleOp : FX_Op<"submodule", [Symbol, HasParent<"GraphModuleOp">]> {
  let summary = "A submodule: its qualified path, Python type and hyperparameters";
  let description = [{
    One `nn.Module` in the hierarchy below the graph module, named by its
    qualified path (`layer1.0.conv1`), with its Python type
    (`torch.nn.Conv2d`) and the hyperparameters that define it (those
    `extra_repr` shows: stride, padding, groups, eps, ...). Its parameters
    and buffers are `fx.state` ops named under its path. The keyword
    `training` marks a module in training mode (`module.training`, which
    changes what batch norm and dropout compute); without it the module is
    in eval mode.

    ```mlir
    fx.submodule @"layer1.0.conv1" "torch.nn.Conv2d"(in_channels=64, out_channels=64, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), bias=False)
    fx.submodule @drop "torch.nn.Dropout"(p=0.1, inplace=False) training
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$module_type,
                       FX_DictAttr:$hparams, UnitAttr:$training);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def FX_GraphOp : FX_Op<"graph", [
    IsolatedFromAbove, Symbol, SingleBlock, NoTerminator,
    NoRegionArguments]> {
  let summary = "A torch.fx Graph: a topologically ordered list of nodes";
  let description = [{
    One FX graph, normally a GraphModule's `forward`. Its single block holds
    the nodes in FX order: the `fx.placeholder` nodes first (the graph's
    inputs, in signature order), then the computation, and one `fx.output`
    last. The graph is isolated from above: nodes refer only to nodes of
    the same graph, and module state is read with `fx.get_attr`.

    A graph outside a graph module is allowed (patterns for subgraph
    rewriting are such graphs); it cannot use `fx.get_attr` or
    `fx.call_module` targets that need checking against a module.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name)>];
  let extraClassDeclaration = [{
    /// The graph's fx.output node, or null if it has none.
    OutputOp getOutput();
    /// Appends the placeholder nodes to `result`, in signature order.
    void getPlaceholders(::llvm::SmallVectorImpl<PlaceholderOp> &result);
  }];
}

//===----------------------------------------------------------------------===//
// Nodes
//===----------------------------------------------------------------------===//

class FX_NodeOp<string mnemonic, list<Trait> traits = []>
    : FX_Op<mnemonic, traits # [HasParent<"GraphOp">,
        DeclareOpInterfaceMethods<FX_NodeOpInterface,
                                  ["getOpcode", "getTargetName"]>]> {
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  code opcodeDefinition = [{
    ::llvm::StringRef $cppClass::getOpcode() { return "}] # mnemonic # [{"; }
  }];
  let extraClassDefinition = opcodeDefinition;
}

/// A node with a result (every kind but output) and a `target` attribute.
class FX_ValueNodeOp<string mnemonic, list<Trait> traits = []>
    : FX_NodeOp<mnemonic, traits # [
        DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let extraClassDefinition = opcodeDefinition # [{
    ::llvm::StringRef $cppClass::getTargetName() { return getTarget(); }
    void $cppClass::getAsmResultNames(::mlir::OpAsmSetValueNameFn setNameFn) {
      setNodeResultName(getOperation(), setNameFn);
    }
  }];
}

class FX_CallOp<string mnemonic, list<Trait> traits = []>
    : FX_ValueNodeOp<mnemonic, traits> {
  let results = (outs AnyType:$result);
}

def FX_PlaceholderOp : FX_ValueNodeOp<"placeholder"> {
  let summary = "An input of the graph (FX `placeholder` node)";
  let description = [{
    One argument of the graph's function, in signature order. `target` is
    the parameter name (`x`, or `*args` for a variadic parameter); the node
    name is the result's SSA name. An optional default value (an FX value
    without node references) is the parameter's default.

    A placeholder with the string attribute `fx.buffer` is not a forward
    argument but a module buffer the graph updates in place (its qualified
    path): `fx_mlir.compile` passes the buffer's value after the caller's
    inputs and writes the graph's new value back into the module after
    each call. With a dynamic batch, its dims stay static.

    ```mlir
    %x = fx.placeholder "x" : tensor<?x3x224x224xf32>
    %scale = fx.placeholder "scale" = 1.0 : f64
    %count = fx.placeholder "state_count" {fx.buffer = "count"} : tensor<f32>
    ```
  }];
  let arguments = (ins StrAttr:$node_name, StrAttr:$target,
                       OptionalAttr<AnyAttr>:$default_value);
  let results = (outs AnyType:$result);
  let extraClassDeclaration = [{
    /// FX's view: the default value is the placeholder's only arg.
    ::mlir::ArrayAttr getArgs();
  }];
}

def FX_GetAttrOp : FX_ValueNodeOp<"get_attr", [Pure,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Reads module state or a submodule (FX `get_attr` node)";
  let description = [{
    Fetches an attribute of the module hierarchy by qualified name: a
    parameter, buffer or tensor constant declared by `fx.state`, a
    submodule, or another graph of the graph module (a branch or body of
    a control-flow call, which FX holds as a GraphModule submodule; typed
    `!fx.any`). When the target is state, the result type must be the
    state's type (or `!fx.any`).

    ```mlir
    %w = fx.get_attr @"conv1.weight" : tensor<8x3x3x3xf32>
    ```
  }];
  let arguments = (ins StrAttr:$node_name, FlatSymbolRefAttr:$target);
  let results = (outs AnyType:$result);
}

def FX_CallFunctionOp : FX_CallOp<"call_function",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Calls a free function (FX `call_function` node)";
  let description = [{
    Calls a Python function by its qualified name (`torch.relu`,
    `torch.nn.functional.conv2d`, `operator.getitem`, `aten::add.Tensor`)
    with the given args and kwargs. Node references anywhere inside them are
    the op's operands.

    ```mlir
    %cat = fx.call_function "torch.cat"([%a, %b], dim=1) : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x8xf32>
    %item = fx.call_function "operator.getitem"(%split, 0) : (!fx.any) -> tensor<1x2xf32>
    ```

    **Control flow** is a call of a higher-order target, as in PyTorch 2's
    FX: its branches and bodies are other `fx.graph`s of the graph module,
    passed as `fx.get_attr` nodes of those graphs; it returns a tuple.

    - `torch.ops.higher_order.cond(pred, true_graph, false_graph,
      (operands...))`: the predicate is a bool or int (or a 0-d tensor of
      one); both graphs take the operands and return a tuple of the
      result's element types.
    - `torch.ops.higher_order.while_loop(cond_graph, body_graph,
      (carried...), (additional...))`: both graphs take the carried and
      the additional values; the cond graph returns the predicate, the body
      the next carried values.
    - `fx_mlir.for_loop(count, body_graph, (carried...), (additional...))`:
      `for i in range(count)`; the body takes `i` (an int), the carried and
      the additional values and returns the next carried values.

    The verifier checks the args, that each graph's placeholders fit what
    the call passes and its results what the call returns, and that a
    carried value keeps its type across iterations (a dim that changes is
    dynamic in the body's input type).

    ```mlir
    %true_graph_0 = fx.get_attr @true_graph_0 : !fx.any
    %false_graph_0 = fx.get_attr @false_graph_0 : !fx.any
    %cond = fx.call_function "torch.ops.higher_order.cond"(%pred, %true_graph_0, %false_graph_0, (%x,)) : (i1, !fx.any, !fx.any, tensor<4xf32>) -> tuple<tensor<4xf32>>
    %getitem = fx.call_function "operator.getitem"(%cond, 0) : (tuple<tensor<4xf32>>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins StrAttr:$node_name, StrAttr:$target, ArrayAttr:$args,
                       FX_DictAttr:$kwargs, Variadic<AnyType>:$inputs);
}

def FX_CallMethodOp : FX_CallOp<"call_method"> {
  let summary = "Calls a method on a value (FX `call_method` node)";
  let description = [{
    Calls the method `target` on the first positional argument (`self`),
    with the remaining args and kwargs.

    ```mlir
    %view = fx.call_method "view"(%x, -1, 16) : (tensor<2x4x4xf32>) -> tensor<2x16xf32>
    ```
  }];
  let arguments = (ins StrAttr:$node_name, StrAttr:$target, ArrayAttr:$args,
                       FX_DictAttr:$kwargs, Variadic<AnyType>:$inputs);
}

def FX_CallModuleOp : FX_CallOp<"call_module",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Calls a submodule's forward (FX `call_module` node)";
  let description = [{
    Calls the `forward` of the submodule named by its qualified path, which
    must be declared by an `fx.submodule` of the enclosing graph module.

    ```mlir
    %conv1 = fx.call_module @"layer1.0.conv1"(%x) : (tensor<1x64x8x8xf32>) -> tensor<1x64x8x8xf32>
    ```
  }];
  let arguments = (ins StrAttr:$node_name, FlatSymbolRefAttr:$target,
                       ArrayAttr:$args, FX_DictAttr:$kwargs,
                       Variadic<AnyType>:$inputs);
}

def FX_OutputOp : FX_NodeOp<"output"> {
  let summary = "The value the graph returns (FX `output` node)";
  let description = [{
    The last node of every graph. Its single argument is the returned value,
    which may be one node, a nested tuple, list or dict of nodes, or a
    constant such as `None`.

    ```mlir
    fx.output %relu : tensor<1x4xf32>
    fx.output (%logits, {"aux": [%a, %b]}) : tensor<1x10xf32>, tensor<1xf32>, tensor<1xf32>
    ```
  }];
  let arguments = (ins StrAttr:$node_name, ArrayAttr:$args,
                       Variadic<AnyType>:$inputs);
}

#endif // FX_MLIR_DIALECT_FX_IR_FXOPS_TD
