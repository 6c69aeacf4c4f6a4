#!/usr/bin/python3
"""Per-layer profile of a model: eager PyTorch against fx-mlir, layer by layer.

    /usr/bin/python3 bench/profile.py resnet18_b1 [--threads 1]

The traced graph is cut into pieces with torch.fx's `split_module`: a new
piece starts at every convolution, linear layer, pooling op or
call_function (such as a residual `add`); batch norms and activations stay
in the piece of the op before them, so conv + bn + relu is measured as the
fused unit fx-mlir compiles. Each piece is compiled on its own, checked
against eager, and timed like bench/run.py times whole models (warm-up,
then the median of repeated calls). The table lists the pieces by fx-mlir
time, with the speedup and the share of the total; the sums at the end
show how far the pieces explain the whole model's times.

Models: bench/run.py's workloads (resnet18_b1, resnet18_b8,
mobilenet_v2_b1, lenet, mlp_b64, encoder_s128, ...), or any
torchvision.models builder (regnet_x_400mf, resnext50_32x4d, ...) on one
224x224 image. Every piece is compiled, so resnet18 takes about a minute.
"""

import argparse
import operator
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cpu_env  # noqa: E402

cpu_env.prepare(sys.argv)  # OpenBLAS's core type where needed, --cpu
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))

import torch  # noqa: E402
import torch.fx  # noqa: E402
from torch.fx.passes.split_module import split_module  # noqa: E402

import fx_mlir  # noqa: E402

# Converted int8 models (bench/run.py's *_int8_* workloads) have the
# quantized modules; their pieces take and give quantized tensors.
QUANTIZED_CONVS = (torch.ao.nn.quantized.Conv1d, torch.ao.nn.quantized.Conv2d,
                   torch.ao.nn.quantized.Conv3d)
ANCHORS = (torch.nn.Conv1d, torch.nn.Conv2d, torch.nn.Conv3d, torch.nn.Linear,
           torch.nn.MaxPool2d, torch.nn.AvgPool2d,
           torch.nn.AdaptiveAvgPool2d, torch.nn.MultiheadAttention,
           torch.ao.nn.quantized.Linear) + QUANTIZED_CONVS


def median_time(fn, args, budget=0.3):
    for _ in range(3):
        fn(*args)
    times = []
    start = time.perf_counter()
    while len(times) < 5 or (time.perf_counter() - start < budget
                             and len(times) < 200):
        t = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t)
    times.sort()
    return times[len(times) // 2]


def build_model(name):
    """A bench/run.py workload (`resnet18_b1`, `mobilenet_v2_b1`, `lenet`,
    `mlp_b64`, `encoder_s128`, ...), or a torchvision.models builder's
    model (`regnet_x_400mf`, or `fcn_resnet50` of models.segmentation) on
    one 224x224 image, or a models.video one (`r3d_18`) on 8 frames of
    112x112: the module and its inputs."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import run
    if name in run.WORKLOADS:
        _, module, inputs = run.build(name)
        return module.eval(), inputs
    import torchvision
    # Segmentation backbones would download their pretrained weights.
    for namespace, shape, options in (
            (torchvision.models, (1, 3, 224, 224), {}),
            (torchvision.models.segmentation, (1, 3, 224, 224),
             {"weights_backbone": None}),
            (torchvision.models.video, (1, 3, 8, 112, 112), {})):
        builder = getattr(namespace, name, None)
        if not name.startswith("_") and callable(builder):
            return builder(**options).eval(), (torch.randn(*shape),)
    sys.exit("unknown model %r; a workload (%s) or a torchvision.models "
             "(segmentation, video) builder" % (name, ", ".join(run.WORKLOADS)))


def split(gm):
    """A piece number per node: a new piece at each anchor."""
    modules = dict(gm.named_modules())
    piece = [0]
    first = [True]

    def callback(node):
        # A getitem stays with the op whose tuple it takes apart (such as
        # MultiheadAttention's (output, weights)).
        anchor = (node.op == "call_module"
                  and isinstance(modules[node.target], ANCHORS)) or \
            (node.op in ("call_function", "call_method")
             and node.target is not operator.getitem)
        if anchor and not first[0]:
            piece[0] += 1
        first[0] = False
        return piece[0]

    return split_module(gm, gm, callback)


def with_constants(piece, values):
    """A copy of the GraphModule `piece` whose non-tensor inputs (sizes an
    earlier piece computed) are the constants in `values`; it takes only
    the tensors."""
    return fx_mlir.specialize.bind_numbers(
        piece, values, bound=lambda v: not isinstance(v, torch.Tensor))


def describe(sub):
    parts = []
    modules = dict(sub.named_modules())
    for node in sub.graph.nodes:
        if node.op == "call_module":
            m = modules[node.target]
            text = type(m).__name__
            if isinstance(m, (torch.nn.Conv2d, torch.nn.Conv3d)
                          + QUANTIZED_CONVS):
                text += "(%d->%d,k%s,s%d%s%s)" % (
                    m.in_channels, m.out_channels,
                    "x".join(map(str, m.kernel_size)), m.stride[0],
                    ",g%d" % m.groups if m.groups > 1 else "",
                    ",d%d" % m.dilation[0] if m.dilation[0] > 1 else "")
            parts.append(text)
        elif node.op in ("call_function", "call_method"):
            parts.append(getattr(node.target, "__name__", str(node.target)))
    return "+".join(parts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--cpu", default=None,
                    help="fx-mlir's CPU target (read by cpu_env.prepare)")
    ap.add_argument("--top", type=int, default=25,
                    help="pieces listed (all are summed)")
    args = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(args.threads)
    fx_mlir.set_num_threads(args.threads)
    model, inputs = build_model(args.model)
    gm = fx_mlir.compiler.trace(model, inputs)
    # torch._assert checks (ViT's) produce nothing a piece could output;
    # they are dropped, with the size computations only they used.
    for node in list(gm.graph.nodes):
        if node.op == "call_function" and node.target is torch._assert:
            gm.graph.erase_node(node)
    gm.graph.eliminate_dead_code()
    gm.recompile()
    parts = split(gm)

    # Each piece's inputs, from one eager run of the split module.
    env = {}
    records = []
    shape_only = 0
    with torch.no_grad():
        for node in parts.graph.nodes:
            if node.op == "placeholder":
                env[node.name] = inputs[len(env)]
                continue
            if node.op == "output":
                continue
            if node.op == "get_attr":  # state used by several pieces
                value = parts
                for atom in node.target.split("."):
                    value = getattr(value, atom)
                env[node.name] = value
                continue
            fn = getattr(parts, node.target) if node.op == "call_module" \
                else node.target
            a = torch.fx.node.map_arg(node.args, lambda n: env[n.name])
            env[node.name] = fn(*a)
            if node.op != "call_module":
                continue
            piece_inputs = tuple(a)
            out = env[node.name]
            if not isinstance(out, torch.Tensor):
                shape_only += 1  # sizes for later pieces: nothing to time
                continue
            if not all(isinstance(v, torch.Tensor) for v in piece_inputs):
                # Sizes computed by an earlier piece are constants here.
                fn, piece_inputs = with_constants(fn, piece_inputs), tuple(
                    v for v in piece_inputs if isinstance(v, torch.Tensor))
            t0 = time.perf_counter()
            compiled = fx_mlir.compile(fn, piece_inputs)
            compile_s = time.perf_counter() - t0
            got = compiled(*piece_inputs)
            if out.is_quantized:
                # In quantization steps; within a step or two of the
                # engine is the accuracy contract (docs/Quantization.md).
                err = (got.int_repr().int() - out.int_repr().int()).abs(
                ).max().item() * 1e-3 / 2
            else:
                err = (got - out).abs().max().item() / max(
                    1.0, out.abs().max().item())
            eager = median_time(fn, piece_inputs)
            ours = median_time(compiled, piece_inputs)
            records.append((node.target, describe(fn),
                            tuple(piece_inputs[0].shape), eager, ours,
                            compile_s, err))
        whole_eager = median_time(model, inputs)
        whole = fx_mlir.compile(model, inputs)
        whole_ours = median_time(whole, inputs)

    total_eager = sum(r[3] for r in records)
    total_ours = sum(r[4] for r in records)
    print("%s, %d thread(s): %d pieces%s" %
          (args.model, args.threads, len(records),
           " (and %d computing only sizes)" % shape_only if shape_only
           else ""))
    print("%-10s %-42s %-20s %9s %9s %7s %6s %7s" %
          ("piece", "ops", "input", "eager ms", "ours ms", "speedup",
           "share", "compile"))
    for r in sorted(records, key=lambda r: -r[4])[:args.top]:
        print("%-10s %-42s %-20s %9.3f %9.3f %6.2fx %5.1f%% %6.2fs%s" %
              (r[0], r[1][:42], "x".join(map(str, r[2])), r[3] * 1e3,
               r[4] * 1e3, r[3] / r[4], 100 * r[4] / total_ours, r[5],
               "  WRONG %.1e" % r[6] if r[6] > 1e-3 else ""))
    print("sum of pieces: eager %.3f ms, fx-mlir %.3f ms (%.2fx)" %
          (total_eager * 1e3, total_ours * 1e3, total_eager / total_ours))
    print("whole model:   eager %.3f ms, fx-mlir %.3f ms (%.2fx)" %
          (whole_eager * 1e3, whole_ours * 1e3, whole_eager / whole_ours))


if __name__ == "__main__":
    main()
