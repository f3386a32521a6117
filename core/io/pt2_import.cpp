#include "core/io/pt2_import.h"
#include "core/io/pt2_export.h"

#include "core/io/archive_probe.h"
#include "core/io/pt2_limits.h"
#include "core/io/pt2_python_ops.h"
#include "core/io/pt2_schema.h"
#include "core/io/pytree_spec.h"
#include "core/io/saved_value.h"
#include "core/io/zip_directory.h"
#include "core/model/placeholder_ops.h"
#include "core/model/graph_walk.h"
#include "core/model/module_calls.h"
#include "core/model/shape_symbols.h"
#include "core/model/symbol_ranges.h"
#include "core/model/value_format.h"
#include "core/run/precision.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/export/pt2_archive_constants.h>
#include <torch/csrc/jit/frontend/source_range.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/ir/named_value.h>
#include <torch/csrc/jit/ir/scope.h>
#include <torch/csrc/jit/runtime/operator.h>
#include <torch/script.h>
#include <torch/serialize.h>

#include <QtCore/QSet>
#include <QtCore/QFile>
#include <QtCore/QHash>
#include <QtCore/QFileInfo>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QRegularExpression>

#include <fcntl.h>
#include <limits>
#include <map>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_map>

namespace graft::core::io {

namespace {

using torch::jit::Graph;
using torch::jit::Node;
using torch::jit::Value;
namespace spec = torch::_export::archive_spec;

// An import failure: what could not be read, for the headline's details.
struct Pt2Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const QString& what) { throw Pt2Error(what.toStdString()); }

// A program past one of pt2_limits.h's bounds: refused before it is read, not damaged.
struct Pt2TooLarge : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void refuse(const QString& why) { throw Pt2TooLarge(why.toStdString()); }

using pt2::str;

double jsonFloat(const QJsonValue& v) {
  if (auto f = pt2::floatFromJson(v)) return *f;
  fail(QStringLiteral("a float argument %1 is not a number")
           .arg(QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact))));
}

c10::ScalarType scalarType(int serde) {
  if (auto t = pt2::scalarTypeOf(serde)) return *t;
  fail(QStringLiteral("unsupported dtype code %1 in the program").arg(serde));
}

// A SymInt in the schema: {"as_int": 3} or {"as_name": "s0"} / {"as_expr": ...}.
std::optional<int64_t> concreteInt(const QJsonValue& v) {
  const auto o = v.toObject();
  if (o.contains(QLatin1String("as_int"))) return static_cast<int64_t>(o.value(QLatin1String("as_int")).toInteger());
  return std::nullopt;
}

// A symbolic size's name: {"as_expr": {"expr_str": "Symbol('s77', positive=True, …)"}} -> "s77";
// an expression ("2*s77") keeps its text.
QString symbolicName(const QJsonValue& v) {
  const QString expr =
      v.toObject().value(QLatin1String("as_expr")).toObject().value(QLatin1String("expr_str")).toString();
  static const QRegularExpression symbol(QStringLiteral(R"(^Symbol\('(\w+)')"));
  const auto m = symbol.match(expr);
  return m.hasMatch() ? m.captured(1) : (expr.isEmpty() ? QStringLiteral("?") : expr);
}

// A serialized device ({"type": "cuda", "index": 0}, or "cuda:1" as move_to_device_pass writes
// it): cpu, cuda and cuda:N, any other device type libtorch knows; the CPU when absent.
c10::Device deviceOf(const QJsonValue& v) {
  std::string text = v.isString()
                         ? v.toString().toStdString()
                         : v.toObject().value(QLatin1String("type")).toString(QStringLiteral("cpu")).toStdString();
  if (v.isObject() && v.toObject().value(QLatin1String("index")).isDouble())
    text += ":" + std::to_string(v.toObject().value(QLatin1String("index")).toInt());
  try {
    return c10::Device(text);
  } catch (const std::exception&) {
    fail(QStringLiteral("unknown device '%1' in the program").arg(QString::fromStdString(text)));
  }
}

// Whether an operator argument takes a device (Device or Device?).
bool isDeviceArgument(const c10::Argument& a) {
  c10::TypePtr t = a.type();
  if (const auto optional = t->cast<c10::OptionalType>()) t = optional->getElementType();
  return t->kind() == c10::TypeKind::DeviceObjType;
}

// A tensor's type from its TensorMeta: dtype, device, and sizes, symbolic ones by name.
c10::TensorTypePtr tensorType(const QJsonObject& meta) {
  std::vector<c10::ShapeSymbol> symbols;
  for (const auto& s : meta.value(QLatin1String("sizes")).toArray()) {
    const auto size = concreteInt(s);
    symbols.push_back(size ? c10::ShapeSymbol::fromStaticSize(*size) : model::symbolNamed(symbolicName(s)));
  }
  const c10::Device dev = deviceOf(meta.value(QLatin1String("device")).toObject());
  return c10::TensorType::create(scalarType(meta.value(QLatin1String("dtype")).toInt()), dev,
                                 c10::SymbolicShape(symbols), c10::VaryingShape<c10::Stride>(symbols.size()),
                                 /*requires_grad=*/false);
}

// The archive mapped into memory: weights are views of it, so opening a program reads none of
// their bytes; the pages a run touches are read then. Private and writable: copy on write, the
// file is never changed.
class MappedFile {
 public:
  static std::shared_ptr<MappedFile> open(const QString& path) {
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return nullptr;
    struct stat st {};
    void* data = MAP_FAILED;
    if (::fstat(fd, &st) == 0 && st.st_size > 0)
      data = ::mmap(nullptr, size_t(st.st_size), PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (data == MAP_FAILED) return nullptr;
    return std::shared_ptr<MappedFile>(new MappedFile(static_cast<char*>(data), size_t(st.st_size)));
  }
  ~MappedFile() { ::munmap(data_, size_); }
  char* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  MappedFile(char* data, size_t size) : data_(data), size_(size) {}
  char* data_;
  size_t size_;
};

class Importer {
 public:
  explicit Importer(const QString& path)
      : reader_(path.toStdString()), mapped_(MappedFile::open(path)), archiveSize_(QFileInfo(path).size()) {
    QString why;
    auto directory = readZipDirectory(path, &why);
    if (!directory) fail(QStringLiteral("the archive is damaged: %1").arg(why));
    if (const QString bomb = checkInflation(*directory, quint64(QFileInfo(path).size())); !bomb.isEmpty())
      fail(QStringLiteral("the archive is refused: %1").arg(bomb));
    zip_ = std::move(*directory);
    indexRecords();
  }

  std::shared_ptr<torch::jit::Module> run() {
    if (const QString why = checkRecordSizes(reader_, archiveSize_); !why.isEmpty())
      fail(QStringLiteral("the archive is damaged: %1").arg(why));
    const QString modelJson = findModelJson();
    const QJsonObject model = readJson(modelJson);
    checkSchemaVersion(model.value(QLatin1String("schema_version")).toObject());
    if (reader_.hasRecord(kPt2ProvenanceRecord)) {
      auto [data, size] = reader_.getRecord(kPt2ProvenanceRecord);
      provenanceRecord = QByteArray(static_cast<const char*>(data.get()), qsizetype(size));
    }
    const QJsonObject gm = model.value(QLatin1String("graph_module")).toObject();
    const QJsonObject graphJson = gm.value(QLatin1String("graph")).toObject();
    addTensorMeta(graphJson.value(QLatin1String("tensor_values")).toObject());
    readRanges(model.value(QLatin1String("range_constraints")).toObject());
    const QString modelName = QFileInfo(modelJson).completeBaseName();
    loadTensors(str(spec::WEIGHTS_CONFIG_FILENAME_FORMAT).replace(QLatin1String("{}"), modelName),
                QLatin1String("data/weights/"));
    loadTensors(str(spec::CONSTANTS_CONFIG_FILENAME_FORMAT).replace(QLatin1String("{}"), modelName),
                QLatin1String("data/constants/"));

    cu_ = std::make_shared<torch::jit::CompilationUnit>();
    module_ = std::make_shared<torch::jit::Module>(c10::QualifiedName(rootTypeName(graphJson).toStdString()), cu_,
                                                   /*shouldMangle=*/true);
    graph_ = std::make_shared<Graph>();
    graph_->addInput("self")->setType(module_->type());
    bindInputs(gm.value(QLatin1String("signature")).toObject());
    for (const auto& n : graphJson.value(QLatin1String("nodes")).toArray()) addNode(n.toObject());
    bindOutputs(gm.value(QLatin1String("signature")).toObject());

    auto* fn = cu_->create_function(c10::QualifiedName(*module_->type()->name(), "forward"), graph_);
    module_->type()->addMethod(fn);
    readCallSpecs(gm.value(QLatin1String("module_call_graph")).toArray());
    readSampleInputs(str(spec::SAMPLE_INPUTS_FILENAME_FORMAT).replace(QLatin1String("{}"), modelName));
    return module_;
  }

  std::vector<c10::IValue> sampleInputs;
  QStringList inputNames, outputNames;  // each flat input and output by its path in forward's signature
  model::SymbolRanges symbolRanges;
  QByteArray provenanceRecord;  // what Graft recorded when it saved the program, if it did

 private:
  // range_constraints: {"s77": {"min_val": 2, "max_val": 64}}; an unbounded max is absent or null.
  void readRanges(const QJsonObject& constraints) {
    for (auto it = constraints.begin(); it != constraints.end(); ++it) {
      const auto range = it.value().toObject();
      model::SymbolRange r;
      r.min = range.value(QLatin1String("min_val")).toInteger();
      const auto max = range.value(QLatin1String("max_val"));
      if (max.isDouble() && max.toDouble() < 9.0e18) r.max = max.toInteger();
      symbolRanges.insert(it.key(), r);
    }
  }

  // The root's in_spec and out_spec (module_call_graph[0]): how forward's arguments and results
  // nest around the graph's flat inputs and outputs, and the paths that name them.
  void readCallSpecs(const QJsonArray& callGraph) {
    for (const auto& entry : callGraph) {
      const QJsonObject e = entry.toObject();
      if (!e.value(QLatin1String("fqn")).toString().isEmpty()) continue;
      const QJsonObject sig = e.value(QLatin1String("signature")).toObject();
      QStringList argNames;
      for (const auto& a : sig.value(QLatin1String("forward_arg_names")).toArray()) argNames << a.toString();
      inSpec_ = parseTreeSpec(sig.value(QLatin1String("in_spec")).toString());
      const auto outSpec = parseTreeSpec(sig.value(QLatin1String("out_spec")).toString());
      const size_t graphInputs = graph_->inputs().size() - 1;
      if (inSpec_) {
        const QStringList paths = withoutConstantLeaves(inputPaths(*inSpec_, argNames));
        if (size_t(paths.size()) == graphInputs) inputNames = paths;
      }
      if (outSpec) {
        const QStringList paths = outSpec->isLeaf() ? QStringList{QStringLiteral("output")} : leafPaths(*outSpec);
        const Value* out = graph_->outputs().at(0);
        const size_t flat = out->node()->kind() == c10::prim::TupleConstruct ? out->node()->inputs().size() : 1;
        if (size_t(paths.size()) == flat) outputNames = paths;
      }
      return;
    }
  }

  // data/sample_inputs/<model>.pt: torch.save((args, kwargs)), flattened as the in_spec says
  // (keyword arguments and dicts included). Optional; a damaged one is ignored.
  void readSampleInputs(const QString& name) {
    if (!reader_.hasRecord(name.toStdString())) return;
    try {
      const QByteArray bytes = record(name);
      const c10::IValue saved = loadSavedValue(bytes);
      if (!saved.isTuple() || saved.toTupleRef().elements().empty()) return;
      if (inSpec_) {
        if (auto flat = flattenBySpec(saved, *inSpec_, nullptr)) {
          sampleInputs = withoutConstantLeaves(std::move(*flat));
          return;
        }
      }
      const c10::IValue args = saved.toTupleRef().elements()[0];
      if (args.isTuple()) sampleInputs = args.toTupleRef().elements().vec();
    } catch (const std::exception& e) {
      sampleInputs.clear();
      // A record shorter than its tensor is damage, as torch.export.load finds it: refused, never
      // run on what lies past its end.
      const QString why = QString::fromUtf8(e.what());
      if (why.contains(QLatin1String("does not match expected size")))
        fail(QStringLiteral("%1: %2").arg(name, why.section(QLatin1Char('\n'), 0, 0)));
    }
  }

 private:
  // The exported module's class, from the root entry of any nn_module_stack
  // ("L__self__,,torchvision.models.resnet.ResNet"), so the model group reads "ResNet".
  static QString rootTypeName(const QJsonObject& graphJson) {
    for (const auto& n : graphJson.value(QLatin1String("nodes")).toArray()) {
      const QString stack =
          n.toObject().value(QLatin1String("metadata")).toObject().value(QLatin1String("nn_module_stack")).toString();
      const QStringList root = stack.section(QLatin1Char(';'), 0, 0).split(QLatin1Char(','));
      if (root.size() >= 3 && root[1].isEmpty() && !root[2].isEmpty())
        return QStringLiteral("__torch__.") +
               root.mid(2)
                   .join(QLatin1Char(','))
                   .replace(QRegularExpression(QStringLiteral("[^\\w.]")), QStringLiteral("_"));
    }
    return QStringLiteral("__torch__.graft.ExportedProgram");
  }

  QString findModelJson() {
    if (QString name = pt2::modelRecordOf(reader_.getAllRecords()); !name.isEmpty()) return name;
    for (const auto& r : reader_.getAllRecords())
      if (QString::fromStdString(r).startsWith(str(spec::AOTINDUCTOR_DIR)))
        fail(QStringLiteral("AOTINDUCTOR"));
    fail(QStringLiteral("the archive holds no program (no models/*.json)"));
  }

  QByteArray record(const QString& name) {
    if (!reader_.hasRecord(name.toStdString())) fail(QStringLiteral("the archive lacks %1").arg(name));
    if (name.endsWith(QLatin1String(".json")))
      if (const ZipEntry* entry = entryOf(name))
        if (const QString why = pt2::checkJsonSize(name, entry->size); !why.isEmpty()) refuse(why);
    auto [data, size] = reader_.getRecord(name.toStdString());
    return QByteArray(static_cast<const char*>(data.get()), static_cast<qsizetype>(size));
  }

  QJsonObject readJson(const QString& name) {
    QJsonParseError error{};
    const QByteArray text = record(name);
    // Counted in the text, before Qt's parser holds several times it.
    if (const QString why = pt2::checkNodeCount(pt2::countNodesIn(text)); !why.isEmpty()) refuse(why);
    const auto doc = QJsonDocument::fromJson(text, &error);
    if (error.error != QJsonParseError::NoError) fail(QStringLiteral("%1: %2").arg(name, error.errorString()));
    return doc.object();
  }

  // Weights and constants: raw bytes with their TensorMeta (or a pickle), by FQN.
  void loadTensors(const QString& configName, const QString& dir) {
    if (!reader_.hasRecord(configName.toStdString())) return;
    const auto config = readJson(configName).value(QLatin1String("config")).toObject();
    for (auto it = config.begin(); it != config.end(); ++it) {
      const auto entry = it.value().toObject();
      const QString file = dir + entry.value(QLatin1String("path_name")).toString();
      if (entry.value(QLatin1String("use_pickle")).toBool()) {
        const QByteArray bytes = record(file);
        c10::IValue v = loadSavedValue(bytes);
        if (v.isTensor()) tensors_[it.key()] = v.toTensor();
        continue;
      }
      const auto meta = entry.value(QLatin1String("tensor_meta")).toObject();
      if (meta.isEmpty()) continue;  // a script object or another non-tensor constant
      std::vector<int64_t> sizes, strides;
      for (const auto& s : meta.value(QLatin1String("sizes")).toArray()) sizes.push_back(concreteInt(s).value_or(0));
      for (const auto& s : meta.value(QLatin1String("strides")).toArray())
        strides.push_back(concreteInt(s).value_or(0));
      const int64_t offset = concreteInt(meta.value(QLatin1String("storage_offset"))).value_or(0);
      const auto dtype = scalarType(meta.value(QLatin1String("dtype")).toInt());
      const size_t bytes = reader_.getRecordSize(file.toStdString());
      int64_t extent = offset;  // elements the view reaches into its storage
      if (sizes.size() == strides.size()) {
        bool empty = false;
        for (size_t d = 0; d < sizes.size(); ++d) {
          empty = empty || sizes[d] == 0;
          extent += (sizes[d] - 1) * strides[d];
        }
        extent = empty ? 0 : extent + 1;
      }
      if (sizes.size() != strides.size() || size_t(extent) * c10::elementSize(dtype) > bytes)
        fail(QStringLiteral("%1 does not hold the tensor its metadata describes").arg(file));
      auto storage = c10::Storage(c10::Storage::use_byte_size_t(), bytes, recordData(file, bytes), nullptr, false);
      at::Tensor t = at::empty({0}, at::TensorOptions().dtype(dtype));
      t.set_(storage, offset, sizes, strides);
      tensors_[it.key()] = t;
    }
  }

  // torch.export's serialization schema changes incompatibly only with its major version: a
  // program of another major is refused with both versions named, never read field by guess.
  static void checkSchemaVersion(const QJsonObject& version) {
    constexpr int kSchemaMajor = 8;  // torch/_export/serde/schema.py SCHEMA_VERSION of torch 2.11 to 2.14
    if (version.isEmpty()) fail(QStringLiteral("the program has no schema_version"));
    const int major = version.value(QLatin1String("major")).toInt(-1);
    if (major != kSchemaMajor)
      fail(QStringLiteral("the program was written with export schema %1.%2; this Graft reads schema %3.x. Export it "
                          "again with a torch whose schema major is %3 (2.11 to 2.14), or use a Graft built for it")
               .arg(major).arg(version.value(QLatin1String("minor")).toInt()).arg(kSchemaMajor));
  }

  // A stored (uncompressed) record's bytes: a view of the mapped archive, kept alive by the
  // tensors that use it. A compressed record is inflated into memory (never mapped: its bytes
  // in the file are not the tensor's), and so is any record where the archive cannot be mapped.
  at::DataPtr recordData(const QString& file, size_t bytes) {
    const std::string name = file.toStdString();
    const ZipEntry* entry = entryOf(file);
    if (!entry) fail(QStringLiteral("the archive lacks %1").arg(file));
    if (entry->method != 0 && entry->method != 8)
      fail(QStringLiteral("%1 is stored with zip method %2, which Graft does not read").arg(file).arg(entry->method));
    if (mapped_ && entry->method == 0) {
      const size_t offset = reader_.getRecordOffset(name);
      if (offset + bytes <= mapped_->size()) {
        auto* keep = new std::shared_ptr<MappedFile>(mapped_);
        return at::DataPtr(
            mapped_->data() + offset, keep, [](void* ctx) { delete static_cast<std::shared_ptr<MappedFile>*>(ctx); },
            c10::Device(c10::kCPU));
      }
    }
    return std::move(std::get<0>(reader_.getRecord(name)));
  }

  // Each record by its name below the archive's top folder, as zip_directory's findRecord picks
  // it (the first full name, should two folders hold it), looked up once per record, not per
  // weight over every entry.
  void indexRecords() {
    for (auto it = zip_.constBegin(); it != zip_.constEnd(); ++it) {
      const qsizetype slash = it.key().indexOf(QLatin1Char('/'));
      if (slash < 0) continue;
      auto& chosen = records_[it.key().mid(slash + 1)];
      if (!chosen.first || it.key() < chosen.second) chosen = {&it.value(), it.key()};
    }
  }

  const ZipEntry* entryOf(const QString& record) const { return records_.value(record).first; }

  Value* constantTensor(const QString& fqn, const QString& valueName) {
    auto it = tensors_.find(fqn);
    if (it == tensors_.end()) fail(QStringLiteral("no stored tensor for %1").arg(fqn));
    Value* v = graph_->insertConstant(it->second);
    v->setDebugName(valueName.toStdString());
    return v;
  }

  void bindInputs(const QJsonObject& signature) {
    for (const auto& s : signature.value(QLatin1String("input_specs")).toArray()) {
      const auto specObj = s.toObject();
      const QString kind = specObj.keys().value(0);
      const auto body = specObj.value(kind).toObject();
      const auto arg = body.value(QLatin1String("arg")).toObject();
      if (kind == QLatin1String("constant_input")) {
        // A keyword fixed at export (use_cache=False): the graph reads it as a constant, and its
        // leaf of the in_spec is not an input a run supplies.
        constantLeaves_.insert(userLeaves_++);
        values_[body.value(QLatin1String("name")).toString()] = argValue(body.value(QLatin1String("value")).toObject());
        continue;
      }
      if (kind == QLatin1String("user_input")) {
        ++userLeaves_;
        const auto tensor = arg.value(QLatin1String("as_tensor")).toObject();
        if (tensor.isEmpty())
          fail(QStringLiteral("a non-tensor input (%1) is not supported yet")
                   .arg(QString::fromUtf8(QJsonDocument(arg).toJson(QJsonDocument::Compact))));
        const QString name = tensor.value(QLatin1String("name")).toString();
        Value* in = graph_->addInput(name.toStdString());
        in->setType(tensorType(tensorMeta_.value(name)));
        values_[name] = in;
      } else {
        const QString name = arg.value(QLatin1String("name")).toString();
        const QString fqn = body.value(kind == QLatin1String("parameter") ? QLatin1String("parameter_name")
                                       : kind == QLatin1String("buffer")  ? QLatin1String("buffer_name")
                                                                          : QLatin1String("tensor_constant_name"))
                                .toString();
        if (kind == QLatin1String("custom_obj") || kind == QLatin1String("token"))
          fail(QStringLiteral("inputs of kind %1 are not supported yet").arg(kind));
        values_[name] = constantTensor(fqn, name);
      }
    }
  }

  void bindOutputs(const QJsonObject& signature) {
    std::vector<Value*> outs;
    for (const auto& s : signature.value(QLatin1String("output_specs")).toArray()) {
      const auto specObj = s.toObject();
      if (!specObj.contains(QLatin1String("user_output"))) continue;  // buffer mutations: state, not results
      outs.push_back(
          argValue(specObj.value(QLatin1String("user_output")).toObject().value(QLatin1String("arg")).toObject()));
    }
    if (outs.size() == 1) graph_->registerOutput(outs.front());
    else graph_->registerOutput(graph_->insertNode(graph_->createTuple(outs))->output());
  }

  // An fx argument as a graph value (constants become prim::Constant, lists ListConstruct).
  Value* argValue(const QJsonObject& arg) {
    const QString kind = arg.keys().value(0);
    const QJsonValue v = arg.value(kind);
    auto ints = [](const QJsonArray& a) {
      std::vector<int64_t> out;
      for (const auto& e : a) out.push_back(static_cast<int64_t>(e.toInteger()));
      return out;
    };
    if (kind == QLatin1String("as_tensor")) return tensorValue(v.toObject().value(QLatin1String("name")).toString());
    if (kind == QLatin1String("as_tensors") || kind == QLatin1String("as_optional_tensors")) {
      std::vector<Value*> items;
      bool optional = kind == QLatin1String("as_optional_tensors");
      for (const auto& e : v.toArray()) {
        const auto o = e.toObject();
        if (o.contains(QLatin1String("as_none"))) items.push_back(graph_->insertConstant(c10::IValue()));
        else if (o.contains(QLatin1String("as_tensor")))
          items.push_back(
              tensorValue(o.value(QLatin1String("as_tensor")).toObject().value(QLatin1String("name")).toString()));
        else items.push_back(tensorValue(o.value(QLatin1String("name")).toString()));
      }
      const c10::TypePtr element = optional ? c10::OptionalType::ofTensor() : c10::TensorType::get();
      return graph_->insertNode(graph_->createList(element, items))->output();
    }
    if (kind == QLatin1String("as_none")) return graph_->insertConstant(c10::IValue());
    if (kind == QLatin1String("as_int")) return graph_->insertConstant(static_cast<int64_t>(v.toInteger()));
    if (kind == QLatin1String("as_float")) return graph_->insertConstant(jsonFloat(v));
    if (kind == QLatin1String("as_bool")) return graph_->insertConstant(v.toBool());
    if (kind == QLatin1String("as_string")) return graph_->insertConstant(v.toString().toStdString());
    if (kind == QLatin1String("as_ints")) return graph_->insertConstant(ints(v.toArray()));
    if (kind == QLatin1String("as_floats")) {
      std::vector<double> out;
      for (const auto& e : v.toArray()) out.push_back(jsonFloat(e));
      return graph_->insertConstant(out);
    }
    if (kind == QLatin1String("as_bools")) {
      c10::List<bool> out;
      for (const auto& e : v.toArray()) out.push_back(e.toBool());
      return graph_->insertConstant(out);
    }
    if (kind == QLatin1String("as_scalar_type"))
      return graph_->insertConstant(static_cast<int64_t>(scalarType(v.toInt())));
    if (kind == QLatin1String("as_memory_format"))
      return graph_->insertConstant(static_cast<int64_t>(pt2::memoryFormatOf(v.toInt())));
    if (kind == QLatin1String("as_layout"))
      return graph_->insertConstant(static_cast<int64_t>(pt2::layoutOf(v.toInt())));
    if (kind == QLatin1String("as_device")) return graph_->insertConstant(deviceOf(v));
    // Symbolic sizes: a name is a value computed in the graph (aten.sym_size.int, _operator.mul,
    // …), a number a constant. They run as ints.
    if (kind == QLatin1String("as_sym_int") || kind == QLatin1String("as_sym_bool") ||
        kind == QLatin1String("as_sym_float"))
      return symValue(v.toObject());
    if (kind == QLatin1String("as_sym_ints")) {
      std::vector<int64_t> out;
      bool concrete = true;
      for (const auto& e : v.toArray()) {
        auto i = concreteInt(e);
        concrete = concrete && i.has_value();
        if (i) out.push_back(*i);
      }
      if (concrete) return graph_->insertConstant(out);
      std::vector<Value*> items;
      for (const auto& e : v.toArray()) items.push_back(symValue(e.toObject()));
      return graph_->insertNode(graph_->createList(c10::IntType::get(), items))->output();
    }
    fail(QStringLiteral("an argument of kind %1 is not supported yet").arg(kind));
  }

  // {"as_name": "sym_size_int_1"} (a value of the graph), {"as_int": 3}, {"as_bool": …}, {"as_float": …}.
  Value* symValue(const QJsonObject& o) {
    if (o.contains(QLatin1String("as_name"))) return tensorValue(o.value(QLatin1String("as_name")).toString());
    if (o.contains(QLatin1String("as_int")))
      return graph_->insertConstant(static_cast<int64_t>(o.value(QLatin1String("as_int")).toInteger()));
    if (o.contains(QLatin1String("as_bool"))) return graph_->insertConstant(o.value(QLatin1String("as_bool")).toBool());
    if (o.contains(QLatin1String("as_float")))
      return graph_->insertConstant(jsonFloat(o.value(QLatin1String("as_float"))));
    if (auto i = concreteInt(QJsonValue(o))) return graph_->insertConstant(*i);
    fail(QStringLiteral("a symbolic value %1 is not supported yet")
             .arg(QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact))));
  }

  // A name for each symbolic output ({"as_sym_int": {"as_name": "mul"}}), as for tensors.
  void bindSymOutput(Value* out, const QJsonObject& o) {
    for (const char* kind : {"as_sym_int", "as_sym_bool", "as_sym_float"}) {
      const QJsonObject sym = o.value(QLatin1String(kind)).toObject();
      const QString name = sym.value(QLatin1String("as_name")).toString();
      if (name.isEmpty()) continue;
      out->setType(QLatin1String(kind) == QLatin1String("as_sym_int")    ? c10::TypePtr(c10::IntType::get())
                   : QLatin1String(kind) == QLatin1String("as_sym_bool") ? c10::TypePtr(c10::BoolType::get())
                                                                          : c10::TypePtr(c10::FloatType::get()));
      out->setDebugName(name.toStdString());
      values_[name] = out;
    }
  }

  void addPythonOperatorCall(const QJsonObject& n, c10::Symbol op) {
    std::vector<torch::jit::NamedValue> args;
    for (const auto& in : n.value(QLatin1String("inputs")).toArray())
      args.emplace_back(argValue(in.toObject().value(QLatin1String("arg")).toObject()));
    Value* out = nullptr;
    try {
      out = graph_->insert(op, args);
    } catch (const std::exception& e) {
      fail(QStringLiteral("%1 on these arguments has no TorchScript operator: %2")
               .arg(n.value(QLatin1String("target")).toString(),
                    QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0)));
    }
    const auto outputs = n.value(QLatin1String("outputs")).toArray();
    if (!outputs.isEmpty()) {
      const QJsonObject o = outputs.first().toObject();
      for (const char* kind : {"as_sym_int", "as_sym_bool", "as_sym_float"}) {
        const QString name = o.value(QLatin1String(kind)).toObject().value(QLatin1String("as_name")).toString();
        if (name.isEmpty()) continue;
        out->setDebugName(name.toStdString());
        values_[name] = out;
      }
    }
    const auto meta = n.value(QLatin1String("metadata")).toObject();
    setModuleStack(out->node(), meta.value(QLatin1String("nn_module_stack")).toString());
    setSource(out->node(), meta.value(QLatin1String("stack_trace")).toString());
  }

  Value* tensorValue(const QString& name) {
    auto it = values_.find(name);
    if (it == values_.end()) fail(QStringLiteral("value %1 is used before it is defined").arg(name));
    return it->second;
  }

  // "torch.ops.aten.conv2d.default" -> the registered operator aten::conv2d (overload ""); null
  // for an operator this libtorch does not have (a Python library's custom op).
  std::shared_ptr<torch::jit::Operator> findOperator(const QString& target) {
    const auto m = operatorTarget().match(target);
    if (!m.hasMatch())
      fail(QStringLiteral("call target %1 is not an operator overload (not supported yet)").arg(target));
    const std::string qual = (m.captured(1) + QStringLiteral("::") + m.captured(2)).toStdString();
    const std::string overload =
        m.captured(3) == QLatin1String("default") ? std::string() : m.captured(3).toStdString();
    for (const auto& op : torch::jit::getAllOperatorsFor(c10::Symbol::fromQualString(qual)))
      if (op->schema().overload_name() == overload) return op;
    return nullptr;
  }

  static const QRegularExpression& operatorTarget() {
    static const QRegularExpression re(QStringLiteral(R"(^torch\.ops\.(\w+)\.(\w+)\.(\w+)$)"));
    return re;
  }

  // An operator this libtorch does not have (a Python library's custom op, such as transformers'
  // grouped_mm_fallback): registered as a stand-in with the schema the file implies (argument
  // names and kinds in the file's order), so the program opens, draws, diffs, rewrites and saves;
  // a run that reaches it is refused naming it (model/placeholder_ops.h, run/unknown_ops.h).
  std::shared_ptr<torch::jit::Operator> registerStandIn(const QJsonObject& n, const QString& target) {
    static const QHash<QString, QString> kTypes{
        {QStringLiteral("as_tensor"), QStringLiteral("Tensor")},
        {QStringLiteral("as_tensors"), QStringLiteral("Tensor[]")},
        {QStringLiteral("as_optional_tensors"), QStringLiteral("Tensor?[]")},
        {QStringLiteral("as_none"), QStringLiteral("Tensor?")},
        {QStringLiteral("as_int"), QStringLiteral("int")},
        {QStringLiteral("as_sym_int"), QStringLiteral("SymInt")},
        {QStringLiteral("as_ints"), QStringLiteral("int[]")},
        {QStringLiteral("as_sym_ints"), QStringLiteral("SymInt[]")},
        {QStringLiteral("as_float"), QStringLiteral("float")},
        {QStringLiteral("as_floats"), QStringLiteral("float[]")},
        {QStringLiteral("as_bool"), QStringLiteral("bool")},
        {QStringLiteral("as_bools"), QStringLiteral("bool[]")},
        {QStringLiteral("as_string"), QStringLiteral("str")},
        {QStringLiteral("as_scalar_type"), QStringLiteral("ScalarType")},
        {QStringLiteral("as_memory_format"), QStringLiteral("MemoryFormat")},
        {QStringLiteral("as_layout"), QStringLiteral("Layout")},
        {QStringLiteral("as_device"), QStringLiteral("Device")}};
    const auto typeOf = [&](const QJsonObject& value, const QString& what) {
      const QString kind = value.keys().value(0);
      const QString type = kTypes.value(kind);
      if (type.isEmpty())
        fail(QStringLiteral("%1 is not in this libtorch, and its %2 (%3) cannot be described").arg(target, what, kind));
      return type;
    };
    QStringList arguments;
    for (const auto& in : n.value(QLatin1String("inputs")).toArray()) {
      const auto o = in.toObject();
      const QString name = o.value(QLatin1String("name")).toString();
      arguments << QStringLiteral("%1 %2").arg(typeOf(o.value(QLatin1String("arg")).toObject(), name), name);
    }
    QStringList returns;
    for (const auto& out : n.value(QLatin1String("outputs")).toArray())
      returns << typeOf(out.toObject(), QStringLiteral("result"));
    const auto m = operatorTarget().match(target);
    const QString overload = m.captured(3) == QLatin1String("default") ? QString() : QLatin1Char('.') + m.captured(3);
    const QString schema = QStringLiteral("%1::%2%3(%4) -> (%5)")
                               .arg(m.captured(1), m.captured(2), overload, arguments.join(QStringLiteral(", ")),
                                    returns.join(QStringLiteral(", ")));
    if (const QString why = model::registerPlaceholderOperator(schema); !why.isEmpty())
      fail(QStringLiteral("%1 is not in this libtorch, and its schema %2 is not valid: %3").arg(target, schema, why));
    auto op = findOperator(target);
    if (!op) fail(QStringLiteral("operator %1 is not registered in this libtorch").arg(target));
    return op;
  }

  void addNode(const QJsonObject& n) {
    // Subgraphs are inlined at each call, so the nodes built can outnumber those in the text.
    if (++nodesBuilt_ > pt2::kMaxProgramNodes) refuse(pt2::checkNodeCount(nodesBuilt_));
    const QString target = n.value(QLatin1String("target")).toString();
    if (target == QLatin1String("torch.ops.higher_order.cond")) return addCond(n);
    if (target == QLatin1String("torch.ops.higher_order.wrap_with_set_grad_enabled") ||
        target == QLatin1String("torch.ops.higher_order.wrap_with_autocast") ||
        target == QLatin1String("torch.ops.higher_order.invoke_subgraph"))
      return addInlinedRegion(n, target);
    if (auto op = pt2::torchScriptOperatorOf(target)) return addPythonOperatorCall(n, *op);
    auto op = findOperator(target);
    if (!op) op = registerStandIn(n, target);
    const auto& schema = op->schema();
    std::map<QString, QJsonObject> given;  // the serializer names every argument by the schema
    for (const auto& in : n.value(QLatin1String("inputs")).toArray()) {
      const auto o = in.toObject();
      given[o.value(QLatin1String("name")).toString()] = o.value(QLatin1String("arg")).toObject();
    }
    std::vector<Value*> inputs;
    bool boolScalar = false;
    for (const auto& a : schema.arguments()) {
      auto it = given.find(QString::fromStdString(a.name()));
      if (it != given.end() && isScalarArgument(a) && it->second.contains(QLatin1String("as_bool"))) {
        // TorchScript's Scalar is a number, never a bool: True is passed as 1, and the dtype it
        // implied is made explicit below.
        inputs.push_back(graph_->insertConstant(int64_t(it->second.value(QLatin1String("as_bool")).toBool() ? 1 : 0)));
        boolScalar = true;
      } else if (it != given.end() && isDeviceArgument(a) && it->second.contains(QLatin1String("as_string"))) {
        // torch.export.passes.move_to_device_pass writes the new device as a string ("cuda").
        inputs.push_back(graph_->insertConstant(deviceOf(it->second.value(QLatin1String("as_string")))));
      } else if (it != given.end()) inputs.push_back(argValue(it->second));
      else if (a.default_value()) inputs.push_back(graph_->insertConstant(*a.default_value()));
      else fail(QStringLiteral("%1: argument %2 is missing").arg(target, QString::fromStdString(a.name())));
    }
    if (boolScalar) keepBoolResult(n, schema, inputs);
    if (!autocast_.empty() && autocast_.back().enabled) castForAutocast(schema, inputs, n);
    Node* node = graph_->create(c10::Symbol::fromQualString(schema.name()), inputs, schema.returns().size());
    graph_->insertNode(node);
    const auto outputs = n.value(QLatin1String("outputs")).toArray();
    for (size_t i = 0; i < schema.returns().size(); ++i) {
      Value* out = node->output(i);
      out->setType(schema.returns()[i].type());
      const auto o = i < size_t(outputs.size()) ? outputs[int(i)].toObject() : QJsonObject();
      QString name;
      if (o.contains(QLatin1String("as_tensors"))) {
        bindListOutput(out, o.value(QLatin1String("as_tensors")).toArray());
        continue;
      }
      bindSymOutput(out, o);
      if (o.contains(QLatin1String("as_tensor")))
        name = o.value(QLatin1String("as_tensor")).toObject().value(QLatin1String("name")).toString();
      if (!name.isEmpty()) {
        if (tensorMeta_.contains(name)) out->setType(tensorType(tensorMeta_.value(name)));
        out->setDebugName(name.toStdString());
        values_[name] = out;
      }
    }
    const auto meta = n.value(QLatin1String("metadata")).toObject();
    setModuleStack(node, meta.value(QLatin1String("nn_module_stack")).toString());
    setSource(node, meta.value(QLatin1String("stack_trace")).toString());
  }

  static bool isScalarArgument(const c10::Argument& a) {
    const c10::TypePtr& t = a.type();
    if (t->kind() == c10::TypeKind::NumberType) return true;
    const auto optional = t->cast<c10::OptionalType>();
    return optional && optional->getElementType()->kind() == c10::TypeKind::NumberType;
  }

  // A bool Scalar read as 1 or 0 gives the same values, but a result whose dtype came from the
  // scalar (full(size, True) is a bool tensor, full(size, 1) a long one) needs its dtype spelt out:
  // an op with a dtype argument left unset gets the dtype fx recorded for its result; any other op
  // whose result is bool (comparisons aside, bool whatever the scalar) cannot be given a bool
  // Scalar in TorchScript.
  void keepBoolResult(const QJsonObject& n, const c10::FunctionSchema& schema, std::vector<Value*>& inputs) {
    const auto outputs = n.value(QLatin1String("outputs")).toArray();
    const QString out = outputs.isEmpty() ? QString()
                                          : outputs.first()
                                                .toObject()
                                                .value(QLatin1String("as_tensor"))
                                                .toObject()
                                                .value(QLatin1String("name"))
                                                .toString();
    if (!tensorMeta_.contains(out)) return;
    const c10::ScalarType dtype = scalarType(tensorMeta_.value(out).value(QLatin1String("dtype")).toInt());
    if (auto index = schema.argumentIndexWithName("dtype")) {
      if (inputs[*index]->type()->kind() == c10::TypeKind::NoneType)
        inputs[*index] = graph_->insertConstant(static_cast<int64_t>(dtype));
      return;
    }
    static const QStringList alwaysBool = {QStringLiteral("aten::eq"), QStringLiteral("aten::ne"),
                                           QStringLiteral("aten::lt"), QStringLiteral("aten::le"),
                                           QStringLiteral("aten::gt"), QStringLiteral("aten::ge")};
    if (dtype == c10::kBool && !alwaysBool.contains(QString::fromStdString(schema.name())))
      fail(QStringLiteral(
               "%1 takes a bool Scalar and returns a bool tensor: TorchScript has no bool Scalar to keep that dtype")
               .arg(n.value(QLatin1String("target")).toString()));
  }

  void addTensorMeta(const QJsonObject& values) {
    for (auto it = values.begin(); it != values.end(); ++it) tensorMeta_.insert(it.key(), it.value().toObject());
  }

  // A Tensor[] result (split, unbind, …) whose items fx names: unpacked into one value per item.
  void bindListOutput(Value* list, const QJsonArray& items) {
    Node* unpack = graph_->insertNode(graph_->create(c10::prim::ListUnpack, {list}, items.size()));
    for (int k = 0; k < items.size(); ++k) {
      const QString name = items[k].toObject().value(QLatin1String("name")).toString();
      Value* item = unpack->output(k);
      item->setType(tensorMeta_.contains(name) ? c10::TypePtr(tensorType(tensorMeta_.value(name)))
                                               : c10::TensorType::get());
      item->setDebugName(name.toStdString());
      values_[name] = item;
    }
  }

  // torch.cond(pred, true_fn, false_fn, operands) becomes prim::If on aten::Bool(pred) with one
  // block per branch: each branch subgraph is imported into its block with its inputs bound to
  // the operands, so the executor, the views and the profiler treat it as TorchScript's `if`.
  void addCond(const QJsonObject& n) {
    const auto inputs = n.value(QLatin1String("inputs")).toArray();
    if (inputs.size() != 4)
      fail(QStringLiteral("torch.ops.higher_order.cond with %1 arguments (expected 4)").arg(inputs.size()));
    auto arg = [&](int i) { return inputs[i].toObject().value(QLatin1String("arg")).toObject(); };
    Value* pred = argValue(arg(0));
    Node* toBool = graph_->insertNode(graph_->create(c10::Symbol::fromQualString("aten::Bool"), {pred}));
    toBool->output()->setType(c10::BoolType::get());
    std::vector<Value*> operands;
    for (const auto& o : arg(3).value(QLatin1String("as_tensors")).toArray())
      operands.push_back(tensorValue(o.toObject().value(QLatin1String("name")).toString()));

    const auto outputs = n.value(QLatin1String("outputs")).toArray();
    QStringList outNames;
    for (const auto& o : outputs) {
      const auto obj = o.toObject();
      if (obj.contains(QLatin1String("as_tensor")))
        outNames << obj.value(QLatin1String("as_tensor")).toObject().value(QLatin1String("name")).toString();
      for (const auto& t : obj.value(QLatin1String("as_tensors")).toArray())
        outNames << t.toObject().value(QLatin1String("name")).toString();
    }
    Node* ifNode = graph_->insertNode(graph_->create(c10::prim::If, {toBool->output()}, outNames.size()));
    for (int branch = 1; branch <= 2; ++branch) {
      const auto sub = arg(branch).value(QLatin1String("as_graph")).toObject().value(QLatin1String("graph")).toObject();
      if (sub.isEmpty()) fail(QStringLiteral("torch.ops.higher_order.cond: branch %1 is not a graph").arg(branch));
      importBranch(sub, ifNode->addBlock(), operands, outNames.size());
    }
    for (int i = 0; i < outNames.size(); ++i) {
      Value* out = ifNode->output(i);
      out->setType(tensorMeta_.contains(outNames[i]) ? c10::TypePtr(tensorType(tensorMeta_.value(outNames[i])))
                                                     : ifNode->blocks()[0]->outputs()[i]->type());
      out->setDebugName(outNames[i].toStdString());
      values_[outNames[i]] = out;
    }
    const auto meta = n.value(QLatin1String("metadata")).toObject();
    setModuleStack(ifNode, meta.value(QLatin1String("nn_module_stack")).toString());
    setSource(ifNode, meta.value(QLatin1String("stack_trace")).toString());
  }

  // An autocast region being imported: the casts torch.autocast makes at run time are written
  // as explicit nodes before each op of its body.
  struct AutocastRegion {
    bool enabled = true;
    c10::ScalarType dtype = c10::kBFloat16;
    c10::DispatchKey key = c10::DispatchKey::AutocastCPU;  // whose cast lists apply
  };

  // An inlined region as the module tree shows it: a group named for what the program wrote
  // ("no_grad", "autocast(bfloat16)", invoke_subgraph's identifier) whose type is the higher-order
  // op ("torch.ops.higher_order.wrap_with_autocast"), placed after the first `anchor` modules of its body's nodes.
  struct ShownRegion {
    int anchor = 0;
    QString name;
    QString type;
    QString callStack;  // invoke_subgraph: the call's module stack, which its body's nodes take
  };

  // The region the higher-order call `n` opens, named uniquely within the module that holds it.
  ShownRegion shownRegion(const QJsonObject& n, const QString& target, const QJsonArray& inputs, int body) {
    auto arg = [&](int i) { return inputs[i].toObject().value(QLatin1String("arg")).toObject(); };
    QStringList paths, types;
    const QString stack = effectiveStack(
        n.value(QLatin1String("metadata")).toObject().value(QLatin1String("nn_module_stack")).toString());
    parseModuleStack(stack, &paths, &types);
    ShownRegion region;
    region.anchor = int(paths.size());
    const QString op = target.section(QLatin1Char('.'), -1);
    region.type = QStringLiteral("torch.ops.higher_order.") + op;
    if (op == QLatin1String("wrap_with_set_grad_enabled")) {
      region.name = arg(0).value(QLatin1String("as_bool")).toBool(false) ? QStringLiteral("enable_grad")
                                                                         : QStringLiteral("no_grad");
    } else if (op == QLatin1String("wrap_with_autocast")) {
      const bool enabled = body > 2 ? arg(2).value(QLatin1String("as_bool")).toBool(true) : true;
      const QString dtype =
          body > 1 && arg(1).contains(QLatin1String("as_scalar_type"))
              ? model::dtypeName(int(scalarType(arg(1).value(QLatin1String("as_scalar_type")).toInt())))
              : QString();
      region.name = !enabled ? QStringLiteral("autocast(disabled)")
                             : dtype.isEmpty() ? QStringLiteral("autocast") : QStringLiteral("autocast(%1)").arg(dtype);
    } else {
      // invoke_subgraph(body, identifier, *operands): the identifier, or the body's name.
      region.name = body + 1 < inputs.size() ? arg(body + 1).value(QLatin1String("as_string")).toString() : QString();
      if (region.name.isEmpty())
        region.name = arg(body).value(QLatin1String("as_graph")).toObject().value(QLatin1String("name")).toString();
      if (region.name.isEmpty()) region.name = op;
      region.callStack = stack.isNull() ? QStringLiteral("") : stack;
    }
    region.name.replace(QLatin1Char('.'), QLatin1Char('_'));  // a path component
    QStringList outer;
    for (const auto& r : regions_) outer << r.name;
    const QString key = (paths.isEmpty() ? QString() : paths.last()) + QLatin1Char('|') + outer.join(QLatin1Char('|')) +
                        QLatin1Char('|') + region.name;
    if (const int seen = regionNames_[key]++; seen > 0) region.name += QStringLiteral("_%1").arg(seen);
    return region;
  }

  // wrap_with_set_grad_enabled(enabled, body, *operands), wrap_with_autocast(device_type, dtype,
  // enabled, cache_enabled, body, *operands) and invoke_subgraph(body, identifier, *operands):
  // the body (a GraphModule the program references) is imported in place, its ops counted,
  // drawn in their own modules (their nn_module_stack), run, compared, rewritten and saved as
  // the program's own. Grad mode changes nothing a forward computes. An autocast region keeps
  // its dtype semantics as explicit casts (castForAutocast); the region's device type decides
  // the cast lists (those of the device the program was exported for).
  void addInlinedRegion(const QJsonObject& n, const QString& target) {
    const auto inputs = n.value(QLatin1String("inputs")).toArray();
    auto arg = [&](int i) { return inputs[i].toObject().value(QLatin1String("arg")).toObject(); };
    int body = -1;
    for (int i = 0; i < inputs.size() && body < 0; ++i)
      if (arg(i).contains(QLatin1String("as_graph"))) body = i;
    if (body < 0) fail(QStringLiteral("%1 without a body graph").arg(target));
    const QJsonObject sub =
        arg(body).value(QLatin1String("as_graph")).toObject().value(QLatin1String("graph")).toObject();
    int firstOperand = body + 1;
    if (target.endsWith(QLatin1String("invoke_subgraph")) && firstOperand < inputs.size() &&
        (arg(firstOperand).contains(QLatin1String("as_string")) ||
         arg(firstOperand).contains(QLatin1String("as_none"))))
      ++firstOperand;  // the subgraph's identifier
    std::vector<Value*> operands;
    for (int i = firstOperand; i < inputs.size(); ++i) operands.push_back(argValue(arg(i)));

    const bool autocast = target.endsWith(QLatin1String("wrap_with_autocast"));
    if (autocast) {
      if (body < 3)
        fail(QStringLiteral("torch.ops.higher_order.wrap_with_autocast with %1 arguments before its body").arg(body));
      AutocastRegion region;
      const QString deviceType = arg(0).value(QLatin1String("as_string")).toString(QStringLiteral("cuda"));
      region.key = deviceType == QLatin1String("cpu") ? c10::DispatchKey::AutocastCPU : c10::DispatchKey::AutocastCUDA;
      const bool cpu = region.key == c10::DispatchKey::AutocastCPU;
      region.dtype = arg(1).contains(QLatin1String("as_scalar_type"))
                         ? scalarType(arg(1).value(QLatin1String("as_scalar_type")).toInt())
                         : (cpu ? c10::kBFloat16 : c10::kHalf);
      region.enabled = arg(2).value(QLatin1String("as_bool")).toBool(true);
      autocast_.push_back(region);
    }
    QStringList outNames;
    for (const auto& o : n.value(QLatin1String("outputs")).toArray()) {
      const auto obj = o.toObject();
      if (obj.contains(QLatin1String("as_tensor")))
        outNames << obj.value(QLatin1String("as_tensor")).toObject().value(QLatin1String("name")).toString();
      for (const auto& t : obj.value(QLatin1String("as_tensors")).toArray())
        outNames << t.toObject().value(QLatin1String("name")).toString();
    }
    regions_.push_back(shownRegion(n, target, inputs, body));
    const std::vector<Value*> results = importInline(sub, operands, target);
    regions_.pop_back();
    if (autocast) autocast_.pop_back();
    if (results.size() != size_t(outNames.size()))
      fail(QStringLiteral("%1: the body returns %2 values for %3 outputs")
               .arg(target)
               .arg(results.size())
               .arg(outNames.size()));
    for (int i = 0; i < outNames.size(); ++i) {
      if (outNames[i].isEmpty()) continue;
      values_[outNames[i]] = results[size_t(i)];
    }
  }

  // A body graph's nodes imported at the current insertion point, its inputs bound to
  // `operands`; returns the values it returns. Its names and metadata stay its own.
  std::vector<Value*> importInline(const QJsonObject& sub, const std::vector<Value*>& operands, const QString& target) {
    const auto subInputs = sub.value(QLatin1String("inputs")).toArray();
    if (size_t(subInputs.size()) != operands.size())
      fail(QStringLiteral("%1: the body takes %2 inputs for %3 operands")
               .arg(target)
               .arg(subInputs.size())
               .arg(operands.size()));
    const auto outerValues = values_;
    const auto outerMeta = tensorMeta_;
    addTensorMeta(sub.value(QLatin1String("tensor_values")).toObject());
    for (int i = 0; i < subInputs.size(); ++i) {
      const QJsonObject in = subInputs[i].toObject();
      QString name = in.value(QLatin1String("as_tensor")).toObject().value(QLatin1String("name")).toString();
      for (const char* kind : {"as_sym_int", "as_sym_bool", "as_sym_float"})
        if (name.isEmpty()) name = in.value(QLatin1String(kind)).toObject().value(QLatin1String("as_name")).toString();
      if (!name.isEmpty()) values_[name] = operands[size_t(i)];
    }
    for (const auto& node : sub.value(QLatin1String("nodes")).toArray()) addNode(node.toObject());
    std::vector<Value*> results;
    for (const auto& o : sub.value(QLatin1String("outputs")).toArray()) results.push_back(argValue(o.toObject()));
    // The body's values are the program's now: later nodes see them only through the outputs.
    values_ = outerValues;
    tensorMeta_ = outerMeta;
    return results;
  }

  // What torch.autocast does to an op's inputs at run time, as explicit nodes: an op on the
  // region's lower-precision list gets its float32 tensors at the region's dtype
  // (aten::_autocast_to_reduced_precision), one on its float32 list its float16/bfloat16
  // tensors at float32 (aten::_autocast_to_full_precision). Which ops are listed is libtorch's
  // own: those with a kernel for the region's Autocast dispatch key. Both casts check the
  // tensor's dtype when they run, so they hold at any precision a run chooses.
  void castForAutocast(const c10::FunctionSchema& schema, std::vector<Value*>& inputs, const QJsonObject& n) {
    const AutocastRegion& region = autocast_.back();
    const auto handle = c10::Dispatcher::singleton().findOp(c10::OperatorName(schema.name(), schema.overload_name()));
    if (!handle || !handle->hasKernelForDispatchKey(region.key)) return;
    const QString op = QString::fromStdString(schema.name());
    const bool lower = run::autocastLowersPrecision(op);
    const bool full = !lower && run::autocastKeepsFloat32(op);
    if (!lower && !full) return;  // promote-to-widest ops and others: as torch's lists may differ, left as written
    const QString stack =
        n.value(QLatin1String("metadata")).toObject().value(QLatin1String("nn_module_stack")).toString();
    for (Value*& v : inputs) {
      if (!v->type()->cast<c10::TensorType>()) continue;
      Node* cast = lower ? graph_->create(c10::Symbol::fromQualString("aten::_autocast_to_reduced_precision"),
                                          {v, graph_->insertConstant(true), graph_->insertConstant(true),
                                           graph_->insertConstant(int64_t(region.dtype)),
                                           graph_->insertConstant(int64_t(region.dtype))})
                         : graph_->create(c10::Symbol::fromQualString("aten::_autocast_to_full_precision"),
                                          {v, graph_->insertConstant(true), graph_->insertConstant(true)});
      graph_->insertNode(cast);
      const auto t = v->type()->cast<c10::TensorType>();
      const auto from = t->scalarType();
      c10::TypePtr type = t;
      if (from && ((lower && *from == c10::kFloat) || (full && (*from == c10::kHalf || *from == c10::kBFloat16))))
        type = t->withScalarType(lower ? region.dtype : c10::kFloat);
      cast->output()->setType(type);
      setModuleStack(cast, stack);
      v = cast->output();
    }
  }

  // A branch's subgraph, with its own names and tensor metadata, imported into `block`.
  void importBranch(const QJsonObject& sub, torch::jit::Block* block, const std::vector<Value*>& operands,
                    int outputs) {
    const auto subInputs = sub.value(QLatin1String("inputs")).toArray();
    if (size_t(subInputs.size()) != operands.size())
      fail(QStringLiteral("torch.ops.higher_order.cond: a branch takes %1 inputs for %2 operands")
               .arg(subInputs.size())
               .arg(operands.size()));
    const auto outerValues = values_;
    const auto outerMeta = tensorMeta_;
    const auto subMeta = sub.value(QLatin1String("tensor_values")).toObject();
    addTensorMeta(subMeta);
    for (int i = 0; i < subInputs.size(); ++i)
      values_[subInputs[i]
                  .toObject()
                  .value(QLatin1String("as_tensor"))
                  .toObject()
                  .value(QLatin1String("name"))
                  .toString()] = operands[i];
    {
      torch::jit::WithInsertPoint inBlock(block);
      for (const auto& node : sub.value(QLatin1String("nodes")).toArray()) addNode(node.toObject());
      const auto subOutputs = sub.value(QLatin1String("outputs")).toArray();
      if (subOutputs.size() != outputs)
        fail(QStringLiteral("torch.ops.higher_order.cond: a branch returns %1 values for %2 outputs")
                 .arg(subOutputs.size())
                 .arg(outputs));
      for (const auto& o : subOutputs) block->registerOutput(argValue(o.toObject()));
    }
    values_ = outerValues;
    tensorMeta_ = outerMeta;
  }

  // "L__self__,,__main__.M;L__self__layer1_0,layer1.0,torchvision...BasicBlock" -> the node's place
  // in Graft's own table: instance names relative to their enclosing module, outermost first, as
  // TorchScript's inliner records them ({"layer1", "0"}), with each module's class name.
  // Nothing is written into libtorch's call stacks. Inside an inlined region, the region is a
  // module of its own between the module that holds it and the modules its body calls.
  // Each level's nn_module_stack key tells that module's calls apart ("…relu" and "…relu@1"):
  // opPlaces() numbers them. A region has a name of its own, so one call.
  void setModuleStack(Node* node, const QString& stack) {
    const QString effective = effectiveStack(stack);
    auto parsed = parsedStacks_.find(effective);
    if (parsed == parsedStacks_.end()) {
      ParsedStack p;
      parseModuleStack(effective, &p.paths, &p.types, &p.keys);
      parsed = parsedStacks_.insert(effective, std::move(p));
    }
    const QStringList &paths = parsed->paths, &types = parsed->types, &keys = parsed->keys;
    model::NodePlace& place = places_[node];
    QStringList& callKeys = callKeys_[node];
    size_t region = 0;
    const auto placeRegions = [&](int depth) {
      for (; region < regions_.size() && regions_[region].anchor <= depth; ++region) {
        place.modulePath << regions_[region].name;
        place.moduleTypes << regions_[region].type;
        callKeys << QString();
      }
    };
    for (int i = 0; i < paths.size(); ++i) {
      placeRegions(i);
      const QString parent = i > 0 ? paths[i - 1] : QString();
      QString instance = paths[i];
      if (!parent.isEmpty() && instance.startsWith(parent + QLatin1Char('.')))
        instance = instance.mid(parent.size() + 1);
      place.modulePath << instance;
      place.moduleTypes << types[i];
      callKeys << keys[i];
    }
    placeRegions(std::numeric_limits<int>::max());
  }

  // The module stack a node is shown in: its own, or inside an invoke_subgraph body the call's.
  // One body serves every call and carries the stack of the call it was traced at (under
  // strict export's _export_root), so its nodes take the place of the call that runs them.
  QString effectiveStack(const QString& stack) const {
    for (auto r = regions_.rbegin(); r != regions_.rend(); ++r)
      if (!r->callStack.isNull()) return r->callStack;
    return stack;
  }

  // An nn_module_stack's module paths ("layer1", "layer1.0") and class names, the root left out;
  // `keys` (optional) gets each entry's key ("L__self__layer1.0.relu@1" for relu's second call).
  static void parseModuleStack(const QString& stack, QStringList* paths, QStringList* types,
                               QStringList* keys = nullptr) {
    for (const QString& entry : stack.split(QLatin1Char(';'), Qt::SkipEmptyParts)) {
      const QStringList parts = entry.split(QLatin1Char(','));
      if (parts.size() < 3 || parts[1].isEmpty()) continue;  // the root module
      // torch.export's marker for a node no module called (the size reads it adds): the root's.
      if (parts[1] == QLatin1String("_empty_nn_module_stack_from_metadata_hook")) continue;
      *paths << parts[1];
      *types << parts.mid(2).join(QLatin1Char(','));
      if (keys) *keys << parts[0];
    }
  }

 public:
  // The place of every op node (kind not prim::) in graph order, each module's calls numbered in
  // that order.
  std::vector<model::NodePlace> opPlaces() const {
    std::vector<model::NodePlace> out;
    model::CallNumbering calls;
    model::forEachNode(*graph_, [&](Node* n) {
      if (n->kind().is_prim()) return;
      auto it = places_.find(n);
      out.push_back(it == places_.end() ? model::NodePlace{} : it->second);
      if (auto keys = callKeys_.find(n); keys != callKeys_.end()) calls.number(out.back(), keys->second);
    });
    return out;
  }

 private:
  // The model's own line: the innermost frame of the stack trace (Python lists the outermost
  // first) that is neither PyTorch's code nor fx's generated code (`<eval_with_key>.3`); the
  // innermost frame when all are.
  void setSource(Node* node, const QString& trace) {
    if (trace.isEmpty()) return;
    if (const auto known = sources_.constFind(trace); known != sources_.constEnd()) {
      if (known->source()) node->setSourceRange(*known);
      return;
    }
    const auto range = sourceOf(trace);
    sources_.insert(trace, range);
    if (range.source()) node->setSourceRange(range);
  }

  static torch::jit::SourceRange sourceOf(const QString& trace) {
    static const QRegularExpression frame(QStringLiteral(R"re(File "([^"]+)", line (\d+), in \w+\n\s*([^\n]*))re"));
    QRegularExpressionMatch chosen, innermost;
    for (auto it = frame.globalMatch(trace); it.hasNext();) {
      const auto m = it.next();
      innermost = m;
      const QString file = m.captured(1);
      if (!file.startsWith(QLatin1Char('<')) && !file.contains(QLatin1String("/torch/"))) chosen = m;
    }
    const auto& m = chosen.hasMatch() ? chosen : innermost;
    if (!m.hasMatch()) return {};
    const std::string text = m.captured(3).toStdString();
    auto source = std::make_shared<torch::jit::Source>(text, m.captured(1).toStdString(), m.captured(2).toULongLong());
    return torch::jit::SourceRange(source, 0, text.size());
  }

  caffe2::serialize::PyTorchStreamReader reader_;
  std::shared_ptr<MappedFile> mapped_;
  qint64 archiveSize_ = 0;
  QHash<QString, QJsonObject> tensorMeta_;  // by value name (a QJsonObject looks keys up linearly)
  std::map<QString, at::Tensor> tensors_;
  std::map<QString, Value*> values_;
  std::unordered_map<const Node*, model::NodePlace> places_;
  std::unordered_map<const Node*, QStringList> callKeys_;  // per place level: what tells its module's calls apart
  QHash<QString, ZipEntry> zip_;  // how each record is stored
  QHash<QString, std::pair<const ZipEntry*, QString>> records_;  // zip_'s entries by record name
  struct ParsedStack {
    QStringList paths, types, keys;
  };
  QHash<QString, ParsedStack> parsedStacks_;  // by nn_module_stack: a block's nodes share theirs
  QHash<QString, torch::jit::SourceRange> sources_;  // by stack_trace: a Python line's ops share theirs
  std::shared_ptr<torch::jit::CompilationUnit> cu_;
  std::shared_ptr<torch::jit::Module> module_;
  std::shared_ptr<Graph> graph_;
  std::optional<TreeSpec> inSpec_;
  int userLeaves_ = 0;          // user_input and constant_input specs seen: the in_spec's leaves
  QSet<int> constantLeaves_;    // which of those leaves are constant inputs

  // The in_spec's leaves less the constant inputs, which the graph holds itself.
  template <typename List>
  List withoutConstantLeaves(List leaves) const {
    if (constantLeaves_.isEmpty() || int(leaves.size()) != userLeaves_) return leaves;
    List kept;
    for (int i = 0; i < int(leaves.size()); ++i)
      if (!constantLeaves_.contains(i)) kept.push_back(std::move(leaves[i]));
    return kept;
  }
  std::vector<AutocastRegion> autocast_;  // the autocast regions around the node being imported
  std::vector<ShownRegion> regions_;      // the inlined regions around the node being imported, outermost first
  QHash<QString, int> regionNames_;       // region names given so far, by their module's path
  qsizetype nodesBuilt_ = 0;              // nodes built so far, subgraphs counted at each call
};

}  // namespace

bool isPt2Archive(const QString& path) {
  try {
    caffe2::serialize::PyTorchStreamReader reader(path.toStdString());
    const std::string formatPath(spec::ARCHIVE_FORMAT_PATH);
    if (!reader.hasRecord(formatPath)) return false;
    auto [data, size] = reader.getRecord(formatPath);
    return QString::fromLatin1(static_cast<const char*>(data.get()), static_cast<qsizetype>(size)).trimmed() ==
           str(spec::ARCHIVE_FORMAT_VALUE);
  } catch (const std::exception&) {
    return false;
  }
}

Pt2Import importPt2(const QString& path) {
  Pt2Import result;
  const QString name = QFileInfo(path).fileName();
  try {
    Importer importer(path);
    result.module = importer.run();
    result.exampleInputs = importer.sampleInputs;
    result.inputNames = importer.inputNames;
    result.symbolRanges = importer.symbolRanges;
    result.outputNames = importer.outputNames;
    result.provenanceRecord = importer.provenanceRecord;
    result.places = importer.opPlaces();
  } catch (const Pt2Error& e) {
    const QString what = QString::fromStdString(e.what());
    if (what == QLatin1String("AOTINDUCTOR"))
      result.error = {
          LoadErrorKind::NotAnArchive,
          QStringLiteral("%1 is an AOTInductor package: compiled code, with no graph to show.").arg(name),
          QStringLiteral("Open the program it was compiled from: torch.export.save(torch.export.export(model, "
                         "args), \"model.pt2\")."),
          {}};
    else
      result.error = {LoadErrorKind::Other,
                      QStringLiteral("%1 is a torch.export program Graft cannot read yet.").arg(name), what, what};
  } catch (const Pt2TooLarge& e) {
    const QString why = QString::fromStdString(e.what());
    result.error = {LoadErrorKind::Other, QStringLiteral("%1 is refused: %2.").arg(name, why), pt2::limitHint(), why};
  } catch (const std::bad_alloc&) {
    result.error = {LoadErrorKind::Other,
                    QStringLiteral("%1 needs more memory to read than this machine has.").arg(name),
                    QStringLiteral("Close other programs, or export a smaller part of the model."),
                    QStringLiteral("std::bad_alloc")};
  } catch (const c10::Error& e) {
    result.error = {LoadErrorKind::TruncatedArchive, QStringLiteral("%1 is a damaged torch.export archive.").arg(name),
                    QStringLiteral("Save the program again with torch.export.save."),
                    QString::fromStdString(e.what_without_backtrace())};
  } catch (const std::exception& e) {
    result.error = {LoadErrorKind::Other, QStringLiteral("%1 could not be read as a torch.export program.").arg(name),
                    QString::fromUtf8(e.what()), QString::fromUtf8(e.what())};
  }
  return result;
}

}  // namespace graft::core::io
