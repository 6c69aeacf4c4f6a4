//===- ArchiveCheck.cpp - What LibTorch trusts in a .pt archive --------===//
//
// Before LibTorch's loader reads an archive, the importer checks the zip
// records' sizes and every length the pickles declare against the bytes
// the file holds (checkArchive, ArchiveCheck.h). Split from
// ImportTorchScript.cpp: the check needs nothing of the graph walk.
//
//===----------------------------------------------------------------------===//

#include "ArchiveCheck.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>
#include <zlib.h>

namespace {

/// Checks what LibTorch 1.13's loader would trust in an archive before it
/// allocates: each zip record's sizes against the bytes the file holds,
/// and every length a pickle record (`data.pkl`, `constants.pkl`, the
/// `.debug_pkl` source maps) declares against the bytes left in it. The
/// unpickler allocates and zero-fills a string of the declared length
/// first, so a 3 KB archive declaring a 4 GiB string would take 4 GiB.
/// Returns an error message, or "" when the archive passes or is not a zip
/// this check can read (LibTorch's own reader then reports it).
class ArchiveCheck {
public:
  explicit ArchiveCheck(llvm::StringRef file) : file(file) {}

  std::string run() {
    // The end-of-central-directory record, within the last 64 KiB + 22.
    if (file.size() < 22)
      return "";
    size_t eocd = std::string::npos;
    size_t lowest = file.size() > 65557 ? file.size() - 65557 : 0;
    for (size_t at = file.size() - 22 + 1; at-- > lowest;)
      if (u32(at) == 0x06054b50) {
        eocd = at;
        break;
      }
    if (eocd == std::string::npos)
      return "";
    uint64_t entries = u16(eocd + 10), dirOffset = u32(eocd + 16);
    if ((entries == 0xffff || dirOffset == 0xffffffff) && eocd >= 20 &&
        u32(eocd - 20) == 0x07064b50) {
      uint64_t zip64 = u64(eocd - 20 + 8);
      if (zip64 > file.size() - 56 || u32(zip64) != 0x06064b50)
        return "";
      entries = u64(zip64 + 32);
      dirOffset = u64(zip64 + 48);
    }
    uint64_t at = dirOffset;
    for (uint64_t i = 0; i < entries; ++i) {
      if (at > file.size() || file.size() - at < 46 || u32(at) != 0x02014b50)
        return "";
      unsigned method = u16(at + 10);
      uint64_t compressed = u32(at + 20), size = u32(at + 24);
      uint64_t local = u32(at + 42);
      size_t nameLength = u16(at + 28), extraLength = u16(at + 30);
      size_t next = at + 46 + nameLength + extraLength + u16(at + 32);
      if (next > file.size())
        return "";
      llvm::StringRef name = file.substr(at + 46, nameLength);
      // The zip64 extra field holds the sizes and offset that are 2^32-1.
      for (size_t e = at + 46 + nameLength;
           e + 4 <= at + 46 + nameLength + extraLength;) {
        size_t id = u16(e), length = u16(e + 2), field = e + 4;
        if (id == 1) {
          size_t end = std::min<size_t>(field + length, next);
          auto take = [&](uint64_t &value) {
            if (value == 0xffffffff && field + 8 <= end) {
              value = u64(field);
              field += 8;
            }
          };
          take(size);
          take(compressed);
          take(local);
        }
        e += 4 + length;
      }
      // PyTorch stores tensor data and pickles, and deflates the code
      // records and their source maps (method 8); deflate expands at most
      // 1032 times.
      if ((method != 0 && method != 8) || (method == 0 && compressed != size) ||
          (method == 8 && size / 1032 > compressed) || local > file.size() ||
          file.size() - local < 30 || u32(local) != 0x04034b50)
        return ("record '" + name + "' has a malformed zip entry").str();
      uint64_t data = local + 30 + u16(local + 26) + u16(local + 28);
      if (data > file.size() || compressed > file.size() - data)
        return ("record '" + name + "' declares " + llvm::Twine(compressed) +
                " bytes, the file holds " +
                llvm::Twine(data > file.size() ? 0 : file.size() - data))
            .str();
      if (name.ends_with(".pkl") || name.ends_with(".debug_pkl")) {
        std::string inflated;
        llvm::StringRef pickle = file.substr(data, compressed);
        if (method == 8) {
          if (!inflate(pickle, size, inflated))
            return ("record '" + name + "' does not inflate to the " +
                    llvm::Twine(size) + " bytes it declares")
                .str();
          pickle = inflated;
        }
        std::string error = checkPickle(pickle);
        if (!error.empty())
          return ("record '" + name + "': " + error).str();
      }
      at = next;
    }
    return "";
  }

private:
  /// Walks a pickle's opcodes (protocols 0 to 5) as the unpickler would
  /// run them, checking what LibTorch 1.13's unpickler does not: each
  /// declared length against the bytes left, memo indices against the
  /// pickle's size, and the stack: an opcode never pops more than the
  /// stack holds above the last mark, nor a mark that is not there (the
  /// unpickler would read before its stack's start). An opcode outside
  /// pickle's protocols 0 to 5 is an error.
  static std::string checkPickle(llvm::StringRef pickle) {
    size_t at = 0;
    auto left = [&] { return pickle.size() - at; };
    auto le = [&](size_t bytes) {
      uint64_t value = 0;
      for (size_t i = 0; i < bytes; ++i)
        value |= uint64_t(uint8_t(pickle[at + i])) << (8 * i);
      return value;
    };
    uint64_t depth = 0;
    std::vector<uint64_t> marks;
    auto opcodeAt = [&](size_t offset) {
      return "opcode " + std::to_string(uint8_t(pickle[offset])) + " at byte " +
             std::to_string(offset);
    };
    while (at < pickle.size()) {
      size_t opAt = at;
      uint8_t op = uint8_t(pickle[at++]);
      // The argument: fixed bytes, a length then that many bytes, or lines.
      size_t fixed = 0, lengthBytes = 0, lines = 0;
      // The stack effect: `pops` items above the last mark (checked), or
      // everything down to the last mark (`toMark`) and then `below` more;
      // then `pushes` items.
      unsigned pops = 0, pushes = 0, below = 0;
      bool toMark = false;
      switch (op) {
      // Values pushed.
      case 'K':
      case 'h':  // BININT1, BINGET
      case 0x82: // EXT1
        fixed = 1, pushes = 1;
        break;
      case 'M':
      case 0x83: // BININT2, EXT2
        fixed = 2, pushes = 1;
        break;
      case 'J':
      case 'j':
      case 0x84: // BININT, LONG_BINGET, EXT4
        fixed = 4, pushes = 1;
        break;
      case 'G': // BINFLOAT
        fixed = 8, pushes = 1;
        break;
      case 'U':
      case 0x8c:
      case 'C':
      case 0x8a:
        lengthBytes = 1, pushes = 1;
        break;
      case 'T':
      case 'X':
      case 'B':
      case 0x8b:
        lengthBytes = 4, pushes = 1;
        break;
      case 0x8d:
      case 0x8e:
      case 0x96:
        lengthBytes = 8, pushes = 1;
        break;
      case 'I':
      case 'L':
      case 'F':
      case 'S':
      case 'V':
      case 'g':
      case 'P':
        lines = 1, pushes = 1;
        break;
      case 'c': // GLOBAL
        lines = 2, pushes = 1;
        break;
      case 'N':
      case 0x88:
      case 0x89:
      case '}':
      case ']':
      case ')':
      case 0x8f:
      case 0x97:
        pushes = 1;
        break;
      // Memo stores: the top item stays.
      case 'q': // BINPUT
        fixed = 1, pops = 1, pushes = 1;
        break;
      case 'r': // LONG_BINPUT
        fixed = 4, pops = 1, pushes = 1;
        break;
      case 'p': // PUT
        lines = 1, pops = 1, pushes = 1;
        break;
      case 0x94:
      case 0x98:
      case '2': // MEMOIZE, READONLY_BUFFER, DUP
        pops = 1, pushes = op == '2' ? 2 : 1;
        break;
      // Fixed pops.
      case '0': // POP
        pops = 1;
        break;
      case 'a':
      case 'b': // APPEND, BUILD
        pops = 2, pushes = 1;
        break;
      case 's': // SETITEM
        pops = 3, pushes = 1;
        break;
      case 0x85:
      case 'Q': // TUPLE1, BINPERSID
        pops = 1, pushes = 1;
        break;
      case 0x86:
      case 'R':
      case 0x81:
      case 0x93:
        pops = 2, pushes = 1;
        break;
      case 0x87:
      case 0x92: // TUPLE3, NEWOBJ_EX
        pops = 3, pushes = 1;
        break;
      // Marks.
      case '(':
        marks.push_back(depth);
        continue;
      case '1': // POP_MARK
        toMark = true;
        break;
      case 't':
      case 'l':
      case 'd':
      case 0x91: // TUPLE, LIST, DICT, FROZENSET
        toMark = true, pushes = 1;
        break;
      case 'e':
      case 'u':
      case 0x90: // APPENDS, SETITEMS, ADDITEMS
        toMark = true, below = 1, pushes = 1;
        break;
      case 'o': // OBJ: the class and its arguments
        toMark = true, pushes = 1;
        break;
      case 'i': // INST
        toMark = true, lines = 2, pushes = 1;
        break;
      case 0x80: // PROTO
        fixed = 1;
        break;
      case 0x95: // FRAME: a length over what follows, checked, not skipped
        if (left() < 8)
          return "a pickle frame is cut short";
        if (le(8) > left() - 8)
          return "a pickle frame declares " + std::to_string(le(8)) +
                 " bytes, " + std::to_string(left() - 8) + " follow";
        at += 8;
        continue;
      case '.': // STOP
        if (depth == 0 || (!marks.empty() && depth == marks.back()))
          return "the pickle stops with nothing on its stack";
        return "";
      default:
        // LibTorch's unpickler refuses it too, but only once it gets
        // there, after what came before has been built.
        return "unknown " + opcodeAt(opAt);
      }
      // The argument.
      if (lines) {
        if (op == 'p') { // PUT: a decimal memo index, as LONG_BINPUT
          size_t end = pickle.find('\n', at);
          uint64_t index = 0;
          if (end != llvm::StringRef::npos &&
              !pickle.slice(at, end).getAsInteger(10, index) &&
              index > pickle.size())
            return "a pickle memo index (" + std::to_string(index) +
                   ") exceeds the pickle's size";
        }
        for (; lines > 0; --lines) {
          size_t end = pickle.find('\n', at);
          if (end == llvm::StringRef::npos)
            return "a pickle line is not terminated";
          at = end + 1;
        }
      } else if (fixed || lengthBytes) {
        size_t argument = fixed ? fixed : lengthBytes;
        if (left() < argument)
          return "the pickle ends inside an opcode's argument";
        uint64_t length = lengthBytes ? le(lengthBytes) : 0;
        // LONG_BINPUT: the unpickler grows its memo table to the index; a
        // pickle numbers its memo entries from 0, one per opcode at most.
        if (op == 'r' && le(4) > pickle.size())
          return "a pickle memo index (" + std::to_string(le(4)) +
                 ") exceeds the pickle's size";
        at += argument;
        if (length > left())
          return "a pickle string or bytes value declares " +
                 std::to_string(length) + " bytes, " + std::to_string(left()) +
                 " follow";
        at += length;
      }
      // The stack effect.
      uint64_t floor = marks.empty() ? 0 : marks.back();
      if (toMark) {
        if (marks.empty())
          return opcodeAt(opAt) + " needs a mark, the pickle set none";
        depth = marks.back();
        marks.pop_back();
        floor = marks.empty() ? 0 : marks.back();
        if (depth - floor < below)
          return opcodeAt(opAt) + " needs an item below its mark";
      } else if (depth - floor < pops) {
        return opcodeAt(opAt) + " pops " + std::to_string(pops) +
               " items, the pickle's stack holds " +
               std::to_string(depth - floor);
      } else {
        depth -= pops;
      }
      depth += pushes;
    }
    return "";
  }

  /// Inflates a raw deflate stream that must give exactly `size` bytes
  /// (at most 256 MiB: PyTorch's pickles are far smaller).
  static bool inflate(llvm::StringRef input, uint64_t size,
                      std::string &output) {
    if (size > (uint64_t(256) << 20))
      return false;
    output.resize(size + 1);
    z_stream stream{};
    if (inflateInit2(&stream, -MAX_WBITS) != Z_OK)
      return false;
    stream.next_in =
        reinterpret_cast<Bytef *>(const_cast<char *>(input.data()));
    stream.avail_in = uInt(input.size());
    stream.next_out = reinterpret_cast<Bytef *>(output.data());
    stream.avail_out = uInt(output.size());
    int status = ::inflate(&stream, Z_FINISH);
    uint64_t produced = stream.total_out;
    inflateEnd(&stream);
    output.resize(std::min<uint64_t>(produced, size));
    return status == Z_STREAM_END && produced == size;
  }

  uint64_t le(size_t at, size_t bytes) const {
    uint64_t value = 0;
    for (size_t i = 0; i < bytes && at + i < file.size(); ++i)
      value |= uint64_t(uint8_t(file[at + i])) << (8 * i);
    return value;
  }
  uint64_t u16(size_t at) const { return le(at, 2); }
  uint64_t u32(size_t at) const { return le(at, 4); }
  uint64_t u64(size_t at) const { return le(at, 8); }

  llvm::StringRef file;
};

} // namespace

std::string mlir::fx::torchscript::checkArchive(llvm::StringRef file) {
  return ArchiveCheck(file).run();
}
