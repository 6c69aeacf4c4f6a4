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

    In-place calls become functional where nothing else sees the write:
    an in-place ATen call (`aten::add_.Tensor`, as torch.jit.trace records
    `x.add_(y)`), and an in-place method or torch function (`y.add_(1)`,
    `y.fill_(0)`, `torch.relu_(y)`, `F.elu_(y)`), made that ATen call
    first, becomes its out-of-place overload, and later readers of the
    written tensor read the result; a write into a view of a tensor the
    graph made is scattered back into that tensor (`aten::select_scatter`,
    `aten::slice_scatter`, the inverse transpose). A write into a graph
    input or module state, or into a tensor another view of which is read
    after the write, is left as it is and reported.

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

//===----------------------------------------------------------------------===//
// Cleanup
//===----------------------------------------------------------------------===//

def FXDeadNodeElimination : Pass<"fx-dce"> {
  let summary = "Erase nodes whose results nothing uses";
  let description = [{
    The counterpart of `torch.fx.Graph.eliminate_dead_code()`: erases, last
    node first, every node without users that is pure. A node is pure when
    it is a `get_attr`, or a call the target registry binds to an operator
    marked `Pure` in `Targets.def` that does not write its input in place
    (`inplace=True`, `operator.iadd`, ...); eval-mode batch norm and dropout
    count as pure, training-mode ones (which update running statistics or
    draw random numbers) do not. Calls of unknown targets are kept, as
    placeholders and the output are.

    With `remove-unused-state`, the `fx.state` tensors no node reads any
    more and the leaf `fx.submodule`s nothing calls are erased too (what
    `GraphModule.delete_all_unused_submodules()` does for modules).

    ```mlir
    %x = fx.placeholder "x" : tensor<2xf32>
    %dead = fx.call_function "torch.relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    %neg = fx.call_function "torch.neg"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    fx.output %neg : tensor<2xf32>
    ```

    loses `%dead`.
  }];
  let options = [
    Option<"removeUnusedState", "remove-unused-state", "bool",
           /*default=*/"false",
           "Also erase state and submodules nothing uses any more">,
  ];
}

def FXCSE : Pass<"fx-cse"> {
  let summary = "Merge identical pure nodes";
  let description = [{
    Replaces a pure node (see `fx-dce`) by an earlier node of the same kind
    with the same target, args, kwargs, operands and result type; the later
    node's users use the earlier one and the later node is erased. Two
    `get_attr` nodes of the same state merge the same way. Nodes are never
    merged across a call that is not pure (an in-place update, a random op,
    an unknown target), as it may have changed what the earlier node read.

    ```mlir
    %a = fx.call_function "aten::relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = fx.call_function "aten::relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %s = fx.call_function "aten::add.Tensor"(%a, %b) {alpha = 1} : ...
    ```

    becomes `%s = fx.call_function "aten::add.Tensor"(%a, %a) ...`.
  }];
}

def FXCanonicalize : Pass<"fx-canonicalize"> {
  let summary = "Remove redundant views, transposes and identity calls";
  let description = [{
    Simplifies calls in any spelling the target registry knows (the result
    is canonical when a call is rewritten):

    - identities disappear: `contiguous()`, eval-mode `dropout`,
      `permute` by the identity, `transpose(x, d, d)`, `flatten(x, d, d)`,
      and `view`/`reshape`/`expand`/`view_as` to the input's own static
      shape; their users use the input;
    - chains fold: `view`/`reshape`/`flatten` of a `view`/`reshape`/
      `flatten` reshapes the original input once (a `view` when both were
      views, else a `reshape`); `permute`, `transpose` and `t` of one
      another compose into one `permute`, or vanish when they cancel.

    Nodes left without users by a rewrite are erased when pure.

    ```mlir
    %t = fx.call_function "aten::transpose.int"(%x, 0, 1) : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %u = fx.call_method "transpose"(%t, 0, 1) : (tensor<3x2xf32>) -> tensor<2x3xf32>
    %r = fx.call_function "aten::relu"(%u) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```

    becomes `%r = fx.call_function "aten::relu"(%x) ...`.
  }];
}

def FXRename : Pass<"fx-rename"> {
  let summary = "Give every node a unique, readable name derived from its target";
  let description = [{
    Renames the nodes of each graph as torch.fx names nodes it creates: a
    placeholder keeps its parameter name, a `get_attr` or `call_module`
    node is named after the qualified path (`layer1.0.conv1` ->
    `layer1_0_conv1`), a call after its target's last component
    (`torch.nn.functional.relu` -> `relu`, `aten::add.Tensor` -> `add`,
    `fx_mlir.fused.conv2d` with `activation="relu"` -> `conv2d_relu`), and
    the output node `output`. Repeated names get `_1`, `_2`, ... in graph
    order; names that are Python keywords or would shadow what exported
    code uses (`torch`, `self`, ...) get a suffix too. Locations follow the
    new names. Exported Python code is therefore valid however the graph
    was built.
  }];
}

//===----------------------------------------------------------------------===//
// Fusion
//===----------------------------------------------------------------------===//

def FXFoldBatchNorm : Pass<"fx-fold-batchnorm"> {
  let summary = "Fold inference-mode batch norm into the preceding conv or linear";
  let description = [{
    For a batch norm in eval mode (`training=False`, or an `nn.BatchNorm*`
    module without `training`) whose input is a `conv1d`, `conv2d` or
    `linear` call (in any spelling) used by nothing else, computes new
    weights and bias

        scale = gamma / sqrt(running_var + eps)
        W'    = W * scale     (per output channel)
        b'    = (b - running_mean) * scale + beta

    as new `fx.state` parameters next to the conv's weight (named
    `<weight>_folded` and `<module>.bias_folded`), replaces the two nodes by
    one canonical conv/linear call reading them, and erases the state and
    submodules nothing uses any more. The weights must be known (state with
    values) and of a float type; a linear must produce a 2-d result, as
    BatchNorm1d normalizes dim 1. Anything else is left as it is:
    training-mode batch norm, a conv with a second user, unknown weights.

    ```mlir
    %conv = fx.call_module @conv(%x) : (tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32>
    %bn = fx.call_module @bn(%conv) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    ```

    becomes

    ```mlir
    %conv_weight_folded = fx.get_attr @"conv.weight_folded" : tensor<4x3x3x3xf32>
    %conv_bias_folded = fx.get_attr @"conv.bias_folded" : tensor<4xf32>
    %conv = fx.call_function "aten::conv2d"(%x, %conv_weight_folded, %conv_bias_folded, [1, 1], [1, 1], [1, 1], 1) : ...
    ```
  }];
}

def FXFoldQuant : Pass<"fx-fold-quant"> {
  let summary = "Fold quantize/dequantize pairs and dequantize known weights";
  let description = [{
    Runs on graphs in the reference form fx-normalize writes quantized
    computations in (docs/Quantization.md):

    - `aten::dequantize.self` of quantized module state with a value (a
      quantized module's weight) becomes a `get_attr` of a new float
      parameter `<state>_dequantized` holding the dequantized weight,
      computed as the lowering computes it, `(q - zero_point) * scale` in
      f32: the weight is dequantized once, at compile time;
    - `aten::quantize_per_tensor(aten::dequantize.self(a), ...)` to the
      type `a` already has is `a`: quantizing exactly the values a
      dequantize made gives back its integers;
    - `aten::dequantize.self(aten::quantize_per_tensor(x, s, z, dtype))`
      is `aten::fake_quantize_per_tensor_affine(x, s, z, qmin, qmax)`: the
      same arithmetic in one pass, without the integers in between (the
      quantize stays while something else reads it);
    - `aten::quantize_per_tensor(aten::avg_pool2d(aten::dequantize.self(a)))`
      to `a`'s own 8-bit type (fx-normalize's form of PyTorch's quantized
      average pooling) is `aten::avg_pool2d(a)` on the quantized tensor,
      which the lowering averages on the integers with PyTorch's rounding
      (half to even): through floats, a 2 x 2 window's exact half lands on
      either side; so is `adaptive_avg_pool2d`. Where PyTorch holds `a`
      channels-last (a quantized conv's or batch norm's output and what
      keeps its layout after it, a tensor of one channel), the pooling
      carries `fx.round_before_zero_point`: ATen's channels-last kernels
      round the average before adding the zero point back, its contiguous
      one after.

    State and get_attr nodes nothing reads any more are erased.

    With `int8-convs`, a `conv2d` (groups 1, grouped in the kernel's
    channel blocks, or depthwise) of the dequantize of a per-tensor
    `quint8` activation and of the dequantize of a constant `qint8` weight
    with zero points 0, at least 16 deep (input channels x window), keeps
    both dequantizes: the lowering computes it with int32 accumulation from
    the integers (the int8 kernels of docs/Quantization.md). So does a
    `linear` of such operands (2-D weight, at least 16 deep), or of a
    dynamically quantized input (`fake_quantize_per_tensor_affine(x, s, z,
    0, 255)` with run-time `s` and `z`): the lowering computes it as a 1 x 1
    int8 conv of its rows. The compile pipeline sets the option where the
    target CPU has VNNI byte dot products or AVX2's i16 pair dot products.
    With it, `max_pool2d(dequantize(x))` (x per-tensor quantized, 8 bits)
    becomes `dequantize(max_pool2d(x))`, exact since the dequantization
    is increasing, and `cat([dequantize(a), ..., dequantize(z)])` of one
    per-tensor 8-bit type becomes `dequantize(cat([a, ..., z]))`, exact
    since cat only copies: the pooling and the concatenation run on the
    integers, and the quantize after them (the same type) folds away.

    ```mlir
    %w = fx.get_attr @"fc.weight" : tensor<3x4x!quant.uniform<i8:f32, 1.000000e-01>>
    %w_f = fx.call_function "aten::dequantize.self"(%w) : (...) -> tensor<3x4xf32>
    ```

    becomes

    ```mlir
    %w_f = fx.get_attr @"fc.weight_dequantized" : tensor<3x4xf32>
    ```
  }];
  let options = [
    Option<"int8Convs", "int8-convs", "bool", /*default=*/"false",
           "Keep convs and linears in int8 where the lowering can">
  ];
}

def FXFuseActivation : Pass<"fx-fuse-activation"> {
  let summary = "Fuse conv/linear/matmul/add with the activation that follows";
  let description = [{
    A `conv1d`, `conv2d`, `linear`, `matmul` or `add` (tensor + tensor)
    call, in any spelling, whose only user is a `relu`, `relu6`
    (`hardtanh(0, 6)`), `gelu` (exact or tanh), `silu`, `sigmoid`, `tanh` or
    `hardswish` becomes one `fx.call_function "fx_mlir.fused.<op>"` node
    named after the activation: its args are the canonical args of the
    first op and the kwarg `activation` names the second (`"relu"`,
    `"relu6"`, `"gelu"`, `"gelu_tanh"`, `"silu"`, `"sigmoid"`, `"tanh"`,
    `"hardswish"`). `fx_mlir.fused` is a module of the Python package, so
    exported code runs in PyTorch; `convert-fx-to-linalg` lowers the node
    to the op followed by the activation, tiled and fused into one loop
    nest.

    ```mlir
    %lin = fx.call_function "aten::linear"(%x, %w, %b) : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    %relu = fx.call_function "aten::relu"(%lin) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    ```

    becomes

    ```mlir
    %relu = fx.call_function "fx_mlir.fused.linear"(%x, %w, %b, activation = "relu") : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    ```
  }];
}

def FXFuseLinear : Pass<"fx-fuse-linear"> {
  let summary = "Turn matmul + bias add into linear; cancel transposes and views";
  let description = [{
    - `matmul(x, w)` (or `mm`) whose only user adds a 1-d bias of the
      result's last size (`add(mm, b)`, `add(b, mm)`, alpha 1) becomes
      `aten::linear(x, t(w), b)`, where `t(w)` is `w`'s own source when
      `w` is itself a transpose (`x @ W.t() + b` is `linear(x, W, b)`);
      `addmm(b, x, w)` with unit beta and alpha becomes the same;
    - then the rewrites of `fx-canonicalize` run: consecutive transposes
      and permutes compose or cancel, chains of views fold, no-op
      `contiguous` and eval-mode `dropout` calls disappear.

    ```mlir
    %wt = fx.call_function "aten::t"(%w) : (tensor<4x8xf32>) -> tensor<8x4xf32>
    %mm = fx.call_function "aten::matmul"(%x, %wt) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
    %y = fx.call_function "aten::add.Tensor"(%mm, %b) {alpha = 1} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    ```

    becomes `%y = fx.call_function "aten::linear"(%x, %w, %b) ...`.
  }];
}

//===----------------------------------------------------------------------===//
// Replacement
//===----------------------------------------------------------------------===//

def FXReplaceTarget : Pass<"fx-replace-target"> {
  let summary = "Call another target wherever one target is called";
  let description = [{
    The `torch.fx.Transformer` of the torch.fx guide, as a pass: every call
    of the operation `from` becomes a call of `to` with the same arguments.
    `from` and `to` are `call_function` targets (`torch.relu`,
    `torch.nn.functional.gelu`, `operator.add`) or canonical operators
    (`aten::relu`). A node matches when the target registry binds it to the
    same canonical operator as `from`, so `torch.relu(x)`, `F.relu(x)`,
    `x.relu()` and a call of an `nn.ReLU` module all match. The new node
    is `call_function to(...)` with the arguments bound by parameter name
    (`to`'s parameters that `from` lacks take their defaults); it keeps the
    node's name and location. Each call takes the overload of `to` with its
    own overload name (an add of two ints, `aten::add.int`, becomes
    `aten::mul.int` for `to=operator.mul`), else the first overload of `to`
    that takes its arguments (`torch.mean(x)` becomes `torch.sum(x)`,
    `x.mean(1)` becomes `torch.sum(x, [1], False)`).

    An unknown `from` or `to`, or a call that no overload of `to` takes (a
    required parameter the call cannot supply, or an argument without a
    place in `to` that does not hold its default), is an error and leaves
    the IR unchanged.

    ```
    fx-opt --fx-replace-target="from=torch.relu to=torch.sigmoid"
    ```

    turns `%r = fx.call_module @act(%x)` (an `nn.ReLU`) into
    `%r = fx.call_function "torch.sigmoid"(%x)`.
  }];
  let options = [
    Option<"from", "from", "std::string", /*default=*/"",
           "The target whose calls are replaced">,
    Option<"to", "to", "std::string", /*default=*/"",
           "The target called instead">,
  ];
}

def FXReplacePattern : Pass<"fx-replace-pattern"> {
  let summary = "Replace every match of a pattern graph with a replacement graph";
  let description = [{
    `torch.fx.subgraph_rewriter.replace_pattern` on the fx dialect. `file`
    is an MLIR file with two top-level symbols, `pattern` and
    `replacement`, each an `fx.graph` (or an `fx.graph_module` whose
    `forward` graph is used). The graphs must have the same number of
    placeholders and of outputs.

    A match maps each pattern node to a graph node: placeholders to any
    value (the same one each time the placeholder is used), calls to calls
    of the same kind and target whose literal args and kwargs are equal and
    whose node args match in turn, `get_attr` to `get_attr` of the same
    state. Matches are found in graph order, anchored at the pattern's
    outputs; they do not overlap, and a match is rejected when a node
    inside it (not an output) is used outside it. Each match is replaced
    by a copy of the replacement graph wired to the matched inputs; its
    outputs take over the users of the matched outputs.

    With `report`, the matches are written to that file as JSON: a list of
    `{"anchor": <graph node of the first output>, "nodes_map": {<pattern
    node>: <graph node>}}`. An unreadable or malformed file, a pattern
    without output, or graphs whose inputs or outputs do not correspond
    are errors, and the IR is left unchanged.
  }];
  let options = [
    Option<"file", "file", "std::string", /*default=*/"",
           "MLIR file holding the `pattern` and `replacement` graphs">,
    Option<"report", "report", "std::string", /*default=*/"",
           "File the matches are written to as JSON">,
  ];
}

//===----------------------------------------------------------------------===//
// Instrumentation
//===----------------------------------------------------------------------===//

def FXInstrument : Pass<"fx-instrument"> {
  let summary = "Insert per-node probes: timing, output statistics or NaN checks";
  let description = [{
    Inserts probe calls around the nodes of each graph. Probes are
    `call_function` nodes of `fx_mlir.instrument.*` whose first args are a
    probe id, the instrumented node's name and its target, so they survive
    normalization and lowering: the compiled code calls the runtime's
    probe functions, the reference interpreter runs them, and exported
    Python code calls the functions of `fx_mlir.instrument`.

    - `mode=time`: `start(id, name, target)` before and
      `stop(id, name, target, result)` after each call node; the run
      reports per node its calls and total time, sorted by time, with
      percentages;
    - `mode=stats`: `stats(id, name, target, result)` after each call node
      with a float tensor result; the report gives per node min, max, mean
      and the number of NaN elements;
    - `mode=nan-check`: `nan_check(id, name, target, result)` after each
      call node with a float tensor result; the run fails at the first node
      that produced a NaN or an infinity, naming it.

    ```mlir
    %relu = fx.call_function "aten::relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    ```

    becomes with `mode=stats`

    ```mlir
    %relu = fx.call_function "aten::relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %relu_stats = fx.call_function "fx_mlir.instrument.stats"(0, "relu", "aten::relu", %relu) : (tensor<4xf32>) -> none
    ```
  }];
  let options = [
    Option<"mode", "mode", "std::string", /*default=*/"\"time\"",
           "What the probes record: `time`, `stats` or `nan-check`">,
  ];
}

#endif // FX_MLIR_DIALECT_FX_TRANSFORMS_PASSES_TD
