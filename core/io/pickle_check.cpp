#include "core/io/pickle_check.h"

#include <torch/csrc/jit/serialization/pickle.h>
#include <torch/csrc/jit/serialization/source_range_serialization.h>

#include <cstdint>
#include <cstring>

namespace graft::core::io {

namespace {

std::uint64_t littleEndian(const char* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= std::uint64_t(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

// The size of an opcode's fixed argument, -1 for a newline-terminated one, -2 for none.
int fixedArgument(unsigned char op) {
  switch (op) {
    case 'K': case 'q': case 'h': case 0x80: case 0x82: return 1;  // BININT1 BINPUT BINGET PROTO EXT1
    case 'M': case 0x83: return 2;                                 // BININT2 EXT2
    case 'J': case 'r': case 'j': case 0x84: return 4;             // BININT LONG_BINPUT LONG_BINGET EXT4
    case 'G': case 0x95: return 8;                                 // BINFLOAT FRAME
    case 'c': case 'i': return -3;                                 // GLOBAL INST: two lines
    case 'I': case 'L': case 'F': case 'S': case 'V': case 'p': case 'g': case 'P': return -1;
    default: return -2;
  }
}

// The size of the length field of an opcode followed by that many bytes; 0 when it is not one.
int lengthField(unsigned char op) {
  switch (op) {
    case 'U':
    case 'C':
    case 0x8c:
    case 0x8a: return 1;  // SHORT_BINSTRING SHORT_BINBYTES SHORT_BINUNICODE LONG1
    case 'T': case 'X': case 'B': case 0x8b: return 4;             // BINSTRING BINUNICODE BINBYTES LONG4
    case 0x8d: case 0x8e: case 0x96: return 8;                     // BINUNICODE8 BINBYTES8 BYTEARRAY8
    default: return 0;
  }
}

bool knownWithoutArgument(unsigned char op) {
  static const char kOps[] = "().012NabdeloRstuQ]}";
  if (op != 0 && std::strchr(kOps, op)) return true;
  return op == 0x81 || (op >= 0x85 && op <= 0x89) || (op >= 0x8f && op <= 0x94) || op == 0x97 || op == 0x98;
}

// Walks the opcodes up to STOP; collects each GLOBAL's "module.name" into `globals` when given,
// and says in `stopped` whether the walk reached STOP past opcodes it knows.
QString walkPickle(const char* data, std::size_t size, std::vector<std::string>* globals, bool* stopped) {
  std::size_t pos = 0;
  while (pos < size) {
    const unsigned char op = static_cast<unsigned char>(data[pos]);
    const std::size_t at = pos++;
    if (op == '.') {  // STOP
      if (stopped) *stopped = true;
      return {};
    }
    if (const int field = lengthField(op)) {
      if (size - pos < std::size_t(field))
        return QStringLiteral("the pickle ends inside the length at byte %1").arg(at);
      const std::uint64_t length = littleEndian(data + pos, field);
      pos += std::size_t(field);
      if (length > size - pos)
        return QStringLiteral("a value at byte %1 of the pickle claims %2 bytes; %3 are left")
            .arg(at)
            .arg(length)
            .arg(size - pos);
      pos += std::size_t(length);
      continue;
    }
    const int argument = fixedArgument(op);
    if (argument > 0) {
      if (size - pos < std::size_t(argument))
        return QStringLiteral("the pickle ends inside the opcode at byte %1").arg(at);
      // LONG_BINPUT: libtorch sizes its memo table by the index. Picklers number memo entries
      // from 0, one per opcode of two bytes or more, so an index beyond the pickle's size is damage.
      if (op == 'r' && littleEndian(data + pos, 4) > size)
        return QStringLiteral("a memo index at byte %1 of the pickle is %2, in %3 bytes")
            .arg(at)
            .arg(littleEndian(data + pos, 4))
            .arg(size);
      pos += std::size_t(argument);
    } else if (argument == -1 || argument == -3) {
      std::string name;
      for (int lines = argument == -1 ? 1 : 2; lines > 0; --lines) {
        const void* end = std::memchr(data + pos, '\n', size - pos);
        if (!end) return QStringLiteral("the pickle ends inside the opcode at byte %1").arg(at);
        const std::size_t next = std::size_t(static_cast<const char*>(end) - data) + 1;
        if (op == 'c') name += (name.empty() ? "" : ".") + std::string(data + pos, next - 1 - pos);
        pos = next;
      }
      if (globals && op == 'c') globals->push_back(std::move(name));
    } else if (!knownWithoutArgument(op)) {
      return {};  // not an opcode this walk knows: libtorch's unpickler judges it
    }
  }
  return {};  // no STOP: libtorch reports the end of the archive itself
}

}  // namespace

QString checkPickleLengths(const char* data, std::size_t size) {
  return walkPickle(data, size, nullptr, nullptr);
}

std::optional<std::vector<std::string>> pickleGlobals(const char* data, std::size_t size) {
  std::vector<std::string> globals;
  bool stopped = false;
  if (!walkPickle(data, size, &globals, &stopped).isEmpty() || !stopped) return std::nullopt;
  return globals;
}

QString checkSourceRangePickle(const char* data, std::size_t size) {
  if (QString why = checkPickleLengths(data, size); !why.isEmpty()) return why;
  c10::IValue root;
  try {
    root = torch::jit::unpickle(data, size, torch::jit::TypeResolver(nullptr));
  } catch (const std::exception& e) {
    return QStringLiteral("it does not unpickle: %1").arg(QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0));
  }
  auto bad = [](const char* what) {
    return QStringLiteral("its source ranges are malformed (%1)").arg(QLatin1String(what));
  };
  // The layout torch::jit::ConcreteSourceRangeUnpickler reads: ("FORMAT_WITH_STRING_TABLE",
  // (text, ...), records) or the older records alone; a record is (byte offset, range, tag), a
  // range (source, start, end), a source ([text index, ...], file name index, line) or, without
  // the table, (text, file name, line).
  if (!root.isTuple() || root.toTupleRef().elements().empty()) return bad("not a tuple");
  const auto& top = root.toTupleRef().elements();
  std::size_t texts = 0;  // entries in the string table
  bool table = false;
  c10::IValue records = root;
  if (top[0].isString() && top[0].toStringRef() == torch::jit::kFormatWithStringTable) {
    if (top.size() < 3 || !top[1].isTuple() || !top[2].isTuple()) return bad("string table");
    for (const auto& text : top[1].toTupleRef().elements()) {
      if (!text.isString()) return bad("string table");
      ++texts;
    }
    table = true;
    records = top[2];
  }
  for (const auto& record : records.toTupleRef().elements()) {
    if (!record.isTuple() || record.toTupleRef().elements().size() < 2) return bad("record");
    const auto& r = record.toTupleRef().elements();
    if (!r[0].isInt() || !r[1].isTuple()) return bad("record");
    const auto& range = r[1].toTupleRef().elements();
    if (range.size() != 3 || !range[0].isTuple() || !range[1].isInt() || !range[2].isInt()) return bad("range");
    const auto& source = range[0].toTupleRef().elements();
    if (source.size() != 3 || !source[2].isInt()) return bad("source");
    if (table) {
      if (!source[0].isIntList() || !source[1].isInt()) return bad("source");
      const auto in = [&](std::int64_t i) { return i >= 0 && std::size_t(i) < texts; };
      if (!in(source[1].toInt())) return bad("file name index");
      for (const std::int64_t i : source[0].toIntList())
        if (!in(i)) return bad("text index");
    } else {
      if (!source[0].isString() || !(source[1].isString() || source[1].isNone())) return bad("source");
    }
    // Real archives hold ranges that run past their text pieces (torchvision's vit_b_16 does), so
    // only a negative or inverted range counts as damage.
    const std::int64_t start = range[1].toInt(), end = range[2].toInt();
    if (start < 0 || end < start) return bad("range outside its source");
  }
  return {};
}

}  // namespace graft::core::io
