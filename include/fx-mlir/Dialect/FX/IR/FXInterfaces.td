//===- FXInterfaces.td - Interfaces of the fx dialect ------*- tablegen -*-===//

#ifndef FX_MLIR_DIALECT_FX_IR_FXINTERFACES_TD
#define FX_MLIR_DIALECT_FX_IR_FXINTERFACES_TD

include "mlir/IR/OpBase.td"

def FX_NodeOpInterface : OpInterface<"NodeOpInterface"> {
  let cppNamespace = "::mlir::fx";
  let description = [{
    Implemented by the six FX node ops. It gives passes one view of a node,
    whatever its kind: its `opcode` (the FX `Node.op` string), its unique
    name, its target as FX prints it, and its args and kwargs, whose node
    references index the op's operands.
  }];
  let methods = [
    StaticInterfaceMethod<"The FX `Node.op` string of this node kind.",
      "::llvm::StringRef", "getOpcode">,
    InterfaceMethod<"The node's unique name (`Node.name`).",
      "::llvm::StringRef", "getNodeName", (ins), [{}], [{
        return $_op.getNodeNameAttr().getValue();
      }]>,
    InterfaceMethod<"The node's target as a string (`Node.target`).",
      "::llvm::StringRef", "getTargetName", (ins)>,
    InterfaceMethod<"The node's positional args (`Node.args`).",
      "::mlir::ArrayAttr", "getArgs", (ins), [{}], [{
        if (auto args = $_op->template getAttrOfType<::mlir::ArrayAttr>("args"))
          return args;
        return ::mlir::ArrayAttr::get($_op->getContext(), {});
      }]>,
    InterfaceMethod<"The node's keyword args (`Node.kwargs`).",
      "::mlir::fx::DictAttr", "getKwargs", (ins), [{}], [{
        if (auto kwargs =
                $_op->template getAttrOfType<::mlir::fx::DictAttr>("kwargs"))
          return kwargs;
        return ::mlir::fx::DictAttr::get($_op->getContext());
      }]>,
  ];
}

#endif // FX_MLIR_DIALECT_FX_IR_FXINTERFACES_TD
