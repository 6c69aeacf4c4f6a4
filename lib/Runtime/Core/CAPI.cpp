//===- CAPI.cpp - The runtime core's C interface
//---------------------------===//
//
// fx_runtime.h over Executable.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Runtime/Executable.h"
#include "fx-mlir/Runtime/fx_runtime.h"

#include <cstdlib>
#include <cstring>
#include <new>

using namespace mlir::fx;

struct fx_model {
  std::unique_ptr<Executable> executable;
};

namespace {
void setError(char **error, const std::string &message) {
  if (!error)
    return;
  *error = static_cast<char *>(std::malloc(message.size() + 1));
  if (*error)
    std::memcpy(*error, message.c_str(), message.size() + 1);
}

const TensorSpec *spec(const fx_model *model, size_t i, bool input) {
  if (!model)
    return nullptr;
  const auto &list =
      input ? model->executable->inputs : model->executable->outputs;
  return i < list.size() ? &list[i] : nullptr;
}
} // namespace

extern "C" {

fx_model *fx_model_load(const char *path, char **error) {
  if (error)
    *error = nullptr;
  if (!path) {
    setError(error, "no path");
    return nullptr;
  }
  std::string why;
  std::unique_ptr<Executable> executable = Executable::loadLibrary(path, why);
  if (!executable) {
    setError(error, why);
    return nullptr;
  }
  return new (std::nothrow) fx_model{std::move(executable)};
}

void fx_model_free(fx_model *model) { delete model; }

size_t fx_model_num_inputs(const fx_model *model) {
  return model ? model->executable->inputs.size() : 0;
}
size_t fx_model_num_outputs(const fx_model *model) {
  return model ? model->executable->outputs.size() : 0;
}
const char *fx_model_input_dtype(const fx_model *model, size_t i) {
  const TensorSpec *s = spec(model, i, true);
  return s ? s->dtype.c_str() : nullptr;
}
int64_t fx_model_input_rank(const fx_model *model, size_t i) {
  const TensorSpec *s = spec(model, i, true);
  return s ? int64_t(s->shape.size()) : -1;
}
const int64_t *fx_model_input_shape(const fx_model *model, size_t i) {
  const TensorSpec *s = spec(model, i, true);
  return s ? s->shape.data() : nullptr;
}
const char *fx_model_output_dtype(const fx_model *model, size_t i) {
  const TensorSpec *s = spec(model, i, false);
  return s ? s->dtype.c_str() : nullptr;
}
int64_t fx_model_output_rank(const fx_model *model, size_t i) {
  const TensorSpec *s = spec(model, i, false);
  return s ? int64_t(s->shape.size()) : -1;
}
const int64_t *fx_model_output_shape(const fx_model *model, size_t i) {
  const TensorSpec *s = spec(model, i, false);
  return s ? s->shape.data() : nullptr;
}

int fx_model_run(fx_model *model, const fx_tensor *inputs, size_t num_inputs,
                 fx_tensor *outputs, size_t num_outputs, char **error) {
  if (error)
    *error = nullptr;
  if (!model) {
    setError(error, "no model");
    return -1;
  }
  Executable &executable = *model->executable;
  if (num_outputs < executable.outputs.size()) {
    setError(error, "room for " + std::to_string(num_outputs) +
                        " outputs, the model has " +
                        std::to_string(executable.outputs.size()));
    return -1;
  }
  std::vector<TensorRef> args(num_inputs);
  for (size_t i = 0; i < num_inputs; ++i) {
    const fx_tensor &t = inputs[i];
    if (t.rank < 0 || t.rank > FX_MAX_RANK || !t.dtype) {
      setError(error, "input " + std::to_string(i) + ": a rank from 0 to " +
                          std::to_string(FX_MAX_RANK) + " and a dtype");
      return -1;
    }
    args[i].data = t.data;
    args[i].dtype = t.dtype;
    args[i].shape.assign(t.shape, t.shape + t.rank);
  }
  for (size_t i = 0; i < executable.outputs.size(); ++i)
    if (executable.outputs[i].shape.size() > FX_MAX_RANK) {
      setError(error, "output " + std::to_string(i) + " has a rank over " +
                          std::to_string(FX_MAX_RANK));
      return -1;
    }
  std::vector<OwnedTensor> results;
  std::string why;
  if (!executable.run(args.data(), args.size(), results, why)) {
    setError(error, why);
    return -1;
  }
  for (size_t i = 0; i < results.size(); ++i) {
    fx_tensor &out = outputs[i];
    // The data at the start of its own allocation, so that free() takes it.
    if (results[i].data != results[i].allocation) {
      size_t bytes = getDTypeSize(results[i].dtype);
      for (int64_t s : results[i].shape)
        bytes *= s;
      void *copy = std::malloc(bytes ? bytes : 1);
      std::memcpy(copy, results[i].data, bytes);
      std::free(results[i].allocation);
      results[i].allocation = results[i].data = copy;
    }
    out.data = results[i].data;
    out.dtype = executable.outputs[i].dtype.c_str();
    out.rank = int64_t(results[i].shape.size());
    for (int64_t d = 0; d < out.rank; ++d)
      out.shape[d] = results[i].shape[d];
  }
  return 0;
}

void fx_set_num_threads(int threads) { setNumThreads(threads); }

} // extern "C"
