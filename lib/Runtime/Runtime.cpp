//===- Runtime.cpp - JIT-compile and run fx graphs on the CPU -------------===//
//
// The compile driver (library FXRuntime): fx graph module -> object code
// (fx-to-llvm, LLVM on every core), the code cache, the JIT, and
// ahead-of-time libraries. Loading and calling compiled code is the
// runtime core's (Executable.h), which has no LLVM in it.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Runtime/Runtime.h"
#include "LibraryHeader.h"
#include "OutputStructure.h"
#include "fx-mlir/Conversion/LinalgToCPU/CPUTarget.h"
#include "fx-mlir/Conversion/Passes.h"
#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Dialect/FX/IR/FXDialect.h"
#include "fx-mlir/Dialect/FX/IR/FXOps.h"
#include "fx-mlir/Dialect/FX/Transforms/Passes.h"
#include "fx-mlir/Runtime/Probes.h"
#include "fx-mlir/Support/ParseText.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinDialect.h"
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
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/SectionMemoryManager.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
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

namespace {
/// Where the MLIR C runner utilities (memrefCopy) live.
constexpr const char *kRunnerUtils = FX_MLIR_RUNNER_UTILS;
/// LLVM's OpenMP runtime, which runs the scf.forall loops of the schedule
/// on threads.
constexpr const char *kOpenMP = FX_MLIR_OPENMP;
/// The C interface of the compiled forward function, and the packed entry
/// the runtime calls (addPackedEntry): one pointer to every argument.
constexpr const char *kForward = "_mlir_ciface_forward";

//===----------------------------------------------------------------------===//
// Crash recovery
//===----------------------------------------------------------------------===//

/// The message of the last LLVM fatal error on this thread.
thread_local std::string lastFatalError;

/// Runs `step`, a part of compiling, so that an LLVM fatal error
/// (`report_fatal_error`) or a crash inside it (an assertion, a signal)
/// ends the step and not the process: the process embedding the compiler
/// (Python's) must survive what the compiler cannot handle. Returns false,
/// with the reason in `reason`, when the step did not finish; what it had
/// allocated is leaked. Outside such a step, LLVM's fatal errors and
/// signals behave as they always do. `FX_MLIR_TEST_FATAL_ERROR=<where>`
/// makes the named step (`lower`, `codegen`) fail this way, for the tests.
bool runRecoverably(llvm::function_ref<void()> step, std::string &reason) {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::install_fatal_error_handler([](void *, const char *message, bool) {
      lastFatalError = message;
      // Outside a recoverable step LLVM exits next: say why, as LLVM would.
      if (!llvm::CrashRecoveryContext::GetCurrent())
        llvm::errs() << "LLVM ERROR: " << message << "\n";
    });
  });
  // A signal outside a recovering thread disables recovery (and is
  // raised again): enable it for every step.
  llvm::CrashRecoveryContext::Enable();
  lastFatalError.clear();
  llvm::CrashRecoveryContext context;
  if (context.RunSafely(step))
    return true;
  reason =
      !lastFatalError.empty()
          ? "LLVM fatal error: " + lastFatalError
          : "the compiler crashed (signal " +
                std::to_string(context.RetCode > 128 ? context.RetCode - 128
                                                     : context.RetCode) +
                ")";
  return false;
}

/// Fails the step `where` as an LLVM fatal error would, when
/// FX_MLIR_TEST_FATAL_ERROR names it (see runRecoverably).
void injectFatalError(StringRef where) {
  if (const char *step = std::getenv("FX_MLIR_TEST_FATAL_ERROR"))
    if (where == step)
      llvm::report_fatal_error(
          llvm::Twine("injected by FX_MLIR_TEST_FATAL_ERROR=") + where);
}

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

/// The cache key: hashes of the IR, the weights handed over as blobs (key,
/// size, content) and the options with the compiler's identity and the
/// CPU target the code is generated for, in hex.
std::string cacheKey(StringRef ir, ArrayRef<ExternalBlob> blobs,
                     const CompileOptions &options, const CPUTarget &target) {
  static const std::string identity = compilerIdentity();
  std::string settings;
  llvm::raw_string_ostream os(settings);
  os << options.dynamicBatch << options.normalize << options.optLevel << ' '
     << identity << ' ' << target.describe();
  for (const ExternalBlob &blob : blobs)
    os << " blob " << blob.key.size() << ':' << blob.key << ' ' << blob.size
       << ' ' << blob.alignment << ' ' << hashBytes(blob.data, blob.size);
  llvm::XXH128_hash_t code =
      llvm::xxh3_128bits(llvm::arrayRefFromStringRef(ir));
  uint64_t rest = llvm::xxh3_64bits(settings);
  return llvm::utohexstr(code.high64, true, 16) +
         llvm::utohexstr(code.low64, true, 16) +
         llvm::utohexstr(rest, true, 16);
}

/// Maps options.cacheAlias to the entry `key` when the entry's code is a
/// shared object (the runtime core cannot load object code).
void aliasEntry(const CompileOptions &options, StringRef key) {
  if (options.cacheAlias.empty() ||
      !llvm::sys::fs::exists(cacheFilePath(options.cacheDir, key.str(), ".so")))
    return;
  writeCacheAlias(options.cacheDir, options.cacheAlias, key.str());
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

/// Moves the large constant globals of `module` (LLVM dialect: the
/// weights) out of it, into `table`: translating 47 MB of weights into
/// LLVM constants, emitting them and linking them took more than a third
/// of resnet18's compile time and held extra copies. Each such global
/// becomes a pointer slot (a small global of the code) that the code
/// loads its address from; the loader fills the slots (ConstantTable).
void takeConstants(ModuleOp module, ConstantTable &table) {
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
  table.size = llvm::alignTo(total, 64);
  table.data = static_cast<char *>(std::aligned_alloc(64, table.size));
  table.storage = ConstantTable::Storage::Heap;
  llvm::StringMap<SmallVector<LLVM::AddressOfOp>> addresses;
  module.walk([&](LLVM::AddressOfOp op) {
    addresses[op.getGlobalName()].push_back(op);
  });
  OpBuilder builder(module.getContext());
  auto pointer = LLVM::LLVMPointerType::get(module.getContext());
  uint64_t offset = 0;
  for (auto [global, bytes] : globals) {
    offset = llvm::alignTo(offset, 64);
    std::memcpy(table.data + offset, bytes.data(), bytes.size());
    std::string slotName = (global.getSymName() + "__fx_address").str();
    table.entries.push_back({slotName, offset, bytes.size()});
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
/// the shared object `libraryPath`, with `extraArgs` after them (libraries
/// the code names, a run path); false if there is no linker or it fails
/// within `seconds`. Undefined symbols not in `extraArgs` (libc's, and for
/// the cache libomp's and the runner utilities') are left to the dynamic
/// loader, which finds them in the libraries loadSharedCode loads first.
/// With `quiet`, the linker's output is discarded (a cache that cannot
/// link keeps the object files instead); otherwise it shows on stderr.
bool linkSharedObject(ArrayRef<std::string> objectPaths, StringRef libraryPath,
                      ArrayRef<StringRef> extraArgs = {}, bool quiet = true,
                      unsigned seconds = 60) {
  std::optional<std::string> linker = findLinker();
  if (!linker)
    return false;
  std::string output = libraryPath.str();
  SmallVector<StringRef> args = {*linker,       "-shared",          "-z",
                                 "noexecstack", "--hash-style=gnu", "-o",
                                 output};
  args.append(objectPaths.begin(), objectPaths.end());
  args.append(extraArgs.begin(), extraArgs.end());
  std::optional<StringRef> silent[] = {StringRef(""), StringRef(""),
                                       StringRef("")};
  ArrayRef<std::optional<StringRef>> redirects;
  if (quiet)
    redirects = silent;
  int status = llvm::sys::ExecuteAndWait(*linker, args, std::nullopt, redirects,
                                         seconds);
  if (status != 0) {
    llvm::sys::fs::remove(output);
    return false;
  }
  return true;
}

/// The MLIR C runner utilities in the global scope, where the dynamic
/// loader finds them for cached shared objects that call them (the JIT
/// links against them itself).
bool loadRunnerUtils() {
  static void *library = dlopen(kRunnerUtils, RTLD_NOW | RTLD_GLOBAL);
  return library != nullptr;
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
    injectFatalError("codegen");
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
    llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> object = nullptr;
    std::string reason;
    if (!runRecoverably([&] { object = compile(module); }, reason))
      return llvm::createStringError(reason);
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
    // Each part recovers on its own thread (a fatal error in LLVM's code
    // generator fails the compile, not the process).
    std::string reason;
    bool finished = runRecoverably(
        [&] {
          llvm::LLVMContext context;
          auto part = llvm::parseBitcodeFile(
              llvm::MemoryBufferRef(
                  StringRef(bitcode[i].data(), bitcode[i].size()), "part"),
              context);
          llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> object =
              part ? compile(**part) : part.takeError();
          if (object)
            objects[i] = std::move(*object);
          else
            failures[i] = object.takeError();
        },
        reason);
    if (!finished)
      failures[i] = llvm::createStringError(reason);
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
  // Each distinct message once (every part may fail the same way).
  std::vector<std::string> messages;
  for (std::optional<llvm::Error> &failure : failures)
    if (failure) {
      std::string message = llvm::toString(std::move(*failure));
      if (!llvm::is_contained(messages, message))
        messages.push_back(std::move(message));
    }
  if (!messages.empty())
    return llvm::createStringError(llvm::join(messages, "\n"));
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
void (*linkPackedEntry(llvm::orc::LLJIT &jit, const ConstantTable &constants,
                       std::string &error))(void **) {
  auto entry = jit.lookup(kPackedEntry);
  if (!entry) {
    error = llvm::toString(entry.takeError());
    return nullptr;
  }
  if (!constants.fillSlots([&](const std::string &name) -> void * {
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
  spec.dtype =
      getElementDTypeName(getStorageElementType(tensor.getElementType())).str();
  for (int64_t d : tensor.getShape())
    spec.shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
  return spec;
}

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

/// The CPU target `options` name, if the host can run its code; else
/// none, with why in `errors`.
std::optional<CPUTarget> lookupTarget(const CompileOptions &options,
                                      llvm::raw_ostream &errors) {
  std::optional<CPUTarget> target = CPUTarget::lookup(options.cpu);
  if (!target) {
    errors << "error: unknown CPU target '" << options.cpu
           << "': use host or one of "
           << llvm::join(CPUTarget::knownNames(), ", ") << "\n";
    return std::nullopt;
  }
  if (!target->runsOnHost()) {
    errors << "error: code for the CPU target '" << target->name
           << "' does not run on this host (" << CPUTarget::host().cpu
           << "); use host or a target this CPU has the features of\n";
    return std::nullopt;
  }
  return target;
}

/// The machine code generator for `target`: the host CPU with its
/// features, or a named target's CPU and features (x86-64-v3 code on an
/// AVX-512 host uses AVX2 only); position-independent code, so that it
/// links into a shared object.
llvm::Expected<llvm::orc::JITTargetMachineBuilder>
machineBuilder(const CPUTarget &target) {
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return builder.takeError();
  if (target.name != "host") {
    builder = llvm::orc::JITTargetMachineBuilder(llvm::Triple(target.triple));
    builder->setCPU(target.cpu);
  }
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  builder->setRelocationModel(llvm::Reloc::PIC_);
  return builder;
}

/// What the compiler makes of an fx graph module.
struct CompiledCode {
  std::vector<TensorSpec> inputs, outputs;
  std::vector<RunCheck> checks;
  std::string outputStructure;
  std::vector<StateBuffer> states;
  std::shared_ptr<ConstantTable> constants = std::make_shared<ConstantTable>();
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects;
};

/// Compiles the fx graph module `ir` for `target` into object code: the
/// fx-to-llvm pipeline, the weights moved out to a constant table, LLVM
/// on every core. Records probe sites in `probes` when given. False, with
/// the diagnostics in `errors`, on failure.
bool compileCode(StringRef ir, ArrayRef<ExternalBlob> blobs,
                 const CompileOptions &options, const CPUTarget &target,
                 CompiledCode &code, ProbeTable *probes,
                 llvm::raw_ostream &errors, PhaseTimer &timer) {
  initializeTarget();
  registerCompilerPasses();
  MLIRContext ctx;
  DialectRegistry registry;
  registerCompilerDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerOpenMPDialectTranslation(registry);
  ctx.appendDialectRegistry(registry);
  ctx.loadAllAvailableDialects();
  // fx-normalize warns of the nodes it leaves as they are, saying why; an
  // error at such a node later (no lowering) is followed by that reason.
  llvm::StringMap<std::string> leftAsIs;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    std::string where;
    llvm::raw_string_ostream(where) << diag.getLocation();
    if (diag.getSeverity() == DiagnosticSeverity::Warning &&
        StringRef(diag.str()).starts_with("fx-normalize: "))
      leftAsIs[where] = diag.str();
    if (diag.getSeverity() != DiagnosticSeverity::Error)
      return success();
    errors << where << ": error: " << diag << "\n";
    if (auto it = leftAsIs.find(where); it != leftAsIs.end())
      errors << where << ": note: " << it->second << "\n";
    return success();
  });

  OwningOpRef<ModuleOp> module =
      fx::parseModuleText(ir, ParserConfig(&ctx), "graph");
  if (!module)
    return false;
  // The weights handed over as memory: the blobs of the dense resources
  // the text names (the parser declared them, without data).
  auto &resources = DenseResourceElementsHandle::getManagerInterface(&ctx);
  for (const ExternalBlob &blob : blobs) {
    if (!resources.getBlobManager().lookup(blob.key)) {
      errors << "error: the IR names no dense resource '" << blob.key
             << "' for the weights handed over under that key\n";
      return false;
    }
    resources.update(
        blob.key,
        UnmanagedAsmResourceBlob::allocateWithAlign(
            ArrayRef<char>(static_cast<const char *>(blob.data), blob.size),
            blob.alignment));
  }
  timer.done("parse");
  if (probes)
    probes->addSites(module->getOperation());

  // Stage 1: to linalg on tensors, where the signature is read; first the
  // passes on the graph module, whose state is what the code reads.
  FXToLLVMPipelineOptions pipeline;
  pipeline.weightsAsArguments = options.weightsAsArguments;
  pipeline.dynamicBatch = options.dynamicBatch;
  pipeline.normalize = options.normalize;
  // The target decides what fx-fold-quant keeps in integers (int8 convs
  // only where the target, not just the host, has VNNI).
  pipeline.cpu = options.cpu;
  PassManager normalize(&ctx), toLinalg(&ctx);
  std::string normalizeText = getFXNormalizePipeline(pipeline);
  if (!normalizeText.empty() &&
      (failed(parsePassPipeline(normalizeText, normalize)) ||
       failed(normalize.run(*module))))
    return false;
  // The state the code will take as arguments (fx-fold-quant's dequantized
  // weights among them).
  llvm::StringMap<StateBuffer> stateData;
  if (options.weightsAsArguments) {
    module->walk([&](StateOp state) {
      if (!state.getValue())
        return;
      auto type = dyn_cast<RankedTensorType>(state.getType());
      if (!type)
        return;
      size_t elementSize = getDTypeSize(
          getElementDTypeName(getStorageElementType(type.getElementType())));
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

  if (failed(parsePassPipeline(getFXConvertPipeline(pipeline), toLinalg)) ||
      failed(toLinalg.run(*module)))
    return false;
  timer.done("fx to linalg");
  auto func = module->lookupSymbol<func::FuncOp>("forward");
  if (!func) {
    errors << "error: the compiled module has no forward function\n";
    return false;
  }
  FunctionType type = func.getFunctionType();
  for (unsigned i = 0; i < type.getNumInputs(); ++i) {
    if (auto state = func.getArgAttrOfType<StringAttr>(i, "fx.state")) {
      auto it = stateData.find(state.getValue());
      if (it == stateData.end()) {
        errors << "error: state '" << state.getValue()
               << "' has no value to pass\n";
        return false;
      }
      code.states.push_back(it->second);
      continue;
    }
    code.inputs.push_back(
        specOf(type.getInput(i), "input " + std::to_string(i)));
    // uint8 tensors are passed as i8 bytes (convert-fx-to-linalg).
    if (auto dtype = func.getArgAttrOfType<StringAttr>(i, "fx.dtype"))
      code.inputs.back().dtype = dtype.str();
    code.inputs.back().quantization = inputQuantizationJSON(func, i);
    if (code.inputs.back().dtype.empty()) {
      errors << "error: unsupported input type " << describe(type.getInput(i))
             << "\n";
      return false;
    }
  }
  // The last results are the flags of the code's run-time checks
  // (fx.checks: node and message of each, in order).
  auto checks = func->getAttrOfType<ArrayAttr>("fx.checks");
  unsigned numChecks = checks ? checks.size() : 0;
  if (numChecks > type.getNumResults()) {
    errors << "error: more checks than results\n";
    return false;
  }
  for (unsigned i = 0; i < numChecks; ++i) {
    auto check = dyn_cast<DictionaryAttr>(checks[i]);
    auto node = check ? check.getAs<StringAttr>("node") : StringAttr();
    auto message = check ? check.getAs<StringAttr>("message") : StringAttr();
    if (!node || !message) {
      errors << "error: malformed fx.checks entry\n";
      return false;
    }
    code.checks.push_back({node.str(), message.str()});
  }
  for (unsigned i = 0; i + numChecks < type.getNumResults(); ++i) {
    code.outputs.push_back(
        specOf(type.getResult(i), "output " + std::to_string(i)));
    if (auto dtype = func.getResultAttrOfType<StringAttr>(i, "fx.dtype"))
      code.outputs.back().dtype = dtype.str();
    if (code.outputs.back().dtype.empty() ||
        !getDTypeSize(code.outputs.back().dtype)) {
      errors << "error: unsupported output type " << describe(type.getResult(i))
             << "\n";
      return false;
    }
  }
  if (auto bounds = func->getAttrOfType<ArrayAttr>("fx.index_bounds")) {
    for (auto bound : bounds.getAsRange<DictionaryAttr>()) {
      auto input = bound.getAs<IntegerAttr>("input");
      auto lo = bound.getAs<IntegerAttr>("lo");
      auto hi = bound.getAs<IntegerAttr>("hi");
      auto node = bound.getAs<StringAttr>("node");
      if (input && lo && hi && node && input.getInt() >= 0 &&
          uint64_t(input.getInt()) < code.inputs.size())
        code.inputs[input.getInt()].bounds.push_back(
            {lo.getInt(), hi.getInt(), node.getValue().str()});
    }
  }
  if (func->getAttr("fx.output"))
    code.outputStructure = outputStructureJSON(func);

  // Stage 2: to LLVM.
  PassManager toLLVM(&ctx);
  if (failed(parsePassPipeline(getLinalgToLLVMPipeline(target.name), toLLVM)) ||
      failed(toLLVM.run(*module)))
    return false;
  injectFatalError("lower");
  takeConstants(*module, *code.constants);
  timer.done("linalg to llvm dialect");

  // LLVM IR for the target, compiled at optLevel on every core.
  auto builder = machineBuilder(target);
  if (!builder) {
    errors << "error: " << llvm::toString(builder.takeError()) << "\n";
    return false;
  }
  auto machine = builder->createTargetMachine();
  if (!machine) {
    errors << "error: " << llvm::toString(machine.takeError()) << "\n";
    return false;
  }
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*module, llvmContext);
  if (!llvmModule)
    return false;
  llvmModule->setDataLayout((*machine)->createDataLayout());
  llvmModule->setTargetTriple((*machine)->getTargetTriple());
  if (!addPackedEntry(*llvmModule, kForward)) {
    errors << "error: the compiled module has no forward function\n";
    return false;
  }
  module = nullptr;
  timer.done("translate to LLVM IR");
  auto compiled =
      compileToObjects(*llvmModule, *builder, options.optLevel,
                       llvm::hardware_concurrency().compute_thread_count());
  if (!compiled) {
    errors << "error: " << llvm::toString(compiled.takeError()) << "\n";
    return false;
  }
  code.objects = std::move(*compiled);
  timer.done("optimize and compile LLVM IR");
  return true;
}

/// compileCode under runRecoverably: an LLVM fatal error or a crash while
/// compiling is an "internal compiler error" in `errors`, not the end of
/// the process.
bool compileCodeRecoverably(StringRef ir, ArrayRef<ExternalBlob> blobs,
                            const CompileOptions &options,
                            const CPUTarget &target, CompiledCode &code,
                            ProbeTable *probes, llvm::raw_ostream &errors,
                            PhaseTimer &timer) {
  bool compiled = false;
  std::string reason;
  if (!runRecoverably(
          [&] {
            compiled = compileCode(ir, blobs, options, target, code, probes,
                                   errors, timer);
          },
          reason)) {
    errors << "error: internal compiler error: " << reason << "\n";
    return false;
  }
  return compiled;
}

/// Writes `objects` to the files `pathOf(i)` (temporary names) and returns
/// their paths; none if one cannot be written (those written are removed).
std::vector<std::string>
writeObjects(ArrayRef<std::unique_ptr<llvm::MemoryBuffer>> objects,
             llvm::function_ref<std::string(size_t)> pathOf) {
  std::vector<std::string> paths;
  for (size_t i = 0; i < objects.size(); ++i) {
    paths.push_back(pathOf(i));
    if (!writeAtomically(paths.back(), objects[i]->getBuffer())) {
      for (const std::string &path : paths)
        llvm::sys::fs::remove(path);
      return {};
    }
  }
  return paths;
}
} // namespace

//===----------------------------------------------------------------------===//
// CompiledGraph
//===----------------------------------------------------------------------===//

struct CompiledGraph::Impl {
  /// The code: in a JIT (compiled here, or object code from the cache
  /// where it could not be linked), or a shared object (the cache's, a
  /// library), which Executable::shared keeps.
  std::unique_ptr<llvm::orc::LLJIT> jit;
  /// The compiled object code, while the cache stores it.
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects;
  /// The constants of code in the JIT.
  std::shared_ptr<ConstantTable> constants = std::make_shared<ConstantTable>();
  Executable executable;
  bool fromCache = false;
  ProbeTable probes;
};

CompiledGraph::CompiledGraph() : impl(std::make_unique<Impl>()) {}
CompiledGraph::~CompiledGraph() = default;

ArrayRef<TensorSpec> CompiledGraph::getInputs() const {
  return impl->executable.inputs;
}
ArrayRef<TensorSpec> CompiledGraph::getOutputs() const {
  return impl->executable.outputs;
}
StringRef CompiledGraph::getOutputStructure() const {
  return impl->executable.outputStructure;
}

std::unique_ptr<CompiledGraph>
CompiledGraph::compile(StringRef ir, const CompileOptions &options,
                       std::string &error, ArrayRef<ExternalBlob> blobs) {
  std::unique_ptr<CompiledGraph> graph(new CompiledGraph());
  llvm::raw_string_ostream errors(error);
  PhaseTimer timer;
  std::optional<CPUTarget> target = lookupTarget(options, errors);
  if (!target)
    return nullptr;
  // The code cache: on a hit, the code and signature are loaded and the
  // compiler does not run (no MLIR context, no pass registration).
  std::string key;
  if (!options.cacheDir.empty() && !options.weightsAsArguments) {
    key = cacheKey(ir, blobs, options, *target);
    if (graph->loadFromCache(options.cacheDir, key)) {
      aliasEntry(options, key);
      // The cache key's hashing and the object's buffer were the last
      // large allocations: give their memory back.
      malloc_trim(0);
      timer.done("load from the cache");
      return graph;
    }
  }

  CompiledCode code;
  if (!compileCodeRecoverably(ir, blobs, options, *target, code,
                              &graph->impl->probes, errors, timer))
    return nullptr;
  Executable &executable = graph->impl->executable;
  executable.inputs = std::move(code.inputs);
  executable.outputs = std::move(code.outputs);
  executable.checks = std::move(code.checks);
  executable.outputStructure = std::move(code.outputStructure);
  executable.states = std::move(code.states);
  graph->impl->constants = code.constants;
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> &objects =
      graph->impl->objects;
  objects = std::move(code.objects);
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
  executable.entry = linkPackedEntry(*jit, *graph->impl->constants, why);
  if (!executable.entry) {
    errors << "error: " << why << "\n";
    return nullptr;
  }
  graph->impl->jit = std::move(jit);
  timer.done("link in the JIT");
  if (!key.empty() && !graph->impl->probes.hasSites()) {
    graph->storeInCache(options.cacheDir, key);
    aliasEntry(options, key);
    timer.done("store in the cache");
  }
  objects.clear();
  // Hand the compiler's freed memory (IR, weight blobs, LLVM modules)
  // back to the system instead of keeping it in malloc's free lists.
  malloc_trim(0);
  timer.done("free the compiler's memory");
  return graph;
}

std::unique_ptr<CompiledGraph> CompiledGraph::load(StringRef path,
                                                   std::string &error) {
  std::unique_ptr<Executable> executable =
      Executable::loadLibrary(path.str(), error);
  if (!executable)
    return nullptr;
  std::unique_ptr<CompiledGraph> graph(new CompiledGraph());
  Executable &target = graph->impl->executable;
  target.inputs = std::move(executable->inputs);
  target.outputs = std::move(executable->outputs);
  target.checks = std::move(executable->checks);
  target.outputStructure = std::move(executable->outputStructure);
  target.entry = executable->entry;
  target.shared = std::move(executable->shared);
  graph->impl->fromCache = true;
  return graph;
}

bool CompiledGraph::loadFromCache(StringRef dir, StringRef key) {
  // The code: a shared object, or object code where it was not linked.
  std::string libraryPath = cachePath(dir, key, ".so");
  std::string objectPath = cachePath(dir, key, ".o");
  bool linked = llvm::sys::fs::exists(libraryPath);
  // The signature, whose digest covers it; each file of the entry has its
  // digest in the signature, checked before it is loaded or mapped, so a
  // corrupted entry is compiled again (and replaced), never run.
  auto meta = llvm::MemoryBuffer::getFile(cachePath(dir, key, ".meta"));
  if (!meta || (!linked && !llvm::sys::fs::exists(objectPath)))
    return false;
  Signature signature;
  std::string why;
  if (!signature.parse((*meta)->getBuffer(), kCacheHeader, why))
    return false;
  auto verified = [&](const std::string &role, const std::string &path) {
    auto it = signature.files.find(role);
    return it != signature.files.end() && fileHasDigest(path, it->second);
  };
  if (linked ? !verified(".so", libraryPath)
             : !llvm::all_of(llvm::seq<size_t>(0, signature.objectCount),
                             [&](size_t i) {
                               return verified(".o" + std::to_string(i),
                                               objectPartPath(objectPath, i));
                             }))
    return false;
  auto table = std::make_unique<ConstantTable>();
  table->entries = signature.constants;
  if (!table->entries.empty()) {
    if (!table->map(cachePath(dir, key, ".weights")))
      return false;
    auto it = signature.files.find(".weights");
    if (it == signature.files.end() ||
        digest(std::string_view(table->data, table->size)) != it->second ||
        !table->entriesFit())
      return false;
  }
  Executable &executable = impl->executable;
  if (linked) {
    if (!loadRunnerUtils())
      return false;
    std::shared_ptr<SharedCode> code = loadSharedCode(
        libraryPath, [&](void *, std::string &) { return std::move(table); },
        why);
    if (!code)
      return false;
    executable.entry = code->entry;
    executable.shared = std::move(code);
  } else {
    std::unique_ptr<llvm::orc::LLJIT> jit =
        loadObjects(objectPath, signature.objectCount);
    if (!jit)
      return false;
    executable.entry = linkPackedEntry(*jit, *table, why);
    if (!executable.entry)
      return false;
    impl->jit = std::move(jit);
    impl->constants = std::move(table);
  }
  impl->fromCache = true;
  executable.inputs = std::move(signature.inputs);
  executable.outputs = std::move(signature.outputs);
  executable.checks = std::move(signature.checks);
  executable.outputStructure = std::move(signature.outputStructure);
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
  std::vector<std::string> temps = writeObjects(impl->objects, [&](size_t i) {
    return objectPartPath(objectPath, i) + suffix;
  });
  if (temps.size() != impl->objects.size())
    return;
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
  // The signature last: its presence means the entry is complete.
  Signature signature;
  const Executable &executable = impl->executable;
  signature.inputs = executable.inputs;
  signature.outputs = executable.outputs;
  signature.checks = executable.checks;
  signature.outputStructure = executable.outputStructure;
  signature.constants = constants.entries;
  if (linked) {
    auto library =
        llvm::MemoryBuffer::getFile(libraryPath, /*IsText=*/false,
                                    /*RequiresNullTerminator=*/false);
    if (!library)
      return;
    signature.files[".so"] = digest((*library)->getBuffer());
  } else {
    signature.objectCount = impl->objects.size();
    for (size_t i = 0; i < impl->objects.size(); ++i)
      signature.files[".o" + std::to_string(i)] =
          digest(impl->objects[i]->getBuffer());
  }
  if (!constants.entries.empty())
    signature.files[".weights"] =
        digest(std::string_view(constants.data, constants.size));
  writeAtomically(cachePath(dir, key, ".meta"), signature.print(kCacheHeader));
}

bool CompiledGraph::isFromCache() const { return impl->fromCache; }

bool CompiledGraph::checkInputs(ArrayRef<TensorRef> args,
                                std::string &error) const {
  return impl->executable.checkInputs(args.data(), args.size(), error);
}

bool CompiledGraph::run(ArrayRef<TensorRef> args,
                        std::vector<OwnedTensor> &results, std::string &error) {
  ProbeTable *&active = getActiveProbeTable();
  ProbeTable *outer = active;
  active = &impl->probes;
  impl->probes.clearFailure();
  bool ok = impl->executable.run(args.data(), args.size(), results, error);
  active = outer;
  if (!ok)
    return false;
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

//===----------------------------------------------------------------------===//
// Ahead-of-time libraries
//===----------------------------------------------------------------------===//

namespace {
/// An object file defining the library's signature (text) and, when
/// `weights` is given, its weights, 64-byte aligned: the symbols the
/// runtime core looks up (kLibrarySignature, kLibraryWeights).
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
dataObject(const llvm::orc::JITTargetMachineBuilder &builder,
           StringRef signature, const ConstantTable *weights) {
  llvm::orc::JITTargetMachineBuilder copy = builder;
  auto machine = copy.createTargetMachine();
  if (!machine)
    return machine.takeError();
  llvm::LLVMContext context;
  llvm::Module module("fx_model_data", context);
  module.setDataLayout((*machine)->createDataLayout());
  module.setTargetTriple((*machine)->getTargetTriple());
  auto *text = llvm::ConstantDataArray::getString(context, signature,
                                                  /*AddNull=*/true);
  new llvm::GlobalVariable(module, text->getType(), /*isConstant=*/true,
                           llvm::GlobalValue::ExternalLinkage, text,
                           kLibrarySignature);
  if (weights && weights->size) {
    auto *bytes = llvm::ConstantDataArray::getRaw(
        StringRef(weights->data, weights->size), weights->size,
        llvm::Type::getInt8Ty(context));
    auto *global = new llvm::GlobalVariable(
        module, bytes->getType(), /*isConstant=*/true,
        llvm::GlobalValue::ExternalLinkage, bytes, kLibraryWeights);
    global->setAlignment(llvm::Align(64));
  }
  return llvm::orc::SimpleCompiler(**machine)(module);
}

} // namespace

bool mlir::fx::compileLibrary(StringRef ir, const CompileOptions &options,
                              const LibraryOptions &library, std::string &error,
                              ArrayRef<ExternalBlob> blobs) {
  llvm::raw_string_ostream errors(error);
  PhaseTimer timer;
  if (options.weightsAsArguments) {
    errors << "error: a library holds its weights: weights as arguments "
              "are for the JIT only\n";
    return false;
  }
  std::optional<CPUTarget> target = lookupTarget(options, errors);
  if (!target)
    return false;
  // Before the costly compile: a library needs a linker.
  if (!findLinker()) {
    errors << "error: no linker (ld) to make a shared object with\n";
    return false;
  }
  CompiledCode code;
  ProbeTable probes;
  if (!compileCodeRecoverably(ir, blobs, options, *target, code, &probes,
                              errors, timer))
    return false;
  if (probes.hasSites()) {
    errors << "error: a graph with fx-instrument probes runs in the JIT "
              "only\n";
    return false;
  }

  StringRef path = library.path;
  StringRef file = llvm::sys::path::filename(path);
  Signature signature;
  signature.inputs = code.inputs;
  signature.outputs = code.outputs;
  signature.checks = code.checks;
  signature.outputStructure = code.outputStructure;
  signature.constants = code.constants->entries;
  signature.requirements = target->requirements();
  const ConstantTable &weights = *code.constants;
  std::string weightsPath;
  if (!weights.entries.empty()) {
    signature.files[".weights"] =
        digest(std::string_view(weights.data, weights.size));
    if (library.weightsFile) {
      SmallString<256> side(path);
      llvm::sys::path::replace_extension(side, "weights");
      weightsPath = side.str().str();
      signature.weights = llvm::sys::path::filename(side).str();
    } else {
      signature.weights = "embedded";
    }
  }
  auto builder = machineBuilder(*target);
  if (!builder) {
    errors << "error: " << llvm::toString(builder.takeError()) << "\n";
    return false;
  }
  auto data = dataObject(
      *builder, signature.print(kLibraryHeader),
      library.weightsFile || weights.entries.empty() ? nullptr : &weights);
  if (!data) {
    errors << "error: " << llvm::toString(data.takeError()) << "\n";
    return false;
  }
  code.objects.push_back(std::move(*data));
  timer.done("library data");

  // Link the objects, naming LLVM's OpenMP runtime (with its directory as
  // the run path) so that a program loading the library needs nothing else.
  std::string base =
      (path + ".tmp" + std::to_string(llvm::sys::Process::getProcessId()))
          .str();
  std::vector<std::string> objects = writeObjects(code.objects, [&](size_t i) {
    return base + "." + std::to_string(i) + ".o";
  });
  if (objects.empty()) {
    errors << "error: cannot write object files next to '" << path << "'\n";
    return false;
  }
  std::string output = base + ".so";
  StringRef openMP = kOpenMP;
  bool linked = linkSharedObject(
      objects, output, {openMP, "-rpath", llvm::sys::path::parent_path(openMP)},
      /*quiet=*/false, /*seconds=*/300);
  for (const std::string &object : objects)
    llvm::sys::fs::remove(object);
  if (!linked) {
    errors << "error: linking '" << path << "' failed\n";
    return false;
  }
  if (!weightsPath.empty() &&
      !writeAtomically(weightsPath, StringRef(weights.data, weights.size))) {
    llvm::sys::fs::remove(output);
    errors << "error: cannot write '" << weightsPath << "'\n";
    return false;
  }
  if (std::error_code ec = llvm::sys::fs::rename(output, path)) {
    llvm::sys::fs::remove(output);
    errors << "error: cannot write '" << path << "': " << ec.message() << "\n";
    return false;
  }
  timer.done("link the library");
  if (!library.header.empty()) {
    std::string name = library.name;
    if (name.empty())
      name = llvm::sys::path::stem(path).str();
    if (!writeAtomically(library.header,
                         detail::libraryHeader(name, file, *target, code.inputs,
                                               code.outputs))) {
      errors << "error: cannot write '" << library.header << "'\n";
      return false;
    }
  }
  return true;
}
