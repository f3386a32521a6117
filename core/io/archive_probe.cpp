#include "core/io/archive_probe.h"
#include "core/io/tensor_records.h"
#include "core/io/zip_directory.h"

#include "core/io/operator_libraries.h"
#include "core/io/pickle_check.h"

#include <algorithm>

#include <caffe2/serialize/inline_container.h>
#include <torch/script.h>
#include <torch/version.h>

#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QRegularExpression>

namespace graft::core::io {

namespace {

const QString kTraceHint = QStringLiteral(
    "Graft opens torch.export programs (.pt2) and TorchScript modules (.pt). In Python, make one with\n"
    "    torch.export.save(torch.export.export(model.eval(), (example_input,)), \"model.pt2\")\n"
    "or torch.jit.trace(model.eval(), example_input).save(\"model.pt\") (or torch.jit.script(model)), then open that "
    "file.");

LoadError make(LoadErrorKind kind, QString headline, QString hint, QString details = {}) {
  return LoadError{kind, std::move(headline), std::move(hint), std::move(details)};
}

// What a torch.save pickle holds, judged from the class names it references.
LoadError classifyPickle(const QString& name, const QByteArray& pickle) {
  if (pickle.contains("collections\nOrderedDict") || pickle.contains("OrderedDict")) {
    if (!pickle.contains("torch.nn.modules"))
      return make(
          LoadErrorKind::StateDict,
          QStringLiteral("%1 holds a state_dict (a dictionary of weights), not a model Graft can open.").arg(name),
          QStringLiteral("A state_dict has no graph to show. ") + kTraceHint);
  }
  if (pickle.contains("torch.nn.modules") || pickle.contains("__main__"))
    return make(
        LoadErrorKind::PickledModule,
        QStringLiteral(
            "%1 is a pickled Python nn.Module (torch.save(model)), not a torch.export program or TorchScript module.")
            .arg(name),
        QStringLiteral("A pickled module needs its Python class to load. ") + kTraceHint);
  return make(
      LoadErrorKind::PickledObject,
      QStringLiteral(
          "%1 was written by torch.save and holds Python objects, not a torch.export program or TorchScript module.")
          .arg(name),
      kTraceHint);
}

bool looksLikeOnnx(const QString& path, const QByteArray& head) {
  if (path.endsWith(QStringLiteral(".onnx"), Qt::CaseInsensitive)) return true;
  // ONNX ModelProto: field 1 (ir_version, varint) then usually field 2 (producer_name, bytes).
  return head.size() > 4 && head[0] == '\x08' && static_cast<unsigned char>(head[1]) < 0x20 &&
         (head[2] == '\x12' || head[2] == '\x1a' || head[2] == '\x3a');
}

}  // namespace

QString checkRecordSizes(caffe2::serialize::PyTorchStreamReader& reader, qint64 archiveSize) {
  constexpr qint64 kDeflateMaxRatio = 1032;
  for (const std::string& record : reader.getAllRecords()) {
    const auto size = reader.getRecordSize(record);
    if (qint64(size) / kDeflateMaxRatio > archiveSize)
      return QStringLiteral("record %1 claims %2 bytes in an archive of %3")
          .arg(QString::fromStdString(record))
          .arg(size)
          .arg(archiveSize);
  }
  return {};
}

LoadError probeArchive(const QString& path) {
  const QFileInfo info(path);
  const QString name = info.fileName();
  if (!info.exists())
    return make(LoadErrorKind::FileMissing, QStringLiteral("%1 does not exist.").arg(path),
                QStringLiteral("Check the path, or pick the file with File > Open."));
  if (info.isDir())
    return make(LoadErrorKind::FileUnreadable, QStringLiteral("%1 is a folder, not a model file.").arg(path),
                QStringLiteral("Pick the .pt file inside it."));
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly))
    return make(LoadErrorKind::FileUnreadable, QStringLiteral("%1 cannot be read: %2.").arg(path, file.errorString()),
                QStringLiteral("Check the file's permissions."));
  const QByteArray head = file.read(4096);
  if (head.isEmpty())
    return make(LoadErrorKind::TruncatedArchive, QStringLiteral("%1 is empty.").arg(name),
                QStringLiteral("The file was probably not written completely. Save the model again."));

  if (head.startsWith("PK\x03\x04")) {
    std::vector<std::string> records;
    try {
      caffe2::serialize::PyTorchStreamReader reader(path.toStdString());
      records = reader.getAllRecords();
      if (const QString why = checkRecordSizes(reader, info.size()); !why.isEmpty())
        return make(
            LoadErrorKind::TruncatedArchive, QStringLiteral("%1 is a damaged archive.").arg(name),
            QStringLiteral("The file was corrupted in transfer or written incompletely. Copy or save it again."), why);
      QString dirError;
      const auto directory = readZipDirectory(path, &dirError);
      const QString bomb = directory ? checkInflation(*directory, quint64(info.size())) : dirError;
      if (!bomb.isEmpty())
        return make(
            LoadErrorKind::TruncatedArchive, QStringLiteral("%1 is refused: %2.").arg(name, bomb),
            QStringLiteral(
                "Save the model again with torch.jit.save or torch.export.save (records stored, not compressed)."),
            bomb);
      const bool hasCode = std::any_of(records.begin(), records.end(),
                                       [](const std::string& r) { return r.rfind("code/", 0) == 0; });
      if (reader.hasRecord("constants.pkl") && hasCode) {
        // libtorch would allocate what a damaged pickle's lengths claim, gigabytes at times, and
        // crashes on malformed source ranges (see pickle_check.h).
        for (const std::string& record : records) {
          const bool pickle = record.size() > 4 && (record.compare(record.size() - 4, 4, ".pkl") == 0 ||
                                                    record.compare(record.size() - 4, 4, "_pkl") == 0);
          if (!pickle) continue;
          auto [data, size] = reader.getRecord(record);
          const auto* bytes = static_cast<const char*>(data.get());
          const bool sourceRanges = record.size() >= 9 && record.compare(record.size() - 9, 9, "debug_pkl") == 0;
          const QString why = sourceRanges ? checkSourceRangePickle(bytes, size) : checkPickleLengths(bytes, size);
          if (!why.isEmpty())
            return make(
                LoadErrorKind::TruncatedArchive, QStringLiteral("%1 is a damaged archive.").arg(name),
                QStringLiteral("The file was corrupted in transfer or written incompletely. Copy or save it again."),
                QStringLiteral("%1: %2").arg(QString::fromStdString(record), why));
        }
        // Every weight and constant against its record: libtorch would read past a short one.
        for (const char* archive : {"constants", "data"})
          if (const QString why = checkTensorRecords(reader, archive); !why.isEmpty())
            return make(
                LoadErrorKind::TruncatedArchive, QStringLiteral("%1 is a damaged archive: %2.").arg(name, why),
                QStringLiteral("The file was corrupted in transfer or written incompletely. Copy or save it again."),
                why);
        return {};
      }
      if (reader.hasRecord("data.pkl")) {
        auto [data, size] = reader.getRecord("data.pkl");
        return classifyPickle(name, QByteArray(static_cast<const char*>(data.get()), static_cast<int>(size)));
      }
      return make(LoadErrorKind::NotAnArchive,
                  QStringLiteral("%1 is a PyTorch archive without TorchScript code.").arg(name), kTraceHint);
    } catch (const c10::Error& e) {
      const QString what = QString::fromStdString(e.what_without_backtrace());
      if (what.contains(QStringLiteral("central directory")) || what.contains(QStringLiteral("truncated")) ||
          info.size() < 22)
        return make(LoadErrorKind::TruncatedArchive,
                    QStringLiteral("%1 is a damaged or truncated archive.").arg(name),
                    QStringLiteral("The file ends early or was corrupted in transfer. Copy or save it again."), what);
      return make(LoadErrorKind::NotAnArchive,
                  QStringLiteral("%1 is a zip file, but not a PyTorch archive.").arg(name), kTraceHint, what);
    }
  }
  if (static_cast<unsigned char>(head[0]) == 0x80)  // a pickle: torch.save's legacy format
    return classifyPickle(name, file.read(1 << 20).prepend(head));
  if (looksLikeOnnx(path, head))
    return make(
        LoadErrorKind::Onnx,
        QStringLiteral("%1 is an ONNX model, not a torch.export program or TorchScript module.").arg(name),
        QStringLiteral("Graft reads PyTorch's own formats. Open the PyTorch model it was exported from, saved with "
                       "torch.export.save(torch.export.export(model, (example,)), path) or "
                       "torch.jit.trace(model, example).save(path)."));
  return make(LoadErrorKind::NotAnArchive,
              QStringLiteral("%1 is not a PyTorch archive (it is not a zip file).").arg(name), kTraceHint);
}

LoadError classifyLoadFailure(const QString& path, const QString& message) {
  const QString name = QFileInfo(path).fileName();
  static const QRegularExpression unknownOp(QStringLiteral(R"(Unknown (?:builtin op|type|operator)[^:]*: ([\w.:]+))"));
  QStringList ops;
  auto it = unknownOp.globalMatch(message);
  while (it.hasNext()) {
    const QString op = it.next().captured(1).remove(QRegularExpression(QStringLiteral("\\.$")));
    if (!ops.contains(op)) ops << op;
  }
  if (!ops.isEmpty()) {
    const auto& torchvision = loadTorchvisionOperators();
    const bool fromTorchvision = std::any_of(ops.begin(), ops.end(), [](const QString& op) {
      return op.startsWith(QLatin1String("torchvision::"));
    });
    const QString hint =
        fromTorchvision && !torchvision.loaded
            ? QStringLiteral("torchvision::* operators live in torchvision's operator library, which is not loaded: %1")
                  .arg(torchvision.message)
            : QStringLiteral("Graft runs on libtorch %1. Save the model with a PyTorch of that version, or build Graft "
                             "against the libtorch that saved it (-DGRAFT_TORCH_DIR=.../site-packages/torch).")
                  .arg(QString::fromLatin1(TORCH_VERSION));
    return make(
        LoadErrorKind::UnknownOperator,
        QStringLiteral("%1 uses operators this build does not know: %2.").arg(name, ops.join(QStringLiteral(", "))),
        hint, message);
  }
  if (message.contains(QStringLiteral("central directory")))
    return make(LoadErrorKind::TruncatedArchive, QStringLiteral("%1 is a damaged or truncated archive.").arg(name),
                QStringLiteral("Copy or save it again."), message);
  return make(LoadErrorKind::Other, QStringLiteral("libtorch could not load %1.").arg(name),
              QStringLiteral("See the details. If the file came from a newer PyTorch, build Graft against that "
                             "libtorch (-DGRAFT_TORCH_DIR=.../site-packages/torch)."),
              message);
}

}  // namespace graft::core::io
