/*===- fx_runtime.h - Run models fx-mlir compiled ahead of time, from C ---===*\
|*                                                                            *|
|* The C interface of the runtime core (library FXRuntimeCore, CMake target   *|
|* FxMLIR::FXRuntimeCore): load a library `fx-compile` made, check inputs,    *|
|* run it. Links against nothing of LLVM, MLIR, LibTorch or Python. The       *|
|* header fx-compile writes next to a library (`--header`) declares a typed   *|
|* entry point on top of this.                                                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef FX_MLIR_RUNTIME_FX_RUNTIME_H
#define FX_MLIR_RUNTIME_FX_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest rank a tensor passed through this interface may have. */
#define FX_MAX_RANK 8

/* A dense row-major tensor. `dtype` is a torch dtype name ("float32",
   "int64", "bool", ...). As an input, the caller owns `data`; as an output,
   `data` is malloc'ed and the caller frees it with free(), and `dtype`
   points to a string the model owns. */
typedef struct fx_tensor {
  void *data;
  const char *dtype;
  int64_t rank;
  int64_t shape[FX_MAX_RANK];
} fx_tensor;

typedef struct fx_model fx_model;

/* Loads the library at `path` (its code, signature and weights). Returns
   NULL on failure, with a malloc'ed message in *error (free() it) when
   `error` is not NULL. */
fx_model *fx_model_load(const char *path, char **error);

/* Unloads a model fx_model_load returned. */
void fx_model_free(fx_model *model);

/* The model's inputs and outputs: count, dtype, rank and shape (-1 for a
   dynamic dim); `shape` points to `rank` sizes the model owns. */
size_t fx_model_num_inputs(const fx_model *model);
size_t fx_model_num_outputs(const fx_model *model);
const char *fx_model_input_dtype(const fx_model *model, size_t i);
int64_t fx_model_input_rank(const fx_model *model, size_t i);
const int64_t *fx_model_input_shape(const fx_model *model, size_t i);
const char *fx_model_output_dtype(const fx_model *model, size_t i);
int64_t fx_model_output_rank(const fx_model *model, size_t i);
const int64_t *fx_model_output_shape(const fx_model *model, size_t i);

/* Runs the model on `inputs` and writes its outputs to `outputs` (room
   for fx_model_num_outputs). Returns 0; or -1 when an input is refused
   (count, dtype, shape, an index out of range), with a malloc'ed message
   in *error, and runs nothing. */
int fx_model_run(fx_model *model, const fx_tensor *inputs, size_t num_inputs,
                 fx_tensor *outputs, size_t num_outputs, char **error);

/* The number of threads models run their parallel loops on. */
void fx_set_num_threads(int threads);

#ifdef __cplusplus
}
#endif

#endif /* FX_MLIR_RUNTIME_FX_RUNTIME_H */
