"""Prints a function whose body is a chain of N elementwise linalg.generic
ops (x + 1, then each result + 1 again), for fusion-limit.test."""
import sys

n = int(sys.argv[1])
t = "tensor<4x16xf32>"
print(f"func.func @chain(%x: {t}) -> {t} {{")
print("  %one = arith.constant 1.0 : f32")
print(f"  %e = tensor.empty() : {t}")
value = "%x"
for i in range(n):
    print(f"""  %v{i} = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}} ins({value} : {t}) outs(%e : {t}) {{
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %one : f32
    linalg.yield %s : f32
  }} -> {t}""")
    value = f"%v{i}"
print(f"  return {value} : {t}")
print("}")
