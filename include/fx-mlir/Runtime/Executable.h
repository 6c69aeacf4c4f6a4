//===- Executable.h - Load and call compiled code, without LLVM -*- C++ -*-===//
//
// The runtime core (library FXRuntimeCore): what it takes to run code
// fx-mlir compiled, and nothing of the compiler. It depends on the C++
// standard library, libdl and, at run time, LLVM's OpenMP runtime only (no
// LLVM, no MLIR, no LibTorch), so that a program that runs a model
// compiled ahead of time (fx-compile) links this and nothing else.
//
//   - the signature of compiled code (inputs, outputs, the index bounds of
//     inputs that hold indices, the constants outside the code) and its
//     text form, which the code cache and ahead-of-time libraries share;
//   - the constant table: weights kept outside the object code, reached
//     through pointer slots the loader fills;
//   - loading a shared object with dlopen, and an ahead-of-time library
//     with its signature and weights (embedded or in a side file);
//   - the call: inputs checked (count, dtype, rank, shape, index bounds),
//     memref descriptors built, outputs handed over as malloc'ed buffers.
//
// The C interface for programs in C is fx_runtime.h.
//
//===----------------------------------------------------------------------===//

#ifndef FX_MLIR_RUNTIME_EXECUTABLE_H
#define FX_MLIR_RUNTIME_EXECUTABLE_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace mlir {
namespace fx {

/// A dense row-major tensor in memory the caller owns. `dtype` is a torch
/// dtype name: float32, float64, int64, int32, bool, ...
struct TensorRef {
  void *data = nullptr;
  std::string dtype;
  std::vector<int64_t> shape;
};

/// An output: `data` points into `allocation`, which the caller frees with
/// `std::free` (or hands to a tensor library with that deleter).
struct OwnedTensor {
  void *allocation = nullptr;
  void *data = nullptr;
  std::string dtype;
  std::vector<int64_t> shape;
};

/// An input that holds indices (of an embedding, index_select, x[idx]):
/// each must lie in [lo, hi) for `node`. Checked before every call, so
/// an index out of range is an error naming the node, as in PyTorch.
struct IndexBound {
  int64_t lo, hi;
  std::string node;
};

/// A condition compiled code checks while it runs (an integer division by
/// zero, an index computed in the graph out of range): the code returns
/// one hidden bool result per check after the outputs, true when it
/// failed; the call then fails with `message` naming `node` (the node's
/// label: its quoted name and module path, "'add' (module 'block')"), as
/// PyTorch raises, and no output is returned.
struct RunCheck {
  std::string node, message;
};

/// What the compiled function takes or returns at one position: dtype and
/// shape, -1 for a dynamic dim.
struct TensorSpec {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  std::vector<IndexBound> bounds;
  /// For an input that is a quantized tensor's storage integers: its
  /// quantization as JSON ({"dtype": "quint8", "scale": "<%.17g>",
  /// "zero_point": z}, or "axis", "scales" and "zero_points" per channel),
  /// which a caller's quantized tensor must have; empty otherwise.
  std::string quantization;
};

/// Size in bytes of one element of `dtype`, or 0 if unknown.
size_t getDTypeSize(std::string_view dtype);

/// The number of threads compiled code runs its parallel loops on (LLVM's
/// OpenMP runtime's; by default the number of cores).
void setNumThreads(int threads);

/// The 64-bit xxHash (XXH64) of `size` bytes at `data`.
uint64_t hashBytes(const void *data, size_t size, uint64_t seed = 0);

/// A file's content as signatures record it: its size and hash, as text.
std::string digest(std::string_view data);

/// Whether the file at `path` has `expected` (a digest()).
bool fileHasDigest(const std::string &path, std::string_view expected);

/// The large constants of compiled code (weights), which live outside the
/// object code: each is reached through a pointer slot (a small global of
/// the code) that the loader fills with the constant's address in `data`.
/// `data` is a heap buffer after a compile, a read-only mapping of a file
/// (the cache's `.weights`, a library's side file), or memory of a
/// library that embeds its weights.
struct ConstantTable {
  struct Entry {
    std::string slot;
    uint64_t offset, size;
  };
  enum class Storage { Heap, Mapped, Borrowed };
  std::vector<Entry> entries;
  char *data = nullptr;
  size_t size = 0;
  Storage storage = Storage::Heap;

  ConstantTable() = default;
  ConstantTable(const ConstantTable &) = delete;
  ~ConstantTable();

  /// Maps the file `path` (read-only, shared with the page cache) as
  /// `data`; false if it cannot.
  bool map(const std::string &path);
  /// Whether every entry lies inside `data`.
  bool entriesFit() const;
  /// Writes the constants' addresses into their slots, found by `lookup`
  /// (symbol name -> address, null if missing); false if one is missing.
  bool
  fillSlots(const std::function<void *(const std::string &)> &lookup) const;
};

/// The signature of compiled code and the parts that make it, in the text
/// form the code cache's `.meta` files and ahead-of-time libraries hold:
/// a header line, one line per fact, and last the digest of the lines
/// before it, so that an edited or truncated signature is refused.
struct Signature {
  std::vector<TensorSpec> inputs, outputs;
  /// The checks whose flags the code returns after the outputs.
  std::vector<RunCheck> checks;
  /// The fx.output args as JSON, to rebuild nested outputs.
  std::string outputStructure;
  std::vector<ConstantTable::Entry> constants;
  /// Digests of the files of a cache entry or library, by role (".so",
  /// ".o0", ".weights").
  std::map<std::string, std::string> files;
  /// The object files of a cache entry that was not linked.
  size_t objectCount = 1;
  /// Where a library's weights are: "embedded" or the side file's name
  /// (next to the library); empty in a cache entry.
  std::string weights;
  /// What the CPU must have to run the code (CPUTarget::requirements): the
  /// architecture, then ISA features; checked before a library loads.
  std::vector<std::string> requirements;

  /// The text, headed by `header` ("fx-mlir-cache 5").
  std::string print(std::string_view header) const;
  /// Parses `text` (print's, with the same header); false, with the
  /// reason in `error`, if it is malformed or its digest does not match.
  bool parse(std::string_view text, std::string_view header,
             std::string &error);
};

/// The first of `requirements` (an architecture, then ISA features) this
/// CPU lacks; empty if it has them all (or the list is empty).
std::string missingRequirement(const std::vector<std::string> &requirements);

/// A tensor in a .npy file: dtype (a torch name), shape, little-endian
/// row-major data.
struct NpyArray {
  std::string dtype;
  std::vector<int64_t> shape;
  std::vector<char> data;
};

/// Parses `size` bytes of a .npy file (versions 1 to 3, C order, a dtype
/// of DTypes.def's with a .npy descriptor). Every size is checked before
/// use: the header's length against the bytes there are, each dim and
/// their product against overflow, and the data against the bytes the
/// shape needs (exactly). False, with why in `error`, otherwise.
bool parseNpy(const char *bytes, size_t size, NpyArray &array,
              std::string &error);
/// Reads the .npy file at `path` (a regular file, mapped) with parseNpy.
bool readNpy(const std::string &path, NpyArray &array, std::string &error);
/// Writes `count` elements of `dtype` at `data` with `shape` to `path` as
/// a version 1 .npy file; false, with why in `error`, if it cannot.
bool writeNpy(const std::string &path, const std::string &dtype,
              const std::vector<int64_t> &shape, const void *data,
              std::string &error);

/// A state tensor (weights as arguments) the code takes after the inputs.
struct StateBuffer {
  std::vector<char> bytes;
  std::vector<int64_t> shape;
};

/// Code in a shared object loaded with `dlopen`, its constant slots filled.
/// `dlopen` gives one handle per file, so every Executable of the process
/// that loads the same file shares one SharedCode.
struct SharedCode {
  void *handle = nullptr;
  /// The descriptor the library was opened through, when an earlier file
  /// of its name was loaded: held open while the code is loaded, so that
  /// its name (/proc/self/fd/N) stays its own.
  int descriptor = -1;
  std::shared_ptr<ConstantTable> constants;
  void (*entry)(void **) = nullptr;
  ~SharedCode();
};

/// The SharedCode of the shared object at `path` whose constants
/// `constants` gives (called with the library's handle once it is loaded;
/// null, with why in its argument, if there are none to be had), or the
/// one already loaded from that file; null, with why in `error`, if it
/// cannot be loaded. Loads the OpenMP runtime the code calls first.
std::shared_ptr<SharedCode>
loadSharedCode(const std::string &path,
               const std::function<std::unique_ptr<ConstantTable>(
                   void *handle, std::string &error)> &constants,
               std::string &error);

/// The name of the packed entry point compiled code exports: it takes one
/// pointer to every argument (ExecutionEngine's convention).
extern const char *const kPackedEntry;
/// The symbols of an ahead-of-time library: its signature (text, NUL
/// terminated) and, when embedded, its weights.
extern const char *const kLibrarySignature;
extern const char *const kLibraryWeights;
/// The header of a library's signature.
extern const char *const kLibraryHeader;

/// A weight handed over as memory instead of as hex in the IR text: the
/// blob of `dense_resource<key>` (raw little-endian elements, `alignment`
/// bytes aligned), which the IR names but does not define. The memory must
/// stay valid during the compile (the compiled code keeps a copy).
struct ExternalBlob {
  std::string key;
  const void *data = nullptr;
  size_t size = 0;
  size_t alignment = 1;
};

/// The header of the code cache's signatures (`<key>.meta`).
extern const char *const kCacheHeader;
/// `<dir>/<key><extension>`: a file of the cache entry `key`.
std::string cacheFilePath(const std::string &dir, const std::string &key,
                          const std::string &extension);
/// A hash of this CPU as the OS describes it (/proc/cpuinfo's vendor,
/// model name and flags of the first processor).
std::string hostFingerprint();
/// A key for looking up the cache entry of `ir` compiled with `blobs` and
/// `settings` (the caller's options and the compiler's identity, as text)
/// on this host, computed without the compiler: the compiler maps it to
/// the entry's own key (writeCacheAlias) once the entry exists.
std::string quickCacheKey(std::string_view ir,
                          const std::vector<ExternalBlob> &blobs,
                          std::string_view settings);
/// The entry key the alias `alias` of `dir` names; empty when there is no
/// such alias or it is malformed (its digest does not match).
std::string readCacheAlias(const std::string &dir, const std::string &alias);
/// Writes the alias `alias` -> `key` in `dir` (through a temporary file,
/// renamed into place); false if it cannot.
bool writeCacheAlias(const std::string &dir, const std::string &alias,
                     const std::string &key);

/// Compiled code with its signature: checks inputs and calls it.
class Executable {
public:
  std::vector<TensorSpec> inputs, outputs;
  std::vector<RunCheck> checks;
  std::string outputStructure;
  void (*entry)(void **) = nullptr;
  std::vector<StateBuffer> states;
  /// Keeps a loaded library (and its constants) alive.
  std::shared_ptr<SharedCode> shared;

  /// Loads an ahead-of-time library (fx-compile's, or
  /// fx_mlir's CompiledGraph.save): its code, signature and weights (a
  /// side file's digest checked). Null, with why in `error`, if it cannot.
  static std::unique_ptr<Executable> loadLibrary(const std::string &path,
                                                 std::string &error);

  /// Loads the code cache entry `key` of `dir` when its code is a linked
  /// shared object, each of its files' digests checked against its
  /// signature first; null for a miss, an entry of object code (which the
  /// compiler's runtime loads) or any mismatch.
  static std::unique_ptr<Executable> loadCached(const std::string &dir,
                                                const std::string &key);

  /// Checks `args` without running: count, dtypes, shapes and the index
  /// bounds of inputs that hold indices.
  bool checkInputs(const TensorRef *args, size_t count,
                   std::string &error) const;

  /// Checks `args` against the inputs and runs the code; the outputs are
  /// in `results`. On failure (a bad input) sets `error` and runs nothing;
  /// when a check of the code fails, sets `error` naming its node and
  /// returns no outputs.
  /// One call at a time runs (the code's buffers live in one workspace).
  bool run(const TensorRef *args, size_t count,
           std::vector<OwnedTensor> &results, std::string &error);

private:
  bool checkIndices(const TensorRef &arg, const TensorSpec &spec,
                    const std::string &where, std::string &error) const;
  std::mutex running;
};

} // namespace fx
} // namespace mlir

#endif // FX_MLIR_RUNTIME_EXECUTABLE_H
