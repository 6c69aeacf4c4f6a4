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

/// A tensor read from or written to a .npy file.
struct Array {
  std::string dtype;
  std::vector<int64_t> shape;
  std::vector<char> bytes;
};

struct Format {
  const char *descr, *dtype;
  size_t size;
};
const Format kFormats[] = {{"<f4", "float32", 4}, {"<f8", "float64", 8},
                           {"<i8", "int64", 8},   {"<i4", "int32", 4},
                           {"|u1", "uint8", 1},   {"|b1", "bool", 1}};

const Format *formatOf(const std::string &text, bool byDescr) {
  for (const Format &f : kFormats)
    if (text == (byDescr ? f.descr : f.dtype))
      return &f;
  return nullptr;
}

/// Reads a version 1-3 .npy file of one of kFormats, C order.
bool readNpy(const std::string &path, Array &array, std::string &error) {
  std::ifstream in(path, std::ios::binary);
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) {
    error = path + ": not a .npy file";
    return false;
  }
  uint32_t headerSize = 0;
  unsigned char size[4] = {0, 0, 0, 0};
  if (!in.read(reinterpret_cast<char *>(size), magic[6] == 1 ? 2 : 4)) {
    error = path + ": truncated header";
    return false;
  }
  headerSize = size[0] | size[1] << 8 | size[2] << 16 | uint32_t(size[3]) << 24;
  if (headerSize > (1u << 20)) {
    error = path + ": header too large";
    return false;
  }
  std::string header(headerSize, '\0');
  if (!in.read(header.data(), headerSize)) {
    error = path + ": truncated header";
    return false;
  }
  auto field = [&](const std::string &key) -> std::string {
    size_t at = header.find("'" + key + "'");
    if (at == std::string::npos)
      return "";
    at = header.find(':', at);
    return at == std::string::npos ? "" : header.substr(at + 1);
  };
  std::string descr = field("descr");
  size_t open = descr.find('\''), close = descr.find('\'', open + 1);
  const Format *format =
      open == std::string::npos || close == std::string::npos
          ? nullptr
          : formatOf(descr.substr(open + 1, close - open - 1), true);
  if (!format) {
    error = path + ": unsupported dtype";
    return false;
  }
  std::string order = field("fortran_order");
  order.erase(0, order.find_first_not_of(' '));
  if (order.rfind("True", 0) == 0) {
    error = path + ": Fortran order is not supported";
    return false;
  }
  std::string shape = field("shape");
  size_t begin = shape.find('('), end = shape.find(')');
  if (begin == std::string::npos || end == std::string::npos) {
    error = path + ": no shape";
    return false;
  }
  array.dtype = format->dtype;
  array.shape.clear();
  std::stringstream dims(shape.substr(begin + 1, end - begin - 1));
  uint64_t count = 1;
  for (std::string dim; std::getline(dims, dim, ',');) {
    if (dim.find_first_not_of(" ") == std::string::npos)
      continue;
    char *rest = nullptr;
    long long d = std::strtoll(dim.c_str(), &rest, 10);
    if (d < 0 || d > (1ll << 40) || (count *= uint64_t(d)) > (1ull << 40)) {
      error = path + ": bad shape";
      return false;
    }
    array.shape.push_back(d);
  }
  array.bytes.resize(count * format->size);
  if (!in.read(array.bytes.data(), array.bytes.size())) {
    error = path + ": fewer bytes than its shape needs";
    return false;
  }
  return true;
}

bool writeNpy(const std::string &path, const fx_tensor &t, size_t bytes) {
  const Format *format = formatOf(t.dtype, false);
  if (!format)
    return false;
  std::string shape = "(";
  for (int64_t i = 0; i < t.rank; ++i)
    shape +=
        std::to_string(t.shape[i]) + (t.rank == 1 || i + 1 < t.rank ? "," : "");
  shape += ")";
  std::string header = "{'descr': '" + std::string(format->descr) +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  header.append(63 - (10 + header.size()) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  uint16_t size = uint16_t(header.size());
  out.put(char(size & 0xff)).put(char(size >> 8));
  out << header;
  out.write(static_cast<const char *>(t.data), bytes);
  return bool(out);
}

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
  std::vector<Array> arrays(inputs.size());
  std::vector<fx_tensor> args(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string why;
    if (!readNpy(inputs[i], arrays[i], why))
      return fail(why);
    if (arrays[i].shape.size() > FX_MAX_RANK)
      return fail(inputs[i] + ": rank over " + std::to_string(FX_MAX_RANK));
    args[i].data = arrays[i].bytes.data();
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
    const Format *format = formatOf(r.dtype, false);
    if (i < outputs.size() &&
        (!format || !writeNpy(outputs[i], r, count * format->size)))
      return fail("cannot write " + outputs[i]);
    if (i < expected.size()) {
      Array reference;
      std::string why;
      if (!readNpy(expected[i], reference, why))
        return fail(why);
      if (reference.dtype != r.dtype ||
          reference.shape != std::vector<int64_t>(r.shape, r.shape + r.rank))
        return fail(expected[i] + ": not the output's dtype and shape");
      double scale = 0, worst = 0;
      for (size_t e = 0; e < count; ++e)
        scale = std::max(scale, std::fabs(element(reference.bytes.data(),
                                                  reference.dtype, e)));
      for (size_t e = 0; e < count; ++e) {
        double a = element(r.data, r.dtype, e);
        double b = element(reference.bytes.data(), reference.dtype, e);
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
