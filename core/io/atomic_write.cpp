#include "core/io/atomic_write.h"

#include <QtCore/QFileInfo>

#include "core/io/output_file.h"

#include <streambuf>

namespace graft::core::io {

namespace {
// A std::streambuf writing through an OutputFile, with a small buffer. A failed write is
// remembered, not passed up: libtorch's archive writer throws on a short write and then throws
// again from its destructor, which ends the process. So the writer always finishes, and the save
// is then abandoned.
class OutputFileBuffer : public std::streambuf {
 public:
  explicit OutputFileBuffer(OutputFile& file) : file_(file) { setp(buffer_, buffer_ + sizeof(buffer_)); }
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
      file_.write(s, n);
      return n;
    }
    return std::streambuf::xsputn(s, n);
  }

 private:
  void flushBuffer() {
    const std::ptrdiff_t n = pptr() - pbase();
    if (n > 0) file_.write(pbase(), n);
    setp(buffer_, buffer_ + sizeof(buffer_));
  }
  OutputFile& file_;
  char buffer_[1 << 16];
};
}  // namespace

QString writeAtomically(const QString& path, const QByteArray& bytes, const QStringList& inputs) {
  if (const QString why = checkOutputPath(path, inputs); !why.isEmpty()) return why;
  ignoreFileSizeSignal();
  OutputFile file(path);
  if (const QString why = file.open(); !why.isEmpty()) return why;
  file.write(bytes.constData(), bytes.size());
  return file.commit();
}

QString streamAtomically(const QString& path, const std::function<void(std::ostream&)>& write,
                         const QStringList& inputs) {
  if (const QString why = checkOutputPath(path, inputs); !why.isEmpty()) return why;
  ignoreFileSizeSignal();
  OutputFile file(path);
  if (const QString why = file.open(); !why.isEmpty()) return why;
  OutputFileBuffer buffer(file);
  std::ostream out(&buffer);
  write(out);
  out.flush();
  if (!out) {  // the writer left its stream failed: the file is not whole
    file.cancel();
    return QStringLiteral("the write failed (the disk may be full, or a file size limit reached)");
  }
  return file.commit();
}

}  // namespace graft::core::io
