//===- Cache.cpp - Reading the code cache without the compiler ------------===//
//
// The part of the code cache a process needs on a hit: an entry whose code
// is a linked shared object is loaded here with the C++ standard library
// and libdl only (the compiler, in FXRuntime, writes entries and loads the
// ones of object code). Every file of an entry has its digest in the
// entry's signature, whose own digest covers it; any mismatch is a miss,
// never code run or weights read.
//
// Quick keys: the compiler's cache key describes the CPU target through
// LLVM, which this library does not link. A caller that cannot compute it
// (the Python package before it loads the compiler) keys its lookup by a
// quick key of its own (the IR, the weights, its options and this host's
// CPU as /proc/cpuinfo reports it) that the compiler maps to the entry key
// with an alias file `<quick key>.alias` once the entry exists.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Runtime/Executable.h"

#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir::fx;

static std::string hex16(uint64_t value) {
  static const char digits[] = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, value >>= 4)
    s[i] = digits[value & 15];
  return s;
}

const char *const mlir::fx::kCacheHeader = "fx-mlir-cache 7";
static const char *const kAliasHeader = "fx-mlir-alias 1";

std::string mlir::fx::cacheFilePath(const std::string &dir,
                                    const std::string &key,
                                    const std::string &extension) {
  std::string path = dir;
  if (!path.empty() && path.back() != '/')
    path += '/';
  return path + key + extension;
}

static bool readFile(const std::string &path, std::string &text) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::ostringstream contents;
  contents << in.rdbuf();
  text = contents.str();
  return !in.bad();
}

static bool isRegularFile(const std::string &path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

std::string mlir::fx::hostFingerprint() {
  // The first processor's vendor, model and flags: what decides which code
  // runs here (cores, frequencies and bogomips left out).
  std::ifstream in("/proc/cpuinfo");
  std::string line, identity;
  while (std::getline(in, line)) {
    if (line.empty())
      break;
    for (const char *field : {"vendor_id", "model name", "flags"})
      if (line.rfind(field, 0) == 0)
        identity += line + '\n';
  }
  return hex16(hashBytes(identity.data(), identity.size()));
}

std::string mlir::fx::quickCacheKey(std::string_view ir,
                                    const std::vector<ExternalBlob> &blobs,
                                    std::string_view settings) {
  uint64_t code = hashBytes(ir.data(), ir.size());
  uint64_t code2 = hashBytes(ir.data(), ir.size(), /*seed=*/0x9e3779b97f4a7c15);
  std::string rest(settings);
  rest += ' ';
  rest += hostFingerprint();
  for (const ExternalBlob &blob : blobs)
    rest += " blob " + std::to_string(blob.key.size()) + ':' + blob.key + ' ' +
            std::to_string(blob.size) + ' ' +
            hex16(hashBytes(blob.data, blob.size));
  return "q" + hex16(code) + hex16(code2) +
         hex16(hashBytes(rest.data(), rest.size()));
}

std::string mlir::fx::readCacheAlias(const std::string &dir,
                                     const std::string &alias) {
  std::string text;
  if (!readFile(cacheFilePath(dir, alias, ".alias"), text))
    return "";
  // "<header>\n<key>\n<digest of the key>\n"
  std::istringstream lines(text);
  std::string header, key, sum;
  if (!std::getline(lines, header) || header != kAliasHeader ||
      !std::getline(lines, key) || !std::getline(lines, sum) ||
      sum != digest(key) || key.empty() ||
      key.find_first_not_of("0123456789abcdef") != std::string::npos)
    return "";
  return key;
}

bool mlir::fx::writeCacheAlias(const std::string &dir, const std::string &alias,
                               const std::string &key) {
  std::string path = cacheFilePath(dir, alias, ".alias");
  std::string temp = path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << kAliasHeader << '\n' << key << '\n' << digest(key) << '\n';
    if (!out.good()) {
      std::remove(temp.c_str());
      return false;
    }
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    return false;
  }
  return true;
}

std::unique_ptr<Executable> Executable::loadCached(const std::string &dir,
                                                   const std::string &key) {
  std::string libraryPath = cacheFilePath(dir, key, ".so");
  std::string text;
  if (!isRegularFile(libraryPath) ||
      !readFile(cacheFilePath(dir, key, ".meta"), text))
    return nullptr;
  Signature signature;
  std::string why;
  if (!signature.parse(text, kCacheHeader, why))
    return nullptr;
  auto it = signature.files.find(".so");
  if (it == signature.files.end() || !fileHasDigest(libraryPath, it->second))
    return nullptr;
  auto table = std::make_unique<ConstantTable>();
  table->entries = signature.constants;
  if (!table->entries.empty()) {
    auto weights = signature.files.find(".weights");
    if (weights == signature.files.end() ||
        !table->map(cacheFilePath(dir, key, ".weights")) ||
        digest(std::string_view(table->data, table->size)) != weights->second ||
        !table->entriesFit())
      return nullptr;
  }
  std::shared_ptr<SharedCode> code = loadSharedCode(
      libraryPath, [&](void *, std::string &) { return std::move(table); },
      why);
  if (!code)
    return nullptr;
  auto executable = std::make_unique<Executable>();
  executable->entry = code->entry;
  executable->shared = std::move(code);
  executable->inputs = std::move(signature.inputs);
  executable->outputs = std::move(signature.outputs);
  executable->checks = std::move(signature.checks);
  executable->outputStructure = std::move(signature.outputStructure);
  return executable;
}
