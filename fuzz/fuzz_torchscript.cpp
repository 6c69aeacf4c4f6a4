//===- fuzz_torchscript.cpp - libFuzzer target: the TorchScript importer --===//
//
// A TorchScript archive is a zip whose records carry CRC-32s, so byte
// mutations of the zip itself stop at LibTorch's CRC check. This target
// mutates the records instead: an input is a list of records
//
//   <name> '\n' <decimal size> '\n' <size bytes>   (repeated)
//
// (a size past the end takes what is left) which the target writes into a
// valid zip with PyTorchStreamWriter, then imports with
// fx::importTorchScript, as `fx-translate --import-torchscript` does.
// Mutations reach the pickles (data.pkl, constants.pkl), the serialized
// TorchScript code (code/*.py), the storage records and their sizes. The
// import must give a module or an error, never a crash, a read past a
// record or a blob of bytes the archive does not hold. Seeds: the archives
// of test/Target/TorchScript/Inputs/make_pt.py, converted by scripts/fuzz.sh.
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "fx-mlir/Dialect/FX/IR/FXDialect.h"
#include "fx-mlir/Target/TorchScript/ImportTorchScript.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/MemoryBuffer.h"

#include <caffe2/serialize/inline_container.h>

#include <cstdlib>
#include <set>
#include <string>

using namespace mlir;

namespace {

/// Splits the input into records; false when it holds none.
bool writeArchive(llvm::StringRef input, std::string &zip) {
  caffe2::serialize::PyTorchStreamWriter writer(
      [&](const void *bytes, size_t n) {
        zip.append(static_cast<const char *>(bytes), n);
        return n;
      });
  bool any = false;
  std::set<std::string> written;
  while (!input.empty()) {
    auto [name, rest] = input.split('\n');
    auto [sizeText, body] = rest.split('\n');
    uint64_t size = 0;
    if (sizeText.getAsInteger(10, size))
      size = body.size();
    size = std::min<uint64_t>(size, body.size());
    input = body.drop_front(size);
    // The writer adds the version record itself and refuses a name twice.
    if (name.empty() || name == "version" || name == ".data/version" ||
        !written.insert(name.str()).second)
      continue;
    writer.writeRecord(name.str(), body.data(), size);
    any = true;
  }
  writer.writeEndOfFile();
  return any;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string zip;
  try {
    if (!writeArchive(
            llvm::StringRef(reinterpret_cast<const char *>(data), size), zip))
      return 0;
  } catch (const std::exception &) {
    return 0; // a name the zip writer refuses: not the importer's input
  }
  MLIRContext &ctx = fuzz::context<fx::FXDialect>(200);
  auto buffer =
      llvm::MemoryBuffer::getMemBuffer(zip, "fuzz.pt",
                                       /*RequiresNullTerminator=*/false);
  // The importer catches what LibTorch throws and reports it; an exception
  // reaching here is a defect (the tool would terminate).
  OwningOpRef<ModuleOp> module = fx::importTorchScript(*buffer, &ctx);
  (void)module;
  return 0;
}
