#pragma once
// One policy for every file Graft reads or writes, used by graft-cli and the GUI alike.
//
// Input: a model, a journal, a rule or tour file, a tensor given as --input. Only a regular file
// is read; it is opened with O_NONBLOCK and checked on the open descriptor, so a FIFO or a device
// never blocks and is never read. A file read whole is read with a bound that holds even where
// the system's size is not the file's (a /proc file reports 0 bytes): the read stops one byte
// past what the size and the bound allow, and fails there.
//
// Output: never a device, a pipe or a folder, never one of the inputs (the same file by its
// canonical path, or by device and inode, so a symlink or a hard link to the input is caught too),
// never a symbolic link (it is not written through), and always written atomically
// (atomic_write.h): an existing regular file is replaced whole, as cp and compilers do. A file size limit (`ulimit -f`)
// makes a write fail with EFBIG instead of ending the process by SIGXFSZ.
#include <QtCore/QByteArray>
#include <QtCore/QString>
#include <QtCore/QStringList>

#include <optional>

namespace graft::core::io {

// Bounds of files read whole.
inline constexpr qint64 kMaxTensorFileBytes = qint64(4) << 30;  // an --input tensor file
inline constexpr qint64 kMaxTextFileBytes = qint64(256) << 20;  // a journal, a rule or tour file

// Empty when `path` names a regular file that opens for reading, else why not, worded for the
// user with `what` ("model", "input", "journal", "rule file") naming the file's role. A file
// whose reported size is 0 but which has bytes (/proc) is refused: its size cannot be trusted.
QString checkInputFile(const QString& path, const QString& what);

// The whole of `path` under the input policy, at most `maxBytes`; nullopt with `error` set when
// the policy refuses it, it cannot be read, or it holds more than `maxBytes` (or more than its
// reported size).
std::optional<QByteArray> readInputFile(const QString& path, qint64 maxBytes, const QString& what, QString* error);

// The first bytes of a file and its size, so that a format's magic and header are checked before
// its body is read (a 3 GB file that is not a tensor is refused at once).
struct InputHead {
  QByteArray bytes;  // at most the `headBytes` asked for; fewer when the file is shorter
  qint64 size = 0;   // the whole file's size
};
// The head of `path` under the input policy; nullopt with `error` set when the policy refuses it
// or it cannot be read.
std::optional<InputHead> readInputHead(const QString& path, qint64 headBytes, const QString& what, QString* error);

// Whether `a` and `b` name one existing file (symlinks followed, hard links included).
bool sameFile(const QString& a, const QString& b);

// Empty when `path` may be written, else why not: it exists and is not a regular file (a device
// such as /dev/null or /dev/full, a FIFO, a folder), it is one of `inputs` (the model, or any
// other file the command reads), or it is a symbolic link. Empty entries of `inputs` are ignored.
QString checkOutputPath(const QString& path, const QStringList& inputs = {});

// Sets SIGXFSZ to be ignored (once per process), so that a write past `ulimit -f` fails with
// EFBIG and is reported like a full disk. Every atomic write calls it.
void ignoreFileSizeSignal();

}  // namespace graft::core::io
