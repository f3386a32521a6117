#include "core/io/output_file.h"

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QRandomGenerator>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace graft::core::io {

namespace {
QString errnoText(int error) { return QString::fromLocal8Bit(std::strerror(error)); }

QString writeFailed(int error) {
  return QStringLiteral("the write failed: %1 (the disk may be full, or a file size limit reached)")
      .arg(errnoText(error));
}
}  // namespace

OutputFile::OutputFile(const QString& path) : path_(path) {}

OutputFile::~OutputFile() {
  cancel();
  if (dir_ >= 0) ::close(dir_);
}

QString OutputFile::open() {
  const QFileInfo info(path_);
  name_ = QFile::encodeName(info.fileName());
  if (name_.isEmpty() || name_ == "." || name_ == "..")
    return QStringLiteral("%1 names no file to write").arg(path_);
  // The folder as the user named it, links in its path resolved now; its last part is then opened
  // without following one, so it cannot be swapped for a link between the two.
  const QString folder = QFileInfo(info.absolutePath()).canonicalFilePath();
  if (folder.isEmpty()) return QStringLiteral("the folder of %1 does not exist").arg(path_);
  dir_ = ::open(QFile::encodeName(folder).constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir_ < 0) return QStringLiteral("cannot open the folder of %1: %2").arg(path_, errnoText(errno));
  struct stat existing {};
  const bool exists = ::fstatat(dir_, name_.constData(), &existing, AT_SYMLINK_NOFOLLOW) == 0;
  if (exists && !S_ISREG(existing.st_mode))
    return QStringLiteral("%1 is not a regular file: Graft does not write through links, devices or folders")
        .arg(path_);
  for (int attempt = 0; attempt < 100 && fd_ < 0; ++attempt) {
    tempName_ = "." + name_ + ".graft-" + QByteArray::number(QRandomGenerator::global()->generate64(), 36);
    fd_ = ::openat(dir_, tempName_.constData(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd_ < 0 && errno != EEXIST) break;
  }
  if (fd_ < 0) {
    tempName_.clear();
    return QStringLiteral("cannot write %1: %2").arg(path_, errnoText(errno));
  }
  if (exists) ::fchmod(fd_, existing.st_mode & 07777);
  return {};
}

bool OutputFile::write(const char* data, qint64 size) {
  if (fd_ < 0 && writeError_.isEmpty()) writeError_ = QStringLiteral("the file is not open");
  while (writeError_.isEmpty() && size > 0) {
    const ssize_t n = ::write(fd_, data, size_t(size));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      writeError_ = writeFailed(n < 0 ? errno : ENOSPC);
      break;
    }
    data += n;
    size -= n;
  }
  return writeError_.isEmpty();
}

QString OutputFile::commit() {
  if (fd_ < 0) return writeError_.isEmpty() ? QStringLiteral("the file is not open") : writeError_;
  if (writeError_.isEmpty() && ::fsync(fd_) != 0) writeError_ = writeFailed(errno);
  if (writeError_.isEmpty() && ::close(std::exchange(fd_, -1)) != 0) writeError_ = writeFailed(errno);
  if (!writeError_.isEmpty()) {
    const QString why = writeError_;
    cancel();
    return why;
  }
  // Checked again at the last moment; renameat itself never follows a link at the target's name
  // (it replaces the link), so a swap after this check still writes through nothing.
  struct stat now {};
  if (::fstatat(dir_, name_.constData(), &now, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(now.st_mode)) {
    cancel();
    return QStringLiteral("%1 turned into a link or a device while it was written: nothing was written there")
        .arg(path_);
  }
  if (::renameat(dir_, tempName_.constData(), dir_, name_.constData()) != 0) {
    const QString why = QStringLiteral("cannot replace %1: %2").arg(path_, errnoText(errno));
    cancel();
    return why;
  }
  tempName_.clear();
  ::fsync(dir_);  // the rename itself survives a crash
  return {};
}

void OutputFile::cancel() {
  if (fd_ >= 0) ::close(std::exchange(fd_, -1));
  if (!tempName_.isEmpty() && dir_ >= 0) ::unlinkat(dir_, tempName_.constData(), 0);
  tempName_.clear();
}

}  // namespace graft::core::io
