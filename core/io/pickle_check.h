#pragma once
// A look at a pickle's framing before libtorch unpickles it. libtorch's unpickler allocates what
// the file states before it reads on: a string or bytes opcode's length, a memo index's table
// size; so a damaged .pt or tensor file can make it take gigabytes. A length beyond the rest of
// the pickle, or a memo index beyond its size, is what such a file has, and what this finds
// without unpickling anything.
#include <QtCore/QString>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace graft::core::io {

// Walks the opcodes of a pickle (protocols 0 to 5) up to STOP. Returns why it is damaged when an
// opcode's stated length runs past the end of `size` bytes or a LONG_BINPUT index exceeds `size`,
// empty otherwise (also for an opcode it does not know: libtorch judges those).
QString checkPickleLengths(const char* data, std::size_t size);

// The "module.name" of every GLOBAL opcode up to STOP: the classes (and builtins) libtorch's
// unpickler resolves, and so the classes whose __setstate__ it runs. None when the walk cannot
// reach STOP through opcodes it knows (then what the pickle names is not known).
std::optional<std::vector<std::string>> pickleGlobals(const char* data, std::size_t size);

// A TorchScript archive's `.debug_pkl` record (the source ranges of a code file): libtorch reads
// it only when it wants a source range, e.g. to word a compile error, and then trusts its indices
// and types (a text index past the string table crashes it). Returns why the record is malformed,
// empty when every record, source and range in it is well-formed.
QString checkSourceRangePickle(const char* data, std::size_t size);

}  // namespace graft::core::io
