"""The Python side of docs/Tutorial.md ("Writing your own pass") as one
script; the test suite runs it and the tutorial quotes it. The numbers in
the comments are the tutorial's sections.

    PYTHONPATH=python /usr/bin/python3 examples/tutorial/tutorial.py build/bin/tutorial-opt

It traces a small model with torch.fx, imports it into the fx dialect,
normalizes it, runs the tutorial's C++ passes (TutorialPasses.cpp) with
tutorial-opt, exports the results back to torch.fx GraphModules and checks
them against PyTorch; then does the same with fx-mlir's built-in passes. It
writes net.mlir, net-normalized.mlir and net-fused.mlir to the current
directory, for the command-line tools.
"""

import subprocess
import sys

import torch
import torch.fx

import fx_mlir
import fx_mlir.fused

tutorial_opt = sys.argv[1]


def graph_only(ir):
    """`ir` without the weights (its `{-# dialect_resources ... #-}`)."""
    return ir.split("{-#")[0].rstrip()


def save(ir, path):
    with open(path, "w") as f:
        f.write(ir)


# 1. A model, traced as usual.
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, kernel_size=3, padding=1)
        self.fc = torch.nn.Linear(8 * 8 * 8, 10)

    def forward(self, x):
        x = torch.relu(self.conv(x))
        return self.fc(torch.flatten(x, 1))


torch.manual_seed(0)
model = Net().eval()
gm = torch.fx.symbolic_trace(model)

# 2. Import the GraphModule into the fx dialect and look at it.
x = torch.randn(1, 3, 8, 8)
ir = fx_mlir.import_graph_module(gm, (x,))
save(ir, "net.mlir")
print(graph_only(ir))
print(fx_mlir.print_tabular(ir))

# 3. Normalize: every call becomes its canonical aten:: operator.
normalized = fx_mlir.run_fx_opt(ir, "--fx-normalize")
save(normalized, "net-normalized.mlir")
print(fx_mlir.print_tabular(normalized))


# 5. Run our pass (section 4 writes it) with tutorial-opt.
def run_tutorial_opt(ir, *args):
    """Runs tutorial-opt on `ir` with `args`; its diagnostics go to stderr."""
    result = subprocess.run([tutorial_opt, "-", *args], input=ir, text=True,
                            stdout=subprocess.PIPE, check=True)
    return result.stdout


fused = run_tutorial_opt(normalized, "--tutorial-fuse-conv-relu")
save(fused, "net-fused.mlir")
print(graph_only(fused))
print(fx_mlir.print_tabular(fused))
assert '"fx_mlir.fused.conv2d"' in fused

# 6. Back to torch.fx, and a forward pass against the original model.
fused_gm = fx_mlir.export_graph_module(fused)
print(fused_gm.code.strip())
assert fx_mlir.fused.conv2d in [node.target for node in fused_gm.graph.nodes]
x = torch.randn(1, 3, 8, 8)
with torch.no_grad():
    same = torch.allclose(fused_gm(x), model(x))
print("fused model matches the original:", same)
assert same


# 7. The torch.fx Transformer example, relu -> sigmoid, as torch.fx does
# it and as our second pass does it; both must agree.
class ReluToSigmoid(torch.fx.Transformer):
    def call_function(self, target, args, kwargs):
        if target is torch.relu:
            target = torch.sigmoid
        return super().call_function(target, args, kwargs)


expected_gm = ReluToSigmoid(gm).transform()
sigmoid = run_tutorial_opt(ir, "--tutorial-relu-to-sigmoid")
print(fx_mlir.print_tabular(sigmoid))
sigmoid_gm = fx_mlir.export_graph_module(sigmoid)
with torch.no_grad():
    same = torch.allclose(sigmoid_gm(x), expected_gm(x))
print("relu -> sigmoid matches torch.fx.Transformer:", same)
assert same

# 9. Both rewrites again with fx-mlir's built-in passes (section 8 is the
# interpreter hook, in C++), from the model straight to a new GraphModule.
builtin_fused_gm = fx_mlir.transform(model, "fx-fuse-activation", (x,))
builtin_sigmoid_gm = fx_mlir.transform(
    model, "fx-replace-target{from=torch.relu to=torch.sigmoid}", (x,))
assert fx_mlir.fused.conv2d in [n.target for n in builtin_fused_gm.graph.nodes]
with torch.no_grad():
    same_fused = torch.allclose(builtin_fused_gm(x), model(x))
    same_sigmoid = torch.allclose(builtin_sigmoid_gm(x), expected_gm(x))
print("fx-fuse-activation matches the original:", same_fused)
print("fx-replace-target matches torch.fx.Transformer:", same_sigmoid)
assert same_fused and same_sigmoid
