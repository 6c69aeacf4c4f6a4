// RUN: fx-opt %s --fx-to-llvm | FileCheck %s --implicit-check-not='{{^ *([^ ]+ = )?"?(fx|func|linalg|tensor|bufferization|memref|arith|math|scf|cf)\.}}'
// RUN: fx-opt %s --fx-to-llvm="dynamic-batch=true weights-as-arguments=true" | FileCheck %s --check-prefix=ARGS --implicit-check-not='{{^ *([^ ]+ = )?"?(fx|func|linalg|tensor|bufferization|memref|arith|math|scf|cf)\.}}'
// RUN: fx-opt %s --fx-to-llvm="dynamic-batch=true weights-as-arguments=true" --mlir-print-ir-after=convert-fx-to-linalg -o /dev/null 2>&1 | FileCheck %s --check-prefix=STAGE

// The fx-to-llvm pipeline takes a graph module as imported (module calls,
// torch functions) through fx-normalize, convert-fx-to-linalg,
// bufferization and loops to the LLVM dialect: @forward and its C wrapper
// @_mlir_ciface_forward, and no op of another dialect left (the
// --implicit-check-not pattern). The functions keep the `fx.output`
// attribute, and with weights-as-arguments the wrapper keeps the
// `fx.state` names of its weight arguments.

// Baked-in weights: the bias is a global, the splat weight folds away.

// CHECK:       llvm.mlir.global private constant @{{.*}}(dense<[1.000000e+00, -1.000000e+00, 2.000000e+00, -2.000000e+00]> : tensor<4xf32>)
// CHECK:       llvm.func @forward(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64) -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK-SAME:    attributes {fx.cpu_schedule = "target=host {{.*}}", fx.output = [#fx.node<0>], llvm.emit_c_interface}
// CHECK:       llvm.func @_mlir_ciface_forward(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK:         llvm.call @forward(

// Weights as arguments: no global; the result's dim 0 is the input's
// dynamic dim 0 (argument 3, the first size of x's descriptor).

// ARGS-NOT:    llvm.mlir.global
// ARGS:        llvm.func @forward(%{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: i64, %[[N:[^:]+]]: i64,
// ARGS:          llvm.insertvalue %[[N]], %{{.*}}[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// ARGS:        llvm.func @_mlir_ciface_forward(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {fx.state = "fc.weight"}, %{{.*}}: !llvm.ptr {fx.state = "fc.bias"})

// The options reach convert-fx-to-linalg.

// STAGE: func.func @forward(%{{.*}}: tensor<?x8xf32>, %{{.*}}: tensor<4x8xf32> {fx.state = "fc.weight"}, %{{.*}}: tensor<4xf32> {fx.state = "fc.bias"}) -> tensor<?x4xf32>

fx.graph_module @Net {
  fx.state parameter @fc.weight : tensor<4x8xf32> = dense<0.5>
  fx.state parameter @fc.bias : tensor<4xf32> = dense<[1.0, -1.0, 2.0, -2.0]>
  fx.submodule @fc "torch.nn.Linear"(in_features=8, out_features=4, bias=True)
  fx.graph @forward {
    %x = fx.placeholder "x" : tensor<2x8xf32>
    %fc = fx.call_module @fc(%x) : (tensor<2x8xf32>) -> tensor<2x4xf32>
    %relu = fx.call_function "torch.relu"(%fc) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    fx.output %relu : tensor<2x4xf32>
  }
}
