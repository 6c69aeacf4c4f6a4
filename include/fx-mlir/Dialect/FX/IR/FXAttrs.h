//===- FXAttrs.h - Attributes of the fx dialect -----------------*- C++ -*-===//

#ifndef FX_MLIR_DIALECT_FX_IR_FXATTRS_H
#define FX_MLIR_DIALECT_FX_IR_FXATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/APFloat.h"

#include "fx-mlir/Dialect/FX/IR/FXEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "fx-mlir/Dialect/FX/IR/FXAttrs.h.inc"

namespace mlir::fx {

/// Returns true if `attr` is a value FX allows in args and kwargs: an i64
/// IntegerAttr, an f64 FloatAttr, a BoolAttr, a StringAttr or one of the fx
/// value attributes, recursively for containers.
bool isValue(Attribute attr);

/// Returns true if `attr` is a value (see isValue) without node references,
/// as placeholder defaults and submodule hyperparameters must be.
bool isConstantValue(Attribute attr);

/// Calls `fn` on every #fx.node reference inside `attr`, depth first, in
/// the order the references appear in the printed form.
void walkNodeRefs(Attribute attr, llvm::function_ref<void(NodeAttr)> fn);

/// The builtin element type tensors of the torch dtype `name` (`float32`,
/// `int64`, `bool`, `complex64`, ...) hold in the IR: f32, i64, i1,
/// complex<f32>, ...; null for dtypes the IR has no tensors of.
Type getDTypeElementType(MLIRContext *ctx, StringRef name);

/// The torch dtype name of a tensor element type (the inverse of
/// getDTypeElementType), or "" if torch has no such dtype.
StringRef getElementDTypeName(Type elementType);

/// torch's quantized dtype of tensors of the quant dialect's element type
/// `elementType` (`!quant.uniform<u8:f32, ...>` is quint8, i8 storage
/// qint8, i32 storage qint32), per tensor or per channel; "" for any
/// other type.
StringRef getQuantizedDTypeName(Type elementType);

/// The element type tensors of `elementType` are stored as: the storage
/// type (ui8, i8, i32) of a quantized element type, `elementType` itself
/// otherwise.
Type getStorageElementType(Type elementType);

/// The raw bytes of a tensor constant held as a resource blob or as
/// dense elements that are not a splat; empty for anything else.
ArrayRef<char> getElementsData(Attribute value);

/// Returns `attr` with every #fx.node reference replaced by `replace(ref)`
/// (any value: a container of references, a literal), depth first in
/// print order.
Attribute replaceNodeRefs(Attribute attr,
                          llvm::function_ref<Attribute(NodeAttr)> replace);

/// Returns `attr` with every #fx.node<i> replaced by #fx.node<map(i)>.
Attribute remapNodeRefs(Attribute attr,
                        llvm::function_ref<unsigned(unsigned)> map);

} // namespace mlir::fx

#endif // FX_MLIR_DIALECT_FX_IR_FXATTRS_H
