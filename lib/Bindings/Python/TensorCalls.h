//===- TensorCalls.h - Calling compiled code on torch.Tensors ---*- C++ -*-===//
//
// What both Python extensions share: fx_mlir._fx_runtime (the compiler)
// and fx_mlir._fx_core (the runtime core alone, which loads cached or
// ahead-of-time code without LLVM). Inputs are passed by pointer (no copy
// for contiguous tensors); outputs become tensors that own the buffers the
// compiled code allocated.
//
//===----------------------------------------------------------------------===//

#ifndef FX_MLIR_BINDINGS_PYTHON_TENSORCALLS_H
#define FX_MLIR_BINDINGS_PYTHON_TENSORCALLS_H

#include "fx-mlir/Runtime/Executable.h"
#include "fx-mlir/Runtime/TorchDTypes.h"

#include <torch/csrc/autograd/python_variable.h>
#include <torch/csrc/utils/pybind.h>

#include <ATen/ATen.h>

#include <algorithm>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <c10/core/ScalarType.h>

namespace fx_python {

namespace py = pybind11;

inline at::ScalarType scalarType(const std::string &name) {
  if (auto type = mlir::fx::getTorchScalarType(name))
    return *type;
  throw std::runtime_error("unsupported dtype " + name);
}

inline void freeAllocation(void *allocation) { std::free(allocation); }

/// Raises fx_mlir.FxMlirError (the Python package's error) with `message`.
[[noreturn]] inline void raiseFxMlirError(const std::string &message) {
  static py::object type = py::module_::import("fx_mlir").attr("FxMlirError");
  PyErr_SetString(type.ptr(), message.c_str());
  throw py::error_already_set();
}

/// The rows x cols matrix `src` (row-major) transposed into `dst`, in
/// blocks of 32 x 32 that stay in the L1 cache.
template <typename T>
void transposeBlocks(const T *src, T *dst, int64_t rows, int64_t cols) {
  constexpr int64_t block = 32;
  for (int64_t r0 = 0; r0 < rows; r0 += block)
    for (int64_t c0 = 0; c0 < cols; c0 += block) {
      int64_t r1 = std::min(rows, r0 + block);
      int64_t c1 = std::min(cols, c0 + block);
      for (int64_t c = c0; c < c1; ++c)
        for (int64_t r = r0; r < r1; ++r)
          dst[c * rows + r] = src[r * cols + c];
    }
}

#if defined(__SSE2__)
/// Bytes: whole 16 x 16 tiles by SSE2 unpacks (four rounds of the perfect
/// shuffle of 16 rows transpose them), the edges element by element.
template <>
inline void transposeBlocks(const uint8_t *src, uint8_t *dst, int64_t rows,
                            int64_t cols) {
  int64_t rows16 = rows / 16 * 16, cols16 = cols / 16 * 16;
  for (int64_t r0 = 0; r0 < rows16; r0 += 16)
    for (int64_t c0 = 0; c0 < cols16; c0 += 16) {
      __m128i x[16], y[16];
      for (int i = 0; i < 16; ++i)
        x[i] = _mm_loadu_si128(
            reinterpret_cast<const __m128i *>(src + (r0 + i) * cols + c0));
      for (int round = 0; round < 4; ++round) {
        for (int i = 0; i < 8; ++i) {
          y[2 * i] = _mm_unpacklo_epi8(x[i], x[i + 8]);
          y[2 * i + 1] = _mm_unpackhi_epi8(x[i], x[i + 8]);
        }
        std::copy(y, y + 16, x);
      }
      for (int i = 0; i < 16; ++i)
        _mm_storeu_si128(
            reinterpret_cast<__m128i *>(dst + (c0 + i) * rows + r0), x[i]);
    }
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = r < rows16 ? cols16 : 0; c < cols; ++c)
      dst[c * rows + r] = src[r * cols + c];
}
#endif

/// `t` as a contiguous tensor. A dense channels-last one (every quantized
/// conv's output in eager PyTorch, or a channels-last image batch): each
/// image's [H W, C] matrix transposed in cache blocks, where
/// `t.contiguous()` copies one element at a time along the permuted
/// strides (1.1 ms for a 1x96x112x112 byte tensor, 6-8x this).
inline at::Tensor contiguousInput(const at::Tensor &t) {
  int64_t rank = t.dim();
  bool channelsLast =
      (rank == 4 && t.is_contiguous(at::MemoryFormat::ChannelsLast)) ||
      (rank == 5 && t.is_contiguous(at::MemoryFormat::ChannelsLast3d));
  if (!channelsLast || t.numel() == 0)
    return t.contiguous();
  int64_t images = t.size(0), channels = t.size(1);
  int64_t pixels = t.numel() / (images * channels);
  at::Tensor out = at::empty(
      t.sizes(), t.options().memory_format(at::MemoryFormat::Contiguous));
  auto copy = [&](auto *src, auto *dst) {
    for (int64_t n = 0; n < images; ++n)
      transposeBlocks(src + n * pixels * channels, dst + n * pixels * channels,
                      pixels, channels);
  };
  const void *src = t.data_ptr();
  void *dst = out.data_ptr();
  switch (t.element_size()) {
  case 1:
    copy(static_cast<const uint8_t *>(src), static_cast<uint8_t *>(dst));
    return out;
  case 2:
    copy(static_cast<const uint16_t *>(src), static_cast<uint16_t *>(dst));
    return out;
  case 4:
    copy(static_cast<const uint32_t *>(src), static_cast<uint32_t *>(dst));
    return out;
  case 8:
    copy(static_cast<const uint64_t *>(src), static_cast<uint64_t *>(dst));
    return out;
  default:
    return t.contiguous();
  }
}

/// A CPU tensor over `r`'s buffer that frees its allocation when the last
/// reference goes: a storage built directly, without from_blob's
/// std::function deleter (this is the per-call path).
inline at::Tensor ownedTensor(const mlir::fx::OwnedTensor &r) {
  caffe2::TypeMeta type = caffe2::TypeMeta::fromScalarType(scalarType(r.dtype));
  int64_t count = 1;
  for (int64_t size : r.shape)
    count *= size;
  c10::DataPtr data(r.data, r.allocation, &freeAllocation,
                    c10::Device(c10::kCPU));
  c10::Storage storage(c10::Storage::use_byte_size_t(), count * type.itemsize(),
                       std::move(data),
                       /*allocator=*/nullptr, /*resizable=*/false);
  at::Tensor tensor = at::detail::make_tensor<c10::TensorImpl>(
      std::move(storage), c10::DispatchKeySet(c10::DispatchKey::CPU), type);
  tensor.unsafeGetTensorImpl()->set_sizes_contiguous(r.shape);
  return tensor;
}

/// The buffers of one call (input descriptions, results, contiguous
/// copies of strided inputs), kept per thread from call to call so that
/// the per-call path does not allocate them anew.
struct Scratch {
  std::vector<mlir::fx::TensorRef> refs;
  std::vector<mlir::fx::OwnedTensor> results;
  std::vector<at::Tensor> copies;
};

/// This thread's Scratch, or a fresh one when it is in use (a call made
/// while another runs on this thread).
class ScratchUse {
public:
  ScratchUse() {
    if (!busy()) {
      busy() = true;
      shared = true;
    }
  }
  ~ScratchUse() {
    if (shared) {
      get().copies.clear();
      busy() = false;
    }
  }
  Scratch &get() { return shared ? perThread() : own; }

private:
  static bool &busy() {
    thread_local bool value = false;
    return value;
  }
  static Scratch &perThread() {
    thread_local Scratch scratch;
    return scratch;
  }
  bool shared = false;
  Scratch own;
};

/// Weights handed to the compiler as memory: (resource key, tensor).
using BlobList = std::vector<std::pair<std::string, at::Tensor>>;

/// The blobs of `blobs`' tensors (contiguous CPU tensors the caller keeps
/// alive while the compiler reads them).
inline std::vector<mlir::fx::ExternalBlob>
externalBlobs(const BlobList &blobs) {
  std::vector<mlir::fx::ExternalBlob> result;
  for (const auto &[key, tensor] : blobs) {
    if (!tensor.device().is_cpu() || !tensor.is_contiguous() ||
        tensor.layout() != at::kStrided)
      throw std::invalid_argument("weight '" + key +
                                  "': expected a contiguous CPU tensor");
    result.push_back({key, tensor.data_ptr(), size_t(tensor.nbytes()),
                      size_t(tensor.element_size())});
  }
  return result;
}

/// The calls of a compiled graph on tensors, for `Graph` (CRTP), which
/// gives inputSpecs(), outputSpecs() (TensorSpec lists) and runRefs(refs,
/// results, error) (checks the inputs and runs the code).
template <typename Graph> class TensorCalls {
public:
  /// The graph called as a Python function of its inputs, for a graph of
  /// one output: its tensor. Raises fx_mlir.FxMlirError for the wrong
  /// count or kind of inputs and for what the runtime refuses, as the
  /// Python wrapper does. This is the per-call path of single-output
  /// graphs: no Python frame, no list of tensors converted.
  py::object callArgs(const py::args &args, const py::kwargs &kwargs) {
    if (!kwargs.empty())
      raiseFxMlirError(
          "inputs are passed by position; got the keyword argument '" +
          py::str(kwargs.begin()->first).cast<std::string>() + "'");
    size_t expected = self().inputSpecs().size();
    if (args.size() != expected)
      raiseFxMlirError("expected " + std::to_string(expected) +
                       " inputs, got " + std::to_string(args.size()));
    for (size_t i = 0; i < args.size(); ++i)
      if (!THPVariable_Check(args[i].ptr()))
        raiseFxMlirError("input " + std::to_string(i) +
                         ": expected a torch.Tensor, got " +
                         Py_TYPE(args[i].ptr())->tp_name);
    ScratchUse use;
    try {
      run(use.get(), args.size(), [&](size_t i) -> const at::Tensor & {
        return THPVariable_Unpack(args[i].ptr());
      });
    } catch (const std::invalid_argument &e) {
      raiseFxMlirError(e.what());
    }
    if (use.get().results.size() != 1)
      raiseFxMlirError("the graph has " +
                       std::to_string(use.get().results.size()) + " outputs");
    return py::reinterpret_steal<py::object>(
        THPVariable_Wrap(ownedTensor(use.get().results[0])));
  }

  std::vector<at::Tensor> call(const std::vector<at::Tensor> &args) {
    ScratchUse use;
    run(use.get(), args.size(),
        [&](size_t i) -> const at::Tensor & { return args[i]; });
    std::vector<at::Tensor> outputs;
    outputs.reserve(use.get().results.size());
    for (mlir::fx::OwnedTensor &r : use.get().results)
      outputs.push_back(ownedTensor(r));
    return outputs;
  }

  /// The quantization (JSON) each input's quantized tensor must have;
  /// empty for an input that is not one.
  py::list inputQuantization() const {
    py::list result;
    for (const auto &spec : self().inputSpecs())
      result.append(spec.quantization);
    return result;
  }

  py::list specs(bool isInput) const {
    py::list result;
    const auto &list = isInput ? self().inputSpecs() : self().outputSpecs();
    for (const auto &spec : list)
      result.append(py::make_tuple(spec.dtype, spec.shape));
    return result;
  }

private:
  /// Runs the graph on the tensors `tensor(i)`, i < `count`; the results
  /// are in `scratch.results`. Throws std::invalid_argument with the
  /// runtime's message when it refuses the inputs.
  template <typename Get>
  void run(Scratch &scratch, size_t count, Get &&tensor) {
    scratch.refs.resize(count);
    scratch.copies.clear();
    scratch.copies.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      const at::Tensor *t = &tensor(i);
      if (!t->device().is_cpu())
        throw std::invalid_argument("inputs must be CPU tensors");
      if (t->layout() != at::kStrided || t->is_quantized())
        throw std::invalid_argument(
            "input " + std::to_string(i) + ": expected a dense tensor, got " +
            (t->is_quantized() ? std::string("a quantized")
                               : "a " + c10::str(t->layout())) +
            " one");
      // Contiguous tensors are passed as they are; others are made so.
      if (!t->is_contiguous()) {
        scratch.copies.push_back(contiguousInput(*t));
        t = &scratch.copies.back();
      }
      mlir::fx::TensorRef &ref = scratch.refs[i];
      ref.data = t->data_ptr();
      ref.dtype = mlir::fx::getTorchDTypeName(t->scalar_type());
      ref.shape.assign(t->sizes().begin(), t->sizes().end());
    }
    std::string error;
    bool ok;
    {
      py::gil_scoped_release release;
      ok = self().runRefs(scratch.refs, scratch.results, error);
    }
    if (!ok)
      throw std::invalid_argument(error);
  }

  Graph &self() { return static_cast<Graph &>(*this); }
  const Graph &self() const { return static_cast<const Graph &>(*this); }
};

/// Defines the Python face of a TensorCalls graph on `c`: called with
/// tensors (`__call__`, `call_args`, `call_one`), its `inputs` and
/// `outputs` ((dtype, shape) pairs), `from_cache`, `output_structure` and
/// `input_quantization`.
template <typename Graph> void defineCalls(py::class_<Graph> &c) {
  c.def("__call__", &Graph::call)
      .def("call_args", &Graph::callArgs,
           "The graph of one output called on its inputs: its tensor")
      .def(
          "call_one",
          [](Graph &g, const std::vector<at::Tensor> &args) {
            std::vector<at::Tensor> results = g.call(args);
            if (results.size() != 1)
              throw std::invalid_argument("the graph has " +
                                          std::to_string(results.size()) +
                                          " outputs, not one");
            return results.front();
          },
          "Calls a graph of one output and returns it")
      .def_property_readonly("inputs",
                             [](const Graph &g) { return g.specs(true); })
      .def_property_readonly("outputs",
                             [](const Graph &g) { return g.specs(false); })
      .def_property_readonly("from_cache", &Graph::fromCache)
      .def_property_readonly("output_structure", &Graph::outputStructure)
      .def_property_readonly("input_quantization", [](const Graph &g) {
        return g.inputQuantization();
      });
}

} // namespace fx_python

#endif // FX_MLIR_BINDINGS_PYTHON_TENSORCALLS_H
