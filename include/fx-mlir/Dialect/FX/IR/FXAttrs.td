//===- FXAttrs.td - Attributes of the fx dialect -----------*- tablegen -*-===//
//
// The values FX allows in a node's args and kwargs. Python scalars use the
// builtin attributes: `int` is an `i64` IntegerAttr, `float` an `f64`
// FloatAttr, `bool` a BoolAttr and `str` a StringAttr. Everything else has
// its own attribute here.
//
//===----------------------------------------------------------------------===//

#ifndef FX_MLIR_DIALECT_FX_IR_FXATTRS_TD
#define FX_MLIR_DIALECT_FX_IR_FXATTRS_TD

include "fx-mlir/Dialect/FX/IR/FXDialect.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def FX_StateKind : I32EnumAttr<"StateKind", "kind of module state", [
    I32EnumAttrCase<"Parameter", 0, "parameter">,
    I32EnumAttrCase<"Buffer", 1, "buffer">,
    I32EnumAttrCase<"Constant", 2, "constant">]> {
  let cppNamespace = "::mlir::fx";
  let genSpecializedAttr = 0;
}

def FX_StateKindAttr : EnumAttr<FX_Dialect, FX_StateKind, "state_kind"> {
  let summary = "Whether module state is a parameter, a buffer or a constant";
  let description = [{
    `parameter` is an `nn.Parameter` (`Module.named_parameters()`), `buffer`
    a registered buffer (`Module.named_buffers()`, e.g. BatchNorm's running
    statistics) and `constant` a plain tensor attribute, such as the
    `_tensor_constant0` attributes symbolic tracing creates.
  }];
}

//===----------------------------------------------------------------------===//
// Python values
//===----------------------------------------------------------------------===//

def FX_NoneAttr : FX_Attr<"None", "none"> {
  let summary = "Python `None`";
  let description = [{ Printed as `None` inside node args. }];
}

def FX_EllipsisAttr : FX_Attr<"Ellipsis", "ellipsis"> {
  let summary = "Python `...` (Ellipsis), as in `x[..., 0]`";
  let description = [{ Printed as `...` inside node args. }];
}

def FX_NodeAttr : FX_Attr<"Node", "node"> {
  let summary = "A reference to another FX node";
  let description = [{
    A use of another node inside args or kwargs. `index` is the position of
    the referenced value in the op's operand list; in the custom format the
    operand is printed in place (`%conv1`), so `torch.cat([%a, %b])` is
    stored as `[#fx.list<[#fx.node<0>, #fx.node<1>]>]` with operands
    `(%a, %b)`.
  }];
  let parameters = (ins "unsigned":$index);
  let assemblyFormat = "`<` $index `>`";
}

def FX_ListAttr : FX_Attr<"List", "list"> {
  let summary = "A Python list";
  let description = [{ Printed as `[a, b]` inside node args. }];
  let parameters = (ins OptionalArrayRefParameter<"Attribute">:$elements);
  let assemblyFormat = "`<` `[` (`]`) : ($elements^ `]`)? `>`";
}

def FX_TupleAttr : FX_Attr<"Tuple", "tuple"> {
  let summary = "A Python tuple";
  let description = [{
    Printed as `(a, b)` inside node args; a one-element tuple as `(a,)`.
  }];
  let parameters = (ins OptionalArrayRefParameter<"Attribute">:$elements);
  let assemblyFormat = "`<` `[` (`]`) : ($elements^ `]`)? `>`";
}

def FX_DictAttr : FX_Attr<"Dict", "dict"> {
  let summary = "A Python dict, with its insertion order";
  let description = [{
    An ordered mapping. Node kwargs and submodule hyperparameters are dicts
    with string keys; a dict inside args may also have int keys. Unlike the
    builtin `DictionaryAttr` the entries keep the order Python gave them.

    ```mlir
    #fx.dict<"dim" = 1, "keepdim" = true>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"Attribute">:$keys,
                        ArrayRefParameter<"Attribute">:$values);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Returns the value stored under the string key `key`, or null.
    Attribute lookup(StringRef key) const;
    size_t size() const { return getKeys().size(); }
    bool empty() const { return getKeys().empty(); }
  }];
  let builders = [
    AttrBuilder<(ins), [{
      return $_get($_ctxt, ArrayRef<Attribute>(), ArrayRef<Attribute>());
    }]>
  ];
}

def FX_SliceAttr : FX_Attr<"Slice", "slice"> {
  let summary = "A Python slice `slice(start, stop, step)`";
  let description = [{
    Each bound is any FX value: `None`, an int, or a node reference. `x[:, 1:3]`
    has args `(%x, (slice(None, None, None), slice(1, 3, None)))`.
  }];
  let parameters = (ins "Attribute":$start, "Attribute":$stop,
                        "Attribute":$step);
  let assemblyFormat = "`<` $start `,` $stop `,` $step `>`";
}

class FX_KeywordAttr<string name, string mnemonic, string pySummary>
    : FX_Attr<name, mnemonic> {
  let summary = pySummary;
  let parameters = (ins StringRefParameter<"name without `torch.`">:$name);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def FX_DTypeAttr : FX_KeywordAttr<"DType", "dtype", "A `torch.dtype`"> {
  let description = [{
    A dtype such as `torch.float32` (printed so inside node args), stored by
    its canonical name: `#fx.dtype<float32>`. Aliases (`torch.float`,
    `torch.long`) are stored under the canonical name as PyTorch prints it.
  }];
  let extraClassDeclaration = [{
    /// The names of all dtypes PyTorch defines, canonical spelling.
    static ArrayRef<StringRef> getKnownNames();
  }];
}

def FX_MemoryFormatAttr
    : FX_KeywordAttr<"MemoryFormat", "memory_format",
                     "A `torch.memory_format`"> {
  let description = [{
    `torch.contiguous_format`, `torch.channels_last`,
    `torch.channels_last_3d` or `torch.preserve_format`.
  }];
  let extraClassDeclaration = [{
    static ArrayRef<StringRef> getKnownNames();
  }];
}

def FX_LayoutAttr : FX_KeywordAttr<"Layout", "layout", "A `torch.layout`"> {
  let description = [{ `torch.strided`, `torch.sparse_coo`, ... }];
  let extraClassDeclaration = [{
    static ArrayRef<StringRef> getKnownNames();
  }];
}

def FX_DeviceAttr : FX_Attr<"Device", "device"> {
  let summary = "A `torch.device`";
  let description = [{
    A device by its string form, `cpu` or `cuda:0`: `#fx.device<"cpu">`,
    printed as `device("cpu")` inside node args.
  }];
  let parameters = (ins StringRefParameter<"device string">:$device);
  let assemblyFormat = "`<` $device `>`";
  let genVerifyDecl = 1;
}

def FX_SizeAttr : FX_Attr<"Size", "size"> {
  let summary = "A `torch.Size`";
  let description = [{
    A literal `torch.Size([2, 3])`; sizes computed by the graph are node
    references instead.
  }];
  let parameters = (ins OptionalArrayRefParameter<"int64_t">:$dims);
  let assemblyFormat = "`<` `[` (`]`) : ($dims^ `]`)? `>`";
}

def FX_ComplexAttr : FX_Attr<"Complex", "complex"> {
  let summary = "A Python `complex` number";
  let description = [{ Printed as `complex(1.0, 2.0)` inside node args. }];
  let parameters = (ins "::llvm::APFloat":$real, "::llvm::APFloat":$imag);
  let hasCustomAssemblyFormat = 1;
}

#endif // FX_MLIR_DIALECT_FX_IR_FXATTRS_TD
