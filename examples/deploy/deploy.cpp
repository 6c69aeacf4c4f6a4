//===- deploy.cpp - Run a model compiled ahead of time, without Python ----===//
//
//   fx-deploy model.so input.npy... [--expect expected.npy...]
//             [--output out.npy...] [--threads N]
//
// Loads a library `fx-compile` made (or fx_mlir's CompiledGraph.save), runs
// it on the inputs (.npy files) through the runtime core's C interface and
// prints each output's shape. With --expect, compares each output with a
// reference (eager PyTorch's, saved as .npy) and fails if any element
// differs by more than 1e-4 relative to the reference's largest magnitude.
// Links only FxMLIR::FXRuntimeCore: no Python, LibTorch, LLVM or MLIR.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Runtime/Executable.h" // readNpy, writeNpy
#include "fx-mlir/Runtime/fx_runtime.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

double element(const void *data, const std::string &dtype, size_t i) {
  if (dtype == "float32")
    return static_cast<const float *>(data)[i];
  if (dtype == "float64")
    return static_cast<const double *>(data)[i];
  if (dtype == "int64")
    return double(static_cast<const int64_t *>(data)[i]);
  if (dtype == "int32")
    return static_cast<const int32_t *>(data)[i];
  return static_cast<const uint8_t *>(data)[i];
}

int fail(const std::string &message) {
  std::cerr << "fx-deploy: " << message << "\n";
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> inputs, expected, outputs;
  std::vector<std::string> *list = &inputs;
  std::string library;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--expect")
      list = &expected;
    else if (arg == "--output")
      list = &outputs;
    else if (arg == "--threads" && i + 1 < argc)
      fx_set_num_threads(std::atoi(argv[++i]));
    else if (library.empty())
      library = arg;
    else
      list->push_back(arg);
  }
  if (library.empty())
    return fail("usage: fx-deploy model.so input.npy... [--expect "
                "expected.npy...] [--output out.npy...] [--threads N]");

  char *error = nullptr;
  fx_model *model = fx_model_load(library.c_str(), &error);
  if (!model) {
    std::string message = error ? error : "cannot load the model";
    std::free(error);
    return fail(message);
  }
  std::vector<mlir::fx::NpyArray> arrays(inputs.size());
  std::vector<fx_tensor> args(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string why;
    if (!mlir::fx::readNpy(inputs[i], arrays[i], why))
      return fail(why);
    if (arrays[i].shape.size() > FX_MAX_RANK)
      return fail(inputs[i] + ": rank over " + std::to_string(FX_MAX_RANK));
    args[i].data = arrays[i].data.data();
    args[i].dtype = arrays[i].dtype.c_str();
    args[i].rank = int64_t(arrays[i].shape.size());
    std::copy(arrays[i].shape.begin(), arrays[i].shape.end(), args[i].shape);
  }
  std::vector<fx_tensor> results(fx_model_num_outputs(model));
  if (fx_model_run(model, args.data(), args.size(), results.data(),
                   results.size(), &error) != 0) {
    std::string message = error ? error : "the model refused its inputs";
    std::free(error);
    return fail(message);
  }
  int status = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    const fx_tensor &r = results[i];
    size_t count = 1;
    std::cout << "output " << i << ": " << r.dtype << " [";
    for (int64_t d = 0; d < r.rank; ++d) {
      std::cout << (d ? ", " : "") << r.shape[d];
      count *= size_t(r.shape[d]);
    }
    std::cout << "]";
    std::vector<int64_t> shape(r.shape, r.shape + r.rank);
    std::string why;
    if (i < outputs.size() &&
        !mlir::fx::writeNpy(outputs[i], r.dtype, shape, r.data, why))
      return fail(why);
    if (i < expected.size()) {
      mlir::fx::NpyArray reference;
      if (!mlir::fx::readNpy(expected[i], reference, why))
        return fail(why);
      if (reference.dtype != r.dtype || reference.shape != shape)
        return fail(expected[i] + ": not the output's dtype and shape");
      double scale = 0, worst = 0;
      for (size_t e = 0; e < count; ++e)
        scale = std::max(scale, std::fabs(element(reference.data.data(),
                                                  reference.dtype, e)));
      for (size_t e = 0; e < count; ++e) {
        double a = element(r.data, r.dtype, e);
        double b = element(reference.data.data(), reference.dtype, e);
        worst =
            std::max(worst, std::isnan(a) != std::isnan(b) ? INFINITY
                                                           : std::fabs(a - b));
      }
      bool close = worst <= 1e-4 * std::max(scale, 1.0);
      std::cout << "; largest difference from " << expected[i] << ": " << worst
                << (close ? " (matches)" : " (DIFFERS)");
      status |= !close;
    }
    std::cout << "\n";
    std::free(r.data);
  }
  fx_model_free(model);
  return status;
}
