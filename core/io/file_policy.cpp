#include "core/io/file_policy.h"

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <mutex>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace graft::core::io {

namespace {

// A descriptor closed when it leaves scope.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

QString systemError(int error) { return QString::fromLocal8Bit(std::strerror(error)); }

// Opens `path` for reading without blocking (a FIFO without a writer would block a plain open)
// and checks, on the open descriptor, that it is a regular file. `st` receives its status.
QString openRegular(const QString& path, const QString& what, Fd& file, struct stat& st) {
  if (path.isEmpty()) return QStringLiteral("no %1 file given").arg(what);
  file.fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (file.fd < 0) {
    const int error = errno;
    if (error == ENOENT) return QStringLiteral("%1 %2 does not exist").arg(what, path);
    return QStringLiteral("cannot read %1 %2: %3").arg(what, path, systemError(error));
  }
  if (::fstat(file.fd, &st) != 0) return QStringLiteral("cannot read %1 %2: %3").arg(what, path, systemError(errno));
  if (S_ISDIR(st.st_mode)) return QStringLiteral("%1 %2 is a folder, not a regular file").arg(what, path);
  if (!S_ISREG(st.st_mode))
    return QStringLiteral("%1 %2 is not a regular file (a device, a pipe or a socket): give a file").arg(what, path);
  // Regular from here on: reads block no longer matter, but a file opened O_NONBLOCK reads the same.
  return {};
}

// Reads up to `limit` bytes; -1 on an error (errno set).
qint64 readUpTo(int fd, char* buffer, qint64 limit) {
  qint64 total = 0;
  while (total < limit) {
    const ssize_t n = ::read(fd, buffer + total, size_t(std::min<qint64>(limit - total, qint64(1) << 24)));
    if (n < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (n == 0) break;
    total += n;
  }
  return total;
}

// A file whose size reads 0 but which yields bytes, or refuses a plain read (/proc/self/pagemap
// reads only in 8-byte steps): a /proc or /sys file, whose size says nothing about its content.
bool isPseudoFile(int fd, const struct stat& st) {
  if (st.st_size != 0) return false;
  char probe[4096];
  return readUpTo(fd, probe, sizeof(probe)) != 0;
}

QString pseudoFileError(const QString& path, const QString& what) {
  return QStringLiteral("%1 %2 reports a size of 0 bytes but is not empty (a /proc or /sys file): the system does not "
                        "say how large it is, so it is not read")
      .arg(what, path);
}

QString sizeText(qint64 bytes) {
  if (bytes < (qint64(1) << 20)) return QStringLiteral("%1 bytes").arg(bytes);
  return QStringLiteral("%1 MiB").arg(double(bytes) / double(1 << 20), 0, 'f', 1);
}

}  // namespace

QString checkInputFile(const QString& path, const QString& what) {
  Fd file;
  struct stat st {};
  if (QString why = openRegular(path, what, file, st); !why.isEmpty()) return why;
  if (isPseudoFile(file.fd, st)) return pseudoFileError(path, what);
  return {};
}

std::optional<QByteArray> readInputFile(const QString& path, qint64 maxBytes, const QString& what, QString* error) {
  auto failWith = [&](const QString& why) -> std::optional<QByteArray> {
    if (error) *error = why;
    return std::nullopt;
  };
  Fd file;
  struct stat st {};
  if (QString why = openRegular(path, what, file, st); !why.isEmpty()) return failWith(why);
  if (st.st_size > maxBytes)
    return failWith(QStringLiteral("%1 %2 is %3; Graft reads such files up to %4")
                        .arg(what, path, sizeText(st.st_size), sizeText(maxBytes)));
  if (st.st_size == 0) {
    if (isPseudoFile(file.fd, st)) return failWith(pseudoFileError(path, what));
    return QByteArray();
  }
  // One byte past the reported size tells a file whose size is not what the system says; the
  // read never goes past the bound, whatever the size says.
  const qint64 limit = std::min<qint64>(qint64(st.st_size), maxBytes) + 1;
  QByteArray bytes;
  bytes.resize(qsizetype(std::min<qint64>(limit, qint64(1) << 20)));
  qint64 total = 0;
  while (total < limit) {
    if (total == bytes.size()) bytes.resize(qsizetype(std::min<qint64>(limit, qint64(bytes.size()) * 2)));
    const qint64 n = readUpTo(file.fd, bytes.data() + total, bytes.size() - total);
    if (n < 0) return failWith(QStringLiteral("cannot read %1 %2: %3").arg(what, path, systemError(errno)));
    if (n == 0) break;
    total += n;
  }
  if (total > qint64(st.st_size))
    return failWith(QStringLiteral("%1 %2 holds more than the %3 bytes the system reports (a /proc or /sys file, or "
                                   "a file written while it was read): it is not read")
                        .arg(what, path)
                        .arg(qint64(st.st_size)));
  bytes.resize(qsizetype(total));
  return bytes;
}

std::optional<InputHead> readInputHead(const QString& path, qint64 headBytes, const QString& what, QString* error) {
  auto failWith = [&](const QString& why) -> std::optional<InputHead> {
    if (error) *error = why;
    return std::nullopt;
  };
  Fd file;
  struct stat st {};
  if (QString why = openRegular(path, what, file, st); !why.isEmpty()) return failWith(why);
  if (st.st_size == 0 && isPseudoFile(file.fd, st)) return failWith(pseudoFileError(path, what));
  InputHead head;
  head.size = qint64(st.st_size);
  head.bytes.resize(qsizetype(std::min<qint64>(headBytes, head.size)));
  const qint64 n = readUpTo(file.fd, head.bytes.data(), head.bytes.size());
  if (n < 0) return failWith(QStringLiteral("cannot read %1 %2: %3").arg(what, path, systemError(errno)));
  head.bytes.resize(qsizetype(n));
  return head;
}

bool sameFile(const QString& a, const QString& b) {
  if (a.isEmpty() || b.isEmpty()) return false;
  struct stat sa {}, sb {};
  if (::stat(QFile::encodeName(a).constData(), &sa) != 0 || ::stat(QFile::encodeName(b).constData(), &sb) != 0)
    return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

QString checkOutputPath(const QString& path, const QStringList& inputs) {
  if (path.isEmpty()) return QStringLiteral("no file to write given");
  struct stat st {};
  if (::stat(QFile::encodeName(path).constData(), &st) == 0 && !S_ISREG(st.st_mode))
    return QStringLiteral("%1 is not a regular file (a device, a pipe or a folder): choose a file to write").arg(path);
  for (const QString& input : inputs) {
    if (input.isEmpty()) continue;
    const QString inputPath = QFileInfo(input).absoluteFilePath();
    if (sameFile(path, input) || QDir::cleanPath(QFileInfo(path).absoluteFilePath()) == QDir::cleanPath(inputPath))
      return QStringLiteral("refusing to overwrite %1, which is an input (%2): choose another file to write")
          .arg(path, input);
  }
  // Writing through a link would replace the file it points to, wherever that is (a journal in
  // the session folder linked to a file of the user's): the link is never followed.
  struct stat link {};
  if (::lstat(QFile::encodeName(path).constData(), &link) == 0 && S_ISLNK(link.st_mode))
    return QStringLiteral(
               "%1 is a symbolic link: Graft does not write through links; give the path of a file, or remove the link")
        .arg(path);
  return {};
}

void ignoreFileSizeSignal() {
  static std::once_flag once;
  std::call_once(once, [] { std::signal(SIGXFSZ, SIG_IGN); });
}

}  // namespace graft::core::io
