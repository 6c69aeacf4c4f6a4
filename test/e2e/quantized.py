"""Quantized models (issue 29, docs/Quantization.md): FX graph-mode
quantization (prepare_fx, calibration on seeded random data, convert_fx or
convert_to_reference_fx) of small models and torchvision's quantizable
definitions, each compared with PyTorch's quantized engine.

The converted GraphModule is the model compiled. Its output (the float a
final dequantize makes) is divided by the output's quantization step, so
the suite's absolute tolerance counts steps: the accuracy contract is one
step where our f32 computation and the engine's int32 accumulation round a
value on either side of a half step, and a few more in deep models where
such a step feeds the next layers. Dynamically quantized models return
floats: their bound is one step of an input element through the weights.
`cases()` yields `(name, make_model, inputs, atol, why)`.
"""

import torch
import torch.fx
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from torch.ao.quantization import (HistogramObserver, QConfig,
                                   QConfigMapping, default_dynamic_qconfig,
                                   get_default_qconfig,
                                   get_default_qconfig_mapping)
from torch.ao.quantization.quantize_fx import (convert_fx,
                                               convert_to_reference_fx,
                                               prepare_fx)

import fx_mlir

ENGINE = ("onednn" if "onednn" in torch.backends.quantized.supported_engines
          else "qnnpack")
# The qconfig of the models checked against ENGINE: its own where it sums
# exactly on this CPU; where it does not (onednn without VNNI saturates
# sums of full-range u8 x s8 pairs), x86's, whose 7-bit activations
# (reduce_range) it sums exactly (fx_mlir.exact_quantized_engine).
QCONFIG = ENGINE if fx_mlir.exact_quantized_engine() == ENGINE else "x86"


def _per_tensor_qconfig():
    """qnnpack's qconfig (per-tensor weights), its activations 7-bit where
    QCONFIG is x86's."""
    qconfig = get_default_qconfig("qnnpack")
    if QCONFIG == ENGINE:
        return qconfig
    return QConfig(activation=HistogramObserver.with_args(reduce_range=True),
                   weight=qconfig.weight)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 32)
        self.fc3 = nn.Linear(32, 10)

    def forward(self, x):
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))


class LinearShapes(nn.Module):
    """int8 linears (1 x 1 int8 convs of their rows, docs/Quantization.md,
    "Linears") of a 3-D input: 21 rows (not a multiple of the register
    tile), depths 100 (not a multiple of 4) and 37, 37 and 200 outputs (not
    multiples of 16), with and without bias, a LinearReLU between."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(100, 37)
        self.fc2 = nn.Linear(37, 200, bias=False)
        self.fc3 = nn.Linear(200, 19)

    def forward(self, x):
        return self.fc3(F.relu(self.fc2(self.fc1(x))))


class AddCat(nn.Module):
    """Quantized add, add_relu (add then relu), mul and cat."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(3, 8, 1)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(24, 4)

    def forward(self, x):
        a, b = self.conv1(x), self.conv2(x)
        s = F.relu(a + b)
        y = torch.cat([s, a * b, torch.max_pool2d(a, 1)], 1)
        return self.fc(torch.flatten(self.pool(y), 1))


class ConvBlocks(nn.Module):
    """conv+bn+relu (fused to ConvReLU2d), max pooling, a strided and a
    grouped conv, hardtanh-clamped activations, flatten, linear."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=4)
        self.conv3 = nn.Conv2d(8, 4, 1)
        self.fc = nn.Linear(4 * 4 * 4, 6)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = F.max_pool2d(y, 2)
        y = F.relu6(self.conv2(y))
        y = self.conv3(y)
        return self.fc(torch.flatten(y, 1))


class Attention(nn.Module):
    """Quantized matmuls, softmax and layer norm (quantized.LayerNorm)."""

    def __init__(self):
        super().__init__()
        self.q = nn.Linear(16, 16)
        self.k = nn.Linear(16, 16)
        self.norm = nn.LayerNorm(16)

    def forward(self, x):
        a = torch.softmax(self.q(x) @ self.k(x).transpose(1, 2), -1)
        return self.norm(a @ x)


class Norms(nn.Module):
    """The quantized modules without a packed weight: BatchNorm2d + ReLU
    (BNReLU2d: the pool keeps the norm from folding into the conv),
    InstanceNorm2d, LayerNorm, LeakyReLU, ELU, Hardswish, Sigmoid, ReLU6
    and Softmax modules."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.bn = nn.BatchNorm2d(8)
        self.inorm = nn.InstanceNorm2d(8, affine=True)
        self.ln = nn.LayerNorm([5, 5])
        self.acts = nn.ModuleList([nn.LeakyReLU(0.2), nn.ELU(0.5),
                                   nn.Hardswish(), nn.Sigmoid(), nn.ReLU6()])
        self.softmax = nn.Softmax(dim=1)
        with torch.no_grad():
            self.bn.running_mean.uniform_(-0.5, 0.5)
            self.bn.running_var.uniform_(0.5, 2.0)

    def forward(self, x):
        y = F.max_pool2d(self.conv(x), 2, 1)
        y = self.ln(self.inorm(F.relu(self.bn(y))))
        y = torch.cat([act(y) for act in self.acts], 1)
        return self.softmax(y)


class Decoder(nn.Module):
    """Quantized ConvTranspose1d/2d (per-tensor weights: PyTorch's observers
    refuse per-channel ones for them; onednn takes no output_padding)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.up = nn.ConvTranspose2d(8, 4, 3, stride=2, padding=1, groups=2)
        self.up1d = nn.ConvTranspose1d(4, 2, 4, stride=2, dilation=2)

    def forward(self, x):
        y = self.up(F.relu(self.conv(x)))
        return self.up1d(torch.flatten(y, 2))


class Decoder3d(nn.Module):
    """A ConvTranspose3d, which convert_fx (PyTorch 1.13) leaves a
    reference module: its float operator on the reference weight, between
    a dequantize and a quantize."""

    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose3d(4, 6, 3, stride=2, padding=1)

    def forward(self, x):
        return F.relu(self.up(x))


class Conv3dBlocks(nn.Module):
    """Quantized Conv3d (docs/Quantization.md, "3-D convolutions"): each
    output depth an int8 2-D conv of the depths its window reads as
    channels. A 3 x 3 x 3 stem of 3 channels (padded to 12 = 3 x 4 in the
    pairs form's groups), windows (3, 1, 1) strided and padded in depth,
    (1, 3, 3) strided in space, dilation 2 in depth, a residual add_relu,
    a batch of 2 and output channels not a multiple of 16."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv3d(3, 12, 3, padding=1)
        self.bn = nn.BatchNorm3d(12)
        self.temporal = nn.Conv3d(12, 20, (3, 1, 1), stride=(2, 1, 1),
                                  padding=(1, 0, 0))
        self.spatial = nn.Conv3d(20, 20, (1, 3, 3), stride=(1, 2, 2),
                                 padding=(0, 1, 1))
        self.dilated = nn.Conv3d(20, 20, (3, 3, 3), padding=(2, 1, 1),
                                 dilation=(2, 1, 1))

    def forward(self, x):
        y = F.relu(self.bn(self.stem(x)))
        y = self.spatial(F.relu(self.temporal(y)))
        return F.relu(self.dilated(y) + y)


class Recurrent(nn.Module):
    """A 2-layer bidirectional LSTM, a GRU over its output and a linear:
    under a dynamic qconfig convert_fx makes the LSTM a
    torch.ao.nn.quantized.dynamic.LSTM (PyTorch 1.13 leaves the GRU
    float)."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(24, 32, num_layers=2, bidirectional=True)
        self.gru = nn.GRU(64, 16)
        self.fc = nn.Linear(16, 5)

    def forward(self, x):
        # (prepare_fx of PyTorch 1.13 fails on `y, _ = self.lstm(x)`.)
        return self.fc(self.gru(self.lstm(x)[0])[0])


class AvgPools(nn.Module):
    """Average pooling of quantized activations (2 x 2 windows, whose
    averages are often exact halves; a padded 3 x 3 one of stride 2,
    ceil mode, without the padding in the count; adaptive windows of 2 x 5
    and 3 x 5), computed on the integers with PyTorch's rounding (half to
    even): equal to the engine's."""

    def forward(self, x):
        a = F.avg_pool2d(x, 2)
        b = F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False)
        c = F.adaptive_avg_pool2d(x, (4, 2))
        return torch.cat([torch.flatten(a, 1), torch.flatten(b, 1),
                          torch.flatten(c, 1)], 1)


class AvgPoolsChannelsLast(nn.Module):
    """Average pooling where PyTorch holds the quantized tensor
    channels-last: a quantized conv's output, after a ReLU, and a
    one-channel input (channels-last as well as contiguous). ATen's
    channels-last kernels round the average before adding the zero point
    back, unlike its contiguous one: the averages differ by a step on an
    exact half where the zero point is odd (fx.round_before_zero_point,
    docs/Quantization.md). Equal to the engine's."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 6, 3, padding=1)
        self.conv2 = nn.Conv2d(6, 6, 1)

    def forward(self, x):
        one = F.avg_pool2d(x, 2)
        y = self.conv(x)
        a = F.avg_pool2d(y, 2)
        b = F.adaptive_avg_pool2d(F.relu(self.conv2(y)), (3, 5))
        c = F.avg_pool2d(y, 3, 1, 1, count_include_pad=False)
        return torch.cat([torch.flatten(one, 1), torch.flatten(a, 1),
                          torch.flatten(b, 1), torch.flatten(c, 1)], 1)


class ReflectPadded(nn.Module):
    """Quantized convs padding by reflection (torch's quantized convs take
    "zeros" and "reflect"): F.pad of the input, then the conv; a 2-D conv
    of unequal paddings, then a 1-D one along the flattened rows."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=(1, 2), padding_mode="reflect")
        self.conv1d = nn.Conv1d(8, 4, 5, padding=2, padding_mode="reflect")

    def forward(self, x):
        y = F.relu(self.conv(x))
        return self.conv1d(torch.flatten(y, 2))


class TwoInputs(nn.Module):
    """Two inputs, each quantized with its own scale (convert_fx reads each
    one's scale and zero point right after its placeholder), summed after
    a conv each."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(3, 8, 1)
        self.b = nn.Conv2d(5, 8, 3, padding=1)

    def forward(self, x, y):
        return F.relu(self.a(x) + self.b(y))


class Activations(nn.Module):
    """Functional hardswish, leaky_relu, elu, instance_norm, layer_norm and
    dropout on quantized tensors (torch.ops.quantized.*), a depthwise
    conv, sigmoid, adaptive average pooling, a mean."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.depthwise = nn.Conv2d(8, 8, 3, groups=8)

    def forward(self, x):
        y = F.hardswish(self.bn(self.conv(x)))
        y = F.adaptive_avg_pool2d(self.depthwise(y), 2) + \
            torch.sigmoid(y[:, :, :2, :2])
        y = F.elu(F.instance_norm(y), 0.5) + F.layer_norm(y, [2])
        return torch.mean(F.leaky_relu(F.dropout(y, training=False)),
                          dim=(2, 3))


class ConvShapes(nn.Module):
    """Convs of the shapes the int8 kernels pad and tile (docs/
    Quantization.md, "int8 convolutions"): a batch of 2, output channels not
    a multiple of 16, odd widths, stride 2, dilation 2, a 3x5 window with
    unequal strides and padding, a pointwise conv of 256 channels, each
    summed to one column so that all meet in the output."""

    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList([
            nn.Conv2d(8, 40, 3, padding=1),
            nn.Conv2d(8, 24, 3, stride=2, padding=1, bias=False),
            nn.Conv2d(8, 16, 3, padding=2, dilation=2),
            nn.Conv2d(8, 33, 5, padding=2),
            nn.Conv2d(8, 48, (3, 5), stride=(2, 1), padding=(1, 2)),
        ])
        self.widen = nn.Conv2d(8, 256, 1)
        self.pointwise = nn.Conv2d(256, 20, 1)

    def forward(self, x):
        ys = [F.relu(conv(x)).mean(dim=(2, 3)) for conv in self.convs]
        ys.append(self.pointwise(self.widen(x)).mean(dim=(2, 3)))
        return torch.cat(ys, 1)


class WinogradBlocks(nn.Module):
    """3x3 convs of stride 1, which the pairs form (AVX2 targets) computes
    by Winograd's F(2x2, 3x3) in integers, the same int32 sums exactly
    (docs/Quantization.md, "Winograd in integers"): 24 channels (a vector
    of 16 and a tail of 8), a residual block (one epilogue reading two
    convs' products: the second conv writes its products), a stride-2 conv
    between (direct), 40 and 20 output channels (not multiples of 16), and
    a conv without padding; on even sizes the tiles run in row blocks in
    parallel, on odd ones the bottom row and right column of tiles are
    half outside."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(24, 24, 3, padding=1)
        self.b = nn.Conv2d(24, 24, 3, padding=1)
        self.down = nn.Conv2d(24, 40, 3, stride=2, padding=1)
        self.c = nn.Conv2d(40, 40, 3, padding=1)
        self.valid = nn.Conv2d(24, 20, 3)

    def forward(self, x):
        y = F.relu(self.a(x))
        y = F.relu(self.b(y) + x)
        z = self.c(F.relu(self.down(y)))
        return torch.cat([z.mean(dim=(2, 3)),
                          self.valid(y).mean(dim=(2, 3))], 1)


class WinogradConv(nn.Module):
    """One such conv, its output the engine's exactly: F(4x4, 3x3) with 16
    tiles or more, F(2x2, 3x3) below."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(24, 40, 3, padding=1)

    def forward(self, x):
        return self.conv(x)


class WinogradLargeWeights(nn.Module):
    """A conv whose weights are all of the largest magnitude (+-1 before
    quantization, +-127 after): 128 sum |w| times 64 does not fit an i32,
    so F(2x2, 3x3) instead of F(4x4, 3x3), whose sums would wrap past
    their shift."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(512, 32, 3, padding=1)
        generator = torch.Generator().manual_seed(3)
        with torch.no_grad():
            self.conv.weight.copy_(torch.randn(
                self.conv.weight.shape, generator=generator).sign())

    def forward(self, x):
        return self.conv(x)


class DepthwiseShapes(nn.Module):
    """Depthwise convs (groups = channels) of the shapes the int8 lowering
    reads as strided windows (docs/Quantization.md, "int8 convolutions"):
    24 channels (not a multiple of 16), stride 2, dilation 2, a 5x5 window,
    no padding, no bias, a batch of 2 with odd widths; chained with
    pointwise convs (the NHWC layout kept across) and summed to columns."""

    def __init__(self):
        super().__init__()
        self.expand = nn.Conv2d(8, 24, 1)
        self.depthwise = nn.ModuleList([
            nn.Conv2d(24, 24, 3, padding=1, groups=24),
            nn.Conv2d(24, 24, 3, stride=2, padding=1, groups=24, bias=False),
            nn.Conv2d(24, 24, 3, padding=2, dilation=2, groups=24),
            nn.Conv2d(24, 24, 5, padding=0, groups=24),
        ])
        self.project = nn.Conv2d(24, 64, 1)

    def forward(self, x):
        x = F.relu6(self.expand(x))
        ys = [F.relu6(conv(x)).mean(dim=(2, 3)) for conv in self.depthwise]
        y = self.project(F.relu6(self.depthwise[0](x)))
        ys.append(y.mean(dim=(2, 3)))
        return torch.cat(ys, 1)


class GroupedShapes(nn.Module):
    """Grouped convs (1 < groups < channels) of the shapes the int8 kernel
    covers with blocks of 16 or 32 output channels (docs/Quantization.md,
    "int8 convolutions"): groups of 8 channels (regnet's, two groups a
    block of 16), 5 of them (the last block one group, its slice reaching
    into padded channels), of 4 in and 16 out (two a block of 32), of 96
    in and 64 out (two blocks a group, stride 2), of 16 in and 24 out and
    of 24 (regnet_x_1_6gf's: blocks straddling two groups, stride 2), and
    of 6 (no 4-channel slices: the f32 path); a batch of 2 with odd
    widths."""

    def __init__(self):
        super().__init__()
        self.expand = nn.Conv2d(8, 48, 1)
        self.convs = nn.ModuleList([
            nn.Conv2d(48, 48, 3, padding=1, groups=6),
            nn.Conv2d(48, 192, 3, padding=1, groups=12),
            nn.Conv2d(48, 48, 3, padding=1, groups=8),
            nn.Conv2d(48, 72, 3, padding=1, groups=3),
            nn.Conv2d(48, 48, 3, stride=2, padding=1, groups=2),
        ])
        self.wide = nn.Conv2d(192, 128, 3, stride=2, padding=1, groups=2)
        self.odd = nn.Conv2d(40, 40, 3, padding=1, groups=5)

    def forward(self, x):
        x = F.relu(self.expand(x))
        ys = [F.relu(conv(x)) for conv in self.convs]
        ys.append(self.wide(ys[1]))
        ys.append(self.odd(x[:, :40]))
        return torch.cat([y.mean(dim=(2, 3)) for y in ys], 1)


class MaxPools(nn.Module):
    """Max pooling of quantized activations, computed on their integers in
    NHWC (docs/Quantization.md, "Max pooling"): stride 2 with ceil_mode
    (googlenet's), stride 1 padded after it (an inception block's pooling
    branch, a pooling of a pooling), padded and dilated, a batch of 2 of
    odd sizes; the pooled values read by convs, a cat and a mean."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(8, 24, 3, padding=1)
        self.branch = nn.Conv2d(24, 16, 1)
        self.pooled = nn.Conv2d(24, 16, 1)

    def forward(self, x):
        x = F.relu(self.stem(x))
        x = F.max_pool2d(x, 3, stride=2, ceil_mode=True)
        y = torch.cat([self.branch(x),
                       self.pooled(F.max_pool2d(x, 3, stride=1, padding=1))],
                      1)
        z = F.max_pool2d(x, 2, stride=1, padding=1, dilation=2)
        return torch.cat([y.mean(dim=(2, 3)), z.mean(dim=(2, 3))], 1)


class DenseBlock(nn.Module):
    """densenet's block: each layer's input is the cat of all earlier
    feature maps (one shared scale: the cat's observer is its inputs'),
    normalized by a batch norm + ReLU of its own (not after a conv: a
    quantized BNReLU2d) and read by a 1x1 and a 3x3 conv. The cats copy
    bytes (docs/Quantization.md, "Concatenation"); the batch norms read and
    write them in NHWC, a batch of 2."""

    def __init__(self, channels=16, growth=8, layers=3):
        super().__init__()
        self.stem = nn.Conv2d(3, channels, 3, padding=1)
        self.norms = nn.ModuleList()
        self.convs = nn.ModuleList()
        for i in range(layers):
            width = channels + i * growth
            norm = nn.BatchNorm2d(width)
            with torch.no_grad():
                norm.weight.uniform_(0.5, 1.5)
                norm.bias.uniform_(-0.5, 0.5)
                norm.running_mean.uniform_(-0.5, 0.5)
                norm.running_var.uniform_(0.5, 2.0)
            self.norms.append(nn.Sequential(norm, nn.ReLU()))
            self.convs.append(nn.Sequential(
                nn.Conv2d(width, 32, 1), nn.ReLU(),
                nn.Conv2d(32, growth, 3, padding=1)))

    def forward(self, x):
        features = [self.stem(x)]
        for norm, conv in zip(self.norms, self.convs):
            features.append(conv(norm(torch.cat(features, 1))))
        return torch.cat(features, 1)


class ConvNeXtBlock(nn.Module):
    """convnext's block (torchvision's CNBlock, layer scale 0.5): an int8
    depthwise 7x7 conv, a permute to NHWC, a quantized LayerNorm, two
    linears with a float GELU between, a permute back, the quantized layer
    scale (a [C, 1, 1] parameter quantized in the graph) times it, and the
    residual add. 28 x 28 positions (not a multiple of 16) and channels
    read across: the product with the layer scale is a transposing op
    with a broadcast operand, split into tails."""

    def __init__(self, dim=32):
        super().__init__()
        from torchvision.models.convnext import CNBlock
        self.stem = nn.Conv2d(3, dim, 3, padding=1)
        self.block = CNBlock(dim, 0.5, 0.0)

    def forward(self, x):
        return self.block(self.stem(x))


class ASPPHead(nn.Module):
    """DeepLabV3's head on a small feature map: torchvision's ASPP
    (dilations 4, 8 and 12 on 12 x 12, so that many taps read only the
    padding and are skipped, fx.int8_skip; a global-pooling branch
    interpolated back), then the classifier's 1x1 conv and a bilinear
    upsampling of the int8 result read across (the transpose back before
    the gather, Layout.cpp)."""

    def __init__(self, channels=64):
        super().__init__()
        from torchvision.models.segmentation.deeplabv3 import ASPP
        self.stem = nn.Conv2d(3, channels, 3, padding=1)
        self.aspp = ASPP(channels, [4, 8, 12], out_channels=32)
        self.classifier = nn.Conv2d(32, 5, 1)

    def forward(self, x):
        y = self.classifier(self.aspp(self.stem(x)))
        return F.interpolate(y, scale_factor=4, mode="bilinear",
                             align_corners=False)


def _in_steps(converted, example):
    """`converted` with its output divided by the output's quantization
    step: the scale of the quantized tensor the final dequantize reads, in
    a run on `example`."""
    graph = converted.graph
    output = next(n for n in graph.nodes if n.op == "output")
    final = output.args[0]
    assert final.op == "call_method" and final.target == "dequantize"
    source = final.args[0]
    seen = {}

    class Recorder(torch.fx.Interpreter):
        def run_node(self, node):
            result = super().run_node(node)
            if node is source:
                seen["scale"] = result.q_scale()
            return result

    with torch.no_grad():
        Recorder(converted).run(*example)
    with graph.inserting_before(output):
        steps = graph.call_function(torch.div, (final, seen["scale"]))
    output.args = (steps,)
    converted.recompile()
    return converted


def _quantized(make, inputs, mapping, reference=False, in_steps=True):
    """A factory: the float model `make()` prepared with `mapping`,
    calibrated on four seeded random batches like `inputs()`, converted."""
    def build():
        torch.backends.quantized.engine = ENGINE
        model = make().eval()
        example = inputs()
        prepared = prepare_fx(model, mapping(), example)
        generator = torch.Generator().manual_seed(1)
        with torch.no_grad():
            for _ in range(4):
                prepared(*(torch.randn(t.shape, generator=generator)
                           for t in example))
        convert = convert_to_reference_fx if reference else convert_fx
        converted = convert(prepared)
        return (_in_steps(converted, example) if in_steps
                else converted).eval()
    return build


def _default():
    return get_default_qconfig_mapping(QCONFIG)


def _dynamic_recurrent():
    return QConfigMapping().set_global(default_dynamic_qconfig)


def _dynamic():
    return (QConfigMapping().set_object_type(nn.Linear, default_dynamic_qconfig)
            .set_object_type(nn.ReLU, default_dynamic_qconfig))


def _per_tensor():
    return QConfigMapping().set_global(_per_tensor_qconfig())


def _steps(cases):
    # The output in steps is computed in f32 (value / scale): a difference
    # of one step can read 1 + 1e-6.
    for name, model, inputs, steps in cases:
        yield (name, model, inputs, float(steps) + 1e-3,
               f"the output counts quantization steps: within {steps} of "
               f"the engine's (docs/Quantization.md)")


def cases():
    yield from _steps(_static_cases())
    # Dynamic quantization (the onednn engine's reduce_range): one input
    # step on one element through a weight row of |w| <= 0.25 * 32.
    if ENGINE == "onednn":
        yield ("mlp_dynamic", _quantized(MLP, lambda: (torch.randn(4, 16),),
                                         _dynamic, in_steps=False),
               lambda: (torch.randn(4, 16),), 0.05,
               "one input quantization step on an element, through a weight "
               "row (docs/Quantization.md)")
        # int8 linears on the input quantized at run time (docs/
        # Quantization.md, "Linears"): the engine's int32 sums, its f32
        # scale; a 3-D input, depths 100 and 37 (channels padded), 21 rows.
        yield ("linear_shapes_dynamic",
               _quantized(LinearShapes, lambda: (torch.randn(3, 7, 100),),
                          _dynamic, in_steps=False),
               lambda: (torch.randn(3, 7, 100),), 1e-4,
               "int32 sums as the engine's, an f32 epilogue")
        # Dynamically quantized LSTM and GRU (docs/Quantization.md,
        # "Recurrent layers"): each projection a dynamic int8 linear.
        def sequence():
            return (torch.randn(6, 2, 24),)
        yield ("recurrent_dynamic",
               _quantized(Recurrent, sequence, _dynamic_recurrent,
                          in_steps=False),
               sequence, 1e-4, "int32 sums as the engine's, f32 gates")


def _static_cases():
    def image(size):
        return lambda: (torch.randn(1, 3, size, size),)

    def rows(n, width):
        return lambda: (torch.randn(n, width),)

    def shaped(*shape):
        return lambda: (torch.randn(*shape),)

    yield ("mlp", _quantized(MLP, rows(4, 16), _default), rows(4, 16), 1)
    yield ("mlp_per_tensor", _quantized(MLP, rows(4, 16), _per_tensor),
           rows(4, 16), 1)
    yield ("linear_shapes",
           _quantized(LinearShapes, shaped(3, 7, 100),
                      _default),
           shaped(3, 7, 100), 1)
    yield ("conv_blocks", _quantized(ConvBlocks, image(16), _default),
           image(16), 1)
    yield ("conv_blocks_per_tensor",
           _quantized(ConvBlocks, image(16), _per_tensor), image(16), 1)
    yield ("add_mul_cat", _quantized(AddCat, image(12), _default),
           image(12), 1)
    yield ("attention", _quantized(Attention, shaped(2, 5, 16),
                                   _default),
           shaped(2, 5, 16), 1)
    yield ("activations", _quantized(Activations, image(10), _default),
           image(10), 1)
    yield ("norms", _quantized(Norms, image(8), _default), image(8), 1)
    yield ("conv_shapes", _quantized(ConvShapes,
                                     shaped(2, 8, 9, 13),
                                     _default),
           shaped(2, 8, 9, 13), 1)
    yield ("depthwise_shapes", _quantized(DepthwiseShapes,
                                          shaped(2, 8, 11, 13),
                                          _default),
           shaped(2, 8, 11, 13), 1)
    yield ("grouped_shapes", _quantized(GroupedShapes,
                                        shaped(2, 8, 11, 13),
                                        _default),
           shaped(2, 8, 11, 13), 1)
    yield ("max_pools", _quantized(MaxPools,
                                   shaped(2, 8, 11, 13),
                                   _default),
           shaped(2, 8, 11, 13), 1)
    for shape in [(2, 24, 16, 16), (2, 24, 15, 17)]:
        size = "x".join(map(str, shape[2:]))
        yield (f"winograd_blocks_{size}",
               _quantized(WinogradBlocks, shaped(*shape), _default),
               shaped(*shape), 1)
        yield (f"winograd_conv_{size}",
               _quantized(WinogradConv, shaped(*shape), _default),
               shaped(*shape), 0)
    yield ("winograd_large_weights",
           _quantized(WinogradLargeWeights, shaped(1, 512, 12, 12), _default),
           shaped(1, 512, 12, 12), 0)
    # A batch of clips (one conv2d per depth tap, their products added),
    # and one clip (the depth taps inside the register tiles' loops).
    yield ("conv3d_blocks", _quantized(Conv3dBlocks,
                                       shaped(2, 3, 5, 9, 10), _default),
           shaped(2, 3, 5, 9, 10), 1)
    yield ("conv3d_blocks_clip", _quantized(Conv3dBlocks,
                                            shaped(1, 3, 6, 9, 10), _default),
           shaped(1, 3, 6, 9, 10), 1)
    yield ("dense_block", _quantized(DenseBlock,
                                     shaped(2, 3, 12, 10),
                                     _default),
           shaped(2, 3, 12, 10), 1)
    yield ("aspp_head", _quantized(ASPPHead, image(12), _default),
           image(12), 1)
    yield ("convnext_block", _quantized(ConvNeXtBlock, image(28), _default),
           image(28), 1)
    yield ("avg_pools", _quantized(AvgPools,
                                   shaped(2, 8, 11, 10),
                                   _default),
           shaped(2, 8, 11, 10), 0)
    yield ("avg_pools_channels_last", _quantized(AvgPoolsChannelsLast,
                                                 shaped(2, 1, 12, 10),
                                                 _default),
           shaped(2, 1, 12, 10), 0)
    yield ("reflect_padded", _quantized(ReflectPadded,
                                        shaped(2, 3, 9, 7),
                                        _default),
           shaped(2, 3, 9, 7), 1)
    # PyTorch 1.13's reference convs pad with zeros whatever their
    # padding_mode: compiled as the model computes it.
    yield ("reflect_padded_reference", _quantized(ReflectPadded,
                                                  shaped(2, 3, 9, 7),
                                                  _default, reference=True),
           shaped(2, 3, 9, 7), 1)

    def two_images():
        return (torch.randn(1, 3, 10, 10), torch.randn(1, 5, 10, 10))
    yield ("two_inputs", _quantized(TwoInputs, two_images, _default),
           two_images, 1)
    yield ("conv_transpose", _quantized(Decoder, image(7), _per_tensor),
           image(7), 1)
    yield ("conv_transpose_reference",
           _quantized(Decoder, image(7), _per_tensor, reference=True),
           image(7), 1)
    yield ("conv_transpose3d",
           _quantized(Decoder3d, shaped(1, 4, 4, 5, 3),
                      _per_tensor),
           shaped(1, 4, 4, 5, 3), 1)
    yield ("conv_blocks_reference",
           _quantized(ConvBlocks, image(16), _default, reference=True),
           image(16), 1)
    yield ("mlp_reference", _quantized(MLP, rows(4, 16), _default,
                                       reference=True), rows(4, 16), 1)

    def resnet18():
        return torchvision.models.quantization.resnet18(weights=None,
                                                        quantize=False)

    def mobilenet_v2():
        return torchvision.models.quantization.mobilenet_v2(weights=None,
                                                            quantize=False)
    yield ("resnet18", _quantized(resnet18, image(64), _default), image(64),
           4)
    yield ("mobilenet_v2", _quantized(mobilenet_v2, image(64), _default),
           image(64), 4)
