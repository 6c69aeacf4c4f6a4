//===- PythonRepr.cpp - Print FX values as Python source --------*- C++ -*-===//

#include "fx-mlir/Dialect/FX/IR/PythonRepr.h"
#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"

#include "llvm/ADT/StringExtras.h"
#include <charconv>
#include <cmath>

using namespace mlir;
using namespace mlir::fx;

std::string mlir::fx::pythonFloatRepr(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  // The shortest round-tripping digits, then Python's layout rule: fixed
  // notation for exponents in [-4, 16), scientific otherwise.
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value,
                              std::chars_format::scientific);
  std::string sci(buffer, result.ptr);
  std::string out;
  size_t pos = 0;
  if (sci[0] == '-') {
    out = "-";
    pos = 1;
  }
  size_t ePos = sci.find('e');
  std::string digits;
  for (size_t i = pos; i < ePos; ++i)
    if (llvm::isDigit(sci[i]))
      digits += sci[i];
  int exponent = std::stoi(sci.substr(ePos + 1));
  if (exponent >= -4 && exponent < 16) {
    if (exponent >= 0) {
      std::string intPart =
          digits.substr(0, std::min<size_t>(digits.size(), exponent + 1));
      intPart.append(exponent + 1 - intPart.size(), '0');
      std::string frac = digits.size() > size_t(exponent + 1)
                             ? digits.substr(exponent + 1)
                             : std::string("0");
      out += intPart + "." + frac;
    } else {
      out += "0." + std::string(-exponent - 1, '0') + digits;
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1)
    out += "." + digits.substr(1);
  out += exponent < 0 ? "e-" : "e+";
  std::string expDigits = std::to_string(std::abs(exponent));
  if (expDigits.size() < 2)
    expDigits = "0" + expDigits;
  return out + expDigits;
}

std::string mlir::fx::pythonStrRepr(StringRef value) {
  char quote = (value.contains('\'') && !value.contains('"')) ? '"' : '\'';
  std::string out(1, quote);
  for (unsigned char c : value) {
    switch (c) {
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c == quote) {
        out += '\\';
        out += char(c);
      } else if (c < 0x20 || c == 0x7f) {
        out += "\\x";
        out += llvm::hexdigit(c >> 4, /*LowerCase=*/true);
        out += llvm::hexdigit(c & 15, /*LowerCase=*/true);
      } else {
        out += char(c);
      }
    }
  }
  out += quote;
  return out;
}

static std::string pythonComplexPart(double value) {
  std::string repr = pythonFloatRepr(value);
  if (StringRef(repr).ends_with(".0"))
    repr.resize(repr.size() - 2);
  return repr;
}

void mlir::fx::printPythonRepr(Attribute value, llvm::raw_ostream &os,
                               llvm::function_ref<void(unsigned)> printNode) {
  auto printSeq = [&](auto elements) {
    llvm::interleaveComma(elements, os, [&](Attribute element) {
      printPythonRepr(element, os, printNode);
    });
  };
  auto printTuple = [&](ArrayRef<Attribute> elements) {
    os << '(';
    printSeq(elements);
    if (elements.size() == 1)
      os << ',';
    os << ')';
  };

  if (!value) {
    os << "<<null>>";
  } else if (auto node = dyn_cast<NodeAttr>(value)) {
    printNode(node.getIndex());
  } else if (auto boolean = dyn_cast<BoolAttr>(value)) {
    os << (boolean.getValue() ? "True" : "False");
  } else if (auto integer = dyn_cast<IntegerAttr>(value)) {
    os << integer.getValue().getSExtValue();
  } else if (auto real = dyn_cast<FloatAttr>(value)) {
    os << pythonFloatRepr(real.getValueAsDouble());
  } else if (auto str = dyn_cast<StringAttr>(value)) {
    os << pythonStrRepr(str.getValue());
  } else if (isa<NoneAttr>(value)) {
    os << "None";
  } else if (isa<EllipsisAttr>(value)) {
    os << "Ellipsis";
  } else if (auto list = dyn_cast<ListAttr>(value)) {
    os << '[';
    printSeq(list.getElements());
    os << ']';
  } else if (auto tuple = dyn_cast<TupleAttr>(value)) {
    printTuple(tuple.getElements());
  } else if (auto array = dyn_cast<ArrayAttr>(value)) {
    printTuple(array.getValue());
  } else if (auto dict = dyn_cast<DictAttr>(value)) {
    os << '{';
    llvm::interleaveComma(llvm::zip(dict.getKeys(), dict.getValues()), os,
                          [&](auto entry) {
                            printPythonRepr(std::get<0>(entry), os, printNode);
                            os << ": ";
                            printPythonRepr(std::get<1>(entry), os, printNode);
                          });
    os << '}';
  } else if (auto slice = dyn_cast<SliceAttr>(value)) {
    os << "slice(";
    printSeq(ArrayRef<Attribute>{slice.getStart(), slice.getStop(),
                                 slice.getStep()});
    os << ')';
  } else if (auto dtype = dyn_cast<DTypeAttr>(value)) {
    os << "torch." << dtype.getName();
  } else if (auto format = dyn_cast<MemoryFormatAttr>(value)) {
    os << "torch." << format.getName();
  } else if (auto layout = dyn_cast<LayoutAttr>(value)) {
    os << "torch." << layout.getName();
  } else if (auto device = dyn_cast<DeviceAttr>(value)) {
    auto [type, index] = device.getDevice().split(':');
    os << "device(type=" << pythonStrRepr(type);
    if (!index.empty())
      os << ", index=" << index;
    os << ')';
  } else if (auto size = dyn_cast<SizeAttr>(value)) {
    os << "torch.Size([";
    llvm::interleaveComma(size.getDims(), os);
    os << "])";
  } else if (auto complex = dyn_cast<ComplexAttr>(value)) {
    double re = complex.getReal().convertToDouble();
    double im = complex.getImag().convertToDouble();
    if (re == 0 && !std::signbit(re)) {
      os << pythonComplexPart(im) << 'j';
    } else {
      os << '(' << pythonComplexPart(re);
      if (!std::signbit(im) || std::isnan(im))
        os << '+';
      os << pythonComplexPart(im) << "j)";
    }
  } else {
    os << value;
  }
}
