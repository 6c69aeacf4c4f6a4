//===- Passes.td - Conversion passes of fx-mlir ------------*- tablegen -*-===//

#ifndef FX_MLIR_CONVERSION_PASSES_TD
#define FX_MLIR_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// FXToLinalg
//===----------------------------------------------------------------------===//

def ConvertFXToLinalg : Pass<"convert-fx-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lower a normalized fx graph module to a function on tensors";
  let description = [{
    Turns the `forward` graph of each `fx.graph_module` into a `func.func`
    (named by `entry`) whose body is linalg, tensor, arith and math ops on
    tensors, and erases the graph module. The nodes must be canonical
    (`fx-normalize` first): each `fx.call_function "aten::..."` is lowered
    by the patterns of `populateFXToLinalgConversionPatterns`, and
    `operator.getitem` of a multi-result node (split, max.dim, size)
    disappears with it.

    - Each `fx.placeholder` becomes a function argument of its type; with
      `dynamic-batch`, dim 0 of every tensor argument becomes dynamic and
      the shapes of all nodes are recomputed from it (the lowering derives
      shapes from operands; declared node types only give element types).
    - Each `fx.get_attr` of module state becomes an `arith.constant` of the
      state's blob, or, with `weights-as-arguments`, a trailing function
      argument carrying `fx.state = "<qualified name>"`.
    - `fx.output` becomes `func.return` of the output's nodes in print
      order; the function carries `fx.output`, the output's args with
      `#fx.node<i>` standing for result `i`, so a caller can rebuild nested
      tuples.

    A node the patterns cannot lower is an error naming the node, its
    module path, its target and the reason, and suggesting the reference
    interpreter (`fx-run --interpret`).

    ```mlir
    fx.graph @forward {
      %x = fx.placeholder "x" : tensor<2x4xf32>
      %relu = fx.call_function "aten::relu"(%x) : (tensor<2x4xf32>) -> tensor<2x4xf32>
      fx.output %relu : tensor<2x4xf32>
    }
    ```

    becomes

    ```mlir
    func.func @forward(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32> attributes {fx.output = [#fx.node<0>]} {
      %0 = tensor.empty() : tensor<2x4xf32>
      %1 = linalg.generic {...} ins(%arg0 : tensor<2x4xf32>) outs(%0 : tensor<2x4xf32>) {
        ^bb0(%in: f32, %out: f32):
          %cst = arith.constant 0.000000e+00 : f32
          %2 = arith.maximumf %in, %cst : f32
          linalg.yield %2 : f32
      } -> tensor<2x4xf32>
      return %1 : tensor<2x4xf32>
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::complex::ComplexDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect",
    "::mlir::bufferization::BufferizationDialect",
  ];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"forward\"",
           "Name of the function the forward graph becomes">,
    Option<"weightsAsArguments", "weights-as-arguments", "bool",
           /*default=*/"false",
           "Pass module state as trailing function arguments instead of "
           "baking it in as constants">,
    Option<"dynamicBatch", "dynamic-batch", "bool", /*default=*/"false",
           "Make dim 0 of every tensor input dynamic">,
    Option<"int8Pairs", "int8-pairs", "bool", /*default=*/"false",
           "Lower the int8 convs fx-fold-quant{int8-convs} keeps in i16 "
           "pairs (activations widened, weights packed as pairs) for CPUs "
           "without VNNI (AVX2 `vpmaddwd`); else in 4-byte groups">,
  ];
}

def FXTileFusedActivations
    : Pass<"fx-tile-fused-activations", "::mlir::func::FuncOp"> {
  let summary = "Tile each fused activation and fuse its op into the tiles";
  let description = [{
    `convert-fx-to-linalg` lowers an `fx_mlir.fused.<op>` node (made by
    `fx-fuse-activation`) to its op (a `linalg.conv_*`, `linalg.matmul`,
    ... whose init may be a bias broadcast) followed by a `linalg.generic`
    applying the activation, marked `fx.fused_activation`. This pass tiles
    each marked generic over all its dims but the innermost, with tiles of
    size 1, and fuses the op and the producers of its init into the tile
    loop (`scf::tileConsumerAndFuseProducersUsingSCF`): the op's results
    for one tile are computed, activated and stored before the next tile,
    in one loop nest, instead of writing the whole result and reading it
    back. Producers of the op's other inputs (earlier layers) are not
    fused.

    ```mlir
    %mm = linalg.matmul ins(%x, %wt : ...) outs(%bias : tensor<8x16xf32>)
    %r = linalg.generic {fx.fused_activation = "relu", ...} ins(%mm : ...)
    ```

    becomes an `scf.for` over the 8 rows whose body holds a 1x16 matmul of
    the row and its relu.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

//===----------------------------------------------------------------------===//
// CPU code generation
//===----------------------------------------------------------------------===//

def FXCPUStrategy : Pass<"fx-cpu-strategy", "::mlir::func::FuncOp"> {
  let summary = "Choose and record how each conv and contraction is computed";
  let description = [{
    The policy half of the CPU schedule (`fx-cpu-schedule` is the
    mechanism): for every static f32 convolution and contraction of the
    function it chooses, from the target (option `target`, as
    `fx-cpu-schedule`'s) and the op's shapes, how the op is computed, and
    records the choice on the op as a dictionary `fx.cpu_strategy`.
    `fx-cpu-schedule` applies what is recorded, so a reader sees every
    choice with `--mlir-print-ir-after=fx-cpu-strategy`, and a user (or
    another tool) overrides one by writing the attribute before the
    schedule runs. A record already on an op is checked, completed with
    the keys it leaves out, and kept. `fx-to-llvm` runs this pass just
    before `fx-cpu-schedule`; `fx-cpu-schedule` alone records what is
    missing itself.

    - `linalg.conv_2d_nchw_fchw`: `{algorithm = "winograd", applicable =
      ["winograd", "filters-inner", "shifted-window", "im2col"]}`. The
      algorithm is the first of Winograd's F(2x2, 3x3), filters inner,
      shifted window and im2col that applies (see `fx-cpu-schedule` for
      each); `applicable` lists those that do, which are the values a
      user may write (a bare string `"im2col"` is accepted too). A record
      naming one that does not apply is an error naming those that do.
    - `linalg.conv_2d_ngchw_gfchw`: `{algorithm = "grouped"}`.
    - Contractions (`linalg.matmul`, `batch_matmul`, a `linalg.generic`
      upstream's matcher takes for a contraction, as `linear` and
      attention lower to): `{algorithm = "contraction", pack = true,
      register_tile = array<i64: 8, 32>, cache_block = array<i64: 256,
      256, 256>}`. `register_tile` is rows x columns of the result held
      in registers (accumulators of `rows x columns / lanes` vector
      registers): `tile` of the target below, fewer rows when those
      divide the rows better, one row of 8 registers for a single row;
      `pack` whether the columns operand is packed in contiguous panels
      (a constant at compile time, else by a copy before the contraction
      when it is larger than half the L2 and the rows are 64 or more;
      many columns not in whole panels: the whole panels are split off
      and packed); `cache_block` the rows and columns of the result per
      thread task and the depth of one k block (each the largest divisor
      of the op's extent up to that size, in whole register tiles).
      Written by hand, a tile of more than 64 vector registers, sizes
      outside 1 to 65536, or `pack = true` where packing does not apply,
      is an error.

    The contractions a conv algorithm makes get the strategy this pass
    would give them when `fx-cpu-schedule` creates them, with the
    `register_tile` and `cache_block` the conv's record gives, if any
    (`{algorithm = "im2col", register_tile = array<i64: 4, 16>}`); the
    function's `fx.cpu_strategies` then lists, per FX node, every
    algorithm and contraction strategy applied. Ops other than convs and contractions
    have one schedule each (see `fx-cpu-schedule`).

    ```mlir
    %r = linalg.matmul {fx.cpu_strategy = {algorithm = "contraction",
           cache_block = array<i64: 128, 256, 256>, pack = true,
           register_tile = array<i64: 6, 16>}} ins(...) outs(...)
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"host\"",
           "The CPU to choose for, as fx-cpu-schedule's `target`">
  ];
}

def FXCPUSchedule : Pass<"fx-cpu-schedule", "::mlir::func::FuncOp"> {
  let summary = "Tile and vectorize linalg ops on tensors for a CPU target";
  let description = [{
    The schedule of `fx-to-llvm`, run on the tensor function that
    `convert-fx-to-linalg` made, before bufferization. Ops whose shapes are
    static and whose element type is f32 are scheduled (elementwise and
    transposing ops also of f32, i32 and i8 elements together, with one
    f32: a quantize to bytes, an int8 conv's epilogue), and int8 convs;
    every other op stays as it is and becomes scalar loops later.

    **The target.** The option `target` names the CPU (`host` by default:
    this machine's vector width, registers and caches). The sizes below are
    those of an AVX-512 target (16 f32 lanes, 32 vector registers, 1 MiB of
    L2 or more); on another target they scale with it: registers of `L`
    lanes (8 for AVX2, 4 for NEON and SSE), panels and register tiles of
    `2L` columns, register tiles of 8 rows with 32 registers and 6 rows
    with 16 (AVX2: 6 x 16, twelve accumulators), packed cache blocks of
    256 rows with 1 MiB of L2 or more and 128 below, gathers of half the
    L2 and Winograd blocks of the L2 (both up to 1 MiB). The function gets
    an attribute `fx.cpu_schedule` recording the target and these sizes:

    ```mlir
    func.func @forward(...) attributes {fx.cpu_schedule = "target=x86-64-v3 lanes=8 registers=16 tile=6x16 packed-block-rows=128 l2=256K"}
    ```

    **Applies the recorded strategy.** Each convolution and contraction
    is computed as its `fx.cpu_strategy` says (see `fx-cpu-strategy`,
    which records it; ops without a record get the one it would choose).
    The function records what was applied, one entry per FX node:
    `fx.cpu_strategies = ["'conv1' (module 'layer1.0'): winograd; tile
    8x32, blocks 64x256x256", "'fc' (module ''): contraction; tile 8x32
    packed, blocks 256x256x256"]`.

    - **3x3 convolutions of stride and dilation 1** with constant
      weights, filters in whole panels of 32, at least 16 channels and at
      least 36 tiles of 2x2 per image (an odd output is padded to whole
      tiles, reading one more row or column of zeros, and cut back after)
      are computed by Winograd's F(2x2, 3x3), with 2.25 times fewer
      multiplies: `V = Bt d B` per 4x4 input tile, `M[p] = U[p] . V[p]`
      for the tile's 16 positions `p`, `Y = At M A` per 2x2 output tile.
      The weights are transformed (`U = G g Gt`, packed in panels of 32
      filters per position) at compile time from 64 tiles per image;
      with fewer, on every call, by vector code (an `scf.forall` over
      panels and channels) from the weights held in panels, so that the
      transformed weights, 16/9 of the weights, take memory only during
      the call (resnet18's 14x14 convs, whose held transformed weights
      took its peak memory over eager PyTorch's). The input transform (from 16
      strided slices of the input, additions only, an `scf.forall` over
      images and channels of vectors along a row of tiles) and the output
      transform (an `scf.forall` over images, panels and rows of tiles of
      vectors of 32 filters, adding a fill's value) are vector code; the
      16 products are one contraction batched over `p`, scheduled like
      the filters-inner convs below, whose result layout
      `[n, b, y, x, i]` the output transform writes. The result is
      transposed back (below). F(2x2, 3x3) adds rounding errors of the
      order of f32's epsilon times the inputs' magnitudes.
    - **Stride-1 convolutions on narrow images** with constant weights
      and filters in whole panels of 32, where the shifted window below
      would compute at least 1/14 more columns (14x14 and 28x28 images)
      or the positions are few and end in a partial register tile (7x7),
      become `outT[n, b, y, x, i] += in[n, c, y + a*dh, x + e*dw] *
      packed[b, c, a, e, i]` (filter `f = 32*b + i`): the input is read in
      place, with no gather, the weights are packed at compile time into
      contiguous panels of 32 filters, and the register tiles are a
      divisor of the output width (7 of 14) x 32 filters, so no column is
      thrown away. The result is transposed back (below).
    - **Strided convolutions** with constant weights and filters in whole
      panels of 32 (but not both strided and dilated along the width) are
      computed the same way: the window's columns `e = s*t + r` are cut by
      phase `r` of the width's stride `s`, and phase `r` is its own
      contraction, reading the input's columns `r, r + s, ...` as a
      strided `extract_slice` (no copy) at `x + t` and accumulating into
      the previous phase's result.
    - **The transpose back** of those convs is one op `out[n, b, i, y, x]
      = outT[n, b, y, x, i]` (plus the init when it is not a fill), viewed
      as `[n, f, y, x]` by a `collapse_shape`. That view folds into the
      conv's elementwise consumers (upstream's reshape-by-expansion; their
      operands read with constant indices along unit dims, a batch norm's
      `[1, C, 1, 1]` parameters, are read without those dims first), which
      then fuse with it.
    - **Other stride-1 convolutions** (`linalg.conv_2d_nchw_fchw`) on images
      wide enough that at most 1/6 more columns are computed become a
      shifted-window contraction: with the padded input's rows end to end
      (`p = y*W + x`), `ext[n, f, p] += w[f, c, i, j] * in[n, c, p + i*W +
      j]`, whose columns past the output width are dropped (an
      `extract_slice`); the input's `tensor.pad` gets one more row for
      their reads. An init that is not a fill (a bias) is added after, by
      an elementwise op that fuses with the conv's consumers. No gather.
    - **Other convolutions** become an im2col `linalg.generic` (indexed
      without div/mod) and a contraction; with a batch, inside an `scf.for`
      over its images, so one image's columns are gathered at a time; when
      one image's columns exceed 2^17 elements (512 KiB, half this
      machine's L2), inside an `scf.for` over a few output rows at a time
      (the largest divisor of the output height whose columns fit, but at
      least 256 output positions, or the whole image), so the columns are
      still in the cache when the contraction reads them. A 1x1 conv of
      stride 1 needs no gather. The gather runs in parallel blocks of its
      channels when large.
    - **Gathered convolutions on few positions** (at most 64, a 7x7
      image, as a stride-2 conv makes) that end in a partial register
      tile, with constant weights and filters
      in whole tiles of 32, become the transposed contraction
      `outT[n, b, p, i] += col[n, p, q] * packed[b, q, i]` (filter
      `f = 32*b + i`): the columns are gathered position-major, the
      weights packed at compile time into contiguous panels of 32
      filters, and the register tiles (7 positions x 32 filters for 49
      positions) are all whole; the result is transposed back as above.
    - **Grouped convolutions** (`linalg.conv_2d_ngchw_gfchw`, ResNeXt's
      and RegNet's) become one contraction with the group as a batch dim,
      which the `scf.forall` tiles by 1: every group runs the same register
      tiles (`Fg` filters by positions), the groups in parallel. Stride 1
      on a wide enough image (as above): the shifted-window form per group,
      `ext[n, g, f, p] += w[g, f, c, i, j] * in[n, g, c, p + i*W + j]`.
      Otherwise an im2col gather per group and `out[n, g, f, p] +=
      w[g, f, q] * col[n, g, q, p]`, an image and a few output rows at a
      time as above.
    - **Depthwise convolutions and max/sum pooling** (NCHW) become one
      elementwise `linalg.generic` over the KHxKW strided slices of the
      input, in the named op's order (bit-identical results). An
      elementwise op reading several slices of one integer tensor (an int8
      depthwise conv) is tiled with up to 8 neighbouring outputs along its
      second innermost loop (12 registers of results with 32 registers, 4
      with 16), so that a pixel several taps read is loaded and converted
      once. Pooling of
      an elementwise op that reads NHWC data across (an int8 conv's
      epilogue) pools in NHWC: the op writes NHWC, the windows are strided
      views of that, and only the pooled result is transposed back.
    - **int8 convolutions** (a `linalg.generic` marked `fx.int8_conv`,
      `convert-fx-to-linalg`'s lowering of a quantized conv), on targets
      with AVX-512 VNNI (the byte form; AVX2 for the pairs form below): an `scf.forall` over images, output rows, tiles of
      P pixels and blocks of 16V output channels (the channel blocks
      outermost when the weights outweigh the input), each tile P x V
      vectors of i32 accumulators held in registers across the window,
      one byte dot product (`vpdpbusd` after `fx-cpu-lower-vectors`) per
      4-channel group, pixel and vector. When the products' only reader is
      an elementwise op reading them in NHWC order and writing in that
      order (the epilogue fused with a requantization and the next conv's
      input copy, or a residual add), its body runs on each tile's
      accumulators as 16-lane vectors and the tile writes its result; the
      products are never stored. The accumulators start from zeros in
      registers (the products' `linalg.fill` of zeros is dropped), or, where
      the epilogue first adds a per-channel table (the zero point's
      correction), from that table. A grouped conv's channel blocks each
      read their slice of the input's channels (its weights `[OCB, KH, KW,
      CB/4, 16V, 4]`, the input `[N, Hp, Wp, C/4, 4]`, block `b` reading
      groups from `b floordiv R * CB/4`). The pairs form
      (`convert-fx-to-linalg{int8-pairs}`: i16 operands in 2-channel
      groups, `[N, Hp, Wp, C/2, 2]` and `[OCB, KH, KW, C/2, 16V, 2]`) gets
      the same tiles on targets with AVX2 or VNNI, one i16 pair dot
      product (`vpmaddwd` and an add after `fx-cpu-lower-vectors`: two of
      256 bits on AVX2, one of 512 on AVX-512) per 2-channel group, pixel
      and vector. Elsewhere the generic stays loops.
    - **Value ranges of elementwise bodies** (Bounds.cpp): each f32 value
      of a `linalg.generic`'s body gets an interval from its operands'
      (integer types, scalar constants, constant tables; widened for f32
      rounding). A compare the interval decides folds (a quantize's guard
      against values from 2^63 up, after an int8 conv's products). A
      quantize's last steps, `fptosi(minnumf(maxnumf(roundeven(v) + zp,
      lo), hi))` with `zp`, `lo` and `hi` integer constants, run in
      integers where `v` lies within 2^30: `minsi(maxsi(fptosi(roundeven
      (v)) + zp, lo), hi)`, the same values; a zero point of 0 then adds
      nothing, and LLVM makes a clamp into a byte's range before a
      truncation the saturating packs.
    - **int8 3x3 convolutions of stride and dilation 1 in the pairs form**
      (option `int8-winograd`, on by default) with constant weights,
      accumulators starting from a constant, groups 1 and at least 8
      tiles of 2x2 over the batch are computed by Winograd's F(4x4, 3x3)
      (from 16 tiles of 4x4) or F(2x2, 3x3), in integers, exactly: the
      weights transformed at compile time as `U = G' g G't` (G's rows
      scaled to integers, `|U| <= 49 * 128`: i16), the input centred and
      transformed as `V = Bt (d - 128) B` on i16 vectors of channels
      (`|V| <= 100 * 128`), the products `M[q] = V[q] . U[q]` (36 or 16)
      as the pair register tiles above (P tiles x 16V channels), and
      `At' M A' = L^2 (D - 128 sum w)` in wrapping i32 (`L^2 = 576` or 4),
      times the inverse of `L^2`'s odd factor modulo 2^32, shifted right
      by its power of 2 (6 or 2), plus `128 sum w`: the direct form's sums
      exactly wherever `2^s * 128 * sum |w|` fits an i32 for every output
      channel, which is checked on the weights (F(2x2, 3x3) where only its
      bound holds; others stay direct). 36 products per 16 outputs, or 16
      per 4, instead of 9 per output. The tiles run in row blocks whose `V`
      and `M` fit the L2, in parallel (each block on one thread) when
      there are 4 or more; the epilogue runs on the output transform's
      vectors, as above. The applied strategy reads `int8 pairs winograd
      F(4x4, 3x3)` (or `F(2x2, 3x3)`).
    - **Padded tensors** (data inserted into the interior of a
      `linalg.fill`, an int8 conv's padded input): each insertion gets a
      tensor of its own (`fx.distinct`, so CSE keeps them apart) whose
      borders alone are filled, and the data's producer writes its interior
      (its init an `extract_slice` of it): no fill of the whole buffer, no
      copy of the data or of a fill CSE shared between same-sized tensors.
      Where the data has another reader, or a reader of the padded tensor
      reads exactly its interior (a stride-1 window's centre tap, folded
      into a read of the data), the producer writes a tensor of its own,
      inserted after: in place, bufferization would copy the interior out
      and back for that reader.
    - **Identical copies** (generics of one input whose body yields it,
      writing every element) of one tensor in one layout, as each int8
      branch conv of an inception block writes of the block's input, are
      made one before anything is fused.
    - **Chains in NHWC**: elementwise ops writing NCHW that read an NHWC
      tensor across (an int8 conv's products), and those reading their
      results in order (the next residual block's add), write NHWC
      instead; their other readers get a transpose back each, which fuses
      into them. A concatenation along the channels of such results
      (`tensor.insert_slice`s from a `tensor.empty`) joins them, in NHWC. A producer reading bytes along its rows is not fused into
      a reader that reads it across (the bytes would be gathered one by
      one).
    - **Columns packed in panels**: a contraction of at least 8 rows
      whose result's innermost dim n is a multiple of 32 (and more than
      32), with its columns operand B indexed `(..., k, n)` or
      `(..., n, k)`, reads B packed as `(..., N/32, K, 32)`, each panel of
      32 columns contiguous, and writes its result through the view
      `(..., N/32, 32)` (an `expand_shape`; a `collapse_shape` after): a
      register tile then streams one contiguous panel, where B's rows
      would each be N floats apart (a new page per row, the same cache
      sets). A 2-D constant B (`linear`'s weight) is packed at compile
      time. A computed B is packed by an `expand_shape` and one
      `linalg.transpose` (vectorized when it keeps the innermost dim),
      only when it has 2^17 elements or more and the contraction 64 rows
      or more, so the copy costs little against what it speeds up. A
      cache block covers 256 columns (8 panels) and, with 512 rows or
      more, 128 rows: more rows reuse the contiguous columns block more.
    - **Constant weights read transposed**: a contraction whose 2-D
      constant operand is indexed `(n, k)`, as `linear`'s weight, and is
      not packed, reads a copy transposed at compile time instead,
      indexed `(k, n)`.
    - **Contractions** (matmul, linear, batch matmul, the convs above: one
      m, one n and one k dim; other reductions, a conv's window dims, are
      looped over inside the blocks) are split so that each piece tiles
      exactly (whole register tiles, then the columns left over in whole
      16-lane registers, then the last few columns), then tiled three
      times: an `scf.forall` over cache blocks of the result (64 rows x up
      to 256 columns, dividing the piece; the threads share them out), an
      `scf.for` over k blocks of up to 256, and `scf.for` loops over
      register tiles of 8 rows x 32 columns (7 or 6 rows when those
      divide the rows and 8 does not; 1 x 128 when there is one row),
      with k steps of 1. Each register tile is vectorized to a
      `vector.contract`. A result of at most 256 columns with a tail (a
      7x7 image: 49 = 32 + 16 + 1) is split inside each k block instead,
      so its pieces read the same block of the left operand (a conv's
      weights) from the cache rather than each streaming all of it.
    - **Row reductions** (one reduction loop, the innermost, read
      contiguously: a softmax's max and sum, a layer norm's mean and
      variance) of rows that are whole registers, at least two, are split
      (upstream's `linalg::splitReduction`) into 16 partial results per
      row that add one register of the row per step, then a last op
      reduces the 16; LLVM would leave each row one chain of dependent
      scalar operations, as it does not reassociate float reductions.
      Several trailing reduced loops read contiguously (`x.mean((2, 3))`
      of NCHW data, a whole tensor's sum) are one loop first, when it
      fills whole registers or is long. A row of more than 1,024
      registers is summed in about sqrt(n / 16) blocks (in parallel), then
      the blocks' results, so each lane adds about 2 sqrt(n / 16) values
      in a chain instead of n / 16. Reduced loops outside the trailing
      ones (`x.mean((0, 2, 3))`, BatchNorm's statistics) split the op in
      two: the trailing loops into partials (a row reduction), then the
      body's combiner over the others (a column reduction).
    - **Column reductions** (reduction loops outside the loop the largest
      input is contiguous along, a parallel one `c`: a global average
      pooling of NHWC data, the sum over h and w of `x[n, h, w, c]`) are
      reordered (parallel loops, reduced loops, `c`), tiled along `c` in up
      to 4 registers, and looped over the other parallel loops, `c`'s
      blocks, then the reduced loops, so that a block's accumulators stay
      in registers across them. A float column of more than 1,024 values
      is summed in about sqrt(n) blocks, then the blocks' results (its
      reduced loops made one first, or, where they are apart, reduced one
      after the other).
    - **Elementwise ops** (all-parallel generics of arith and math ops,
      fills, broadcasts, transposes that keep the innermost dim) are tiled
      to rows of their innermost dim, up to 64 elements, and vectorized;
      an op of 2^15 elements or more is first cut into about 8 parallel
      blocks (`scf.forall`) of its outermost dim.
    - **Transposing ops** (all-parallel generics of arith and math ops and
      `linalg.transpose`s, some of whose inputs read the innermost loop
      elsewhere than innermost, all with the same loop `t` innermost
      instead; a generic writing its result permuted first iterates in
      the result's order) have their innermost loops, and `t` with the
      loop before it, collapsed into one while every operand reads them
      contiguously (and through projected permutations without
      constants), then are tiled 16 x 16 along `t` and the innermost loop
      and vectorized: each tile is a 16 x 16 `vector.transpose` of 32-bit
      words (`fx-cpu-lower-vectors` makes it shuffles), the inputs read
      across must be 32-bit. The
      tails of either loop stay scalar loops. Other all-parallel ops
      (gathers) stay scalar loops, in parallel blocks too when that large.
    - A contraction or transposing op that cannot be tiled and vectorized
      after its rewrite started is an error (the pass fails).

    ```mlir
    %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>)
                       outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
    ```

    becomes an `scf.forall` (one 64x64 block) around `scf.for` loops over
    8x32 tiles and k, whose body reads the tiles with
    `vector.transfer_read` and computes
    `vector.contract ... vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>`.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"host\"",
           "The CPU to generate code for: `host` (this machine, as LLVM "
           "and the OS describe it) or a named target: x86-64-v2, "
           "x86-64-v3, haswell, znver2, znver3 (AVX2), x86-64-v4, "
           "skylake-avx512, icelake-server, sapphirerapids, znver4 "
           "(AVX-512), neoverse-n1, aarch64 (NEON)">,
    Option<"useInt8Winograd", "int8-winograd", "bool", /*default=*/"true",
           "Compute the pairs form's 3x3 int8 convs of stride 1 by "
           "Winograd's F(4x4, 3x3) or F(2x2, 3x3) in integers (exact, "
           "the same sums); "
           "false keeps them direct register tiles">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect", "::mlir::vector::VectorDialect",
    "::mlir::affine::AffineDialect",
    "::mlir::LLVM::LLVMDialect",
  ];
}

def FXCPULowerVectors : Pass<"fx-cpu-lower-vectors", "::mlir::func::FuncOp"> {
  let summary = "Lower vector ops to FMAs, loads and stores";
  let description = [{
    Runs after bufferization (and after `fx-cpu-fold-memref-alias-ops`). The
    accumulators of the register tiles are already loop-carried vectors
    (`loop-invariant-subset-hoisting` ran on tensors). It lowers
    `vector.contract` to outer products and those to `vector.fma`,
    transfers to 1-D loads and stores, and multi-reductions, broadcasts,
    transposes, shape casts and masks to simpler vector ops. Math
    functions on f32 (`exp`, `tanh`, `erf`, `log`, ...) get MLIR's
    polynomial approximations, which vectorize, instead of libm calls.
    A `memref.copy` into or out of a strided view (the interior of a
    padded input) becomes a `linalg.copy` instead of a call to the
    element-by-element `memrefCopy`; a large one (2^15 elements or more)
    runs in parallel blocks of its outermost dim. Every `linalg.copy` of
    static shape whose rows are contiguous on both sides then moves each
    row (or each piece of up to 256 elements that divides it, at least 16)
    with one vector load and store, in loops over the other dims. As
    loops, LLVM left them scalar, one float at a time (a 1024^3 matmul's
    second operand, packed in panels, among them): it fully unrolls a
    short row, and its SLP vectorizer may not move the loads above the
    stores when it cannot tell source and target apart (an argument and
    the workspace).
    A 1-D `vector.transfer_read` along a dim of static stride 2 to 4 (the
    window slices of a stride-2 pooling or depthwise conv) becomes, per 16
    lanes, one `vector.maskedload` of the contiguous elements they span,
    from the same memref with a unit stride (`memref.reinterpret_cast`),
    and a `vector.shuffle` picking every stride-th one; not when the read
    only feeds contractions (a strided conv's positions, broadcast one by
    one, best straight from memory). A 16 x 16 f32 `vector.transpose` (a
    transposing op's tile) becomes upstream's AVX-512 sequence of
    shuffles within and across 128-bit lanes (`Shuffle16x16`); other
    transposes move element by element.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"host\"",
           "The CPU to generate code for: `host` (this machine, as LLVM "
           "and the OS describe it) or a named target: x86-64-v2, "
           "x86-64-v3, haswell, znver2, znver3 (AVX2), x86-64-v4, "
           "skylake-avx512, icelake-server, sapphirerapids, znver4 "
           "(AVX-512), neoverse-n1, aarch64 (NEON)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::vector::VectorDialect",
    "::mlir::math::MathDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::LLVM::LLVMDialect",
  ];
}

def FXCPUDistinctEmptyTensors
    : Pass<"fx-cpu-distinct-empty-tensors", "::mlir::func::FuncOp"> {
  let summary = "Keep the empty tensors of a large identical group apart";
  let description = [{
    Runs right after `fx-cpu-schedule`, before the first `cse`.
    `tensor.empty` is pure, so CSE merges identical ones: in a graph of
    many layers of one shape, every layer's parallel loop (`scf.forall`)
    would then write into the same empty tensor. Two such loops differ
    only inside their regions (the weights they read), which CSE's hash
    leaves out, so CSE compares every pair of them region by region, and
    one-shot bufferization puts every layer in one alias set, whose
    conflict checks grow with the cube of the graph: an MLP of 1,250
    linear layers of 16 features took 19 s through `fx-to-llvm`, 7.6 s of
    it in CSE.

    When a block holds more than 16 identical `tensor.empty` ops (same
    type and sizes), this pass gives each an attribute `fx.distinct`
    with its index, so CSE keeps them apart, as the graph meant them:
    every op a fresh destination. Bufferization drops the attribute with
    the op. It changes no value. Groups of 16 or fewer are left to CSE
    (bufferization may then reuse one buffer among ops that do not
    conflict; the benchmark's CNNs have at most 9 of a kind), so their
    code is unchanged.

    ```mlir
    %e0 = tensor.empty() {fx.distinct = 0 : i64} : tensor<4x16xf32>
    %e1 = tensor.empty() {fx.distinct = 1 : i64} : tensor<4x16xf32>
    ```
  }];
}

def FXCPUByteBools : Pass<"fx-cpu-byte-bools", "::mlir::ModuleOp"> {
  let summary = "Read and write vectors of bools as bytes";
  let description = [{
    Runs last in `fx-to-llvm`, on the LLVM dialect. A bool tensor's
    memory holds one byte per element (PyTorch's and LLVM's layout of a
    scalar `i1`), but LLVM lays a vector of `i1` out in memory as packed
    bits: a vectorized copy of bools (`llvm.load ... -> vector<16xi1>`)
    would read 16 bits where 16 bytes are, so slicing, concatenating or
    flipping a bool tensor gave wrong elements. This pass rewrites each
    load and store of an `i1` vector (plain and masked) into one of an
    `i8` vector and a truncation or zero extension:

    ```mlir
    %v = llvm.load %p : !llvm.ptr -> vector<16xi1>
    // becomes
    %b = llvm.load %p : !llvm.ptr -> vector<16xi8>
    %v = llvm.trunc %b : vector<16xi8> to vector<16xi1>
    ```

    Gathers and scatters of bool vectors, which nothing emits today, are
    reported as an error rather than left to read bits.
  }];
}

def FXCPUFoldConstantCopies
    : Pass<"fx-cpu-fold-constant-copies", "::mlir::func::FuncOp"> {
  let summary = "Slices and transposes of constants become constants";
  let description = [{
    Runs first in the CPU schedule's function passes. A contraction whose
    weight is a constant has it transposed or packed at compile time by
    `fx-cpu-schedule`; one whose weight is computed from a constant pays
    for that on every call. Two such computations are common:

    - nn.MultiheadAttention keeps its query, key and value projections in
      one `in_proj_weight` (3E x E) and slices each one out of it
      (`tensor.extract_slice`): a decoder layer at one query row spent 73%
      of its time transposing them, in gathers;
    - `x @ self.weight.t()` transposes the weight (`linalg.transpose`)
      before the product: at one row, 0.28x of eager.

    This pass replaces each `tensor.extract_slice` with static offsets,
    sizes and strides, and each `linalg.transpose`, of an `arith.constant`
    (dense elements or a `dense_resource` blob, of integers or floats of
    whole bytes) with a constant holding the result's elements, in
    program order (a transpose of a slice folds too), and erases the
    source constant once nothing else reads it.

    ```mlir
    %w = arith.constant dense_resource<in_proj> : tensor<1536x512xf32>
    %q = tensor.extract_slice %w[0, 0] [512, 512] [1, 1]
        : tensor<1536x512xf32> to tensor<512x512xf32>
    // becomes
    %q = arith.constant dense_resource<slice> : tensor<512x512xf32>
    ```

    Rank-reducing slices keep their result type. Splats are left to
    `canonicalize`, which folds their slices already; slices with dynamic
    offsets, sizes or strides, and bool (`i1`) constants, are left as they
    are.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def FXCPUShareConstants : Pass<"fx-cpu-share-constants", "::mlir::ModuleOp"> {
  let summary = "Constants of equal bytes share one blob";
  let description = [{
    Runs right after `fx-cpu-schedule`, which packs constant operands at
    compile time (a linear's weight in panels, conv filters transposed):
    each op it schedules gets a blob of its own, also where several ops
    read the same weight. An LSTM or GRU unrolled over 50 steps reads its
    `w_hh` in every step, so its 1 MB weight became 100 packed copies
    (106 MB of globals), and every step streamed another copy from memory
    where one copy would stay in the cache. This pass gives every
    `arith.constant` whose `dense_resource` blob holds the same bytes as
    an earlier one of the same type that earlier one's attribute (compared
    by an xxh3 hash of the bytes, then byte for byte); `cse` then merges
    the constants of one function, and bufferization makes one
    `memref.global` of each attribute for all functions.

    ```mlir
    %a = arith.constant dense_resource<transposed> : tensor<2x2x128xf32>
    %b = arith.constant dense_resource<transposed_1> : tensor<2x2x128xf32>
    // with equal bytes, becomes
    %a = arith.constant dense_resource<transposed> : tensor<2x2x128xf32>
    %b = arith.constant dense_resource<transposed> : tensor<2x2x128xf32>
    ```

    Constants of other types, or of other bytes, are left as they are;
    so are `dense` (not resource) attributes, which MLIR already uniques
    by their values.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def FXCPUReadOnlyArguments
    : Pass<"fx-cpu-read-only-arguments", "::mlir::func::FuncOp"> {
  let summary = "Mark the function's tensor arguments as not writable";
  let description = [{
    Runs right before `one-shot-bufferize`. The caller's tensors (the
    graph's inputs and, with `weights-as-arguments`, its weights) are read
    only: the graph computes new tensors from them, as eager PyTorch does.
    One-shot bufferization takes a tensor argument as writable unless it
    says otherwise, so a lowering that updates a tensor in place (an
    `insert_slice` into an input: `slice_scatter`, `select_scatter`,
    `diagonal_scatter`) would change the caller's tensor. This pass gives
    every tensor argument `bufferization.writable = false`; bufferization
    then copies such an input before writing.

    ```mlir
    func.func @forward(%arg0: tensor<5xf32> {bufferization.writable = false}, ...)
    ```
  }];
}

def FXCPUSplitDeallocs : Pass<"fx-cpu-split-deallocs", "::mlir::func::FuncOp"> {
  let summary = "One bufferization.dealloc per buffer a function allocated";
  let description = [{
    Runs between upstream's `ownership-based-buffer-deallocation` and
    `buffer-deallocation-simplification` (`fx-to-llvm` spells out
    `buffer-deallocation-pipeline` to place it). Ownership-based
    deallocation frees every buffer of a block in one
    `bufferization.dealloc` at its end; a graph's function is one block,
    so that op lists every intermediate buffer of the model, and the
    simplification compares them pairwise (52.8 s of 104 s for an MLP of
    5,000 layers). A `bufferization.dealloc` of 16 buffers or more is
    split into one per buffer that a `memref.alloc` made (distinct
    allocations alias neither each other nor anything else) and one of
    the rest, each retaining the same values; the ownership of a retained
    value is the `or` of theirs.

    ```mlir
    %o = bufferization.dealloc (%a, %b, %arg : ...) if (%c1, %c2, %c3) retain (%r : ...)
    ```

    becomes (with 16 or more buffers)

    ```mlir
    %o1 = bufferization.dealloc (%a : ...) if (%c1) retain (%r : ...)
    %o2 = bufferization.dealloc (%b : ...) if (%c2) retain (%r : ...)
    %o3 = bufferization.dealloc (%arg : ...) if (%c3) retain (%r : ...)
    %0 = arith.ori %o1, %o2 : i1
    %o = arith.ori %0, %o3 : i1
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def FXCPUFoldMemRefAliasOps
    : Pass<"fx-cpu-fold-memref-alias-ops", "::mlir::ModuleOp"> {
  let summary = "Accesses of subviews, expand_shapes and collapse_shapes as "
                "accesses of their sources, without MLIR 22's wrong folds";
  let description = [{
    Upstream's `fold-memref-alias-ops` (its patterns, applied greedily),
    except for its folds of vector reads and writes through a
    `memref.expand_shape`, which MLIR 22 gets wrong: a `vector.transfer_read`
    becomes a read of the expand's source with the source's minor identity
    map, whatever dims of the expanded view the vector spans. A vector that
    spans two dims of one reassociation group (`vector<16x1x16xf32>` read
    at `(0, c, h, 0)` of `memref<1x32x28x28xf32>` expanded from
    `memref<1x32x784xf32>` by `[[0], [1], [2, 3]]`) becomes a read of dims
    `(0, 1, 2)` of the source: of its unit batch dim 16 times, out of
    bounds. n-D `vector.load`, `vector.store` and their masked forms keep
    the same wrong strides (reported upstream as
    llvm/llvm-project#177016).

    This pass folds a transfer_read through an expand_shape only where the
    source's minor identity map reads the same elements: the vector's dims
    after the first are groups of one dim each, and its first dim is the
    innermost of its group, read in bounds (or the group is one dim).
    Other vector accesses stay accesses of the expand_shape's view, which
    `expand-strided-metadata` lowers exactly (no `vector.load` or
    `vector.store` exists yet where this pass runs:
    `fx-cpu-lower-vectors` makes them after).

    ```mlir
    %e = memref.expand_shape %m [[0], [1], [2, 3]] output_shape [1, 32, 28, 28]
        : memref<1x32x784xf32> into memref<1x32x28x28xf32>
    %v = vector.transfer_read %e[%c0, %c, %h, %c0], %pad {in_bounds = [true, true, true]}
        : memref<1x32x28x28xf32>, vector<16x1x16xf32>   // stays
    %w = vector.transfer_read %e[%c0, %c, %h, %c0], %pad {in_bounds = [true]}
        : memref<1x32x28x28xf32>, vector<16xf32>        // reads %m[0, %c, %h * 28]
    ```
  }];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

def FXCPUShortenBufferLifetimes
    : Pass<"fx-cpu-shorten-buffer-lifetimes", "::mlir::func::FuncOp"> {
  let summary = "Allocate each buffer at its first use, free it after its "
                "last";
  let description = [{
    Runs after `buffer-deallocation-pipeline` and
    `convert-bufferization-to-memref`. Bufferization allocates a buffer
    where its tensor was created (often long before it is written), and
    upstream's ownership-based deallocation frees it at the end of the
    block that allocated it. A graph's function is one block, so every
    intermediate buffer would live from its op's position to the return:
    resnet18 at batch 1 would hold 45 MB of activations and im2col columns
    at once.

    First, an alloc of constant size in the body of an `scf.for` that is
    freed in the same body moves out of the loop (its dealloc after it),
    out of a whole nest of `scf.for`s: one buffer serves every iteration.
    Parallel loops (`scf.forall`) keep theirs, one per thread.

    Then, in each block, this pass moves
    - each `memref.alloc` whose sizes are constants down to just before
      the first op that uses the buffer or one of its aliases, and
    - each unconditional `memref.dealloc` of a `memref.alloc` of the same
      block up to just after the last such op.

    Aliases are views, casts and results of region ops (upstream's
    `BufferViewFlowAnalysis`); a use inside a nested region counts as a use
    by the region's op. A buffer with an alias used outside the block, or
    freed by another dealloc, keeps its dealloc where it is. The peak
    footprint becomes the largest set of buffers live at once, and a
    buffer often reuses memory just freed, still in cache.

    ```mlir
    %a = memref.alloc() : memref<64xf32>
    %b = memref.alloc() : memref<64xf32>
    linalg.fill ins(%c0 : f32) outs(%a : memref<64xf32>)
    linalg.copy ins(%a : memref<64xf32>) outs(%out : memref<64xf32>)
    linalg.fill ins(%c1 : f32) outs(%b : memref<64xf32>)
    ...
    memref.dealloc %a : memref<64xf32>
    memref.dealloc %b : memref<64xf32>
    ```

    becomes the same with `memref.dealloc %a` right after the
    `linalg.copy`, then `%b`'s alloc.
  }];
}

def FXCPUOutlineParts
    : Pass<"fx-cpu-outline-parts", "::mlir::ModuleOp"> {
  let summary = "Move runs of a large function's ops into functions it "
                "calls";
  let description = [{
    Runs after `fx-cpu-plan-workspace`, on memrefs. A model's function is
    one block of many loop nests: the function passes that follow run on
    it on one thread, the translation to LLVM IR outlines every OpenMP
    region with a scan of the whole function (quadratic: 17 s for
    densenet121), and LLVM optimizes and compiles it on one thread.

    A function of at least twice `part-ops` ops (all nested ops counted)
    is cut between its top-level ops into runs of up to `part-ops` ops
    (a larger op alone), the last run at least half that; each run moves
    into a private function `<name>__part<i>`, called in its place. The
    values a run uses from before it become the callee's arguments, those
    used after it its results; values computed from constants alone
    (constants, the workspace's `memref.get_global` and views of it) are
    recomputed in each callee instead, so LLVM still sees which views of
    the workspace overlap. Small functions are left alone.

    ```mlir
    func.func @forward(%x: memref<...>) -> memref<...> {
      %a = memref.alloc() ...   // conv 1
      scf.parallel ...
      %b = memref.alloc() ...   // conv 2
      scf.parallel ...
      memref.dealloc %a
      return %b
    }
    ```

    becomes `%a = call @forward__part0(%x)`, `%b = call
    @forward__part1(%a)`, `return %b`, with the ops in the callees.
  }];
  let options = [
    Option<"partOps", "part-ops", "int64_t", "1000",
           "Ops (nested ones included) per outlined run">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def FXCPUPlanWorkspace
    : Pass<"fx-cpu-plan-workspace", "::mlir::ModuleOp"> {
  let summary = "Put a function's buffers at fixed offsets of one "
                "workspace";
  let description = [{
    Runs after `fx-cpu-shorten-buffer-lifetimes`. In each function, the
    buffers of 512 KiB or more allocated and freed in the function's block
    (constant sizes, identity layouts) get offsets in one workspace, a
    private uninitialized `memref.global` of the module
    (`<function>__fx_workspace`, 64-byte aligned): two buffers share bytes
    only if their lifetimes (alloc to dealloc, in block order) are
    disjoint. Offsets are chosen largest buffer first, each at the lowest
    offset free during its lifetime. Each alloc becomes a `memref.view` of
    the workspace at its offset; its dealloc goes.

    The workspace is allocated once, with the code: a call maps no fresh
    pages for its large buffers, and their footprint is the planned size
    (resnet18 at batch 1: about 11 MB). A function with a single such
    buffer gets a workspace too: glibc trims the top of its heap when a
    large block is freed, so malloc mapped and zeroed that buffer afresh
    on every call (a 1024^3 matmul's packed operand with its result: 8 MB
    of fresh pages per call). Smaller buffers keep malloc, which
    serves them from its free lists, and with it LLVM's knowledge that
    they alias nothing (a transformer block ran 10% slower with every
    buffer in the workspace). Buffers with computed sizes (dynamic batch)
    and buffers inside loops (per-thread tiles) keep their allocs too. The
    code's function is not reentrant: the runtime runs one call of a
    compiled graph at a time.

    ```mlir
    %a = memref.alloc() : memref<131072xf32>
    ...
    memref.dealloc %a : memref<131072xf32>
    %b = memref.alloc() : memref<256x512xf32>
    ...
    memref.dealloc %b : memref<256x512xf32>
    ```

    becomes views of one 512 KiB workspace, both at offset 0.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

#endif // FX_MLIR_CONVERSION_PASSES_TD
