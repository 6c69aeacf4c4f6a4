"""Reference forwards of torch.nn modules whose own `forward` torch.fx
cannot trace, written over the modules' own parameters and submodules in
operations the compiler binds.

The transformer modules branch on their inputs to pick a fused fast path;
the recurrent ones (nn.RNN, nn.LSTM, nn.GRU and their cells) call one
opaque `torch._VF` kernel after checks on the inputs. The forwards here
compute what eager computes (the slow path of the transformers, the
recurrences step by step), so the tracer runs them instead
(`ModulePathTracer.call_module`) and the nodes keep the modules' paths.
A recurrent module is unrolled over the sequence: the example input fixes
its length, as the compiled types do (`for x_t in x.unbind(0)` takes its
count from the example value).
"""

import contextlib
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def encoder_layer_forward(layer, src, src_mask=None,
                          src_key_padding_mask=None, is_causal=False):
    """nn.TransformerEncoderLayer's forward without its fast path (which
    branches on the inputs and runs one fused kernel): the same blocks,
    traced through the layer's own submodules."""
    x = src
    if layer.norm_first:
        x = x + layer._sa_block(layer.norm1(x), src_mask, src_key_padding_mask)
        x = x + layer._ff_block(layer.norm2(x))
    else:
        x = layer.norm1(
            x + layer._sa_block(x, src_mask, src_key_padding_mask))
        x = layer.norm2(x + layer._ff_block(x))
    return x


def encoder_forward(encoder, src, mask=None, src_key_padding_mask=None):
    """nn.TransformerEncoder's forward without its fast path and nested
    tensors: each layer in turn, then the final norm."""
    output = src
    for layer in encoder.layers:
        output = layer(output, src_mask=mask,
                       src_key_padding_mask=src_key_padding_mask)
    if encoder.norm is not None:
        output = encoder.norm(output)
    return output


def transformer_forward(transformer, src, tgt, src_mask=None, tgt_mask=None,
                        memory_mask=None, src_key_padding_mask=None,
                        tgt_key_padding_mask=None,
                        memory_key_padding_mask=None):
    """nn.Transformer's forward without its checks of the inputs' sizes
    (Python comparisons of traced sizes; the compiled types check them):
    the encoder, then the decoder on its memory."""
    memory = transformer.encoder(src, mask=src_mask,
                                 src_key_padding_mask=src_key_padding_mask)
    return transformer.decoder(
        tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
        tgt_key_padding_mask=tgt_key_padding_mask,
        memory_key_padding_mask=memory_key_padding_mask)


def _cell_step(mode, x_gates, h, c, linear_hh, nonlinearity="tanh"):
    """One step of a recurrent cell of `mode` ("LSTM", "GRU", "RNN"):
    `x_gates` is the input's projection (x W_ih^T + b_ih), `h` and `c`
    the state, `linear_hh` the state's projection (h -> h W_hh^T + b_hh).
    Returns the new (h, c) (c None but for LSTM), as ATen's lstm_cell,
    gru_cell and rnn_tanh/relu_cell compute them."""
    hidden = linear_hh(h)
    if mode == "LSTM":
        i, f, g, o = (x_gates + hidden).chunk(4, 1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        return torch.sigmoid(o) * torch.tanh(c), c
    if mode == "GRU":
        x_r, x_z, x_n = x_gates.chunk(3, 1)
        h_r, h_z, h_n = hidden.chunk(3, 1)
        r = torch.sigmoid(x_r + h_r)
        z = torch.sigmoid(x_z + h_z)
        n = torch.tanh(x_n + r * h_n)
        return (1 - z) * n + z * h, None
    pre = x_gates + hidden
    return (torch.relu(pre) if nonlinearity == "relu" else torch.tanh(pre),
            None)


def _mode(module):
    return {nn.LSTM: "LSTM", nn.GRU: "GRU", nn.RNN: "RNN",
            nn.LSTMCell: "LSTM", nn.GRUCell: "GRU",
            nn.RNNCell: "RNN"}[type(module)]


def rnn_forward(rnn, input, hx=None):
    """nn.RNN, nn.LSTM and nn.GRU in eval mode (or without dropout), on a
    tensor (not a PackedSequence): each layer and direction stepped over
    the sequence, the input's projection computed for all steps at once.
    Returns (output, h_n), or (output, (h_n, c_n)) for LSTM."""
    def linears(suffix):
        def linear(kind):
            weight = getattr(rnn, f"weight_{kind}{suffix}")
            bias = getattr(rnn, f"bias_{kind}{suffix}") if rnn.bias else None
            return lambda x: F.linear(x, weight, bias)
        return linear("ih"), linear("hh")
    return _recurrence(rnn, _mode(rnn), input, hx, linears)


def _dynamic_linear(weight, bias, reduce_range=True):
    """x -> quantized::linear_dynamic(x, (weight, bias), reduce_range), as
    fx-normalize writes a dynamically quantized Linear: the input's scale
    and zero point chosen from its range, the input quantized and
    dequantized with them, the float linear on the dequantized weight."""
    def linear(x):
        scale, zero_point = torch._choose_qparams_per_tensor(x, reduce_range)
        x = torch.fake_quantize_per_tensor_affine(x, scale, zero_point, 0,
                                                  255)
        return F.linear(x, weight.dequantize(), bias)
    return linear


def dynamic_rnn_forward(rnn, input, hx=None, tracer=None):
    """torch.ao.nn.quantized.dynamic.LSTM and GRU (quantize_dynamic's, or
    convert_fx's with a dynamic qconfig) as ATen's quantized_lstm and
    quantized_gru compute them: rnn_forward's recurrence with each
    projection a dynamically quantized linear of the cell's unpacked qint8
    weight (`quantized::linear_unpack`). Under `tracer` each weight is a
    constant of the graph (_constant), which then holds the quantized
    tensor and its dequantize."""
    mode = {"LSTM": "LSTM", "GRU": "GRU"}.get(rnn.mode)
    if mode is None or rnn.dtype != torch.qint8:
        raise NotImplementedError(f"dynamic {rnn.mode} of {rnn.dtype}")
    directions = 2 if rnn.bidirectional else 1

    def linears(suffix):
        layer = int(suffix[2:].split("_")[0])
        index = layer * directions + ("_reverse" in suffix)
        state = rnn._all_weight_values[index].param.__getstate__()
        kind, biases, _, flags, packed = state[0] if len(state) == 2 \
            else state
        if kind != "quantized_dynamic" or len(packed) != 2:
            raise NotImplementedError(f"dynamic {rnn.mode} cell of {kind}")
        # The cell's reduce_range (False in cells of older modules).
        reduce_range = bool(flags[0]) if flags else False
        result = []
        for which, params, bias in zip(("ih", "hh"), packed, biases):
            weight, _ = torch.ops.quantized.linear_unpack(params)
            weight = _constant(weight, tracer)
            result.append(_dynamic_linear(weight, bias.detach(),
                                          reduce_range))
        return tuple(result)
    return _recurrence(rnn, mode, input, hx, linears)


def _constant(value, tracer):
    """`value` as a constant of the graph `tracer` records (a get_attr of a
    `_tensor_constant` it sets on its root, as torch.fx records a tensor
    an operation takes), so that the graph holds it and what is computed
    from it (a quantized weight's dequantize); the value itself without a
    tracer."""
    if tracer is None:
        return value
    return tracer.proxy(tracer.create_arg(value))


def _embedding_rows(weight):
    """The float rows of a quantized embedding table (a float scale and
    zero point per row) as torch.ops.quantized.embedding_byte and
    embedding_4bit compute them: PyTorch's packing keeps each row's scale
    and bias = zero_point * scale * -1 (in fp16 for a 4-bit table), and a
    row is addcmul(bias, q, scale). A 4-bit table (quint4x2) holds two
    values a byte, the first in the low nibble."""
    if weight.qscheme() != torch.per_channel_affine_float_qparams or \
            weight.q_per_channel_axis() != 0 or weight.dim() != 2 or \
            weight.dtype not in (torch.quint8, torch.quint4x2) or \
            (weight.dtype == torch.quint4x2 and weight.shape[1] % 2):
        raise NotImplementedError(
            f"a quantized embedding table of {weight.dtype} "
            f"({weight.qscheme()}, {tuple(weight.shape)})")
    scale = weight.q_per_channel_scales().float()
    bias = weight.q_per_channel_zero_points().float() * scale * -1
    if weight.dtype == torch.quint8:
        q = weight.int_repr().float()
    else:
        rows, width = weight.shape
        packed = weight.int_repr().view(rows, width // 2)
        q = torch.stack([packed & 15, packed >> 4], -1).view(rows,
                                                             width).float()
        scale, bias = scale.half().float(), bias.half().float()
    return torch.addcmul(bias[:, None].expand_as(q), q,
                         scale[:, None].expand_as(q))


# Within one trace (constants_shared), a module's constant rows -> the same
# tensor for each of its calls, so that a module called twice gives the
# graph one constant (the importer names a tensor once and aliases it
# after). Outside a trace nothing is kept: the rows (4 bytes an element)
# live as long as the graph that holds them, not as long as the module.
_SHARED = None


@contextlib.contextmanager
def constants_shared():
    """The scope in which a module's computed constant (a quantized
    embedding's float rows) is computed once: a trace, an inlining pass.
    Nested scopes share the outermost one's."""
    global _SHARED
    outermost = _SHARED is None
    if outermost:
        _SHARED = {}
    try:
        yield
    finally:
        if outermost:
            _SHARED = None


def _shared_constant(module, source, compute):
    """compute(), once per (module, source) within constants_shared: `source`
    is what the value is computed from (a packed table, a weight at its
    version), checked by identity."""
    if _SHARED is None:
        return compute()
    cached = _SHARED.get(id(module))
    if cached is not None and cached[0] is module and cached[1] == source:
        return cached[2]
    value = compute()
    _SHARED[id(module)] = (module, source, value)
    return value


def _cached_rows(module):
    packed = getattr(getattr(module, "_packed_params", None),
                     "_packed_weight", None)
    return _shared_constant(module, (id(packed),),
                            lambda: _embedding_rows(module.weight()))


def quantized_embedding_forward(module, indices, offsets=None,
                                per_sample_weights=None,
                                compressed_indices_mapping=None,
                                tracer=None):
    """torch.ao.nn.quantized.Embedding and EmbeddingBag (8- or 4-bit): the
    float embedding (bag) of the table's rows as the engine computes them (a
    constant of the graph, 4 bytes an element). The quantized EmbeddingBag
    sums its bags whatever its `mode` (its forward passes mode 0 to
    embedding_bag_byte), and so does this."""
    table = _constant(_cached_rows(module), tracer)
    if isinstance(module, torch.ao.nn.quantized.EmbeddingBag):
        if module.pruned_weights or compressed_indices_mapping is not None:
            raise NotImplementedError("a pruned quantized embedding bag")
        return F.embedding_bag(indices, table, offsets, mode="sum",
                               per_sample_weights=per_sample_weights,
                               include_last_offset=module.include_last_offset)
    return F.embedding(indices, table)


def reference_embedding_forward(module, input, offsets=None,
                                per_sample_weights=None, tracer=None):
    """torch.ao.nn.quantized.reference.Embedding and EmbeddingBag (reference
    mode's embeddings, weight-only quantized with float zero points): the
    float embedding (bag) of the weight quantized and dequantized as its
    weight_qparams say (its get_weight, computed by PyTorch), a constant of
    the graph."""
    # Read from the module's own dictionaries: the tracer would make the
    # attributes proxies.
    weight = module._parameters["weight"]
    buffers = module._buffers

    def rows():
        from torch.ao.nn.quantized.reference.modules.utils import \
            _quantize_and_dequantize_weight
        with torch.no_grad():
            return _quantize_and_dequantize_weight(
                weight, module.weight_qscheme, module.weight_dtype,
                buffers["weight_scale"], buffers["weight_zero_point"],
                buffers["weight_axis"])
    table = _constant(_shared_constant(
        module, (id(weight), weight._version), rows), tracer)
    if isinstance(module, nn.EmbeddingBag):
        return F.embedding_bag(input, table, offsets, module.max_norm,
                               module.norm_type, module.scale_grad_by_freq,
                               module.mode, module.sparse,
                               per_sample_weights, module.include_last_offset,
                               module.padding_idx)
    if offsets is not None or per_sample_weights is not None:
        raise TypeError("an Embedding takes one argument")
    return F.embedding(input, table, module.padding_idx, module.max_norm,
                       module.norm_type, module.scale_grad_by_freq,
                       module.sparse)


def _recurrence(rnn, mode, input, hx, linears):
    """The recurrence of rnn_forward; `linears(suffix)` gives a layer's and
    direction's (`_l0`, `_l0_reverse`) input and state projections."""
    if rnn.training and rnn.dropout and rnn.num_layers > 1:
        raise NotImplementedError("dropout between layers in training mode")
    unbatched = input.dim() == 2
    if unbatched:
        input = input.unsqueeze(1)
    elif rnn.batch_first:
        input = input.transpose(0, 1)
    directions = 2 if rnn.bidirectional else 1
    real_hidden = rnn.proj_size if getattr(rnn, "proj_size", 0) else \
        rnn.hidden_size
    states = rnn.num_layers * directions
    if hx is None:
        h0 = input.new_zeros((states, input.size(1), real_hidden))
        c0 = (input.new_zeros((states, input.size(1), rnn.hidden_size))
              if mode == "LSTM" else None)
    else:
        h0, c0 = hx if mode == "LSTM" else (hx, None)
        if unbatched:
            h0 = h0.unsqueeze(1)
            c0 = c0.unsqueeze(1) if c0 is not None else None
    h_n, c_n = [], []
    layer_input = input
    for layer in range(rnn.num_layers):
        outputs = []
        for direction in range(directions):
            suffix = f"_l{layer}" + ("_reverse" if direction else "")
            linear_ih, linear_hh = linears(suffix)
            w_hr = (getattr(rnn, "weight_hr" + suffix)
                    if getattr(rnn, "proj_size", 0) else None)
            index = layer * directions + direction
            h = h0[index]
            c = c0[index] if c0 is not None else None
            steps = list(linear_ih(layer_input).unbind(0))
            if direction:
                steps.reverse()
            seen = []
            for x_gates in steps:
                h, c = _cell_step(mode, x_gates, h, c, linear_hh,
                                  getattr(rnn, "nonlinearity", "tanh"))
                if w_hr is not None:
                    h = F.linear(h, w_hr)
                seen.append(h)
            if direction:
                seen.reverse()
            outputs.append(torch.stack(seen, 0))
            h_n.append(h)
            c_n.append(c)
        layer_input = (torch.cat(outputs, 2) if directions == 2
                       else outputs[0])
    output = layer_input
    h_n = torch.stack(h_n, 0)
    c_n = torch.stack(c_n, 0) if mode == "LSTM" else None
    if unbatched:
        output = output.squeeze(1)
        h_n = h_n.squeeze(1)
        c_n = c_n.squeeze(1) if c_n is not None else None
    elif rnn.batch_first:
        output = output.transpose(0, 1)
    return output, ((h_n, c_n) if mode == "LSTM" else h_n)


def cell_forward(cell, input, hx=None):
    """nn.RNNCell, nn.LSTMCell and nn.GRUCell: one step, batched or not.
    Returns h, or (h, c) for LSTMCell."""
    return _cell(cell, _mode(cell), input, hx,
                 lambda x: F.linear(x, cell.weight_ih, cell.bias_ih),
                 lambda h: F.linear(h, cell.weight_hh, cell.bias_hh))


def dynamic_cell_forward(cell, input, hx=None, tracer=None):
    """torch.ao.nn.quantized.dynamic.RNNCell, LSTMCell and GRUCell (in
    quantize_dynamic's default set): cell_forward with each projection a
    dynamically quantized linear of the cell's unpacked qint8 weight and
    bias, as ATen's quantized_*_cell_dynamic computes them (with
    reduce_range). Under `tracer` each weight is a constant of the
    graph."""
    if cell.weight_dtype != torch.qint8:
        raise NotImplementedError(f"a dynamic cell of {cell.weight_dtype}")
    mode = {"LSTMCell": "LSTM", "GRUCell": "GRU",
            "RNNCell": "RNN"}[type(cell).__name__]
    linears = []
    for packed in (cell._packed_weight_ih, cell._packed_weight_hh):
        weight, bias = torch.ops.quantized.linear_unpack(packed)
        linears.append(_dynamic_linear(
            _constant(weight, tracer),
            bias.detach() if bias is not None else None, reduce_range=True))
    return _cell(cell, mode, input, hx, *linears)


def _cell(cell, mode, input, hx, linear_ih, linear_hh):
    """One step of `cell` (of `mode`) with the projections `linear_ih` and
    `linear_hh`, batched or not: h, or (h, c) for an LSTM cell."""
    unbatched = input.dim() == 1
    if unbatched:
        input = input.unsqueeze(0)
    if hx is None:
        h = input.new_zeros((input.size(0), cell.hidden_size))
        c = h if mode == "LSTM" else None
    else:
        h, c = hx if mode == "LSTM" else (hx, None)
        if unbatched:
            h = h.unsqueeze(0)
            c = c.unsqueeze(0) if c is not None else None
    h, c = _cell_step(mode, linear_ih(input), h, c, linear_hh,
                      getattr(cell, "nonlinearity", "tanh"))
    if unbatched:
        h = h.squeeze(0)
        c = c.squeeze(0) if c is not None else None
    return (h, c) if mode == "LSTM" else h


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False,
                  per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):
    """F.embedding_bag's forward in operations the compiler binds: the
    rows gathered (F.embedding), each assigned to its bag (a 2-D input:
    its row; a 1-D one: the last offset at or before it, by bucketize), and
    summed (index_add), averaged over the bag's count, or maximized
    (scatter_reduce amax, an empty bag 0) per bag. Rows of `padding_idx`
    and, with include_last_offset, rows past the last offset go to a spare
    bag that is dropped. max_norm (which renormalizes the weight in place)
    is not supported."""
    if max_norm is not None:
        raise NotImplementedError("embedding_bag with max_norm")
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"unknown embedding_bag mode {mode!r}")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("per_sample_weights needs mode='sum'")
    if input.dim() == 2:
        bags, length = input.shape
        flat = input.reshape(-1)
        bag_of = torch.arange(bags).repeat_interleave(length)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    else:
        flat = input
        n = input.shape[0]
        bags = offsets.shape[0] - (1 if include_last_offset else 0)
        bag_of = torch.bucketize(torch.arange(n), offsets[:bags],
                                 right=True) - 1
        if include_last_offset:
            bag_of = torch.where(torch.arange(n) < offsets[bags], bag_of,
                                 bags)
    if padding_idx is not None:
        if padding_idx < 0:
            padding_idx += weight.shape[0]
        bag_of = torch.where(flat == padding_idx, bags, bag_of)
    rows = F.embedding(flat, weight)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.unsqueeze(-1)
    spare = bags + 1
    zeros = rows.new_zeros((spare, weight.shape[1]))
    if mode == "max":
        out = zeros.scatter_reduce(
            0, bag_of.unsqueeze(-1).expand(rows.shape), rows, "amax",
            include_self=False)
    else:
        out = zeros.index_add(0, bag_of, rows)
        if mode == "mean":
            counts = rows.new_zeros((spare,)).index_add(
                0, bag_of, torch.ones_like(bag_of, dtype=rows.dtype))
            out = out / counts.clamp(min=1).unsqueeze(-1)
    return out[:bags]


def embedding_bag_forward(module, input, offsets=None,
                          per_sample_weights=None):
    """nn.EmbeddingBag: F.embedding_bag with the module's settings."""
    return embedding_bag(input, module.weight, offsets, module.max_norm,
                         module.norm_type, module.scale_grad_by_freq,
                         module.mode, module.sparse, per_sample_weights,
                         module.include_last_offset, module.padding_idx)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean",
           log_target=False):
    """F.kl_div with reduction='batchmean' (which the registry does not
    bind): the sum divided by the batch size, as F.kl_div computes it.
    Other reductions raise, so that the call is kept as it is."""
    if reduction != "batchmean" or size_average is not None or \
            reduce is not None:
        raise NotImplementedError("bound by the registry")
    reduced = F.kl_div(input, target, reduction="sum", log_target=log_target)
    return reduced / input.size()[0] if input.dim() != 0 else reduced


def tensordot(a, b, dims=2, out=None):
    """torch.tensordot as ATen computes it: a's free dims and b's free dims
    around the contracted ones, permuted and reshaped into one matmul.
    Needs the ranks and sizes (static shapes)."""
    if out is not None:
        raise NotImplementedError("tensordot with out=")
    if isinstance(dims, int):
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    elif isinstance(dims, (tuple, list)) and len(dims) == 2:
        dims_a, dims_b = dims
        if isinstance(dims_a, int):
            dims_a, dims_b = [dims_a], [dims_b]
        dims_a, dims_b = list(dims_a), list(dims_b)
    else:
        raise NotImplementedError("tensordot dims of this form")
    ra, rb = a.dim(), b.dim()
    dims_a = [d % ra for d in dims_a]
    dims_b = [d % rb for d in dims_b]
    free_a = [d for d in range(ra) if d not in dims_a]
    free_b = [d for d in range(rb) if d not in dims_b]
    shape_a, shape_b = a.shape, b.shape
    size = 1
    for d in dims_a:
        size *= shape_a[d]
    left = a.permute(free_a + dims_a).reshape(-1, size)
    right = b.permute(dims_b + free_b).reshape(size, -1)
    return (left @ right).reshape([shape_a[d] for d in free_a]
                                  + [shape_b[d] for d in free_b])


def cross_entropy(input, target, weight=None, size_average=None,
                  ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    """F.cross_entropy with label smoothing of class-index targets, as
    ATen computes it: (1 - e) times the nll loss plus e / C times the
    smoothing term (the negative log-probabilities summed over the
    classes, weighted, 0 where the target is ignored; its mean divides by
    the weights of the targets not ignored, or their count). Without
    label smoothing (or with probability targets) the call is kept."""
    if (not label_smoothing or size_average is not None
            or reduce is not None or target.is_floating_point()):
        raise NotImplementedError("bound by the registry")
    class_dim = 1 if input.dim() > 1 else 0
    classes = input.shape[class_dim]
    logp = F.log_softmax(input, class_dim)
    nll = F.nll_loss(logp, target, weight, ignore_index=ignore_index,
                     reduction=reduction)
    kept = target != ignore_index
    if weight is not None:
        shape = [1] * input.dim()
        shape[class_dim] = classes
        smooth = -(logp * weight.reshape(shape)).sum(class_dim)
    else:
        smooth = -logp.sum(class_dim)
    smooth = smooth.masked_fill(~kept, 0.0)
    if reduction == "mean":
        if weight is not None:
            picked = weight.gather(
                0, torch.where(kept, target, 0).reshape(-1))
            total = (picked * kept.reshape(-1)).sum()
        else:
            total = kept.sum()
        smooth = smooth.sum() / total
    elif reduction == "sum":
        smooth = smooth.sum()
    return (1 - label_smoothing) * nll + smooth * (label_smoothing / classes)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """F.local_response_norm as torch.nn.functional computes it, without
    its `input.numel() == 0` shortcut (an empty input gives an empty
    result either way) and with reshapes that keep a dynamic batch
    symbolic: the squares averaged over `size` neighbouring channels."""
    dim = input.dim()
    if dim < 3:
        raise NotImplementedError("local_response_norm needs 3 dims or more")
    div = input.mul(input).unsqueeze(1)
    if dim == 3:
        div = F.pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = F.avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        # (N, 1, C, D2, rest): the dims after the third as one.
        div = div.flatten(4)
        div = F.pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = F.avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1)
        div = div.reshape_as(input)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


def _sizes_match(a, b):
    """Whether two shapes (lists of ints, or of graph values for dynamic
    sizes) can be equal: the same rank, and equal sizes where both are
    known."""
    return len(a) == len(b) and all(
        not isinstance(x, int) or not isinstance(y, int) or x == y
        for x, y in zip(a, b))


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6,
                      reduction="mean"):
    """F.gaussian_nll_loss as torch.nn.functional computes it, its check of
    `var` against negative entries a torch._assert (a run-time check, with
    the same message) rather than Python control flow on a tensor."""
    if reduction not in ("none", "mean", "sum"):
        raise NotImplementedError(reduction + " is not valid")
    in_shape, var_shape = list(input.shape), list(var.shape)
    if not _sizes_match(var_shape, in_shape):
        # Homoscedastic: var one dim short of input, or its last dim 1.
        if _sizes_match(in_shape[:-1], var_shape):
            var = torch.unsqueeze(var, -1)
        elif not (_sizes_match(in_shape[:-1], var_shape[:-1])
                  and isinstance(var_shape[-1], int) and var_shape[-1] == 1):
            raise NotImplementedError("var is of incorrect size")
    torch._assert(~torch.any(var < 0), "var has negative entry/entries")
    var = var.clamp(min=eps)
    loss = 0.5 * (torch.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None,
                out=None):
    """torch.linalg.matrix_norm as ATen computes it, for the orders that
    need no singular values: 'fro' (the vector 2-norm over both dims) and
    1, -1, inf, -inf (the largest or smallest sum of magnitudes down the
    columns, or along the rows for +-inf). 'nuc', 2 and -2 raise, so the
    call is kept (and named by the compiler)."""
    if out is not None or len(dim) != 2 or A.dim() < 2:
        raise NotImplementedError("matrix_norm of this form")
    d0, d1 = (d % A.dim() for d in dim)
    if d0 == d1:
        raise NotImplementedError("matrix_norm over one dim twice")
    if ord == "fro":
        return torch.linalg.vector_norm(A, 2, (d0, d1), keepdim, dtype=dtype)
    if isinstance(ord, str) or ord not in (1, -1, math.inf, -math.inf):
        raise NotImplementedError("matrix_norm of order " + str(ord))
    if abs(ord) == math.inf:
        d0, d1 = d1, d0
    sums = torch.linalg.vector_norm(A, 1, d0, True, dtype=dtype)
    result = sums.amax(d1, keepdim=True) if ord > 0 else \
        sums.amin(d1, keepdim=True)
    if not keepdim:
        result = result.squeeze(max(d0, d1)).squeeze(min(d0, d1))
    return result


def linalg_norm(A, ord=None, dim=None, keepdim=False, *, dtype=None,
                out=None):
    """torch.linalg.norm with an order: a matrix norm (matrix_norm above)
    for a string order, two dims, or a 2-D input without dims; a vector
    norm (torch.linalg.vector_norm) otherwise. Without an order the call
    stays (the registry binds it)."""
    if ord is None or out is not None:
        raise NotImplementedError("bound by the registry")
    if isinstance(dim, int):
        dim = (dim,)
    if isinstance(ord, str) or (dim is not None and len(dim) == 2) or \
            (dim is None and A.dim() == 2):
        return matrix_norm(A, ord, (-2, -1) if dim is None else tuple(dim),
                           keepdim, dtype=dtype)
    if dim is None and A.dim() != 1:
        raise NotImplementedError("linalg.norm of order " + str(ord) +
                                  " needs a 1-D or 2-D input or dims")
    return torch.linalg.vector_norm(A, ord, dim, keepdim, dtype=dtype)


def index_reduce(input, dim, index, source, reduce, *, include_self=True,
                 out=None):
    """torch.index_reduce as scatter_reduce with the index spread along
    `dim` over source's shape: input[..., index[i], ...] is reduced with
    source[..., i, ...] ('prod', 'mean', 'amax', 'amin'; include_self as
    both define it)."""
    if out is not None:
        raise NotImplementedError("index_reduce with out=")
    if source.dim() == 0:
        source = source.reshape(1)
    dim = dim % source.dim()
    shape = [1] * source.dim()
    shape[dim] = -1
    spread = index.reshape(shape).expand_as(source)
    return input.scatter_reduce(dim, spread, source, reduce,
                                include_self=include_self)


def put(input, index, source, accumulate=False):
    """torch.put: the input as one flat row, `source`'s elements written
    (or added, with accumulate) at the flat indices `index` (negative ones
    counting from the end), in the input's shape again."""
    flat = input.reshape(-1)
    where = index.reshape(-1)
    where = torch.where(where < 0, where + flat.shape[0], where)
    values = source.reshape(-1)
    if accumulate:
        flat = flat.index_add(0, where, values)
    else:
        flat = flat.index_copy(0, where, values)
    return flat.reshape_as(input)


# Functions the tracer replaces by a reference (their own bodies call an
# operator the compiler does not bind, or take an argument it does not).
REFERENCE_FUNCTIONS = {
    F.embedding_bag: embedding_bag,
    F.kl_div: kl_div,
    torch.tensordot: tensordot,
    F.cross_entropy: cross_entropy,
    F.local_response_norm: local_response_norm,
    F.gaussian_nll_loss: gaussian_nll_loss,
    torch.linalg.matrix_norm: matrix_norm,
    torch.linalg.norm: linalg_norm,
    torch.index_reduce: index_reduce,
    torch.put: put,
}

# torch.nn modules whose forward torch.fx cannot trace: the tracer runs
# these forwards instead.
REFERENCE_FORWARDS = {
    nn.TransformerEncoderLayer: encoder_layer_forward,
    nn.TransformerEncoder: encoder_forward,
    nn.Transformer: transformer_forward,
    nn.RNN: rnn_forward,
    nn.LSTM: rnn_forward,
    nn.GRU: rnn_forward,
    nn.RNNCell: cell_forward,
    nn.LSTMCell: cell_forward,
    nn.GRUCell: cell_forward,
    nn.EmbeddingBag: embedding_bag_forward,
}
dynamic_rnn_forward.takes_tracer = True
dynamic_cell_forward.takes_tracer = True
quantized_embedding_forward.takes_tracer = True
reference_embedding_forward.takes_tracer = True
REFERENCE_FORWARDS.update({
    torch.ao.nn.quantized.dynamic.LSTM: dynamic_rnn_forward,
    torch.ao.nn.quantized.dynamic.GRU: dynamic_rnn_forward,
    torch.ao.nn.quantized.dynamic.LSTMCell: dynamic_cell_forward,
    torch.ao.nn.quantized.dynamic.GRUCell: dynamic_cell_forward,
    torch.ao.nn.quantized.dynamic.RNNCell: dynamic_cell_forward,
    torch.ao.nn.quantized.Embedding: quantized_embedding_forward,
    torch.ao.nn.quantized.EmbeddingBag: quantized_embedding_forward,
    torch.ao.nn.quantized.reference.Embedding: reference_embedding_forward,
    torch.ao.nn.quantized.reference.EmbeddingBag:
        reference_embedding_forward,
})


def cross_entropy_forward(module, input, target):
    """nn.CrossEntropyLoss with label smoothing (see cross_entropy)."""
    return cross_entropy(input, target, module.weight,
                         ignore_index=module.ignore_index,
                         reduction=module.reduction,
                         label_smoothing=module.label_smoothing)


def batch_norm_training_forward(bn, input):
    """nn.BatchNorm1d/2d/3d in training mode with running statistics, as
    _BatchNorm.forward and ATen's batch_norm_cpu compute it: the output
    normalized by the batch's own statistics (aten::batch_norm without
    running statistics, which the compiler lowers as native_batch_norm),
    and the running statistics updated in place as state the compiled code
    keeps across calls: `num_batches_tracked += 1`, then, with `f` the
    momentum (or `1 / num_batches_tracked` when it is None),
    `running_mean = f * mean + (1 - f) * running_mean` and `running_var =
    f * var + (1 - f) * running_var` with `var` the unbiased variance.
    F.batch_norm refuses a batch of one value per channel; so does this,
    while tracing when the example's sizes are static and by a run-time
    check (torch._assert) when the batch is dynamic."""
    bn._check_input_dim(input)
    size = input.size()
    if isinstance(size, torch.Size):
        F._verify_batch_size(size)
        rank = len(size)
    else:
        rank = input.dim()
        spatial = [input.size(d) for d in range(2, rank)]
        if all(isinstance(s, int) for s in spatial) and math.prod(
                spatial) == 1:
            torch._assert(input.size(0) != 1,
                          "Expected more than 1 value per channel when "
                          "training")
    factor = bn.momentum if bn.momentum is not None else 0.0
    if bn.num_batches_tracked is not None:
        bn.num_batches_tracked.add_(1)
        if bn.momentum is None:
            factor = 1.0 / bn.num_batches_tracked.double()
    dims = [0] + list(range(2, rank))
    with torch.no_grad():
        var, mean = torch.var_mean(input.detach(), dims, unbiased=True)
        bn.running_mean.copy_(factor * mean + (1 - factor) * bn.running_mean)
        bn.running_var.copy_(factor * var + (1 - factor) * bn.running_var)
    return F.batch_norm(input, None, None, bn.weight, bn.bias, True, 0.0,
                        bn.eps)


batch_norm_training_forward.needs_examples = True


def reference_forward(module):
    """The reference forward of `module`, or None: by its type, and for
    nn.CrossEntropyLoss only with label smoothing (which the registry's
    binding of the module does not lower)."""
    if type(module) is nn.CrossEntropyLoss:
        return cross_entropy_forward if module.label_smoothing else None
    if (type(module) in (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d)
            and module.training and module.running_mean is not None
            and module.running_var is not None):
        return batch_norm_training_forward
    return REFERENCE_FORWARDS.get(type(module))
