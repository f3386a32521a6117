#include "core/io/atomic_write.h"

#include <QtCore/QFileInfo>
#include <QtCore/QSaveFile>

#include <streambuf>

namespace graft::core::io {

namespace {
// A std::streambuf writing through a QSaveFile, with a small buffer. A failed write is remembered,
// not passed up: libtorch's archive writer throws on a short write and then throws again from
// its destructor, which ends the process. So the writer always finishes, and the save is then
// abandoned.
class SaveFileBuffer : public std::streambuf {
 public:
  explicit SaveFileBuffer(QSaveFile& file) : file_(file) { setp(buffer_, buffer_ + sizeof(buffer_)); }
  bool failed() const { return failed_; }
  int sync() override {
    flushBuffer();
    return 0;
  }

 protected:
  int_type overflow(int_type ch) override {
    flushBuffer();
    if (ch != traits_type::eof()) {
      *pptr() = char(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (n >= std::streamsize(sizeof(buffer_))) {
      flushBuffer();
      if (!failed_ && file_.write(s, n) != n) failed_ = true;
      return n;
    }
    return std::streambuf::xsputn(s, n);
  }

 private:
  void flushBuffer() {
    const std::ptrdiff_t n = pptr() - pbase();
    if (n > 0 && !failed_ && file_.write(pbase(), n) != n) failed_ = true;
    setp(buffer_, buffer_ + sizeof(buffer_));
  }
  QSaveFile& file_;
  char buffer_[1 << 16];
  bool failed_ = false;
};
}  // namespace

QString writeFailure(const QFileDevice& file) {
  const QString why = file.errorString();
  if (why.isEmpty() || why == QLatin1String("Unknown error"))
    return QStringLiteral("the write failed (the disk may be full, or a file size limit reached)");
  return why;
}

QString commitWhole(QSaveFile& file) {
  if (!file.flush() || file.error() != QFileDevice::NoError) {
    const QString why = writeFailure(file);
    file.cancelWriting();
    return why;
  }
  if (!file.commit()) return writeFailure(file);
  return {};
}

QString writeAtomically(const QString& path, const QByteArray& bytes, const QStringList& inputs) {
  if (const QString why = checkOutputPath(path, inputs); !why.isEmpty()) return why;
  ignoreFileSizeSignal();
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size()) return writeFailure(file);
  return commitWhole(file);
}

QString streamAtomically(const QString& path, const std::function<void(std::ostream&)>& write,
                         const QStringList& inputs) {
  if (const QString why = checkOutputPath(path, inputs); !why.isEmpty()) return why;
  ignoreFileSizeSignal();
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) return writeFailure(file);
  SaveFileBuffer buffer(file);
  std::ostream out(&buffer);
  write(out);
  out.flush();
  if (buffer.failed() || !out) {
    const QString why = writeFailure(file);
    file.cancelWriting();
    return why;
  }
  return commitWhole(file);
}

}  // namespace graft::core::io
