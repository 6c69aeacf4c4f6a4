//===- fuzz_npy.cpp - libFuzzer target: the runtime core's .npy reader ----===//
//
// Any bytes, as a .npy file: parseNpy must accept them with a shape whose
// data is exactly what the file holds, or refuse them; it must never read
// past the bytes, overflow a size, or allocate what the file does not
// hold. What it accepts is written back and read again, equal.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Runtime/Executable.h"

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

using namespace mlir::fx;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  NpyArray array;
  std::string error;
  if (!parseNpy(reinterpret_cast<const char *>(data), size, array, error))
    return 0;
  size_t count = 1;
  for (int64_t d : array.shape)
    count *= size_t(d);
  if (array.data.size() != count * getDTypeSize(array.dtype) ||
      array.data.size() > size) {
    std::fprintf(stderr,
                 "fuzz-npy: accepted %zu bytes of data for %zu "
                 "elements of %s\n",
                 array.data.size(), count, array.dtype.c_str());
    std::abort();
  }
  static const std::string path =
      "/tmp/fuzz-npy-" + std::to_string(getpid()) + ".npy";
  NpyArray again;
  if (!writeNpy(path, array.dtype, array.shape, array.data.data(), error))
    return 0;
  // An empty array's file may map as nothing: readNpy refuses empty files,
  // never short ones.
  if (readNpy(path, again, error) &&
      (again.dtype != array.dtype || again.shape != array.shape ||
       again.data != array.data)) {
    std::fprintf(stderr, "fuzz-npy: written and read back, not equal\n");
    std::abort();
  }
  return 0;
}
