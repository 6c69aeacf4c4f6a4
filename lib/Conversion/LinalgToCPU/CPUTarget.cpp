//===- CPUTarget.cpp - CPU descriptions: the host and named targets -------===//

#include "fx-mlir/Conversion/LinalgToCPU/CPUTarget.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"
#include <thread>

using namespace mlir;
using namespace mlir::fx;

namespace {
/// A named target: its LLVM CPU, the host features it needs to run here,
/// and what the schedule needs to know.
struct NamedTarget {
  StringRef name, arch, cpu;
  /// Features a host must have to run its code.
  ArrayRef<StringRef> needs;
  int64_t lanes, registers;
  bool fma;
  int64_t l1, l2, l3;
};
} // namespace

static constexpr int64_t KiB = 1 << 10, MiB = 1 << 20;
static const StringRef kSSE42[] = {"sse4.2"};
static const StringRef kAVX2[] = {"avx2", "fma"};
static const StringRef kAVX512[] = {"avx512f",  "avx512bw", "avx512dq",
                                    "avx512vl", "avx2",     "fma"};
static const StringRef kAVX512VNNI[] = {
    "avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512vnni", "avx2", "fma"};
static const StringRef kNone[] = {"neon"};

static const NamedTarget kTargets[] = {
    {"x86-64-v2", "x86_64", "x86-64-v2", kSSE42, 4, 16, false, 32 * KiB,
     256 * KiB, 8 * MiB},
    {"x86-64-v3", "x86_64", "x86-64-v3", kAVX2, 8, 16, true, 32 * KiB,
     256 * KiB, 8 * MiB},
    {"haswell", "x86_64", "haswell", kAVX2, 8, 16, true, 32 * KiB, 256 * KiB,
     8 * MiB},
    {"znver2", "x86_64", "znver2", kAVX2, 8, 16, true, 32 * KiB, 512 * KiB,
     16 * MiB},
    {"znver3", "x86_64", "znver3", kAVX2, 8, 16, true, 32 * KiB, 512 * KiB,
     32 * MiB},
    {"x86-64-v4", "x86_64", "x86-64-v4", kAVX512, 16, 32, true, 32 * KiB,
     1 * MiB, 16 * MiB},
    {"skylake-avx512", "x86_64", "skylake-avx512", kAVX512, 16, 32, true,
     32 * KiB, 1 * MiB, 16 * MiB},
    {"icelake-server", "x86_64", "icelake-server", kAVX512VNNI, 16, 32, true,
     48 * KiB, 1280 * KiB, 32 * MiB},
    {"sapphirerapids", "x86_64", "sapphirerapids", kAVX512VNNI, 16, 32, true,
     48 * KiB, 2 * MiB, 64 * MiB},
    {"znver4", "x86_64", "znver4", kAVX512VNNI, 16, 32, true, 32 * KiB, 1 * MiB,
     32 * MiB},
    {"neoverse-n1", "aarch64", "neoverse-n1", kNone, 4, 32, true, 64 * KiB,
     1 * MiB, 32 * MiB},
    {"aarch64", "aarch64", "generic", kNone, 4, 32, true, 64 * KiB, 1 * MiB,
     32 * MiB},
};

/// The size in bytes of the host's data or unified cache of `level`, from
/// Linux's sysfs; 0 when unknown.
static int64_t hostCacheSize(int level) {
  for (int index = 0; index < 8; ++index) {
    std::string dir =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    auto read = [&](StringRef file) -> std::string {
      auto buffer = llvm::MemoryBuffer::getFile(dir + "/" + file.str(),
                                                /*IsText=*/true);
      return buffer ? (*buffer)->getBuffer().trim().str() : std::string();
    };
    std::string levelText = read("level");
    if (levelText.empty())
      break;
    if (levelText != std::to_string(level) || read("type") == "Instruction")
      continue;
    StringRef size = read("size");
    int64_t scale = 1;
    if (size.consume_back("K"))
      scale = KiB;
    else if (size.consume_back("M"))
      scale = MiB;
    int64_t value;
    if (!size.getAsInteger(10, value))
      return value * scale;
  }
  return 0;
}

const CPUTarget &CPUTarget::host() {
  static const CPUTarget target = [] {
    CPUTarget t;
    t.name = "host";
    llvm::Triple triple(llvm::sys::getProcessTriple());
    t.triple = triple.str();
    t.cpu = llvm::sys::getHostCPUName().str();
    llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
    std::vector<std::string> list;
    for (const auto &feature : features)
      list.push_back((feature.second ? "+" : "-") + feature.first().str());
    llvm::sort(list);
    t.features = llvm::join(list, ",");
    auto has = [&](StringRef feature) { return features.lookup(feature); };
    if (triple.isX86()) {
      t.f32Lanes = has("avx512f") ? 16 : has("avx") ? 8 : 4;
      t.vectorRegisters = has("avx512f") ? 32 : 16;
      t.fma = has("fma");
      t.int8Dot = has("avx512vnni") && has("avx512bw");
      // (512-bit vpmaddwd needs AVX-512BW where 16 f32 lanes are used.)
      t.int8Pairs =
          !t.int8Dot && has("avx2") && (!has("avx512f") || has("avx512bw"));
    } else {
      // AArch64 NEON (and a conservative guess elsewhere).
      t.f32Lanes = 4;
      t.vectorRegisters = triple.isAArch64() ? 32 : 16;
      t.fma = triple.isAArch64();
    }
    if (int64_t size = hostCacheSize(1))
      t.l1 = size;
    if (int64_t size = hostCacheSize(2))
      t.l2 = size;
    if (int64_t size = hostCacheSize(3))
      t.l3 = size;
    t.cores = std::max(1u, std::thread::hardware_concurrency());
    return t;
  }();
  return target;
}

std::optional<CPUTarget> CPUTarget::lookup(StringRef name) {
  if (name.empty() || name == "host")
    return host();
  for (const NamedTarget &named : kTargets) {
    if (named.name != name)
      continue;
    CPUTarget t;
    t.name = named.name.str();
    llvm::Triple triple(llvm::sys::getProcessTriple());
    if (triple.getArchName() != named.arch)
      triple = llvm::Triple(named.arch.str() + "-unknown-linux-gnu");
    t.triple = triple.str();
    t.cpu = named.cpu.str();
    t.f32Lanes = named.lanes;
    t.vectorRegisters = named.registers;
    t.fma = named.fma;
    t.int8Dot = llvm::is_contained(named.needs, "avx512vnni");
    t.int8Pairs = !t.int8Dot && llvm::is_contained(named.needs, "avx2");
    t.l1 = named.l1;
    t.l2 = named.l2;
    t.l3 = named.l3;
    return t;
  }
  return std::nullopt;
}

ArrayRef<StringRef> CPUTarget::knownNames() {
  static const SmallVector<StringRef> names = [] {
    SmallVector<StringRef> result;
    for (const NamedTarget &named : kTargets)
      result.push_back(named.name);
    return result;
  }();
  return names;
}

bool CPUTarget::runsOnHost() const {
  if (name == "host")
    return true;
  const CPUTarget &here = host();
  if (llvm::Triple(triple).getArch() != llvm::Triple(here.triple).getArch())
    return false;
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  for (const NamedTarget &named : kTargets)
    if (named.name == name)
      return llvm::all_of(named.needs, [&](StringRef feature) {
        return features.lookup(feature);
      });
  return false;
}

std::vector<std::string> CPUTarget::requirements() const {
  static const StringRef kTestable[] = {
      "sse4.2",   "avx",      "avx2",     "fma",      "avx512f",
      "avx512bw", "avx512dq", "avx512vl", "avx512cd", "avx512vnni"};
  std::vector<std::string> result = {llvm::Triple(triple).getArchName().str()};
  ArrayRef<StringRef> needs;
  for (const NamedTarget &named : kTargets)
    if (named.name == name)
      needs = named.needs;
  llvm::StringMap<bool> hostFeatures;
  if (name == "host")
    hostFeatures = llvm::sys::getHostCPUFeatures();
  for (StringRef feature : kTestable)
    if (name == "host" ? hostFeatures.lookup(feature)
                       : llvm::is_contained(needs, feature))
      result.push_back(feature.str());
  return result;
}

std::string CPUTarget::describe() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << name << ": " << triple << " cpu=" << cpu << " f32-lanes=" << f32Lanes
     << " vector-registers=" << vectorRegisters << " fma=" << (fma ? 1 : 0)
     << " int8-dot=" << (int8Dot ? 1 : 0)
     << " int8-pairs=" << (int8Pairs ? 1 : 0) << " l1=" << l1 / KiB
     << "K l2=" << l2 / KiB << "K l3=" << l3 / KiB << "K";
  if (!features.empty())
    os << " features=" << features;
  return text;
}
