"""The registry sweep (registry-sweep.test): every lowered canonical target
of the registry (fx-targets' table) as the smallest graph of one call:
tensors of 2x3 float32, the smallest value of every other parameter
(optionals None, a str its default), written as one file of
-split-input-file chunks for fx-opt --fx-to-llvm. Targets with a
parameter of no such value (a str without default, a Generator) are left
out.

Usage: registry_sweep.py BUILD_DIR OUT.mlir
"""
import re
import subprocess
import sys

TENSOR = "tensor<2x3xf32>"

def value(ty, default, name):
    opt = ty.endswith("?")
    base = ty[:-1] if opt else ty
    if opt and base != "Tensor":
        return "None"
    if base in ("Tensor",):
        return "TENSOR" if not opt else "None"
    if base in ("Tensor[]", "Tensor?[]"):
        return "TENSORS"
    m = re.match(r"(SymInt|int)(\[(\d*)\])?$", base)
    if m:
        if m.group(2):
            n = int(m.group(3) or 1)
            return "[" + ", ".join(["1"] * n) + "]"
        return "1"
    if base == "float":
        return "0.5"
    if base == "float[]":
        return "[0.5]"
    m = re.match(r"bool(\[(\d*)\])?$", base)
    if m:
        if m.group(1):
            return "[" + ", ".join(["True"] * int(m.group(2) or 1)) + "]"
        return "False"
    if base == "Scalar":
        return "1.0"
    if base == "ScalarType":
        return "torch.float32"
    if base == "str":
        if default is not None:
            return default.replace("'", '"') if default.startswith(("'", '"')) else f'"{default}"'
        return None
    return None

def result_type(ret):
    ret = ret.strip()
    if ret.startswith("("):
        parts = [p.strip().split(" ")[0] for p in ret[1:-1].split(",")]
        types = [result_type(p) for p in parts]
        if any(t is None for t in types):
            return None
        return "tuple<" + ", ".join(types) + ">"
    ret = re.sub(r"\(.*?\)", "", ret).split(" ")[0]
    return {"Tensor": TENSOR, "int": "i64", "float": "f64", "bool": "i1",
            "Scalar": "f64"}.get(ret)

def case(target, schema):
    m = re.match(r"\((.*)\) -> (.*)$", schema)
    if not m:
        return None
    params, ret = m.group(1), m.group(2)
    rtype = result_type(ret)
    if rtype is None:
        return None
    args, kwargs, operands = [], [], []
    kwonly = False
    for p in [p.strip() for p in re.split(r",(?![^\[]*\])", params) if p.strip()]:
        if p == "*":
            kwonly = True
            continue
        p = re.sub(r"\(a[!]?[^)]*\)", "", p)
        ty, _, rest = p.partition(" ")
        name, _, default = rest.partition("=")
        v = value(ty, default or None, name)
        if v is None:
            return None
        if v == "TENSOR":
            operands.append(TENSOR)
            v = f"%a{len(operands) - 1}"
        elif v == "TENSORS":
            operands.append(TENSOR)
            operands.append(TENSOR)
            v = f"[%a{len(operands) - 2}, %a{len(operands) - 1}]"
        (kwargs if kwonly else args).append(f"{name}={v}" if kwonly else v)
    phs = "\n".join(f'    %a{i} = fx.placeholder "a{i}" : {t}'
                    for i, t in enumerate(operands))
    call_args = ", ".join(args + kwargs)
    optypes = ", ".join(operands)
    return (f"fx.graph_module @M {{\n  fx.graph @forward {{\n{phs}\n"
            f'    %r = fx.call_function "{target}"({call_args}) : ({optypes}) -> {rtype}\n'
            f"    fx.output %r : {rtype}\n  }}\n}}\n")

def main():
    table = subprocess.run([sys.argv[1] + "/bin/fx-targets"], capture_output=True,
                           text=True, check=True).stdout
    cases = []
    for line in table.splitlines():
        m = re.match(r"\| `([^`]+)` \| `([^`]+)` \| yes \|", line)
        if m:
            c = case(m.group(1), m.group(2))
            if c:
                cases.append((m.group(1), c))
    print(len(cases), "cases", file=sys.stderr)
    with open(sys.argv[2], "w") as f:
        f.write("\n// -----\n\n".join(c for _, c in cases))

main()
