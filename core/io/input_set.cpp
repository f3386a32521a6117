#include "core/io/input_set.h"
#include "core/run/input_values.h"

#include "core/io/file_policy.h"
#include "core/io/saved_value.h"
#include "core/model/document.h"
#include "core/model/revision.h"
#include "core/model/dtype_names.h"
#include "core/model/shape_symbols.h"
#include "core/model/value_format.h"
#include "core/io/input_specs.h"
#include "core/samples/samples.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/script.h>

#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QMap>
#include <QtCore/QRegularExpression>
#include <algorithm>
#include <cstring>

namespace graft::core::io {

namespace {

struct Parser {
  QString text;
  int pos = 0;
  at::Generator gen;
  QString error;
  // Top-level splitting only: commas inside brackets belong to the nested spec.
  static QStringList splitTopLevel(const QString& s) {
    QStringList parts;
    int depth = 0, start = 0;
    for (int i = 0; i < s.size(); ++i) {
      const QChar c = s[i];
      if (c == '(' || c == '[') ++depth;
      else if (c == ')' || c == ']') --depth;
      else if (c == ',' && depth == 0) { parts << s.mid(start, i - start).trimmed(); start = i + 1; }
    }
    parts << s.mid(start).trimmed();
    if (parts.size() == 1 && parts[0].isEmpty()) parts.clear();
    return parts;
  }
};

std::optional<c10::IValue> parseOne(const QString& spec, at::Generator& gen, QString& error);

// Tuples and lists nest at most this deep: parseOne recurses once per level, so a spec such as
// "((((…1x3…))))" 60,000 deep would overflow the stack; no forward takes more than a few levels.
constexpr int kMaxNesting = 32;

// Why `spec` nests too deep, empty otherwise; one pass over it, whatever its length.
QString nestingError(const QString& spec) {
  int depth = 0, deepest = 0;
  for (const QChar c : spec) {
    if (c == '(' || c == '[' || c == '{') deepest = std::max(deepest, ++depth);
    else if (c == ')' || c == ']' || c == '}') depth = std::max(0, depth - 1);
  }
  if (deepest <= kMaxNesting) return {};
  return QStringLiteral("input spec nests tuples and lists %1 deep; at most %2 levels are read ('%3')")
      .arg(deepest).arg(kMaxNesting).arg(spec.size() > 40 ? spec.left(40) + QStringLiteral("…") : spec);
}

std::optional<c10::IValue> randomTensor(const QString& spec, at::Generator& gen, QString& error) {
  const QString shapePart = spec.section(':', 0, 0);
  const QString dtypePart = spec.contains(':') ? spec.section(':', 1) : QStringLiteral("float32");
  const auto dtype = model::dtypeFromName(dtypePart);
  if (!dtype) {
    error = QStringLiteral(
                "unknown dtype '%1' in input spec '%2' (use float32, float64, float16, bfloat16, int64, int32, int8, "
                "uint8 or bool)")
                .arg(dtypePart, spec);
    return std::nullopt;
  }
  std::vector<int64_t> dims;
  if (shapePart != QLatin1String("scalar")) {
    for (const QString& d : shapePart.split('x')) {
      bool ok = false;
      const qlonglong v = d.toLongLong(&ok);
      if (!ok || v < 0) {
        error =
            QStringLiteral("bad dimension '%1' in input spec '%2' (expected e.g. 1x3x224x224:float32)").arg(d, spec);
        return std::nullopt;
      }
      dims.push_back(v);
    }
  }
  // The same bound as a tensor file: a spec such as 100000x100000x100000 is refused, not allocated
  // until memory runs out.
  qint64 bytes = qint64(c10::elementSize(*dtype));
  for (const int64_t d : dims) {
    if (d != 0 && bytes > io::kMaxTensorFileBytes / d) {
      error =
          QStringLiteral("input spec '%1' asks for a tensor of more than %2 GiB; Graft makes inputs of up to %2 GiB")
              .arg(spec)
              .arg(io::kMaxTensorFileBytes >> 30);
      return std::nullopt;
    }
    bytes = d == 0 ? 0 : bytes * d;
  }
  const auto opts = torch::TensorOptions().dtype(*dtype);
  if (c10::isFloatingType(*dtype))
    return c10::IValue(at::randn(dims, gen, torch::TensorOptions().dtype(torch::kFloat)).to(*dtype));
  if (*dtype == torch::kBool) return c10::IValue(at::randint(0, 2, dims, gen, opts));
  return c10::IValue(at::randint(0, 10, dims, gen, opts));
}

// A .npy file's header (version 1-3, little-endian, C order): what it holds and where.
struct NpyHeader {
  std::vector<int64_t> dims;
  c10::ScalarType dtype = c10::ScalarType::Float;
  qint64 dataOffset = 0, dataBytes = 0;
};

// numpy itself reads headers of up to 10,000 bytes by default.
constexpr qint64 kMaxNpyHeaderBytes = qint64(1) << 16;
constexpr qint64 kNpyHeadBytes = 12 + kMaxNpyHeaderBytes;

// The header of a .npy file, from its first kNpyHeadBytes (`head`) and its size. Every length and
// size it states is checked against the file's size, so nothing is read or allocated on its word.
std::optional<NpyHeader> readNpyHeader(const QByteArray& head, qint64 fileSize, const QString& path, QString& error) {
  if (head.size() < 10 || std::memcmp(head.constData(), "\x93NUMPY", 6) != 0) {
    error = QStringLiteral("%1 is not a .npy file (no NUMPY magic)").arg(path);
    return std::nullopt;
  }
  const int major = static_cast<unsigned char>(head[6]);
  if (major < 1 || major > 3) {
    error = QStringLiteral("%1: .npy format version %2 is not one Graft reads (1 to 3)").arg(path).arg(major);
    return std::nullopt;
  }
  const qsizetype offset = major == 1 ? 10 : 12;  // version 1: u16 header length; 2 and 3: u32
  if (head.size() < offset) {
    error = QStringLiteral("%1: truncated .npy header").arg(path);
    return std::nullopt;
  }
  qint64 headerLen = uchar(head[8]) | (uchar(head[9]) << 8);
  if (major != 1) headerLen |= (qint64(uchar(head[10])) << 16) | (qint64(uchar(head[11])) << 24);
  if (headerLen > fileSize - offset || headerLen > head.size() - offset) {
    error = headerLen > kMaxNpyHeaderBytes
                ? QStringLiteral("%1: its .npy header claims %2 bytes; Graft reads headers of up to %3")
                      .arg(path)
                      .arg(headerLen)
                      .arg(kMaxNpyHeaderBytes)
                : QStringLiteral("%1: truncated .npy header").arg(path);
    return std::nullopt;
  }
  const QString header = QString::fromLatin1(head.mid(offset, headerLen));
  const auto descr = QRegularExpression(QStringLiteral("'descr':\\s*'([<>|=])(\\w\\d*)'")).match(header);
  const auto fortran = QRegularExpression(QStringLiteral("'fortran_order':\\s*(True|False)")).match(header);
  const auto shape = QRegularExpression(QStringLiteral("'shape':\\s*\\(([^)]*)\\)")).match(header);
  if (!descr.hasMatch() || !shape.hasMatch()) {
    error = QStringLiteral("%1: unreadable .npy header").arg(path);
    return std::nullopt;
  }
  if (descr.captured(1) == QLatin1String(">") || (fortran.hasMatch() && fortran.captured(1) == QLatin1String("True"))) {
    error = QStringLiteral("%1: only little-endian, C-ordered .npy files are supported").arg(path);
    return std::nullopt;
  }
  static const std::map<QString, c10::ScalarType> kinds = {
      {"f4", torch::kFloat}, {"f8", torch::kDouble}, {"f2", torch::kHalf}, {"i8", torch::kLong},
      {"i4", torch::kInt}, {"i2", torch::kShort}, {"i1", torch::kChar}, {"u1", torch::kByte}, {"b1", torch::kBool}};
  auto kind = kinds.find(descr.captured(2));
  if (kind == kinds.end()) {
    error = QStringLiteral("%1: unsupported .npy dtype '%2'").arg(path, descr.captured(2));
    return std::nullopt;
  }
  // The data's size, computed without overflow: a shape larger than the data is refused before
  // it is allocated.
  NpyHeader out;
  out.dtype = kind->second;
  out.dataOffset = offset + headerLen;
  const qint64 available = fileSize - out.dataOffset;
  qint64 need = qint64(c10::elementSize(kind->second));
  bool empty = false, tooLarge = false;
  for (const QString& d : shape.captured(1).split(',', Qt::SkipEmptyParts)) {
    bool ok = false;
    const qint64 v = d.trimmed().toLongLong(&ok);
    if (!ok || v < 0) {
      error = QStringLiteral("%1: bad dimension '%2' in the .npy shape").arg(path, d.trimmed());
      return std::nullopt;
    }
    out.dims.push_back(v);
    if (v == 0) empty = true;
    else if (need > available / v) tooLarge = true;
    else need *= v;
  }
  if (empty) need = 0;
  if (!empty && (tooLarge || available < need)) {
    error = QStringLiteral("%1: truncated .npy data").arg(path);
    return std::nullopt;
  }
  if (available > need) {
    error = QStringLiteral("%1: %2 bytes follow the .npy data its header describes; it is not read")
                .arg(path)
                .arg(available - need);
    return std::nullopt;
  }
  out.dataBytes = need;
  return out;
}

// A .npy file as a tensor: its magic and header are read and checked first, the body only after.
std::optional<c10::IValue> loadNpy(const QString& path, QString& error) {
  const auto head = io::readInputHead(path, kNpyHeadBytes, QStringLiteral("input"), &error);
  if (!head) return std::nullopt;
  const auto header = readNpyHeader(head->bytes, head->size, path, error);
  if (!header) return std::nullopt;
  const auto bytes = io::readInputFile(path, io::kMaxTensorFileBytes, QStringLiteral("input"), &error);
  if (!bytes) return std::nullopt;
  if (bytes->size() != header->dataOffset + header->dataBytes) {
    error = QStringLiteral("%1 changed while it was read").arg(path);
    return std::nullopt;
  }
  auto t = torch::empty(header->dims, torch::TensorOptions().dtype(header->dtype));
  if (header->dataBytes > 0)
    std::memcpy(t.data_ptr(), bytes->constData() + header->dataOffset, size_t(header->dataBytes));
  return c10::IValue(t);
}

// torch.save'd lists unpickle as List[Any]; TorchScript's forward(Tensor[] images) wants the
// list typed, as Python's call would have made it.
c10::IValue typedLists(const c10::IValue& v) {
  if (v.isTuple()) {
    std::vector<c10::IValue> items;
    for (const auto& e : v.toTupleRef().elements()) items.push_back(typedLists(e));
    return c10::ivalue::Tuple::create(std::move(items));
  }
  if (v.isList() && !v.isTensorList()) {
    const auto items = v.toListRef();
    const bool allTensors =
        !items.empty() && std::all_of(items.begin(), items.end(), [](const c10::IValue& e) { return e.isTensor(); });
    if (allTensors) {
      c10::List<at::Tensor> out;
      for (const auto& e : items) out.push_back(e.toTensor());
      return out;
    }
  }
  return v;
}

// An input file is read under the input policy (io/file_policy.h): a regular file of at most
// 4 GiB (an input is a tensor for one forward), read with that bound even where its reported size
// is 0 (/proc), never a device or a pipe. Its format's magic is checked before its body is read.
std::optional<c10::IValue> loadTensorFile(const QString& path, QString& error) {
  if (path.endsWith(QLatin1String(".npy"), Qt::CaseInsensitive)) return loadNpy(path, error);
  const auto head = io::readInputHead(path, 4, QStringLiteral("input"), &error);
  if (!head) return std::nullopt;
  if (!head->bytes.startsWith(QByteArrayLiteral("PK\x03\x04"))) {
    error = QStringLiteral(
                "%1 is not a torch.save'd tensor or .npy file: it does not start as a zip archive (torch.save) "
                "and its name does not end in .npy")
                .arg(path);
    return std::nullopt;
  }
  const auto bytes = io::readInputFile(path, io::kMaxTensorFileBytes, QStringLiteral("input"), &error);
  if (!bytes) return std::nullopt;
  try {
    return typedLists(io::loadSavedValue(*bytes));
  } catch (const c10::Error& e) {
    error = QStringLiteral("%1 is not a torch.save'd tensor or .npy file: %2")
                .arg(path, QString::fromStdString(e.what_without_backtrace()).section('\n', 0, 0));
    return std::nullopt;
  } catch (const std::exception& e) {
    error = QStringLiteral("%1 is not a torch.save'd tensor or .npy file: %2")
                .arg(path, QString::fromUtf8(e.what()).section('\n', 0, 0));
    return std::nullopt;
  }
}

// A scalar argument: "int:3", "float:0.5", "bool:true", or bare "3", "0.5", "-2", "true", "false",
// "none". nullopt when `spec` is not one (then it is a shape or a file).
std::optional<c10::IValue> parseScalar(const QString& spec, QString& error) {
  static const QRegularExpression typed(QStringLiteral("^(int|float|bool):(.*)$"),
                                        QRegularExpression::CaseInsensitiveOption);
  static const QRegularExpression integer(QStringLiteral("^[-+]?\\d+$"));
  static const QRegularExpression real(QStringLiteral("^[-+]?(\\d+\\.\\d*|\\.\\d+|\\d+(\\.\\d*)?[eE][-+]?\\d+)$"));
  const QString lower = spec.toLower();
  if (lower == QLatin1String("none")) return c10::IValue();
  if (lower == QLatin1String("true") || lower == QLatin1String("false"))
    return c10::IValue(lower == QLatin1String("true"));
  if (integer.match(spec).hasMatch()) {
    bool ok = false;
    const qlonglong v = spec.toLongLong(&ok);
    if (!ok) { error = QStringLiteral("integer input '%1' is out of range").arg(spec); return c10::IValue(); }
    return c10::IValue(int64_t(v));
  }
  if (real.match(spec).hasMatch()) return c10::IValue(spec.toDouble());
  const auto m = typed.match(spec);
  if (!m.hasMatch()) return std::nullopt;
  const QString type = m.captured(1).toLower(), value = m.captured(2).trimmed();
  bool ok = false;
  if (type == QLatin1String("int")) {
    const qlonglong v = value.toLongLong(&ok);
    if (ok) return c10::IValue(int64_t(v));
  } else if (type == QLatin1String("float")) {
    const double v = value.toDouble(&ok);
    if (ok) return c10::IValue(v);
  } else if (value.toLower() == QLatin1String("true") || value.toLower() == QLatin1String("false")) {
    return c10::IValue(value.toLower() == QLatin1String("true"));
  }
  error = QStringLiteral("'%1' is not a valid %2 (e.g. int:3, float:0.5, bool:true)").arg(value, type);
  return c10::IValue();
}

std::optional<c10::IValue> parseOne(const QString& specIn, at::Generator& gen, QString& error) {
  const QString spec = specIn.trimmed();
  if (spec.isEmpty()) { error = QStringLiteral("empty input spec"); return std::nullopt; }
  const bool tuple = spec.startsWith('(') && spec.endsWith(')');
  const bool list = spec.startsWith('[') && spec.endsWith(']');
  if (tuple || list) {
    std::vector<c10::IValue> items;
    for (const QString& part : Parser::splitTopLevel(spec.mid(1, spec.size() - 2))) {
      auto v = parseOne(part, gen, error);
      if (!v) return std::nullopt;
      items.push_back(*v);
    }
    if (tuple) return c10::IValue(c10::ivalue::Tuple::create(std::move(items)));
    if (items.empty()) {
      error = QStringLiteral("a list input must hold one or more values: '%1'").arg(spec);
      return std::nullopt;
    }
    auto all = [&](auto is) { return std::all_of(items.begin(), items.end(), is); };
    // Typed as TorchScript's List[Tensor], List[int], List[float] or List[bool] would be.
    if (all([](const c10::IValue& v) { return v.isTensor(); })) {
      c10::List<at::Tensor> tensors;
      for (auto& v : items) tensors.push_back(v.toTensor());
      return c10::IValue(tensors);
    }
    if (all([](const c10::IValue& v) { return v.isInt(); })) {
      c10::List<int64_t> ints;
      for (auto& v : items) ints.push_back(v.toInt());
      return c10::IValue(ints);
    }
    if (all([](const c10::IValue& v) { return v.isDouble(); })) {
      c10::List<double> reals;
      for (auto& v : items) reals.push_back(v.toDouble());
      return c10::IValue(reals);
    }
    if (all([](const c10::IValue& v) { return v.isBool(); })) {
      c10::List<bool> bools;
      for (auto& v : items) bools.push_back(v.toBool());
      return c10::IValue(bools);
    }
    error =
        QStringLiteral("a list input must hold values of one kind (tensors, ints, floats or bools): '%1'").arg(spec);
    return std::nullopt;
  }
  if (QFileInfo::exists(spec)) return loadTensorFile(spec, error);
  if (auto scalar = parseScalar(spec, error)) {
    if (!error.isEmpty()) return std::nullopt;
    return scalar;
  }
  static const QRegularExpression shapeSpec(QStringLiteral("^(scalar|\\d+(x\\d+)*)(:\\w+)?$"));
  if (shapeSpec.match(spec).hasMatch()) return randomTensor(spec, gen, error);
  error = QStringLiteral(
              "input '%1' is neither a file, a shape like 1x3x224x224:float32, nor a scalar like 3, 0.5, true or none")
              .arg(spec);
  return std::nullopt;
}

}  // namespace


InputResult parseInputs(const QStringList& specs, std::uint64_t seed) {
  InputResult result;
  at::Generator gen = at::detail::createCPUGenerator(seed);
  InputSet set;
  for (const QString& spec : specs) {
    if (QString why = nestingError(spec); !why.isEmpty()) {
      result.error = why;
      return result;
    }
    auto v = parseOne(spec, gen, result.error);
    if (!v) return result;
    // A file holding a tuple of tensors supplies that many positional inputs.
    if (v->isTuple() && QFileInfo::exists(spec.trimmed())) {
      for (const auto& e : v->toTupleRef().elements()) {
        set.values.push_back(e);
        set.descriptions << run::describe(e);
      }
      continue;
    }
    set.values.push_back(*v);
    set.descriptions << run::describe(*v);
  }
  result.inputs = std::move(set);
  return result;
}

InputResult defaultInputs(const model::Document& doc, std::uint64_t seed) {
  InputResult result;
  if (const auto& examples = doc.exampleInputs()) {
    result.inputs = *examples;  // the file's own sample inputs (a .pt2's)
    return result;
  }
  if (const auto* sample = samples::find(doc.sampleName()); sample && !doc.sampleName().isEmpty())
    return parseInputs({samples::inputSpec(*sample)}, seed);
  QStringList specs;
  const auto arguments = forwardArguments(*doc.original());
  for (int i = 0; i < arguments.size(); ++i) {
    const auto& a = arguments[i];
    if (a.defaultSpec.isEmpty()) {
      result.error = QStringLiteral("input %1 '%2' (%3) of %4 has no recorded %5")
                         .arg(i)
                         .arg(a.name, a.type, doc.displayName(),
                              a.type == QLatin1String("Tensor") ? QStringLiteral("shape") : QStringLiteral("value"));
      result.missingShape = i;
      return result;
    }
    specs << a.defaultSpec;
  }
  return parseInputs(specs, seed);
}

model::Diagnostics InputResult::diagnostics(const QString& job, const QString& hint) const {
  if (inputs) return {};
  return {model::Diagnostic::error(job, error, hint)};
}

QStringList inputNames(const model::Document& doc) {
  if (!doc.inputNames().isEmpty()) return doc.inputNames();
  QStringList names;
  for (const auto& a : forwardArguments(*doc.original())) names << a.name;
  return names;
}

namespace {

// Specs given as NAME=SPEC placed at their input's position, after the positional ones; the
// inputs nobody gave come from the defaults.
InputResult withNamedInputs(const model::Document& doc, const QStringList& positional, const QMap<int, QString>& named,
                            std::uint64_t seed) {
  InputResult result;
  const QStringList names = inputNames(doc);
  QStringList given(names.size());
  for (int i = 0; i < positional.size(); ++i) {
    if (i >= names.size()) {
      result.error = QStringLiteral("%1 positional input(s) given, but %2 takes %3")
                         .arg(positional.size())
                         .arg(doc.displayName())
                         .arg(names.size());
      return result;
    }
    given[i] = positional[i];
  }
  for (auto it = named.begin(); it != named.end(); ++it) {
    if (!given[it.key()].isEmpty()) {
      result.error = QStringLiteral("input '%1' is given twice (by position and by name)").arg(names[it.key()]);
      return result;
    }
    given[it.key()] = it.value();
  }
  QStringList specs;  // the given ones in input order: the same seeded values as when all are positional
  QVector<int> at;
  for (int i = 0; i < given.size(); ++i)
    if (!given[i].isEmpty()) {
      specs << given[i];
      at << i;
    }
  auto parsed = parseInputs(specs, seed);
  if (!parsed.inputs) return parsed;
  if (parsed.inputs->values.size() != size_t(specs.size())) {
    result.error = QStringLiteral("a tensor file given by name holds several tensors: give each input its own");
    return result;
  }
  std::optional<InputSet> defaults;
  if (specs.size() < names.size()) {
    auto d = defaultInputs(doc, seed);
    if (!d.inputs || d.inputs->values.size() != size_t(names.size())) {
      QStringList missing;
      for (int i = 0; i < given.size(); ++i)
        if (given[i].isEmpty()) missing << names[i];
      result.error = QStringLiteral("no value for %1 (%2 has no defaults for them): give each as NAME=SPEC")
                         .arg(missing.join(QStringLiteral(", ")), doc.displayName());
      return result;
    }
    defaults = std::move(d.inputs);
  }
  InputSet set =
      defaults ? *defaults : InputSet{std::vector<c10::IValue>(size_t(names.size())), QStringList(names.size())};
  for (int k = 0; k < at.size(); ++k) {
    set.values[size_t(at[k])] = parsed.inputs->values[size_t(k)];
    set.descriptions[at[k]] = parsed.inputs->descriptions[k];
  }
  result.inputs = std::move(set);
  return result;
}

// The inputs against forward's Tensor arguments, before anything runs. A list of tensors where a
// Tensor is expected (a file saved as torch.save([x], F)) gives one input per tensor, as a tuple
// does; anything else that is no tensor is named here, not inside the first op that reads it.
InputResult fitToForward(const model::Document& doc, InputResult given) {
  if (!given.inputs) return given;
  const auto method = doc.original()->module().find_method("forward");
  if (!method) return given;
  const auto& args = method->function().getSchema().arguments();  // args[0] is self
  InputSet fitted;
  for (size_t i = 0; i < given.inputs->values.size(); ++i) {
    const c10::IValue& v = given.inputs->values[i];
    const size_t at = fitted.values.size() + 1;
    const bool tensorWanted = at < args.size() && args[at].type()->kind() == c10::TypeKind::TensorType;
    if (tensorWanted && v.isList() && !v.toListRef().empty() &&
        std::all_of(v.toListRef().begin(), v.toListRef().end(), [](const c10::IValue& e) { return e.isTensor(); })) {
      for (const c10::IValue& e : v.toListRef()) {
        fitted.values.push_back(e);
        fitted.descriptions << run::describe(e);
      }
      continue;
    }
    fitted.values.push_back(v);
    fitted.descriptions << given.inputs->descriptions.value(qsizetype(i));
  }
  for (size_t i = 0; i < fitted.values.size() && i + 1 < args.size(); ++i) {
    const auto& want = args[i + 1].type();
    if (want->kind() != c10::TypeKind::TensorType || fitted.values[i].isTensor()) continue;
    return {std::nullopt,
            QStringLiteral("input %1 '%2' of %3 takes %4, but was given %5: give it a %4")
                .arg(i)
                .arg(QString::fromStdString(args[i + 1].name()), doc.displayName(),
                     QString::fromStdString(want->annotation_str()), fitted.descriptions.value(qsizetype(i)))};
  }
  given.inputs = std::move(fitted);
  return given;
}

// The shape `spec` will have, known without making it: a random tensor's DIMSxDIMS, or a .npy
// file's header. nullopt for anything else (a scalar, a tuple, a torch.save'd file).
std::optional<std::vector<int64_t>> plannedShape(const QString& specIn) {
  const QString spec = specIn.trimmed();
  if (QFileInfo::exists(spec)) {
    if (!spec.endsWith(QLatin1String(".npy"), Qt::CaseInsensitive)) return std::nullopt;
    QString ignored;  // a file that does not read says so when it is parsed
    const auto head = io::readInputHead(spec, kNpyHeadBytes, QStringLiteral("input"), &ignored);
    if (!head) return std::nullopt;
    const auto header = readNpyHeader(head->bytes, head->size, spec, ignored);
    if (!header) return std::nullopt;
    return header->dims;
  }
  static const QRegularExpression integer(QStringLiteral("^[-+]?\\d+$"));  // "3" is an int, not a shape
  static const QRegularExpression shapeSpec(QStringLiteral("^(scalar|\\d+(x\\d+)*)(:\\w+)?$"));
  if (integer.match(spec).hasMatch() || !shapeSpec.match(spec).hasMatch()) return std::nullopt;
  std::vector<int64_t> dims;
  const QString shape = spec.section(QLatin1Char(':'), 0, 0);
  if (shape == QLatin1String("scalar")) return dims;
  for (const QString& d : shape.split(QLatin1Char('x'))) {
    bool ok = false;
    dims.push_back(d.toLongLong(&ok));
    if (!ok) return std::nullopt;
  }
  return dims;
}

// Why the tensor specs of `planned` (input index → spec) cannot be `doc`'s inputs, found before
// any is made: a rank, or a static size, the program's signature does not take, or a size outside
// its range_constraints (the checks the run makes again on the tensors, dimension_check.h).
// Empty when they fit or the program's inputs record no sizes (TorchScript).
QString checkPlannedShapes(const model::Document& doc, const QMap<int, QString>& planned) {
  const auto graph = doc.original()->graph();
  const auto graphInputs = graph->inputs();  // [0] is self
  const auto& ranges = doc.original()->symbolRanges();
  for (auto it = planned.begin(); it != planned.end(); ++it) {
    const size_t at = size_t(it.key()) + 1;
    if (at >= graphInputs.size()) continue;
    const auto type = graphInputs[at]->type()->cast<c10::TensorType>();
    if (!type || !type->symbolic_sizes().sizes()) continue;
    const auto dims = plannedShape(it.value());
    if (!dims) continue;
    const auto want = *type->symbolic_sizes().sizes();
    const QString name = QString::fromStdString(graphInputs[at]->debugName());
    if (dims->size() != want.size())
      return QStringLiteral("input %1 (%2) has %3 dimensions; the program takes %4")
          .arg(it.key())
          .arg(name)
          .arg(dims->size())
          .arg(want.size());
    for (size_t d = 0; d < want.size(); ++d) {
      const int64_t size = (*dims)[d];
      if (want[d].is_static()) {
        if (want[d].static_size() != size)
          return QStringLiteral(
                     "input %1 (%2) dimension %3 is %4; the program was exported for %5 there (not a dynamic "
                     "dimension)")
              .arg(it.key())
              .arg(name)
              .arg(d)
              .arg(size)
              .arg(want[d].static_size());
        continue;
      }
      const auto range = ranges.constFind(model::symbolName(want[d]));
      if (range != ranges.constEnd() && (size < range->min || (range->max && size > *range->max)))
        return QStringLiteral("input %1 (%2) dimension %3 is %4, outside the program's range_constraints: %5 ≤ %6%7")
            .arg(it.key()).arg(name).arg(d).arg(size).arg(range->min).arg(range.key())
            .arg(range->max ? QStringLiteral(" ≤ %1").arg(*range->max) : QString());
    }
  }
  return {};
}

// Each positional spec's input, up to the first that may stand for several inputs (a torch.save'd
// file of a tuple, a list of tensors), beside the named ones.
QMap<int, QString> plannedInputs(const QStringList& positional, const QMap<int, QString>& named) {
  QMap<int, QString> planned = named;
  for (int i = 0; i < positional.size(); ++i) {
    const QString spec = positional[i].trimmed();
    if (spec.startsWith(QLatin1Char('[')) ||
        (QFileInfo::exists(spec) && !spec.endsWith(QLatin1String(".npy"), Qt::CaseInsensitive)))
      break;
    planned.insert(i, spec);
  }
  return planned;
}

}  // namespace

InputResult inputsFor(const model::Document& doc, const QStringList& specs, std::uint64_t seed) {
  if (specs.isEmpty()) return defaultInputs(doc, seed);
  static const QRegularExpression namePart(QStringLiteral(R"(^([A-Za-z_][\w.\[\]]*)=(.+)$)"));
  const QStringList names = inputNames(doc);
  QStringList positional;
  QMap<int, QString> named;  // by position, so a clash names the first input given twice
  for (const QString& spec : specs) {
    const auto m = namePart.match(spec.trimmed());
    if (!m.hasMatch() || QFileInfo::exists(spec.trimmed())) {
      if (!named.isEmpty())
        return {std::nullopt,
                QStringLiteral("positional input %1 follows a named one: give positional inputs first").arg(spec)};
      positional << spec;
      continue;
    }
    const int index = int(names.indexOf(m.captured(1)));
    if (index < 0)
      return {std::nullopt, QStringLiteral("%1 has no input named '%2'; its inputs are %3")
                                .arg(doc.displayName(), m.captured(1), names.join(QStringLiteral(", ")))};
    if (named.contains(index)) return {std::nullopt, QStringLiteral("input '%1' is given twice").arg(m.captured(1))};
    named.insert(index, m.captured(2));
  }
  // Checked against the program before anything is allocated: 6000x3x224x224 for a program taking
  // [s0, 8] is refused at once, not after filling 3.6 GB.
  if (QString why = checkPlannedShapes(doc, plannedInputs(positional, named)); !why.isEmpty())
    return {std::nullopt, why};
  return fitToForward(doc, named.isEmpty() ? parseInputs(specs, seed) : withNamedInputs(doc, positional, named, seed));
}



}  // namespace graft::core::io
