//===- FXDialect.td - The fx dialect definition ------------*- tablegen -*-===//
//
// The fx dialect models torch.fx graphs: one op per FX node kind, inside a
// graph op, inside a graph module that owns the parameters, buffers and
// submodules the graph refers to.
//
//===----------------------------------------------------------------------===//

#ifndef FX_MLIR_DIALECT_FX_IR_FXDIALECT_TD
#define FX_MLIR_DIALECT_FX_IR_FXDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def FX_Dialect : Dialect {
  let name = "fx";
  let cppNamespace = "::mlir::fx";
  let summary = "A faithful model of torch.fx graphs and GraphModules";
  let description = [{
    The `fx` dialect represents a `torch.fx.GraphModule` without loss: every
    FX node becomes one op whose kind matches the node's `op` field
    (`placeholder`, `get_attr`, `call_function`, `call_method`,
    `call_module`, `output`), with the node's name, target, positional
    `args` and keyword `kwargs`. A graph (`fx.graph`, normally `forward`)
    lives inside a graph module (`fx.graph_module`) that also holds the
    module state: parameters, buffers and tensor constants (`fx.state`,
    weights as `dense_resource` blobs) and the submodule hierarchy with each
    submodule's Python type and hyperparameters (`fx.submodule`).

    Arguments keep the full structure FX allows: node references, ints,
    floats, bools, strings, `None`, `...`, nested lists, tuples and dicts,
    slices, `torch.dtype`, `torch.device`, `torch.memory_format`,
    `torch.layout`, `torch.Size` and complex numbers. The custom assembly
    format prints them as Python source would, so an `fx.graph` reads like
    `GraphModule.code`:

    ```mlir
    fx.graph @forward {
      %x = fx.placeholder "x" : tensor<1x8xf32>
      %linear = fx.call_module @linear(%x) : (tensor<1x8xf32>) -> tensor<1x4xf32>
      %relu = fx.call_function "torch.relu"(%linear) : (tensor<1x4xf32>) -> tensor<1x4xf32>
      %cat = fx.call_function "torch.cat"([%relu, %relu], dim=1) : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x8xf32>
      fx.output %cat : tensor<1x8xf32>
    }
    ```

    Node names are the SSA names of the results; they are kept in the
    `name` attribute of every node and in its location, which also carries
    the qualified path of the module the node came from, so diagnostics
    point at the FX node.
  }];
  // Quantized tensors (torch.quint8/qint8/qint32) are builtin tensors of the
  // quant dialect's `!quant.uniform` element types.
  let dependentDialects = ["::mlir::quant::QuantDialect"];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
    void registerTypes();
  }];
}

class FX_Op<string mnemonic, list<Trait> traits = []>
    : Op<FX_Dialect, mnemonic, traits>;

class FX_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<FX_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

class FX_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<FX_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

#endif // FX_MLIR_DIALECT_FX_IR_FXDIALECT_TD
