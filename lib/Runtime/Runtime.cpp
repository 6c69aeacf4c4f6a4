//===- Runtime.cpp - JIT-compile and run fx graphs on the CPU -------------===//

#include "fx-mlir/Runtime/Runtime.h"
#include "fx-mlir/Conversion/LinalgToCPU/CPUTarget.h"
#include "fx-mlir/Conversion/Passes.h"
#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Dialect/FX/IR/FXDialect.h"
#include "fx-mlir/Dialect/FX/IR/FXOps.h"
#include "fx-mlir/Dialect/FX/Transforms/Passes.h"
#include "fx-mlir/Runtime/Probes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/SectionMemoryManager.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/Utils/SplitModule.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <malloc.h>
#include <mutex>
#include <numeric>
#include <optional>
#include <sys/mman.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace mlir;
using namespace mlir::fx;

size_t mlir::fx::getDTypeSize(llvm::StringRef dtype) {
#define FX_DTYPE(NAME, ELEMENT_TYPE, BYTES, SCALAR_TYPE, NPY)                  \
  if (dtype == #NAME)                                                          \
    return BYTES;
#include "fx-mlir/Dialect/FX/IR/DTypes.def"
  return 0;
}

namespace {
/// Where the MLIR C runner utilities (memrefCopy) live.
constexpr const char *kRunnerUtils = FX_MLIR_RUNNER_UTILS;
/// LLVM's OpenMP runtime, which runs the scf.forall loops of the schedule
/// on threads.
constexpr const char *kOpenMP = FX_MLIR_OPENMP;
/// The C interface of the compiled forward function, and the packed entry
/// the runtime calls (addPackedEntry): one pointer to every argument.
constexpr const char *kForward = "_mlir_ciface_forward";
constexpr const char *kEntry = "_mlir__mlir_ciface_forward";

//===----------------------------------------------------------------------===//
// On-disk code cache
//===----------------------------------------------------------------------===//

/// What the cached code was made by: this library's file (path, size,
/// modification time) and the host CPU with its features, which the code
/// is compiled for.
std::string compilerIdentity() {
  std::string id;
  llvm::raw_string_ostream os(id);
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&compilerIdentity), &info) &&
      info.dli_fname) {
    os << info.dli_fname;
    llvm::sys::fs::file_status status;
    if (!llvm::sys::fs::status(info.dli_fname, status))
      os << ' ' << status.getSize() << ' '
         << status.getLastModificationTime().time_since_epoch().count();
  }
  os << ' ' << llvm::sys::getHostCPUName();
  std::vector<std::string> features;
  for (const auto &feature : llvm::sys::getHostCPUFeatures())
    if (feature.second)
      features.push_back(feature.first().str());
  llvm::sort(features);
  for (const std::string &feature : features)
    os << ' ' << feature;
  return id;
}

/// The cache key: hashes of the IR and of the options with the compiler's
/// identity and the CPU target the code is generated for, in hex.
std::string cacheKey(StringRef ir, const CompileOptions &options,
                     const CPUTarget &target) {
  static const std::string identity = compilerIdentity();
  std::string settings;
  llvm::raw_string_ostream(settings)
      << options.dynamicBatch << options.normalize << options.optLevel << ' '
      << identity << ' ' << target.describe();
  llvm::XXH128_hash_t code =
      llvm::xxh3_128bits(llvm::arrayRefFromStringRef(ir));
  uint64_t rest = llvm::xxh3_64bits(settings);
  return llvm::utohexstr(code.high64, true, 16) +
         llvm::utohexstr(code.low64, true, 16) +
         llvm::utohexstr(rest, true, 16);
}

/// A file's content as the cache records it: its size and xxh3-128 hash.
std::string digest(StringRef data) {
  llvm::XXH128_hash_t hash =
      llvm::xxh3_128bits(llvm::arrayRefFromStringRef(data));
  return std::to_string(data.size()) + " " +
         llvm::utohexstr(hash.high64, true, 16) +
         llvm::utohexstr(hash.low64, true, 16);
}

/// Whether the file at `path` has `expected` (a digest()).
bool fileHasDigest(const std::string &path, StringRef expected) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  return buffer && digest((*buffer)->getBuffer()) == expected;
}

std::string cachePath(StringRef dir, StringRef key, StringRef extension) {
  SmallString<256> path(dir);
  llvm::sys::path::append(path, key + extension);
  return path.str().str();
}

/// Writes `data` to `path` through a temporary file, so a reader never
/// sees half a file.
bool writeAtomically(StringRef path, StringRef data) {
  std::string temp =
      (path + ".tmp" + std::to_string(llvm::sys::Process::getProcessId()))
          .str();
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(temp, ec);
    if (ec)
      return false;
    os << data;
    if (os.has_error()) {
      os.clear_error();
      return false;
    }
  }
  return !llvm::sys::fs::rename(temp, path);
}

void printSpec(llvm::raw_ostream &os, StringRef kind, const TensorSpec &spec) {
  os << kind << ' ' << spec.dtype << ' ' << spec.shape.size();
  for (int64_t d : spec.shape)
    os << ' ' << d;
  os << '\n';
}

//===----------------------------------------------------------------------===//
// Constants outside the object code
//===----------------------------------------------------------------------===//

/// Constants of at least this many bytes (the weights) stay out of the
/// object code.
constexpr size_t kOutOfLineConstantBytes = 4096;

/// The raw bytes of a global's constant value; empty if it has none that
/// can be read as bytes (splats, bools, small constants).
ArrayRef<char> constantBytes(LLVM::GlobalOp global) {
  if (!global.getConstant())
    return {};
  Attribute value = global.getValueOrNull();
  // Dense bools are packed 8 to a byte, unlike LLVM's i1 arrays.
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(value);
      dense && dense.getElementType().getIntOrFloatBitWidth() % 8 != 0)
    return {};
  return getElementsData(value);
}

/// The large constants of the compiled code (weights), which live outside
/// the object code: translating 47 MB of weights into LLVM constants,
/// emitting them and linking them took more than a third of resnet18's
/// compile time and held extra copies. Each such global becomes a pointer
/// slot (a small global of the code) that the code loads its address from;
/// the runtime fills the slots with addresses in `data`, which is a heap
/// buffer after a compile and a read-only mapping of the cache's
/// `.weights` file after a cache hit.
struct ConstantTable {
  struct Entry {
    std::string slot;
    uint64_t offset, size;
  };
  std::vector<Entry> entries;
  char *data = nullptr;
  size_t size = 0;
  bool mapped = false;

  ConstantTable() = default;
  ConstantTable(const ConstantTable &) = delete;
  ~ConstantTable() {
    if (mapped)
      munmap(data, size);
    else
      std::free(data);
  }

  /// Moves the large constant globals of `module` (LLVM dialect) out of
  /// it, into `data`.
  void takeFrom(ModuleOp module) {
    std::vector<std::pair<LLVM::GlobalOp, ArrayRef<char>>> globals;
    uint64_t total = 0;
    for (auto global : module.getOps<LLVM::GlobalOp>()) {
      ArrayRef<char> bytes = constantBytes(global);
      if (bytes.size() < kOutOfLineConstantBytes)
        continue;
      globals.push_back({global, bytes});
      total = llvm::alignTo(total, 64) + bytes.size();
    }
    if (globals.empty())
      return;
    size = llvm::alignTo(total, 64);
    data = static_cast<char *>(std::aligned_alloc(64, size));
    llvm::StringMap<SmallVector<LLVM::AddressOfOp>> addresses;
    module.walk([&](LLVM::AddressOfOp op) {
      addresses[op.getGlobalName()].push_back(op);
    });
    OpBuilder builder(module.getContext());
    auto pointer = LLVM::LLVMPointerType::get(module.getContext());
    uint64_t offset = 0;
    for (auto [global, bytes] : globals) {
      offset = llvm::alignTo(offset, 64);
      std::memcpy(data + offset, bytes.data(), bytes.size());
      std::string slotName = (global.getSymName() + "__fx_address").str();
      entries.push_back({slotName, offset, bytes.size()});
      offset += bytes.size();
      // The slot: a null pointer the runtime overwrites.
      builder.setInsertionPoint(global);
      auto slot = LLVM::GlobalOp::create(
          builder, global.getLoc(), pointer, /*isConstant=*/false,
          LLVM::Linkage::External, slotName, Attribute(), /*alignment=*/8);
      Block *init = builder.createBlock(&slot.getInitializerRegion());
      builder.setInsertionPointToStart(init);
      LLVM::ReturnOp::create(
          builder, global.getLoc(),
          LLVM::ZeroOp::create(builder, global.getLoc(), pointer));
      // Each address of the global becomes a load from the slot.
      for (LLVM::AddressOfOp use : addresses.lookup(global.getSymName())) {
        builder.setInsertionPoint(use);
        Value slotAddress =
            LLVM::AddressOfOp::create(builder, use.getLoc(), slot);
        use.replaceAllUsesWith(
            LLVM::LoadOp::create(builder, use.getLoc(), pointer, slotAddress)
                .getResult());
        use.erase();
      }
      global.erase();
    }
  }

  /// Maps the file `path` (read-only, shared with the page cache) as
  /// `data`; false if it cannot (fillSlots checks that the entries fit).
  bool map(const std::string &path) {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      return false;
    struct stat info;
    void *p = MAP_FAILED;
    if (fstat(fd, &info) == 0 && info.st_size > 0)
      p = mmap(nullptr, info.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
      return false;
    data = static_cast<char *>(p);
    size = info.st_size;
    mapped = true;
    return true;
  }

  /// Writes the constants' addresses into their slots, found by `lookup`
  /// (symbol name -> address, null if missing); false if one is missing.
  bool fillSlots(llvm::function_ref<void *(StringRef)> lookup) const {
    for (const Entry &entry : entries) {
      void **slot = static_cast<void **>(lookup(entry.slot));
      if (!slot || entry.offset + entry.size > size)
        return false;
      *slot = data + entry.offset;
    }
    return true;
  }
};

/// The linker that turns cached object code into a shared object:
/// `$FX_MLIR_LINKER` (a program name or path; empty: none, keep the
/// object), else `ld` on the PATH.
std::optional<std::string> findLinker() {
  const char *name = std::getenv("FX_MLIR_LINKER");
  if (name && !*name)
    return std::nullopt;
  auto path = llvm::sys::findProgramByName(name ? name : "ld");
  if (!path)
    return std::nullopt;
  return *path;
}

/// Links the object files `objectPaths` (position-independent code) into
/// the shared object `libraryPath`; false if there is no linker or it
/// fails. Their undefined symbols (libomp's, the runner utilities',
/// libc's) are left to the dynamic loader, which finds them in the
/// libraries loadSharedCode loads first.
bool linkSharedObject(ArrayRef<std::string> objectPaths,
                      StringRef libraryPath) {
  std::optional<std::string> linker = findLinker();
  if (!linker)
    return false;
  std::string output = libraryPath.str();
  SmallVector<StringRef> args = {*linker,       "-shared",          "-z",
                                 "noexecstack", "--hash-style=gnu", "-o",
                                 output};
  args.append(objectPaths.begin(), objectPaths.end());
  std::optional<StringRef> quiet[] = {StringRef(""), StringRef(""),
                                      StringRef("")};
  // A failed link is not an error: the cache keeps the object file.
  int status = llvm::sys::ExecuteAndWait(*linker, args, std::nullopt, quiet,
                                         /*SecondsToWait=*/60);
  if (status != 0) {
    llvm::sys::fs::remove(output);
    return false;
  }
  return true;
}

/// Code loaded from a cached shared object with `dlopen`, which needs no
/// LLVM at all: none of libLLVM's pages are touched, so the process stays
/// as small as the code and its weights. `dlopen` gives one handle per
/// file, constant slots included, so every graph of the process that
/// loads the same entry shares one SharedCode (and one weights mapping).
struct SharedCode {
  void *handle = nullptr;
  std::shared_ptr<ConstantTable> constants;
  void (*entry)(void **) = nullptr;

  ~SharedCode() {
    if (handle)
      dlclose(handle);
  }
};

/// The SharedCode of the shared object at `libraryPath` whose constants
/// are `table` (mapped from the entry's weights file), or the one already
/// loaded from that path; null if it cannot be loaded.
std::shared_ptr<SharedCode>
loadSharedCode(const std::string &libraryPath,
               std::unique_ptr<ConstantTable> table) {
  static std::mutex mutex;
  static llvm::StringMap<std::weak_ptr<SharedCode>> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  if (std::shared_ptr<SharedCode> code = loaded[libraryPath].lock())
    return code;
  // The libraries the code calls, in the global scope for the dynamic
  // loader (the JIT links against the same two).
  for (const char *path : {kRunnerUtils, kOpenMP})
    if (!dlopen(path, RTLD_NOW | RTLD_GLOBAL))
      return nullptr;
  auto code = std::make_shared<SharedCode>();
  code->handle = dlopen(libraryPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!code->handle)
    return nullptr;
  code->entry =
      reinterpret_cast<void (*)(void **)>(dlsym(code->handle, kEntry));
  if (!code->entry || !table->fillSlots([&](StringRef name) {
        return dlsym(code->handle, name.str().c_str());
      }))
    return nullptr;
  code->constants = std::move(table);
  loaded[libraryPath] = code;
  return code;
}

/// The host target, which the JIT needs to load code as well as to
/// compile it.
void initializeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

/// A JIT with no code yet, linked against the same libraries as
/// ExecutionEngine's (the process, the runner utilities, libomp) and the
/// probe functions; null if it cannot be made.
std::unique_ptr<llvm::orc::LLJIT> makeJIT() {
  initializeTarget();
  auto machine = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!machine) {
    llvm::consumeError(machine.takeError());
    return nullptr;
  }
  auto jit =
      llvm::orc::LLJITBuilder()
          .setJITTargetMachineBuilder(std::move(*machine))
          .setObjectLinkingLayerCreator(
              [](llvm::orc::ExecutionSession &session)
                  -> llvm::Expected<std::unique_ptr<llvm::orc::ObjectLayer>> {
                return std::make_unique<llvm::orc::RTDyldObjectLinkingLayer>(
                    session, [](const llvm::MemoryBuffer &) {
                      return std::make_unique<llvm::SectionMemoryManager>();
                    });
              })
          .create();
  if (!jit) {
    llvm::consumeError(jit.takeError());
    return nullptr;
  }
  llvm::orc::JITDylib &library = (*jit)->getMainJITDylib();
  char prefix = (*jit)->getDataLayout().getGlobalPrefix();
  auto process =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix);
  if (!process) {
    llvm::consumeError(process.takeError());
    return nullptr;
  }
  library.addGenerator(std::move(*process));
  for (const char *path : {kRunnerUtils, kOpenMP}) {
    auto generator =
        llvm::orc::DynamicLibrarySearchGenerator::Load(path, prefix);
    if (!generator) {
      llvm::consumeError(generator.takeError());
      return nullptr;
    }
    library.addGenerator(std::move(*generator));
  }
  llvm::orc::MangleAndInterner mangle((*jit)->getExecutionSession(),
                                      (*jit)->getDataLayout());
  llvm::orc::SymbolMap probes;
  for (const ProbeSymbol &symbol : getProbeSymbols())
    probes[mangle(symbol.name)] = {
        llvm::orc::ExecutorAddr::fromPtr(symbol.address),
        llvm::JITSymbolFlags::Exported};
  if (llvm::Error e = library.define(llvm::orc::absoluteSymbols(probes))) {
    llvm::consumeError(std::move(e));
    return nullptr;
  }
  return std::move(*jit);
}

/// Adds `_mlir_<name>(void **args)` to `module`, which calls `name` with
/// the values args[i] point to (and stores its result, if any, where the
/// pointer after them points): the calling convention of
/// ExecutionEngine's packed entries, which the runtime calls. False if
/// `name` is not defined there.
bool addPackedEntry(llvm::Module &module, StringRef name) {
  llvm::Function *callee = module.getFunction(name);
  if (!callee || callee->isDeclaration())
    return false;
  llvm::LLVMContext &context = module.getContext();
  llvm::IRBuilder<> b(context);
  llvm::Type *pointer = b.getPtrTy();
  auto *entry = llvm::Function::Create(
      llvm::FunctionType::get(b.getVoidTy(), {pointer}, false),
      llvm::GlobalValue::ExternalLinkage, "_mlir_" + name, module);
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", entry));
  llvm::Value *args = entry->getArg(0);
  auto argument = [&](unsigned i) {
    return b.CreateLoad(pointer,
                        b.CreateConstGEP1_64(pointer, args, i, "slot"));
  };
  SmallVector<llvm::Value *> values;
  for (llvm::Argument &param : callee->args())
    values.push_back(b.CreateLoad(param.getType(), argument(param.getArgNo())));
  llvm::Value *result = b.CreateCall(callee, values);
  if (!result->getType()->isVoidTy())
    b.CreateStore(result, argument(callee->arg_size()));
  b.CreateRetVoid();
  return true;
}

/// Parts of a module per compiling thread: the parts differ in cost (a
/// graph's forward function, with the code outside its parallel loops,
/// took 70% of mobilenet_v2's time in one of two parts), and threads
/// taking the next part when done balance them.
constexpr unsigned kPartsPerThread = 4;

/// `module` optimized at `optLevel` and compiled to object code for
/// `builder`'s machine on `threads` threads, one object per part. LLVM
/// optimizes and compiles a module on one thread, and that is most of a
/// cold compile: the module is split (llvm::SplitModule, which balances
/// the parts by size; OpenMP regions are functions of their own) into
/// kPartsPerThread parts per thread, and each part is optimized and
/// compiled in an LLVMContext of its own (a context is not thread-safe),
/// reached through bitcode, by the next free thread.
llvm::Expected<std::vector<std::unique_ptr<llvm::MemoryBuffer>>>
compileToObjects(llvm::Module &module,
                 const llvm::orc::JITTargetMachineBuilder &builder,
                 unsigned optLevel, unsigned threads) {
  auto compile = [&](llvm::Module &part)
      -> llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> {
    llvm::orc::JITTargetMachineBuilder copy = builder;
    auto machine = copy.createTargetMachine();
    if (!machine)
      return machine.takeError();
    if (llvm::Error e =
            makeOptimizingTransformer(optLevel, 0, machine->get())(&part))
      return std::move(e);
    return llvm::orc::SimpleCompiler(**machine)(part);
  };
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects;
  unsigned functions = llvm::count_if(
      module, [](const llvm::Function &f) { return !f.isDeclaration(); });
  unsigned parts = threads > 1 ? threads * kPartsPerThread : 1;
  parts = std::clamp(std::min(parts, functions), 1u, 64u);
  if (parts == 1) {
    auto object = compile(module);
    if (!object)
      return object.takeError();
    objects.push_back(std::move(*object));
    return objects;
  }
  std::vector<SmallVector<char, 0>> bitcode;
  llvm::SplitModule(module, parts, [&](std::unique_ptr<llvm::Module> part) {
    llvm::raw_svector_ostream os(bitcode.emplace_back());
    llvm::WriteBitcodeToFile(*part, os);
  });
  objects.resize(bitcode.size());
  std::vector<std::optional<llvm::Error>> failures(bitcode.size());
  auto run = [&](size_t i) {
    llvm::LLVMContext context;
    auto part = llvm::parseBitcodeFile(
        llvm::MemoryBufferRef(StringRef(bitcode[i].data(), bitcode[i].size()),
                              "part"),
        context);
    llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> object =
        part ? compile(**part) : part.takeError();
    if (object)
      objects[i] = std::move(*object);
    else
      failures[i] = object.takeError();
  };
  // The largest parts first, each to the next free thread.
  std::vector<size_t> order(bitcode.size());
  std::iota(order.begin(), order.end(), 0);
  llvm::stable_sort(order, [&](size_t a, size_t b) {
    return bitcode[a].size() > bitcode[b].size();
  });
  std::atomic<size_t> next = 0;
  auto work = [&] {
    for (size_t i; (i = next++) < order.size();)
      run(order[i]);
  };
  std::vector<std::thread> workers;
  for (unsigned t = 1; t < std::min<size_t>(threads, order.size()); ++t)
    workers.emplace_back(work);
  work();
  for (std::thread &worker : workers)
    worker.join();
  llvm::Error error = llvm::Error::success();
  for (std::optional<llvm::Error> &failure : failures)
    if (failure)
      error = llvm::joinErrors(std::move(error), std::move(*failure));
  if (error)
    return std::move(error);
  return objects;
}

/// The object files of the cache entry whose first object is at
/// `objectPath` (the others are at `<stem>.<i>.o`).
std::string objectPartPath(StringRef objectPath, size_t i) {
  if (i == 0)
    return objectPath.str();
  return (objectPath.drop_back(2) + "." + std::to_string(i) + ".o").str();
}

/// A JIT holding the `count` cached object files at `objectPath` and its
/// siblings; null if they cannot be loaded.
std::unique_ptr<llvm::orc::LLJIT> loadObjects(StringRef objectPath,
                                              size_t count) {
  std::unique_ptr<llvm::orc::LLJIT> jit = makeJIT();
  if (!jit)
    return nullptr;
  for (size_t i = 0; i < count; ++i) {
    auto buffer = llvm::MemoryBuffer::getFile(objectPartPath(objectPath, i));
    if (!buffer)
      return nullptr;
    if (llvm::Error e = jit->addObjectFile(std::move(*buffer))) {
      llvm::consumeError(std::move(e));
      return nullptr;
    }
  }
  return jit;
}

/// The packed entry point of the code in `jit` (its signature is
/// ExecutionEngine's: void(void **)), once the slots of `constants` in
/// that code are filled; null, with why in `error`, if either is missing.
void (*linkEntry(llvm::orc::LLJIT &jit, const ConstantTable &constants,
                 std::string &error))(void **) {
  auto entry = jit.lookup(kEntry);
  if (!entry) {
    error = llvm::toString(entry.takeError());
    return nullptr;
  }
  if (!constants.fillSlots([&](StringRef name) -> void * {
        auto address = jit.lookup(name);
        if (!address) {
          llvm::consumeError(address.takeError());
          return nullptr;
        }
        return address->toPtr<void *>();
      })) {
    error = "the code has no slot for one of its constants";
    return nullptr;
  }
  return entry->toPtr<void (*)(void **)>();
}

/// A state tensor the code takes as an argument.
struct StateBuffer {
  std::vector<char> bytes;
  std::vector<int64_t> shape;
};

std::string describe(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

TensorSpec specOf(Type type, StringRef name) {
  TensorSpec spec;
  spec.name = name.str();
  auto tensor = cast<RankedTensorType>(type);
  spec.dtype = getElementDTypeName(tensor.getElementType()).str();
  for (int64_t d : tensor.getShape())
    spec.shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
  return spec;
}

std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? ", " : "") + (d < 0 ? std::string("?") : std::to_string(d));
  return s + "]";
}
} // namespace

/// With FX_MLIR_TIMING set, prints each compile phase's wall time to
/// stderr.
class PhaseTimer {
public:
  void done(const char *phase) {
    if (!enabled)
      return;
    auto now = std::chrono::steady_clock::now();
    llvm::errs() << llvm::format(
        "fx-mlir: %-36s %7.3f s\n", phase,
        std::chrono::duration<double>(now - last).count());
    last = now;
  }

private:
  bool enabled = std::getenv("FX_MLIR_TIMING") != nullptr;
  std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
};

struct CompiledGraph::Impl {
  /// Holds the IR (and its weight blobs) while compiling only: the
  /// constants table has its own copy of the weights.
  std::unique_ptr<MLIRContext> context;
  /// The code: in a JIT (compiled here, or object code from the cache
  /// where it could not be linked), or a shared object from the cache.
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::shared_ptr<SharedCode> shared;
  /// The compiled object code, while the cache stores it.
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects;
  void (*entry)(void **) = nullptr;
  bool fromCache = false;
  std::vector<StateBuffer> states;
  bool dynamicBatch = false;
  ProbeTable probes;
  std::mutex running;
  std::shared_ptr<ConstantTable> constants = std::make_shared<ConstantTable>();
};

CompiledGraph::CompiledGraph() : impl(std::make_unique<Impl>()) {}
CompiledGraph::~CompiledGraph() = default;

std::unique_ptr<CompiledGraph>
CompiledGraph::compile(StringRef ir, const CompileOptions &options,
                       std::string &error) {
  std::unique_ptr<CompiledGraph> graph(new CompiledGraph());
  llvm::raw_string_ostream errors(error);
  PhaseTimer timer;
  std::optional<CPUTarget> target = CPUTarget::lookup(options.cpu);
  if (!target) {
    errors << "error: unknown CPU target '" << options.cpu
           << "': use host or one of "
           << llvm::join(CPUTarget::knownNames(), ", ") << "\n";
    return nullptr;
  }
  if (!target->runsOnHost()) {
    errors << "error: code for the CPU target '" << target->name
           << "' does not run on this host (" << CPUTarget::host().cpu
           << "); use host or a target this CPU has the features of\n";
    return nullptr;
  }
  // The code cache: on a hit, the code and signature are loaded and the
  // compiler does not run (no MLIR context, no pass registration).
  std::string key;
  if (!options.cacheDir.empty() && !options.weightsAsArguments) {
    key = cacheKey(ir, options, *target);
    if (graph->loadFromCache(options.cacheDir, key)) {
      graph->impl->dynamicBatch = options.dynamicBatch;
      // The cache key's hashing and the object's buffer were the last
      // large allocations: give their memory back.
      malloc_trim(0);
      timer.done("load from the cache");
      return graph;
    }
  }

  initializeTarget();
  registerCompilerPasses();
  graph->impl->context = std::make_unique<MLIRContext>();
  MLIRContext &ctx = *graph->impl->context;
  DialectRegistry registry;
  registerCompilerDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerOpenMPDialectTranslation(registry);
  ctx.appendDialectRegistry(registry);
  ctx.loadAllAvailableDialects();
  std::optional<ScopedDiagnosticHandler> handler;
  handler.emplace(&ctx, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error) {
      errors << diag.getLocation() << ": error: " << diag << "\n";
    }
    return success();
  });

  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(ir, ParserConfig(&ctx), "graph");
  if (!module)
    return nullptr;
  timer.done("parse");
  graph->impl->probes.addSites(module->getOperation());

  // The state the code will take as arguments.
  llvm::StringMap<StateBuffer> stateData;
  if (options.weightsAsArguments) {
    module->walk([&](StateOp state) {
      if (!state.getValue())
        return;
      auto type = dyn_cast<RankedTensorType>(state.getType());
      if (!type)
        return;
      size_t elementSize =
          getDTypeSize(getElementDTypeName(type.getElementType()));
      StateBuffer buffer;
      buffer.shape.assign(type.getShape().begin(), type.getShape().end());
      size_t bytes = elementSize * type.getNumElements();
      Attribute value = *state.getValue();
      auto dense = dyn_cast<DenseElementsAttr>(value);
      if (dense && dense.isSplat() && type.getElementType().isInteger(1)) {
        buffer.bytes.assign(bytes, dense.getSplatValue<bool>() ? 1 : 0);
      } else if (dense && dense.isSplat()) {
        ArrayRef<char> raw = dense.getRawData();
        for (int64_t i = 0; i < type.getNumElements(); ++i)
          buffer.bytes.insert(buffer.bytes.end(), raw.begin(),
                              raw.begin() + elementSize);
      } else {
        ArrayRef<char> data = getElementsData(value);
        buffer.bytes.assign(data.begin(), data.end());
      }
      if (buffer.bytes.size() == bytes)
        stateData[state.getSymName()] = std::move(buffer);
    });
  }

  // Stage 1: to linalg on tensors, where the signature is read.
  FXToLLVMPipelineOptions pipeline;
  pipeline.weightsAsArguments = options.weightsAsArguments;
  pipeline.dynamicBatch = options.dynamicBatch;
  pipeline.normalize = options.normalize;
  PassManager toLinalg(&ctx);
  if (failed(parsePassPipeline(getFXToLinalgPipeline(pipeline), toLinalg)) ||
      failed(toLinalg.run(*module)))
    return nullptr;
  timer.done("fx to linalg");
  auto func = module->lookupSymbol<func::FuncOp>("forward");
  if (!func) {
    errors << "error: the compiled module has no forward function\n";
    return nullptr;
  }
  FunctionType type = func.getFunctionType();
  for (unsigned i = 0; i < type.getNumInputs(); ++i) {
    if (auto state = func.getArgAttrOfType<StringAttr>(i, "fx.state")) {
      auto it = stateData.find(state.getValue());
      if (it == stateData.end()) {
        errors << "error: state '" << state.getValue()
               << "' has no value to pass\n";
        return nullptr;
      }
      graph->impl->states.push_back(it->second);
      continue;
    }
    graph->inputs.push_back(
        specOf(type.getInput(i), "input " + std::to_string(i)));
    if (graph->inputs.back().dtype.empty()) {
      errors << "error: unsupported input type " << describe(type.getInput(i))
             << "\n";
      return nullptr;
    }
  }
  for (unsigned i = 0; i < type.getNumResults(); ++i) {
    graph->outputs.push_back(
        specOf(type.getResult(i), "output " + std::to_string(i)));
    if (graph->outputs.back().dtype.empty() ||
        !getDTypeSize(graph->outputs.back().dtype)) {
      errors << "error: unsupported output type " << describe(type.getResult(i))
             << "\n";
      return nullptr;
    }
  }
  if (auto bounds = func->getAttrOfType<ArrayAttr>("fx.index_bounds")) {
    for (auto bound : bounds.getAsRange<DictionaryAttr>()) {
      auto input = bound.getAs<IntegerAttr>("input");
      auto lo = bound.getAs<IntegerAttr>("lo");
      auto hi = bound.getAs<IntegerAttr>("hi");
      auto node = bound.getAs<StringAttr>("node");
      if (input && lo && hi && node && input.getInt() >= 0 &&
          uint64_t(input.getInt()) < graph->inputs.size())
        graph->inputs[input.getInt()].bounds.push_back(
            {lo.getInt(), hi.getInt(), node.getValue().str()});
    }
  }
  if (auto structure = func->getAttr("fx.output")) {
    llvm::raw_string_ostream os(graph->outputStructure);
    os << structure;
  }

  // Stage 2: to LLVM.
  PassManager toLLVM(&ctx);
  if (failed(
          parsePassPipeline(getLinalgToLLVMPipeline(target->name), toLLVM)) ||
      failed(toLLVM.run(*module)))
    return nullptr;
  graph->impl->constants->takeFrom(*module);
  timer.done("linalg to llvm dialect");

  // LLVM IR for the host CPU with its features, compiled at optLevel on
  // every core, into a JIT.
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) {
    errors << "error: " << llvm::toString(builder.takeError()) << "\n";
    return nullptr;
  }
  if (target->name != "host") {
    // A named target: its CPU and that CPU's features (x86-64-v3 code on
    // an AVX-512 host uses AVX2 only).
    builder = llvm::orc::JITTargetMachineBuilder(llvm::Triple(target->triple));
    builder->setCPU(target->cpu);
  }
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  // Position-independent, so that the cache can link it into a shared
  // object.
  builder->setRelocationModel(llvm::Reloc::PIC_);
  auto machine = builder->createTargetMachine();
  if (!machine) {
    errors << "error: " << llvm::toString(machine.takeError()) << "\n";
    return nullptr;
  }
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> &objects =
      graph->impl->objects;
  {
    llvm::LLVMContext llvmContext;
    std::unique_ptr<llvm::Module> llvmModule =
        translateModuleToLLVMIR(*module, llvmContext);
    if (!llvmModule)
      return nullptr;
    llvmModule->setDataLayout((*machine)->createDataLayout());
    llvmModule->setTargetTriple((*machine)->getTargetTriple());
    if (!addPackedEntry(*llvmModule, kForward)) {
      errors << "error: the compiled module has no forward function\n";
      return nullptr;
    }
    timer.done("translate to LLVM IR");
    auto compiled =
        compileToObjects(*llvmModule, *builder, options.optLevel,
                         llvm::hardware_concurrency().compute_thread_count());
    if (!compiled) {
      errors << "error: " << llvm::toString(compiled.takeError()) << "\n";
      return nullptr;
    }
    objects = std::move(*compiled);
  }
  timer.done("optimize and compile LLVM IR");
  std::unique_ptr<llvm::orc::LLJIT> jit = makeJIT();
  if (!jit) {
    errors << "error: cannot make a JIT for the host\n";
    return nullptr;
  }
  for (const std::unique_ptr<llvm::MemoryBuffer> &object : objects) {
    // Not the JIT's to own: the cache stores the objects after linking.
    if (llvm::Error e = jit->addObjectFile(llvm::MemoryBuffer::getMemBuffer(
            object->getMemBufferRef(), /*RequiresNullTerminator=*/false))) {
      errors << "error: " << llvm::toString(std::move(e)) << "\n";
      return nullptr;
    }
  }
  std::string why;
  graph->impl->entry = linkEntry(*jit, *graph->impl->constants, why);
  if (!graph->impl->entry) {
    errors << "error: " << why << "\n";
    return nullptr;
  }
  graph->impl->jit = std::move(jit);
  timer.done("link in the JIT");
  graph->impl->dynamicBatch = options.dynamicBatch;
  if (!key.empty() && !graph->impl->probes.hasSites()) {
    graph->storeInCache(options.cacheDir, key);
    timer.done("store in the cache");
  }
  objects.clear();
  module = nullptr;
  handler.reset();
  graph->impl->context.reset();
  // Hand the compiler's freed memory (IR, weight blobs, LLVM modules)
  // back to the system instead of keeping it in malloc's free lists.
  malloc_trim(0);
  timer.done("free the compiler's memory");
  return graph;
}

bool CompiledGraph::loadFromCache(StringRef dir, StringRef key) {
  // The code: a shared object, or object code where it was not linked.
  std::string libraryPath = cachePath(dir, key, ".so");
  std::string objectPath = cachePath(dir, key, ".o");
  bool linked = llvm::sys::fs::exists(libraryPath);
  // The signature: one line per input and output, then the structure.
  auto meta = llvm::MemoryBuffer::getFile(cachePath(dir, key, ".meta"));
  if (!meta || (!linked && !llvm::sys::fs::exists(objectPath)))
    return false;
  // The last line is the digest of everything before it: an edited,
  // truncated or swapped line fails it. Each file of the entry has its
  // digest in the signature, checked before it is loaded or mapped, so a
  // corrupted entry is compiled again (and replaced), never run.
  StringRef text = (*meta)->getBuffer();
  StringRef body = text.rtrim('\n');
  size_t lastLine = body.rfind('\n');
  if (lastLine == StringRef::npos ||
      body.substr(lastLine + 1) !=
          "digest " + digest(text.take_front(lastLine + 1)))
    return false;
  SmallVector<StringRef> lines;
  text.take_front(lastLine + 1).split(lines, '\n', -1, false);
  if (lines.empty() || lines.front() != "fx-mlir-cache 4")
    return false;
  llvm::StringMap<std::string> digests;
  std::vector<std::pair<size_t, IndexBound>> pendingBounds;
  size_t objectCount = 1;
  std::vector<TensorSpec> ins, outs;
  std::string structure;
  auto table = std::make_unique<ConstantTable>();
  ConstantTable &constants = *table;
  for (StringRef line : llvm::drop_begin(lines)) {
    auto [kind, rest] = line.split(' ');
    if (kind == "structure") {
      structure = rest.str();
      continue;
    }
    if (kind == "objects") {
      if (rest.getAsInteger(10, objectCount) || objectCount == 0)
        return false;
      continue;
    }
    if (kind == "bound") {
      auto [inputText, rest2] = rest.split(' ');
      auto [loText, rest3] = rest2.split(' ');
      auto [hiText, node] = rest3.split(' ');
      size_t input;
      IndexBound bound;
      if (inputText.getAsInteger(10, input) ||
          loText.getAsInteger(10, bound.lo) ||
          hiText.getAsInteger(10, bound.hi) || node.empty())
        return false;
      bound.node = node.str();
      pendingBounds.emplace_back(input, std::move(bound));
      continue;
    }
    if (kind == "file") {
      auto [name, fileDigest] = rest.split(' ');
      digests[name] = fileDigest.str();
      continue;
    }
    if (kind == "constant") {
      SmallVector<StringRef> fields;
      rest.split(fields, ' ');
      ConstantTable::Entry entry;
      if (fields.size() != 3 || fields[1].getAsInteger(10, entry.offset) ||
          fields[2].getAsInteger(10, entry.size))
        return false;
      entry.slot = fields[0].str();
      constants.entries.push_back(std::move(entry));
      continue;
    }
    if (kind != "input" && kind != "output")
      return false;
    SmallVector<StringRef> fields;
    rest.split(fields, ' ');
    size_t rank;
    if (fields.size() < 2 || fields[1].getAsInteger(10, rank) ||
        fields.size() != rank + 2)
      return false;
    std::vector<TensorSpec> &list = kind == "input" ? ins : outs;
    TensorSpec spec{
        (kind + " " + std::to_string(list.size())).str(), fields[0].str(), {}};
    for (StringRef d : llvm::drop_begin(fields, 2)) {
      int64_t size;
      if (d.getAsInteger(10, size))
        return false;
      spec.shape.push_back(size);
    }
    list.push_back(std::move(spec));
  }
  for (auto &[input, bound] : pendingBounds) {
    if (input >= ins.size())
      return false;
    ins[input].bounds.push_back(std::move(bound));
  }
  auto verified = [&](StringRef extension, const std::string &path) {
    auto it = digests.find(extension);
    return it != digests.end() && fileHasDigest(path, it->second);
  };
  if (linked ? !verified(".so", libraryPath)
             : !llvm::all_of(llvm::seq<size_t>(0, objectCount), [&](size_t i) {
                 return verified(".o" + std::to_string(i),
                                 objectPartPath(objectPath, i));
               }))
    return false;
  if (!constants.entries.empty()) {
    if (!constants.map(cachePath(dir, key, ".weights")))
      return false;
    auto it = digests.find(".weights");
    if (it == digests.end() ||
        digest(StringRef(constants.data, constants.size)) != it->second)
      return false;
    for (const ConstantTable::Entry &entry : constants.entries)
      if (entry.offset > constants.size ||
          entry.size > constants.size - entry.offset)
        return false;
  }
  if (linked) {
    std::shared_ptr<SharedCode> code =
        loadSharedCode(libraryPath, std::move(table));
    if (!code)
      return false;
    impl->entry = code->entry;
    impl->constants = code->constants;
    impl->shared = std::move(code);
  } else {
    std::unique_ptr<llvm::orc::LLJIT> jit =
        loadObjects(objectPath, objectCount);
    if (!jit)
      return false;
    std::string why;
    impl->entry = linkEntry(*jit, constants, why);
    if (!impl->entry)
      return false;
    impl->jit = std::move(jit);
    impl->constants = std::move(table);
  }
  impl->fromCache = true;
  inputs = std::move(ins);
  outputs = std::move(outs);
  outputStructure = std::move(structure);
  return true;
}

void CompiledGraph::storeInCache(StringRef dir, StringRef key) {
  if (llvm::sys::fs::create_directories(dir))
    return;
  // The code: linked into a shared object if a linker is there (loading
  // it needs no LLVM), else the object code.
  std::string objectPath = cachePath(dir, key, ".o");
  std::string libraryPath = cachePath(dir, key, ".so");
  std::string suffix =
      ".tmp" + std::to_string(llvm::sys::Process::getProcessId());
  // The objects are written under temporary names, then linked into the
  // shared object or renamed into place.
  std::vector<std::string> temps;
  for (size_t i = 0; i < impl->objects.size(); ++i) {
    temps.push_back(objectPartPath(objectPath, i) + suffix);
    if (!writeAtomically(temps.back(), impl->objects[i]->getBuffer())) {
      for (const std::string &temp : temps)
        llvm::sys::fs::remove(temp);
      return;
    }
  }
  std::string libraryTemp = libraryPath + suffix;
  bool linked = linkSharedObject(temps, libraryTemp);
  std::error_code moved;
  if (linked)
    moved = llvm::sys::fs::rename(libraryTemp, libraryPath);
  for (size_t i = 0; i < temps.size() && !linked && !moved; ++i)
    moved = llvm::sys::fs::rename(temps[i], objectPartPath(objectPath, i));
  for (const std::string &temp : temps)
    llvm::sys::fs::remove(temp);
  if (moved) {
    llvm::sys::fs::remove(libraryTemp);
    return;
  }
  const ConstantTable &constants = *impl->constants;
  if (!constants.entries.empty() &&
      !writeAtomically(cachePath(dir, key, ".weights"),
                       StringRef(constants.data, constants.size)))
    return;
  // The signature last: its presence means the entry is complete. It holds
  // the digest of every file of the entry and, last, its own.
  std::string meta = "fx-mlir-cache 4\n";
  llvm::raw_string_ostream os(meta);
  if (!linked)
    os << "objects " << impl->objects.size() << '\n';
  if (linked) {
    auto library =
        llvm::MemoryBuffer::getFile(libraryPath, /*IsText=*/false,
                                    /*RequiresNullTerminator=*/false);
    if (!library)
      return;
    os << "file .so " << digest((*library)->getBuffer()) << '\n';
  } else {
    for (size_t i = 0; i < impl->objects.size(); ++i)
      os << "file .o" << i << ' ' << digest(impl->objects[i]->getBuffer())
         << '\n';
  }
  if (!constants.entries.empty())
    os << "file .weights " << digest(StringRef(constants.data, constants.size))
       << '\n';
  for (const TensorSpec &spec : inputs)
    printSpec(os, "input", spec);
  for (auto [i, spec] : llvm::enumerate(inputs))
    for (const IndexBound &bound : spec.bounds)
      os << "bound " << i << ' ' << bound.lo << ' ' << bound.hi << ' '
         << bound.node << '\n';
  for (const TensorSpec &spec : outputs)
    printSpec(os, "output", spec);
  for (const ConstantTable::Entry &entry : constants.entries)
    os << "constant " << entry.slot << ' ' << entry.offset << ' ' << entry.size
       << '\n';
  os << "structure " << outputStructure << '\n';
  std::string metaDigest = digest(meta);
  os << "digest " << metaDigest << '\n';
  writeAtomically(cachePath(dir, key, ".meta"), meta);
}

bool CompiledGraph::isFromCache() const { return impl->fromCache; }

void mlir::fx::setNumThreads(int threads) {
  // LLVM's libomp, not the libgomp PyTorch may have loaded: dlsym on its
  // own handle.
  static void *library = dlopen(kOpenMP, RTLD_NOW | RTLD_GLOBAL);
  if (!library)
    return;
  if (auto set = reinterpret_cast<void (*)(int)>(
          dlsym(library, "omp_set_num_threads")))
    set(std::max(threads, 1));
}

bool CompiledGraph::checkInputs(ArrayRef<TensorRef> args,
                                std::string &error) const {
  if (args.size() != inputs.size()) {
    error = "expected " + std::to_string(inputs.size()) + " inputs, got " +
            std::to_string(args.size());
    return false;
  }
  int64_t batch = -1;
  for (auto [i, arg, spec] : llvm::enumerate(args, inputs)) {
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
    for (auto [d, size] : llvm::enumerate(arg.shape)) {
      int64_t expected = spec.shape[d];
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
        llvm::all_of(arg.shape, [](int64_t s) { return s > 0; })) {
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
bool CompiledGraph::checkIndices(const TensorRef &arg, const TensorSpec &spec,
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

bool CompiledGraph::run(ArrayRef<TensorRef> args,
                        std::vector<OwnedTensor> &results, std::string &error) {
  if (!checkInputs(args, error))
    return false;
  // Descriptors of the inputs and state, end to end (no allocation for a
  // small graph: this is the per-call path).
  SmallVector<int64_t, 64> words;
  SmallVector<size_t, 8> starts;
  SmallVector<std::pair<char *, char *>, 8> foreign; // buffers we do not own
  auto addDescriptor = [&](void *data, ArrayRef<int64_t> shape) {
    starts.push_back(words.size());
    words.push_back(reinterpret_cast<int64_t>(data));
    words.push_back(reinterpret_cast<int64_t>(data));
    words.push_back(0);
    size_t at = words.size();
    words.append(2 * shape.size(), 0);
    int64_t stride = 1;
    for (int64_t i = shape.size() - 1; i >= 0; --i) {
      words[at + i] = shape[i];
      words[at + shape.size() + i] = stride;
      stride *= shape[i];
    }
  };
  for (const TensorRef &arg : args) {
    addDescriptor(arg.data, arg.shape);
    size_t bytes = getDTypeSize(arg.dtype);
    for (int64_t s : arg.shape)
      bytes *= s;
    foreign.push_back(
        {static_cast<char *>(arg.data), static_cast<char *>(arg.data) + bytes});
  }
  for (StateBuffer &state : impl->states) {
    addDescriptor(state.bytes.data(), state.shape);
    foreign.push_back(
        {state.bytes.data(), state.bytes.data() + state.bytes.size()});
  }
  size_t resultWords = 0;
  for (const TensorSpec &spec : outputs)
    resultWords += 3 + 2 * spec.shape.size();
  SmallVector<int64_t, 32> resultBuffer(resultWords);
  void *resultPtr = resultBuffer.data();
  SmallVector<void *, 16> descriptorPtrs;
  for (size_t start : starts)
    descriptorPtrs.push_back(words.data() + start);
  SmallVector<void *, 16> packed = {&resultPtr};
  for (void *&p : descriptorPtrs)
    packed.push_back(&p);
  ProbeTable *&active = getActiveProbeTable();
  ProbeTable *outer = active;
  active = &impl->probes;
  impl->probes.clearFailure();
  {
    // The code's buffers live in one workspace (fx-cpu-plan-workspace):
    // one call at a time.
    std::lock_guard<std::mutex> lock(impl->running);
    impl->entry(packed.data());
  }
  active = outer;

  results.clear();
  results.reserve(outputs.size());
  size_t at = 0;
  SmallVector<void *, 4> claimed;
  for (const TensorSpec &spec : outputs) {
    size_t rank = spec.shape.size();
    char *allocated = reinterpret_cast<char *>(resultBuffer[at]);
    char *aligned = reinterpret_cast<char *>(resultBuffer[at + 1]);
    int64_t offset = resultBuffer[at + 2];
    ArrayRef<int64_t> shape(resultBuffer.data() + at + 3, rank);
    ArrayRef<int64_t> strides(resultBuffer.data() + at + 3 + rank, rank);
    at += 3 + 2 * rank;
    size_t elementSize = getDTypeSize(spec.dtype);
    char *data = aligned + offset * elementSize;
    // The code returns fresh buffers, except when an output is an input, a
    // weight or a constant (0xdeadbeef: a global), or two outputs share
    // one buffer: those are copied, so every result is owned once.
    bool owned = allocated != reinterpret_cast<char *>(0xdeadbeef) &&
                 !llvm::is_contained(claimed, allocated) &&
                 llvm::none_of(foreign, [&](auto range) {
                   return allocated >= range.first && allocated < range.second;
                 });
    int64_t count = 1;
    bool contiguous = true;
    for (int64_t i = rank - 1, expect = 1; i >= 0; --i) {
      count *= shape[i];
      contiguous &= shape[i] == 1 || strides[i] == expect;
      expect *= shape[i];
    }
    OwnedTensor result;
    result.dtype = spec.dtype;
    result.shape.assign(shape.begin(), shape.end());
    if (owned && contiguous) {
      claimed.push_back(allocated);
      result.allocation = allocated;
      result.data = data;
    } else {
      char *copy = static_cast<char *>(
          std::malloc(std::max<size_t>(count * elementSize, 1)));
      std::vector<int64_t> index(rank, 0);
      for (int64_t n = 0; n < count; ++n) {
        int64_t source = 0;
        for (size_t i = 0; i < rank; ++i)
          source += index[i] * strides[i];
        std::memcpy(copy + n * elementSize, data + source * elementSize,
                    elementSize);
        for (int64_t i = rank - 1; i >= 0; --i) {
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
  if (std::optional<std::string> failure = impl->probes.getFailure()) {
    for (OwnedTensor &result : results)
      std::free(result.allocation);
    results.clear();
    error = "nan-check: " + *failure;
    return false;
  }
  return true;
}

ProbeTable &CompiledGraph::getProbes() { return impl->probes; }
