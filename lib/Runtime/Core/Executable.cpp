//===- Executable.cpp - Load and call compiled code, without LLVM ---------===//
//
// The runtime core; see Executable.h. Only the C++ standard library and
// POSIX (dlopen, mmap) here: no LLVM or MLIR header may be included.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Runtime/Executable.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir::fx;

namespace mlir::fx {
const char *const kPackedEntry = "_mlir__mlir_ciface_forward";
const char *const kLibrarySignature = "fx_model_signature";
const char *const kLibraryWeights = "fx_model_weights";
const char *const kLibraryHeader = "fx-mlir-library 1";
} // namespace mlir::fx

namespace {
/// LLVM's OpenMP runtime, which runs the parallel loops of the code.
constexpr const char *kOpenMP = FX_MLIR_OPENMP;

/// A check's node as errors name it: the compiler records its label
/// ("'add' (module 'block')"); a bare name (a library compiled before
/// labels) is quoted here.
std::string nodeLabel(const std::string &node) {
  return !node.empty() && node[0] == '\'' ? node : "'" + node + "'";
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") +
         (shape[i] < 0 ? std::string("?") : std::to_string(shape[i]));
  return s + "]";
}

/// `text` split at `separator`, empty pieces kept.
std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> pieces;
  size_t start = 0;
  for (;;) {
    size_t end = text.find(separator, start);
    pieces.push_back(text.substr(start, end - start));
    if (end == std::string_view::npos)
      return pieces;
    start = end + 1;
  }
}

template <typename T> bool parseInteger(std::string_view text, T &value) {
  if (text.empty())
    return false;
  auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size();
}

std::string hex16(uint64_t value) {
  static const char digits[] = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, value >>= 4)
    s[i] = digits[value & 15];
  return s;
}

void *openMP() {
  static void *library = dlopen(kOpenMP, RTLD_NOW | RTLD_GLOBAL);
  return library;
}
} // namespace

//===----------------------------------------------------------------------===//
// Dtypes, threads, hashes
//===----------------------------------------------------------------------===//

size_t mlir::fx::getDTypeSize(std::string_view dtype) {
#define FX_DTYPE(NAME, ELEMENT_TYPE, BYTES, SCALAR_TYPE, NPY)                  \
  if (dtype == #NAME)                                                          \
    return BYTES;
#include "fx-mlir/Dialect/FX/IR/DTypes.def"
  return 0;
}

void mlir::fx::setNumThreads(int threads) {
  // LLVM's libomp, not the libgomp PyTorch may have loaded: dlsym on its
  // own handle.
  if (void *library = openMP())
    if (auto set = reinterpret_cast<void (*)(int)>(
            dlsym(library, "omp_set_num_threads")))
      set(std::max(threads, 1));
}

uint64_t mlir::fx::hashBytes(const void *data, size_t size, uint64_t seed) {
  // XXH64, as its specification defines it.
  constexpr uint64_t p1 = 11400714785074694791ull, p2 = 14029467366897019727ull,
                     p3 = 1609587929392839161ull, p4 = 9650029242287828579ull,
                     p5 = 2870177450012600261ull;
  auto rotl = [](uint64_t x, int r) { return (x << r) | (x >> (64 - r)); };
  auto read64 = [](const unsigned char *p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  };
  auto read32 = [](const unsigned char *p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return uint64_t(v);
  };
  auto round = [&](uint64_t acc, uint64_t lane) {
    return rotl(acc + lane * p2, 31) * p1;
  };
  auto merge = [&](uint64_t acc, uint64_t v) {
    return (acc ^ round(0, v)) * p1 + p4;
  };
  const auto *p = static_cast<const unsigned char *>(data);
  const unsigned char *end = p + size;
  uint64_t h;
  if (size >= 32) {
    uint64_t v1 = seed + p1 + p2, v2 = seed + p2, v3 = seed, v4 = seed - p1;
    for (; p + 32 <= end; p += 32) {
      v1 = round(v1, read64(p));
      v2 = round(v2, read64(p + 8));
      v3 = round(v3, read64(p + 16));
      v4 = round(v4, read64(p + 24));
    }
    h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
    h = merge(merge(merge(merge(h, v1), v2), v3), v4);
  } else {
    h = seed + p5;
  }
  h += size;
  for (; p + 8 <= end; p += 8)
    h = rotl(h ^ round(0, read64(p)), 27) * p1 + p4;
  if (p + 4 <= end) {
    h = rotl(h ^ (read32(p) * p1), 23) * p2 + p3;
    p += 4;
  }
  for (; p < end; ++p)
    h = rotl(h ^ (*p * p5), 11) * p1;
  h ^= h >> 33;
  h *= p2;
  h ^= h >> 29;
  h *= p3;
  h ^= h >> 32;
  return h;
}

std::string mlir::fx::digest(std::string_view data) {
  return std::to_string(data.size()) + " " +
         hex16(hashBytes(data.data(), data.size()));
}

bool mlir::fx::fileHasDigest(const std::string &path,
                             std::string_view expected) {
  ConstantTable file;
  if (!file.map(path))
    return false;
  return digest(std::string_view(file.data, file.size)) == expected;
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

ConstantTable::~ConstantTable() {
  if (storage == Storage::Mapped)
    munmap(data, size);
  else if (storage == Storage::Heap)
    std::free(data);
}

bool ConstantTable::map(const std::string &path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  struct stat info;
  void *p = MAP_FAILED;
  if (fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0)
    p = mmap(nullptr, info.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (p == MAP_FAILED)
    return false;
  if (storage == Storage::Heap)
    std::free(data);
  data = static_cast<char *>(p);
  size = info.st_size;
  storage = Storage::Mapped;
  return true;
}

bool ConstantTable::entriesFit() const {
  return std::all_of(entries.begin(), entries.end(), [&](const Entry &e) {
    return e.offset <= size && e.size <= size - e.offset;
  });
}

bool ConstantTable::fillSlots(
    const std::function<void *(const std::string &)> &lookup) const {
  if (!entriesFit())
    return false;
  for (const Entry &entry : entries) {
    void **slot = static_cast<void **>(lookup(entry.slot));
    if (!slot)
      return false;
    *slot = data + entry.offset;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Signatures
//===----------------------------------------------------------------------===//

std::string Signature::print(std::string_view header) const {
  std::ostringstream os;
  os << header << '\n';
  if (objectCount != 1)
    os << "objects " << objectCount << '\n';
  for (const auto &[role, fileDigest] : files)
    os << "file " << role << ' ' << fileDigest << '\n';
  if (!weights.empty())
    os << "weights " << weights << '\n';
  if (!requirements.empty()) {
    os << "requires";
    for (const std::string &r : requirements)
      os << ' ' << r;
    os << '\n';
  }
  auto printSpec = [&](const char *kind, const TensorSpec &spec) {
    os << kind << ' ' << spec.dtype << ' ' << spec.shape.size();
    for (int64_t d : spec.shape)
      os << ' ' << d;
    os << '\n';
  };
  for (const TensorSpec &spec : inputs)
    printSpec("input", spec);
  for (size_t i = 0; i < inputs.size(); ++i)
    for (const IndexBound &bound : inputs[i].bounds)
      os << "bound " << i << ' ' << bound.lo << ' ' << bound.hi << ' '
         << bound.node << '\n';
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!inputs[i].quantization.empty())
      os << "quantized " << i << ' ' << inputs[i].quantization << '\n';
  for (const TensorSpec &spec : outputs)
    printSpec("output", spec);
  // The node's name may hold spaces: its length comes first.
  for (const RunCheck &check : checks)
    os << "check " << check.node.size() << ' ' << check.node << ' '
       << check.message << '\n';
  for (const ConstantTable::Entry &entry : constants)
    os << "constant " << entry.slot << ' ' << entry.offset << ' ' << entry.size
       << '\n';
  os << "structure " << outputStructure << '\n';
  std::string text = os.str();
  return text + "digest " + digest(text) + "\n";
}

bool Signature::parse(std::string_view text, std::string_view header,
                      std::string &error) {
  auto fail = [&](std::string why) {
    error = "malformed signature: " + why;
    return false;
  };
  // The last line is the digest of everything before it: an edited,
  // truncated or swapped line fails it.
  std::string_view body = text;
  while (!body.empty() && body.back() == '\n')
    body.remove_suffix(1);
  size_t lastLine = body.rfind('\n');
  if (lastLine == std::string_view::npos ||
      body.substr(lastLine + 1) !=
          "digest " + digest(text.substr(0, lastLine + 1)))
    return fail("its digest does not match its content");
  std::vector<std::string_view> lines = split(text.substr(0, lastLine), '\n');
  if (lines.empty() || lines.front() != header)
    return fail("expected the header '" + std::string(header) + "'");
  *this = Signature();
  std::vector<std::pair<size_t, IndexBound>> bounds;
  std::vector<std::pair<size_t, std::string>> quantized;
  for (size_t l = 1; l < lines.size(); ++l) {
    std::string_view line = lines[l];
    size_t space = line.find(' ');
    std::string_view kind = line.substr(0, space);
    std::string_view rest =
        space == std::string_view::npos ? "" : line.substr(space + 1);
    std::vector<std::string_view> fields = split(rest, ' ');
    std::string where = "line " + std::to_string(l + 1);
    if (kind == "structure") {
      outputStructure = std::string(rest);
    } else if (kind == "quantized") {
      // An input's quantization (JSON, which holds no newline).
      size_t input;
      size_t at = rest.find(' ');
      if (at == std::string_view::npos ||
          !parseInteger(rest.substr(0, at), input) || at + 1 == rest.size())
        return fail(where);
      quantized.emplace_back(input, std::string(rest.substr(at + 1)));
    } else if (kind == "objects") {
      if (!parseInteger(rest, objectCount) || objectCount == 0)
        return fail(where);
    } else if (kind == "weights") {
      weights = std::string(rest);
    } else if (kind == "requires") {
      for (std::string_view r : fields)
        if (!r.empty())
          requirements.emplace_back(r);
    } else if (kind == "file") {
      size_t at = rest.find(' ');
      if (at == std::string_view::npos)
        return fail(where);
      files[std::string(rest.substr(0, at))] = std::string(rest.substr(at + 1));
    } else if (kind == "bound") {
      // The node's name may hold spaces: it is the rest of the line.
      size_t input;
      IndexBound bound;
      if (fields.size() < 4 || !parseInteger(fields[0], input) ||
          !parseInteger(fields[1], bound.lo) ||
          !parseInteger(fields[2], bound.hi))
        return fail(where);
      size_t start = fields[0].size() + fields[1].size() + fields[2].size() + 3;
      bound.node = std::string(rest.substr(start));
      bounds.emplace_back(input, std::move(bound));
    } else if (kind == "check") {
      size_t length;
      size_t space = rest.find(' ');
      if (space == std::string_view::npos ||
          !parseInteger(rest.substr(0, space), length) ||
          rest.size() < space + 1 + length + 1 ||
          rest[space + 1 + length] != ' ')
        return fail(where);
      checks.push_back({std::string(rest.substr(space + 1, length)),
                        std::string(rest.substr(space + 2 + length))});
    } else if (kind == "constant") {
      ConstantTable::Entry entry;
      if (fields.size() != 3 || fields[0].empty() ||
          !parseInteger(fields[1], entry.offset) ||
          !parseInteger(fields[2], entry.size))
        return fail(where);
      entry.slot = std::string(fields[0]);
      constants.push_back(std::move(entry));
    } else if (kind == "input" || kind == "output") {
      std::vector<TensorSpec> &list = kind == "input" ? inputs : outputs;
      size_t rank;
      if (fields.size() < 2 || !parseInteger(fields[1], rank) ||
          fields.size() != rank + 2 || !getDTypeSize(fields[0]))
        return fail(where);
      TensorSpec spec;
      spec.name = std::string(kind) + " " + std::to_string(list.size());
      spec.dtype = std::string(fields[0]);
      for (size_t i = 2; i < fields.size(); ++i) {
        int64_t d;
        if (!parseInteger(fields[i], d) || d < -1)
          return fail(where);
        spec.shape.push_back(d);
      }
      list.push_back(std::move(spec));
    } else {
      return fail(where + ": unknown kind '" + std::string(kind) + "'");
    }
  }
  for (auto &[input, bound] : bounds) {
    if (input >= inputs.size())
      return fail("a bound of input " + std::to_string(input));
    inputs[input].bounds.push_back(std::move(bound));
  }
  for (auto &[input, json] : quantized) {
    if (input >= inputs.size())
      return fail("the quantization of input " + std::to_string(input));
    inputs[input].quantization = std::move(json);
  }
  return true;
}

std::string
mlir::fx::missingRequirement(const std::vector<std::string> &requirements) {
  for (size_t i = 0; i < requirements.size(); ++i) {
    const std::string &r = requirements[i];
    if (i == 0) {
#if defined(__x86_64__)
      if (r != "x86_64")
        return r;
#elif defined(__aarch64__)
      if (r != "aarch64")
        return r;
#endif
      continue;
    }
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    // The features CPUTarget::requirements names, as the compiler's CPU
    // probe tests them.
    bool has = true;
    if (r == "sse4.2")
      has = __builtin_cpu_supports("sse4.2");
    else if (r == "avx")
      has = __builtin_cpu_supports("avx");
    else if (r == "avx2")
      has = __builtin_cpu_supports("avx2");
    else if (r == "fma")
      has = __builtin_cpu_supports("fma");
    else if (r == "avx512f")
      has = __builtin_cpu_supports("avx512f");
    else if (r == "avx512bw")
      has = __builtin_cpu_supports("avx512bw");
    else if (r == "avx512dq")
      has = __builtin_cpu_supports("avx512dq");
    else if (r == "avx512vl")
      has = __builtin_cpu_supports("avx512vl");
    else if (r == "avx512cd")
      has = __builtin_cpu_supports("avx512cd");
    else if (r == "avx512vnni")
      has = __builtin_cpu_supports("avx512vnni");
    if (!has)
      return r;
#endif
  }
  return "";
}

//===----------------------------------------------------------------------===//
// Shared objects and libraries
//===----------------------------------------------------------------------===//

SharedCode::~SharedCode() {
  if (handle)
    dlclose(handle);
  if (descriptor >= 0)
    close(descriptor);
}

std::shared_ptr<SharedCode> mlir::fx::loadSharedCode(
    const std::string &path,
    const std::function<std::unique_ptr<ConstantTable>(void *, std::string &)>
        &constants,
    std::string &error) {
  static std::mutex mutex;
  static std::map<std::string, std::weak_ptr<SharedCode>> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  // Keyed by the file, not only its name: a library written again at the
  // same path (a new inode) is new code.
  struct stat info;
  std::string key = path;
  if (stat(path.c_str(), &info) == 0)
    key += ":" + std::to_string(info.st_dev) + ":" +
           std::to_string(info.st_ino) + ":" +
           std::to_string(info.st_mtim.tv_sec) + "." +
           std::to_string(info.st_mtim.tv_nsec);
  if (std::shared_ptr<SharedCode> code = loaded[key].lock())
    return code;
  // The code calls libomp: in the global scope for the dynamic loader (a
  // library made by fx-compile also names it itself).
  openMP();
  // The dynamic loader knows a loaded library by its name: while the
  // code of an earlier file of this name is loaded, this one is opened
  // through a name of its own (its descriptor's, kept open while the code
  // is loaded: a closed descriptor's number, and so the name, would be
  // given to the next file, and the loader would return this code).
  auto code = std::make_shared<SharedCode>();
  std::string name = path;
  for (const auto &[other, earlier] : loaded)
    if (other != key && other.compare(0, path.size() + 1, path + ":") == 0 &&
        !earlier.expired()) {
      code->descriptor = open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (code->descriptor >= 0)
        name = "/proc/self/fd/" + std::to_string(code->descriptor);
      break;
    }
  code->handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!code->handle) {
    const char *why = dlerror();
    error = "cannot load '" + path + "': " + (why ? why : "dlopen failed");
    return nullptr;
  }
  std::unique_ptr<ConstantTable> table = constants(code->handle, error);
  if (!table) {
    error = "'" + path + "': " + error;
    return nullptr;
  }
  code->entry =
      reinterpret_cast<void (*)(void **)>(dlsym(code->handle, kPackedEntry));
  if (!code->entry) {
    error = "'" + path + "' has no entry point " + kPackedEntry;
    return nullptr;
  }
  if (!table->fillSlots([&](const std::string &name) {
        return dlsym(code->handle, name.c_str());
      })) {
    error = "'" + path +
            "': the code has no slot for one of its constants, "
            "or a constant lies outside the weights";
    return nullptr;
  }
  code->constants = std::move(table);
  loaded[key] = code;
  return code;
}

std::unique_ptr<Executable> Executable::loadLibrary(const std::string &given,
                                                    std::string &error) {
  struct stat info;
  if (stat(given.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
    error = "cannot load '" + given + "': no such file";
    return nullptr;
  }
  // The absolute path: dlopen searches the library path for a bare name,
  // and the side file of the weights lies next to the library.
  char *resolved = realpath(given.c_str(), nullptr);
  if (!resolved) {
    error = "cannot load '" + given + "': no such file";
    return nullptr;
  }
  std::string path = resolved;
  std::free(resolved);
  // The signature and the weights, read from the library once it is
  // loaded, before its constants' slots are filled.
  Signature signature;
  bool parsed = false;
  auto constants = [&](void *handle,
                       std::string &why) -> std::unique_ptr<ConstantTable> {
    const char *text =
        static_cast<const char *>(dlsym(handle, kLibrarySignature));
    if (!text) {
      why = std::string("not a library fx-compile made (no ") +
            kLibrarySignature + ")";
      return nullptr;
    }
    if (!signature.parse(text, kLibraryHeader, why))
      return nullptr;
    if (std::string missing = missingRequirement(signature.requirements);
        !missing.empty()) {
      why = "its code needs a CPU with " + missing +
            ", which this one lacks (compile it for this CPU, or for one "
            "both have: fx-compile --cpu=x86-64-v3)";
      return nullptr;
    }
    parsed = true;
    auto table = std::make_unique<ConstantTable>();
    table->entries = signature.constants;
    auto it = signature.files.find(".weights");
    if (signature.weights == "embedded") {
      // The weights are the library's own memory: the table borrows them.
      auto *weights = static_cast<char *>(dlsym(handle, kLibraryWeights));
      uint64_t size = 0;
      if (!weights || it == signature.files.end() ||
          !parseInteger(split(it->second, ' ')[0], size)) {
        why = "its embedded weights are missing";
        return nullptr;
      }
      table->data = weights;
      table->size = size;
      table->storage = ConstantTable::Storage::Borrowed;
    } else if (!signature.weights.empty()) {
      // A side file, next to the library, checked against its digest.
      std::string file =
          path.substr(0, path.find_last_of('/') + 1) + signature.weights;
      if (!table->map(file)) {
        why = "cannot read its weights file '" + file + "'";
        return nullptr;
      }
      if (it == signature.files.end() ||
          digest(std::string_view(table->data, table->size)) != it->second) {
        why = "its weights file '" + file +
              "' is not the one it was compiled with (size or digest differ)";
        return nullptr;
      }
    }
    if (!table->entriesFit()) {
      why = "a constant lies outside its weights";
      return nullptr;
    }
    return table;
  };
  std::shared_ptr<SharedCode> code = loadSharedCode(path, constants, error);
  if (!code)
    return nullptr;
  if (!parsed) {
    // The code was loaded already: its signature, read again.
    const char *text =
        static_cast<const char *>(dlsym(code->handle, kLibrarySignature));
    if (!text || !signature.parse(text, kLibraryHeader, error)) {
      error = "'" + path + "': " + error;
      return nullptr;
    }
  }
  auto executable = std::make_unique<Executable>();
  executable->inputs = std::move(signature.inputs);
  executable->outputs = std::move(signature.outputs);
  executable->checks = std::move(signature.checks);
  executable->outputStructure = std::move(signature.outputStructure);
  executable->entry = code->entry;
  executable->shared = std::move(code);
  return executable;
}

//===----------------------------------------------------------------------===//
// The call
//===----------------------------------------------------------------------===//

bool Executable::checkInputs(const TensorRef *args, size_t count,
                             std::string &error) const {
  if (count != inputs.size()) {
    error = "expected " + std::to_string(inputs.size()) + " inputs, got " +
            std::to_string(count);
    return false;
  }
  int64_t batch = -1;
  for (size_t i = 0; i < count; ++i) {
    const TensorRef &arg = args[i];
    const TensorSpec &spec = inputs[i];
    std::string where = "input " + std::to_string(i);
    if (arg.dtype != spec.dtype) {
      error = where + ": expected dtype " + spec.dtype + ", got " + arg.dtype;
      return false;
    }
    if (arg.shape.size() != spec.shape.size()) {
      error = where + ": expected rank " + std::to_string(spec.shape.size()) +
              " (shape " + shapeString(spec.shape) + "), got rank " +
              std::to_string(arg.shape.size()) + " (shape " +
              shapeString(arg.shape) + ")";
      return false;
    }
    for (size_t d = 0; d < arg.shape.size(); ++d) {
      int64_t size = arg.shape[d], expected = spec.shape[d];
      if (expected >= 0 && size != expected) {
        error = where + ": expected shape " + shapeString(spec.shape) +
                ", got " + shapeString(arg.shape);
        return false;
      }
      if (expected < 0 && d == 0) {
        if (batch >= 0 && size != batch) {
          error = where + ": batch size " + std::to_string(size) +
                  " differs from an earlier input's " + std::to_string(batch);
          return false;
        }
        batch = size;
      }
      if (size < 0) {
        error = where + ": negative size";
        return false;
      }
    }
    if (!arg.data && !arg.shape.empty() &&
        std::all_of(arg.shape.begin(), arg.shape.end(),
                    [](int64_t s) { return s > 0; })) {
      error = where + ": no data";
      return false;
    }
    if (!spec.bounds.empty() && !checkIndices(arg, spec, where, error))
      return false;
  }
  return true;
}

/// Every index in `arg` (an int tensor) lies in each of `spec`'s bounds;
/// else `error` names the first one out of range and its node, as
/// PyTorch's IndexError does.
bool Executable::checkIndices(const TensorRef &arg, const TensorSpec &spec,
                              const std::string &where,
                              std::string &error) const {
  int64_t count = 1;
  for (int64_t size : arg.shape)
    count *= size;
  if (count == 0 || !arg.data)
    return true;
  auto check = [&](auto *data) {
    int64_t lo = INT64_MIN, hi = INT64_MAX;
    for (const IndexBound &bound : spec.bounds)
      lo = std::max(lo, bound.lo), hi = std::min(hi, bound.hi);
    for (int64_t i = 0; i < count; ++i) {
      int64_t v = int64_t(data[i]);
      if (v >= lo && v < hi)
        continue;
      for (const IndexBound &bound : spec.bounds)
        if (v < bound.lo || v >= bound.hi) {
          error = where + ": index " + std::to_string(v) +
                  " is out of range [" + std::to_string(bound.lo) + ", " +
                  std::to_string(bound.hi) + ") of node '" + bound.node + "'";
          return false;
        }
    }
    return true;
  };
  if (arg.dtype == "int64")
    return check(static_cast<const int64_t *>(arg.data));
  if (arg.dtype == "int32")
    return check(static_cast<const int32_t *>(arg.data));
  if (arg.dtype == "int16")
    return check(static_cast<const int16_t *>(arg.data));
  if (arg.dtype == "int8")
    return check(static_cast<const int8_t *>(arg.data));
  if (arg.dtype == "uint8")
    return check(static_cast<const uint8_t *>(arg.data));
  return true;
}

bool Executable::run(const TensorRef *args, size_t count,
                     std::vector<OwnedTensor> &results, std::string &error) {
  if (!checkInputs(args, count, error))
    return false;
  // Descriptors of the inputs and state, end to end.
  std::vector<int64_t> words;
  std::vector<size_t> starts;
  std::vector<std::pair<char *, char *>> foreign; // buffers we do not own
  words.reserve(64);
  auto addDescriptor = [&](void *data, const std::vector<int64_t> &shape) {
    starts.push_back(words.size());
    words.push_back(reinterpret_cast<int64_t>(data));
    words.push_back(reinterpret_cast<int64_t>(data));
    words.push_back(0);
    size_t at = words.size();
    words.resize(at + 2 * shape.size(), 0);
    int64_t stride = 1;
    for (int64_t i = int64_t(shape.size()) - 1; i >= 0; --i) {
      words[at + i] = shape[i];
      words[at + shape.size() + i] = stride;
      stride *= shape[i];
    }
  };
  for (size_t i = 0; i < count; ++i) {
    addDescriptor(args[i].data, args[i].shape);
    size_t bytes = getDTypeSize(args[i].dtype);
    for (int64_t s : args[i].shape)
      bytes *= s;
    foreign.push_back({static_cast<char *>(args[i].data),
                       static_cast<char *>(args[i].data) + bytes});
  }
  for (StateBuffer &state : states) {
    addDescriptor(state.bytes.data(), state.shape);
    foreign.push_back(
        {state.bytes.data(), state.bytes.data() + state.bytes.size()});
  }
  size_t resultWords = 0;
  for (const TensorSpec &spec : outputs)
    resultWords += 3 + 2 * spec.shape.size();
  resultWords += 3 * checks.size(); // each a 0-d bool
  std::vector<int64_t> resultBuffer(resultWords);
  void *resultPtr = resultBuffer.data();
  std::vector<void *> descriptorPtrs;
  for (size_t start : starts)
    descriptorPtrs.push_back(words.data() + start);
  // A function without results (a model whose outputs hold no tensor:
  // `return ()`, `return x.shape`) takes no result pointer first.
  std::vector<void *> packed;
  if (resultWords)
    packed.push_back(&resultPtr);
  for (void *&p : descriptorPtrs)
    packed.push_back(&p);
  {
    std::lock_guard<std::mutex> lock(running);
    entry(packed.data());
  }

  // The checks' flags first: they follow the outputs' descriptors, and an
  // output copied below may free an allocation a flag lives in.
  std::string failed;
  {
    size_t flagAt = 0;
    for (const TensorSpec &spec : outputs)
      flagAt += 3 + 2 * spec.shape.size();
    for (const RunCheck &check : checks) {
      const bool *flag =
          reinterpret_cast<const bool *>(resultBuffer[flagAt + 1]) +
          resultBuffer[flagAt + 2];
      if (*flag && failed.empty())
        failed = "node " + nodeLabel(check.node) + ": " + check.message;
      flagAt += 3;
    }
  }
  results.clear();
  results.reserve(outputs.size());
  size_t at = 0;
  std::vector<void *> claimed;
  for (const TensorSpec &spec : outputs) {
    size_t rank = spec.shape.size();
    char *allocated = reinterpret_cast<char *>(resultBuffer[at]);
    char *aligned = reinterpret_cast<char *>(resultBuffer[at + 1]);
    int64_t offset = resultBuffer[at + 2];
    const int64_t *shape = resultBuffer.data() + at + 3;
    const int64_t *strides = shape + rank;
    at += 3 + 2 * rank;
    size_t elementSize = getDTypeSize(spec.dtype);
    char *data = aligned + offset * elementSize;
    // The code returns fresh buffers, except when an output is an input, a
    // weight or a constant (0xdeadbeef: a global), or two outputs share
    // one buffer: those are copied, so every result is owned once.
    bool owned =
        allocated != reinterpret_cast<char *>(0xdeadbeef) &&
        std::find(claimed.begin(), claimed.end(), allocated) == claimed.end() &&
        std::none_of(foreign.begin(), foreign.end(), [&](auto range) {
          return allocated >= range.first && allocated < range.second;
        });
    int64_t elements = 1;
    bool contiguous = true;
    for (int64_t i = int64_t(rank) - 1, expect = 1; i >= 0; --i) {
      elements *= shape[i];
      contiguous &= shape[i] == 1 || strides[i] == expect;
      expect *= shape[i];
    }
    OwnedTensor result;
    result.dtype = spec.dtype;
    result.shape.assign(shape, shape + rank);
    if (owned && contiguous) {
      claimed.push_back(allocated);
      result.allocation = allocated;
      result.data = data;
    } else {
      char *copy = static_cast<char *>(
          std::malloc(std::max<size_t>(elements * elementSize, 1)));
      std::vector<int64_t> index(rank, 0);
      for (int64_t n = 0; n < elements; ++n) {
        int64_t source = 0;
        for (size_t i = 0; i < rank; ++i)
          source += index[i] * strides[i];
        std::memcpy(copy + n * elementSize, data + source * elementSize,
                    elementSize);
        for (int64_t i = int64_t(rank) - 1; i >= 0; --i) {
          if (++index[i] < shape[i])
            break;
          index[i] = 0;
        }
      }
      if (owned) {
        claimed.push_back(allocated);
        std::free(allocated);
      }
      result.allocation = result.data = copy;
    }
    results.push_back(std::move(result));
  }
  // The flags' buffers are freed (unless an output owns or freed them);
  // a failed check is the error, and the outputs are freed too.
  for (size_t c = 0; c < checks.size(); ++c) {
    char *allocated = reinterpret_cast<char *>(resultBuffer[at]);
    if (allocated != reinterpret_cast<char *>(0xdeadbeef) &&
        std::find(claimed.begin(), claimed.end(), allocated) == claimed.end() &&
        std::none_of(foreign.begin(), foreign.end(), [&](auto range) {
          return allocated >= range.first && allocated < range.second;
        })) {
      claimed.push_back(allocated);
      std::free(allocated);
    }
    at += 3;
  }
  if (!failed.empty()) {
    for (OwnedTensor &result : results)
      std::free(result.allocation);
    results.clear();
    error = failed;
    return false;
  }
  return true;
}
