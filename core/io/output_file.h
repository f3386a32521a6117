#pragma once
// A file written whole or not at all, relative to its opened folder: the bytes go to a new
// temporary file created there (O_CREAT|O_EXCL|O_NOFOLLOW), are synced, and renameat() puts it in
// place. No step follows a link at the target's name, so a symbolic link put there after the
// output policy was checked is replaced, never written through (QSaveFile resolves one when it
// opens). An existing file's permissions are kept, as QSaveFile keeps them.
#include <QtCore/QString>

namespace graft::core::io {

class OutputFile {
 public:
  explicit OutputFile(const QString& path);
  ~OutputFile();  // removes the temporary file unless committed
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Opens the folder and a new temporary file in it. Empty on success, else why not.
  QString open();
  // Appends bytes; false once any write failed (the rest are then dropped).
  bool write(const char* data, qint64 size);
  bool failed() const { return !writeError_.isEmpty(); }
  // Syncs the file and renames it over the target, unless a write failed or the target has turned
  // into something other than a regular file meanwhile. Empty on success, else why not.
  QString commit();
  // Drops what was written; the target stays as it was.
  void cancel();

 private:
  QString path_;
  QByteArray name_, tempName_;
  int dir_ = -1, fd_ = -1;
  QString writeError_;
};

}  // namespace graft::core::io
