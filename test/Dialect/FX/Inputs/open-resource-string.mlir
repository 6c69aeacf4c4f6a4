fx.graph @g {
  %x = fx.placeholder "x" : tensor<2xf32>
  fx.output %x : tensor<2xf32>
}
{-#
  dialect_resources: { builtin: { w: "3D2BF5179