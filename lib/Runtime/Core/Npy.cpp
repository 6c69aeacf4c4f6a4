//===- Npy.cpp - .npy files for the runtime core --------------------------===//
//
// NumPy's format: magic "\x93NUMPY", major and minor version, the header's
// length (2 bytes in version 1, 4 in 2 and 3), a Python dict literal
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with
// spaces to a multiple of 64 bytes, then the data. The dtypes are
// DTypes.def's with a .npy descriptor.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Runtime/Executable.h"

#include <cstring>
#include <fstream>

using namespace mlir::fx;

namespace {
struct Descriptor {
  const char *npy, *dtype;
  size_t bytes;
};

const Descriptor kDescriptors[] = {
#define FX_DTYPE(NAME, ELEMENT_TYPE, BYTES, SCALAR_TYPE, NPY)                  \
  {NPY, #NAME, BYTES},
#include "fx-mlir/Dialect/FX/IR/DTypes.def"
};

/// The value text of `key` in the header dict, up to the next top-level
/// comma or closing brace; npos-free: empty if missing.
std::string_view field(std::string_view header, std::string_view key) {
  std::string quoted = "'" + std::string(key) + "'";
  size_t at = header.find(quoted);
  if (at == std::string_view::npos)
    return {};
  at = header.find(':', at + quoted.size());
  if (at == std::string_view::npos)
    return {};
  std::string_view rest = header.substr(at + 1);
  size_t begin = rest.find_first_not_of(' ');
  if (begin == std::string_view::npos)
    return {};
  rest.remove_prefix(begin);
  int depth = 0;
  for (size_t i = 0; i < rest.size(); ++i) {
    char c = rest[i];
    if (c == '(')
      ++depth;
    else if (c == ')')
      --depth;
    else if ((c == ',' || c == '}') && depth == 0)
      return rest.substr(0, i);
    if (depth < 0)
      return {};
  }
  return {};
}
} // namespace

bool mlir::fx::parseNpy(const char *bytes, size_t size, NpyArray &array,
                        std::string &error) {
  auto fail = [&](const std::string &why) {
    error = why;
    return false;
  };
  if (size < 10 || std::memcmp(bytes, "\x93NUMPY", 6) != 0)
    return fail("not a .npy file");
  unsigned major = static_cast<unsigned char>(bytes[6]);
  if (major < 1 || major > 3)
    return fail("unsupported .npy version " + std::to_string(major));
  size_t lengthBytes = major == 1 ? 2 : 4;
  if (size < 8 + lengthBytes)
    return fail("truncated header");
  uint64_t headerLength = 0;
  for (size_t i = 0; i < lengthBytes; ++i)
    headerLength |= uint64_t(static_cast<unsigned char>(bytes[8 + i])) << 8 * i;
  size_t start = 8 + lengthBytes;
  if (headerLength > size - start)
    return fail("the header's length (" + std::to_string(headerLength) +
                " bytes) runs past the end of the file");
  std::string_view header(bytes + start, headerLength);

  std::string_view descr = field(header, "descr");
  if (descr.size() < 2 || (descr.front() != '\'' && descr.front() != '"') ||
      descr.back() != descr.front())
    return fail("no dtype descriptor ('descr') in the header");
  descr = descr.substr(1, descr.size() - 2);
  // '<' or '|' or '=' (native, little-endian here) are read as is.
  std::string normalized(descr);
  if (!normalized.empty() && normalized[0] == '=')
    normalized[0] = normalized.size() > 2 ? '<' : '|';
  const Descriptor *found = nullptr;
  for (const Descriptor &d : kDescriptors)
    if (*d.npy && normalized == d.npy)
      found = &d;
  if (!found)
    return fail("unsupported dtype descriptor '" + std::string(descr) + "'");

  std::string_view order = field(header, "fortran_order");
  if (order != "False")
    return fail(order == "True" ? "Fortran-order arrays are not supported"
                                : "no 'fortran_order' in the header");

  std::string_view shape = field(header, "shape");
  if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')')
    return fail("no shape tuple in the header");
  std::string shapeText(shape);
  shape = shape.substr(1, shape.size() - 2);
  // The shape is checked against the data before anything is allocated:
  // its element count and byte size must not overflow, and the file must
  // hold exactly that many bytes.
  array.shape.clear();
  uint64_t dataBytes = found->bytes;
  size_t at = 0;
  while (at < shape.size()) {
    size_t comma = shape.find(',', at);
    std::string_view dim = shape.substr(at, comma == std::string_view::npos
                                                ? std::string_view::npos
                                                : comma - at);
    at = comma == std::string_view::npos ? shape.size() : comma + 1;
    while (!dim.empty() && dim.front() == ' ')
      dim.remove_prefix(1);
    while (!dim.empty() && (dim.back() == ' ' || dim.back() == 'L'))
      dim.remove_suffix(1);
    if (dim.empty()) {
      if (comma == std::string_view::npos)
        break;
      return fail("bad shape '" + shapeText + "'");
    }
    uint64_t d = 0;
    for (char c : dim)
      if (c < '0' || c > '9' || __builtin_mul_overflow(d, 10, &d) ||
          __builtin_add_overflow(d, uint64_t(c - '0'), &d) ||
          d > uint64_t(INT64_MAX))
        return fail("bad shape '" + shapeText + "'");
    if (__builtin_mul_overflow(dataBytes, d, &dataBytes))
      return fail("the shape " + shapeText +
                  " has more bytes than fit in 64 bits");
    array.shape.push_back(int64_t(d));
  }
  size_t available = size - start - headerLength;
  if (dataBytes != available)
    return fail("the shape " + shapeText + " needs " +
                std::to_string(dataBytes) + " bytes of data, the file holds " +
                std::to_string(available));
  array.dtype = found->dtype;
  array.data.assign(bytes + start + headerLength, bytes + size);
  return true;
}

bool mlir::fx::readNpy(const std::string &path, NpyArray &array,
                       std::string &error) {
  ConstantTable file; // a read-only mapping of the file
  if (!file.map(path)) {
    error = "'" + path + "': cannot read it (missing, empty or not a file)";
    return false;
  }
  if (!parseNpy(file.data, file.size, array, error)) {
    error = "'" + path + "': " + error;
    return false;
  }
  return true;
}

bool mlir::fx::writeNpy(const std::string &path, const std::string &dtype,
                        const std::vector<int64_t> &shape, const void *data,
                        std::string &error) {
  const Descriptor *found = nullptr;
  for (const Descriptor &d : kDescriptors)
    if (*d.npy && dtype == d.dtype)
      found = &d;
  if (!found) {
    error = "'" + path + "': no .npy descriptor for dtype " + dtype;
    return false;
  }
  std::string dims;
  size_t count = 1;
  for (int64_t d : shape) {
    dims += std::to_string(d) + (shape.size() == 1 ? "," : ", ");
    count *= size_t(d);
  }
  if (shape.size() > 1)
    dims.resize(dims.size() - 2);
  std::string header = "{'descr': '" + std::string(found->npy) +
                       "', 'fortran_order': False, 'shape': (" + dims + "), }";
  header.append(63 - (10 + header.size()) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  out.put(char(header.size() & 0xff)).put(char(header.size() >> 8));
  out << header;
  out.write(static_cast<const char *>(data), count * found->bytes);
  // A full disk (/dev/full) shows when the buffered data is written.
  out.close();
  if (out.fail()) {
    error = "'" + path + "': cannot write it";
    return false;
  }
  return true;
}
