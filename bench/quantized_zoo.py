#!/usr/bin/python3
"""Quantized torchvision models no issue names, compiled and compared with
PyTorch's quantized engine in the same process.

    /usr/bin/python3 bench/quantized_zoo.py [MODEL ...] [--threads 1]
                                            [--calls 20]

Each model (default: resnet50, googlenet, inception_v3, mobilenet_v3_large,
efficientnet_b0, regnet_y_400mf, mnasnet0_5, squeezenet1_1; any torchvision
classification, video or segmentation model by name, a segmentation model's
`out` compared) is built with
random weights (torchvision's quantizable definition where there is one),
prepared with the default qconfig of the CPU's quantized engine (onednn,
else qnnpack), calibrated on four random 224x224 images (299 for
inception_v3; video models: clips of 8 frames of 112x112), converted (convert_fx) and compiled (fx_mlir.compile). On a
new random image: the largest difference of the outputs in quantization
steps (the scale of the tensor the final dequantize reads), the share of
outputs more than 1.5 steps off, and the median time of `--calls` calls of
each side at `--threads` threads, with the ratio (PyTorch / fx-mlir).
A model that fails to trace or compile is reported, not fatal.
"""

import argparse
import os
import statistics
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cpu_env  # noqa: E402

cpu_env.prepare(sys.argv)  # OpenBLAS's core type where needed, --cpu
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))

import torch  # noqa: E402
import torchvision  # noqa: E402
from torch.ao.quantization import get_default_qconfig_mapping  # noqa: E402
from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx  # noqa

import fx_mlir  # noqa: E402

DEFAULT = ["resnet50", "googlenet", "inception_v3", "mobilenet_v3_large",
           "efficientnet_b0", "regnet_y_400mf", "mnasnet0_5", "squeezenet1_1"]


def median_ms(fn, x, calls):
    with torch.no_grad():
        for _ in range(3):
            fn(x)
        times = []
        for _ in range(calls):
            start = time.perf_counter()
            fn(x)
            times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def input_shape(name):
    """A 224 x 224 image (299 for inception_v3), or for torchvision's video
    models (r3d_18, mc3_18, r2plus1d_18) a clip of 8 frames of 112 x 112."""
    if hasattr(torchvision.models.video, name):
        return (1, 3, 8, 112, 112)
    size = 299 if name == "inception_v3" else 224
    return (1, 3, size, size)


def build(name, engine):
    quantizable = torchvision.models.quantization
    segmentation = torchvision.models.segmentation
    if hasattr(torchvision.models.video, name):
        model = getattr(torchvision.models.video, name)(weights=None)
    elif hasattr(segmentation, name):
        model = getattr(segmentation, name)(weights=None,
                                            weights_backbone=None)
    elif hasattr(quantizable, name):
        extra = ({"aux_logits": False, "init_weights": False}
                 if name in ("googlenet", "inception_v3") else {})
        model = getattr(quantizable, name)(weights=None, quantize=False,
                                           **extra)
    else:
        model = getattr(torchvision.models, name)(weights=None)
    shape = input_shape(name)
    model = model.eval()
    x = torch.randn(*shape)
    # x86's 7-bit activations where the engine saturates 8-bit ones.
    qconfig = engine if fx_mlir.exact_quantized_engine() == engine else "x86"
    prepared = prepare_fx(model, get_default_qconfig_mapping(qconfig), (x,))
    with torch.no_grad():
        for _ in range(4):
            prepared(torch.randn(*shape))
    return convert_fx(prepared).eval(), shape


def main_output(output):
    """The output compared: a segmentation model's `out`."""
    return output["out"] if isinstance(output, dict) else output


def output_step(converted, output):
    final = [n for n in converted.graph.nodes if n.op == "output"][0]
    value = main_output(final.args[0])
    source = value.args[0] if value.args else None
    if source is not None and source.op == "call_module":
        return float(converted.get_submodule(source.target).scale)
    return float(output.max() - output.min()) / 255


def main():
    # convert_fx of PyTorch 1.13 warns for each conv3d's packed weights.
    warnings.filterwarnings("ignore", message="Node .* does not reference")
    parser = argparse.ArgumentParser()
    parser.add_argument("models", nargs="*", default=DEFAULT)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--cpu", default=None)
    args = parser.parse_args()
    engines = torch.backends.quantized.supported_engines
    engine = "onednn" if "onednn" in engines else "qnnpack"
    torch.backends.quantized.engine = engine
    torch.set_num_threads(args.threads)
    fx_mlir.set_num_threads(args.threads)
    print(f"engine {engine}, {args.threads} thread(s)")
    print(f"{'model':22s} {'max steps':>9s} {'>1.5 steps':>10s} "
          f"{'PyTorch ms':>10s} {'fx-mlir ms':>10s} {'speedup':>8s}")
    for name in args.models:
        torch.manual_seed(0)
        try:
            converted, shape = build(name, engine)
            compiled = fx_mlir.compile(converted, (torch.randn(*shape),))
            x = torch.randn(*shape)
            with torch.no_grad():
                ours, eager = (main_output(compiled(x)),
                               main_output(converted(x)))
            steps = (ours - eager).abs() / output_step(converted, eager)
            eager_ms = median_ms(converted, x, args.calls)
            ours_ms = median_ms(compiled, x, args.calls)
            print(f"{name:22s} {steps.max().item():9.2f} "
                  f"{(steps > 1.5).float().mean().item() * 100:9.3f}% "
                  f"{eager_ms:10.2f} {ours_ms:10.2f} "
                  f"{eager_ms / ours_ms:7.2f}x", flush=True)
        except Exception as error:  # noqa: BLE001 - reported, not fatal
            print(f"{name:22s} failed: {type(error).__name__}: "
                  f"{str(error).splitlines()[0][:160]}", flush=True)


if __name__ == "__main__":
    main()
