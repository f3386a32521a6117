#include "core/io/pt2_export.h"

#include "core/io/atomic_write.h"
#include "core/io/pt2_schema.h"
#include "core/model/fx_text.h"
#include "core/model/revision.h"
#include "core/run/executor.h"

#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/export/pt2_archive_constants.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/ir/scope.h>

#include <QtCore/QFileInfo>
#include <QtCore/QHash>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QRegularExpression>
#include <QtCore/QSaveFile>
#include <QtCore/QSet>

#include <torch/csrc/jit/serialization/pickler.h>
#include <torch/version.h>

#include <functional>
#include <unordered_map>

namespace graft::core::io {

namespace {

using torch::jit::Node;
using torch::jit::Value;
namespace spec = torch::_export::archive_spec;

struct SaveError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
[[noreturn]] void fail(const QString& what) { throw SaveError(what.toStdString()); }

using pt2::str;

QJsonArray symInts(c10::IntArrayRef values) {
  QJsonArray a;
  for (auto v : values) a.append(QJsonObject{{"as_int", qint64(v)}});
  return a;
}

// What the source program said about a placeholder: its kind, the name of the state it lifts, and
// the device it lives on. A save writes these again instead of guessing them.
enum class StateKind { Parameter, Buffer, Constant };
struct Placeholder {
  StateKind kind = StateKind::Parameter;
  QString fqn;              // "layer1.0.conv1.weight"
  bool persistent = true;   // buffers: whether the state dict holds it
  QJsonObject device;       // {"type": "cuda", "index": 0}; empty: the CPU
};
using Placeholders = QHash<QString, Placeholder>;  // by placeholder name ("p_fc_weight")

// Parameters, buffers and lifted constants of the source's signature, and every placeholder's
// device (user inputs too) from its tensor metadata.
Placeholders placeholdersOf(const QJsonObject& graphModule) {
  Placeholders out;
  const QJsonObject meta = graphModule.value(QLatin1String("graph")).toObject().value(QLatin1String("tensor_values")).toObject();
  for (const auto& s : graphModule.value(QLatin1String("signature")).toObject().value(QLatin1String("input_specs")).toArray()) {
    const QJsonObject specObj = s.toObject();
    const QString kind = specObj.keys().value(0);
    const QJsonObject body = specObj.value(kind).toObject();
    const QJsonObject arg = body.value(QLatin1String("arg")).toObject();
    const QString name = arg.contains(QLatin1String("as_tensor")) ? arg.value(QLatin1String("as_tensor")).toObject().value(QLatin1String("name")).toString()
                                                                   : arg.value(QLatin1String("name")).toString();
    if (name.isEmpty()) continue;
    Placeholder p;
    if (kind == QLatin1String("parameter")) p.kind = StateKind::Parameter;
    else if (kind == QLatin1String("buffer")) p.kind = StateKind::Buffer;
    else if (kind == QLatin1String("tensor_constant")) p.kind = StateKind::Constant;
    else if (kind == QLatin1String("user_input")) p.kind = StateKind::Constant, p.persistent = false;  // only its device is used
    else continue;  // tokens, custom objects
    p.fqn = body.value(p.kind == StateKind::Parameter ? QLatin1String("parameter_name")
                       : p.kind == StateKind::Buffer  ? QLatin1String("buffer_name")
                                                      : QLatin1String("tensor_constant_name")).toString();
    p.persistent = p.kind == StateKind::Parameter || (p.kind == StateKind::Buffer && body.value(QLatin1String("persistent")).toBool(true));
    p.device = meta.value(name).toObject().value(QLatin1String("device")).toObject();
    out.insert(name, p);
  }
  return out;
}

// A TensorMeta of the export schema for a tensor of this dtype and shape (contiguous, CPU).
QJsonObject tensorMeta(const at::Tensor& t) {
  const auto contiguous = t.is_contiguous() ? t.strides().vec() : at::empty(t.sizes(), t.options()).strides().vec();
  return {{"dtype", pt2::schemaValueOf(t.scalar_type())},
          {"sizes", symInts(t.sizes())},
          {"requires_grad", false},
          {"device", QJsonObject{{"type", QStringLiteral("cpu")}, {"index", QJsonValue()}}},
          {"strides", symInts(contiguous)},
          {"storage_offset", QJsonObject{{"as_int", 0}}},
          {"layout", pt2::schemaValueOf(c10::kStrided)}};
}

// "L__self__,,<root type>;L__self__layer1,layer1,<type>;…" from a node's place (the import keeps
// each module's qualified class name there; a rewrite's nodes take the place of their sources).
QString moduleStack(const QString& rootType, const model::NodePlace& place) {
  QStringList entries{QStringLiteral("L__self__,,") + rootType};
  QString path;
  for (qsizetype i = 0; i < place.modulePath.size(); ++i) {
    path = path.isEmpty() ? place.modulePath[i] : path + QLatin1Char('.') + place.modulePath[i];
    const QString key = QStringLiteral("L__self__") + QString(path).replace(QLatin1Char('.'), QLatin1Char('_'));
    entries << QStringLiteral("%1,%2,%3").arg(key, path, place.moduleTypes.value(i));
  }
  return entries.join(QLatin1Char(';'));
}

QString stackTrace(const model::NodePlace& place) {
  if (place.sourceLine <= 0) return {};
  return QStringLiteral("File \"%1\", line %2, in forward\n    %3").arg(place.sourceFile).arg(place.sourceLine).arg(place.sourceText);
}

class Exporter {
 public:
  Exporter(const model::RevisionPtr& rev, const std::vector<c10::IValue>& inputs, const model::SavedRecord* provenance,
           Placeholders source = {})
      : rev_(rev), provenance_(provenance), source_(std::move(source)) {
    const auto ops = rev->opNodeIds();
    for (size_t i = 0; i < ops.size(); ++i) opOrdinal_[ops[i]] = int(i);
    // Shapes and dtypes of every value, from one node-by-node run.
    run::Executor executor(rev);
    run::RunOptions options;
    options.instrumented = true;
    options.keepIntermediates = true;
    const auto result = executor.run(run::InputSet{inputs, {}}, options);
    if (!result.ok) fail(QStringLiteral("the revision does not run on the program's inputs: %1").arg(result.error.headline()));
    for (const auto& rec : result.nodes) {
      const Node* n = rev->nodeOf(rec.id);
      if (!n) continue;
      for (size_t k = 0; k < rec.outputs.size() && k < n->outputs().size(); ++k)
        if (rec.outputs[k].isTensor()) sample_[n->outputs()[k]] = rec.outputs[k].toTensor();
    }
    const auto graph = rev->graph();
    for (size_t i = 1; i < graph->inputs().size() && i - 1 < inputs.size(); ++i)
      if (inputs[i - 1].isTensor()) sample_[graph->inputs()[i]] = inputs[i - 1].toTensor();
  }

  // The program's graph_module.graph and signature; `weights` collects the tensors to store.
  void build(const QString& rootType) {
    const auto graph = rev_->graph();
    for (size_t i = 1; i < graph->inputs().size(); ++i) {
      const Value* in = graph->inputs()[i];
      if (!sample_.count(in)) fail(QStringLiteral("input %1 is not a tensor (not supported yet)").arg(i));
      const QString name = nameOf(in);
      tensorValues_.insert(name, onSourceDevice(tensorMeta(sample_.at(in)), name));
      userInputs_ << name;
    }
    for (Node* n : graph->nodes()) {
      if (!n->blocks().empty())
        fail(QStringLiteral("control flow (%1, torch.cond) cannot be saved as .pt2 yet; save the revision as TorchScript (.pt) instead")
                 .arg(QString::fromStdString(n->kind().toQualString())));
      const auto k = n->kind();
      if (k == c10::prim::Constant || k == c10::prim::ListConstruct || k == c10::prim::TupleConstruct) continue;
      if (k == c10::prim::ListUnpack && n->input()->node()->kind().is_aten()) continue;  // written as its producer's outputs
      if (k.is_prim()) fail(QStringLiteral("%1 cannot be saved as .pt2 yet").arg(QString::fromStdString(k.toQualString())));
      addNode(n, rootType);
    }
    const Value* out = graph->outputs().at(0);
    std::vector<const Value*> outs;
    if (out->node()->kind() == c10::prim::TupleConstruct) outs.assign(out->node()->inputs().begin(), out->node()->inputs().end());
    else outs.push_back(out);
    for (const Value* o : outs) {
      if (!o->type()->cast<c10::TensorType>()) fail(QStringLiteral("a non-tensor output cannot be saved as .pt2 yet"));
      outputs_ << nameOf(o);
    }
  }

  QJsonObject graphJson() const {
    QJsonArray inputs, outputs;
    for (const auto& w : weights_) inputs.append(QJsonObject{{"as_tensor", QJsonObject{{"name", w.name}}}});
    for (const auto& u : userInputs_) inputs.append(QJsonObject{{"as_tensor", QJsonObject{{"name", u}}}});
    for (const auto& o : outputs_) outputs.append(QJsonObject{{"as_tensor", QJsonObject{{"name", o}}}});
    return {{"inputs", inputs},
            {"outputs", outputs},
            {"nodes", nodes_},
            {"tensor_values", tensorValues_},
            {"sym_int_values", QJsonObject()},
            {"sym_bool_values", QJsonObject()},
            {"sym_float_values", QJsonObject()},
            {"custom_obj_values", QJsonObject()},
            {"is_single_tensor_return", false}};
  }

  QJsonObject signatureJson() const {
    auto one = [](const char* key, const QJsonValue& value) { return QJsonObject{{QLatin1String(key), value}}; };
    auto tensorArg = [&](const QString& name) { return one("as_tensor", one("name", name)); };
    QJsonArray in, out;
    for (const auto& w : weights_) {
      QJsonObject spec = one("arg", one("name", w.name));
      switch (w.kind) {
        case StateKind::Parameter:
          spec.insert(QStringLiteral("parameter_name"), w.fqn);
          in.append(one("parameter", spec));
          break;
        case StateKind::Buffer:
          spec.insert(QStringLiteral("buffer_name"), w.fqn);
          spec.insert(QStringLiteral("persistent"), w.persistent);
          in.append(one("buffer", spec));
          break;
        case StateKind::Constant:
          spec.insert(QStringLiteral("tensor_constant_name"), w.fqn);
          in.append(one("tensor_constant", spec));
          break;
      }
    }
    for (const auto& u : userInputs_) in.append(one("user_input", one("arg", tensorArg(u))));
    for (const auto& o : outputs_) out.append(one("user_output", one("arg", tensorArg(o))));
    return {{"input_specs", in}, {"output_specs", out}};
  }

  struct Weight {
    QString name;  // the placeholder
    QString fqn;
    StateKind kind = StateKind::Parameter;
    bool persistent = true;  // in the state dict: parameters and persistent buffers
    at::Tensor tensor;
    QJsonObject meta;  // its TensorMeta, on the device the source had it
  };
  const QVector<Weight>& weights() const { return weights_; }

 private:
  // A unique, valid fx name for a value: its debug name where it is one.
  QString nameOf(const Value* v) {
    auto it = names_.find(v);
    if (it != names_.end()) return it->second;
    static const QRegularExpression valid(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
    QString name = v->hasDebugName() ? QString::fromStdString(v->debugName()) : QString();
    if (!valid.match(name).hasMatch()) name = QStringLiteral("v") + name.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_]")), QStringLiteral("_"));
    const QString unique = freshName(name);
    names_[v] = unique;
    return unique;
  }

  // A name no value has: a multi-output node's own name (its outputs are getitem, getitem_1, …).
  QString freshName(const QString& base) {
    QString unique = base;
    for (int i = 1; taken_.contains(unique); ++i) unique = QStringLiteral("%1_%2").arg(base).arg(i);
    taken_.insert(unique);
    return unique;
  }

  // A tensor constant becomes a weight (a placeholder named like the one it came from).
  QString weightFor(const Value* v, const at::Tensor& t) {
    auto it = names_.find(v);
    if (it != names_.end()) return it->second;
    const QString name = nameOf(v);
    const QJsonObject meta = onSourceDevice(tensorMeta(t), name);
    // The source program's kind and state name where this placeholder came from it; a constant a
    // rewrite made (a folded weight) is a parameter (a buffer when it is not floating).
    if (auto s = source_.constFind(name); s != source_.constEnd() && !s->fqn.isEmpty())
      weights_.push_back({name, s->fqn, s->kind, s->persistent, t.contiguous(), meta});
    else if (at::isFloatingType(t.scalar_type()))
      weights_.push_back({name, name, StateKind::Parameter, true, t.contiguous(), meta});
    else
      weights_.push_back({name, name, StateKind::Buffer, true, t.contiguous(), meta});
    tensorValues_.insert(name, meta);
    return name;
  }

  // `meta` with the device the source program gave placeholder `name`, when it gave one.
  QJsonObject onSourceDevice(QJsonObject meta, const QString& name) const {
    if (auto s = source_.constFind(name); s != source_.constEnd() && !s->device.isEmpty()) meta.insert(QStringLiteral("device"), s->device);
    return meta;
  }

  QJsonObject encode(const Value* v, const c10::Argument& arg) {
    const Node* p = v->node();
    const c10::TypePtr& type = arg.type();
    if (p->kind() == c10::prim::Constant) {
      const auto iv = torch::jit::toIValue(v);
      if (!iv || iv->isNone()) return {{"as_none", true}};
      if (iv->isTensor()) return {{"as_tensor", QJsonObject{{"name", weightFor(v, iv->toTensor())}}}};
      if (iv->isBool()) return {{"as_bool", iv->toBool()}};
      if (iv->isInt()) {
        const auto kind = type->kind() == c10::TypeKind::OptionalType ? type->expectRef<c10::OptionalType>().getElementType()->kind()
                                                                      : type->kind();
        const int64_t i = iv->toInt();
        if (kind == c10::TypeKind::ScalarTypeType) return {{"as_scalar_type", pt2::schemaValueOf(static_cast<c10::ScalarType>(i))}};
        if (kind == c10::TypeKind::LayoutType) return {{"as_layout", pt2::schemaValueOf(static_cast<c10::Layout>(i))}};
        if (kind == c10::TypeKind::MemoryFormatType)
          return {{"as_memory_format", pt2::schemaValueOf(static_cast<c10::MemoryFormat>(i))}};
        return {{"as_int", qint64(i)}};
      }
      if (iv->isDouble()) return {{"as_float", iv->toDouble()}};
      if (iv->isString()) return {{"as_string", QString::fromStdString(iv->toStringRef())}};
      if (iv->isDevice()) {
        const auto d = iv->toDevice();
        return {{"as_device", QJsonObject{{"type", QString::fromStdString(c10::DeviceTypeName(d.type(), true))},
                                          {"index", d.has_index() ? QJsonValue(int(d.index())) : QJsonValue()}}}};
      }
      if (iv->isIntList()) {
        QJsonArray a;
        for (auto i : iv->toIntVector()) a.append(qint64(i));
        return {{"as_ints", a}};
      }
      if (iv->isDoubleList()) {
        QJsonArray a;
        for (auto d : iv->toDoubleVector()) a.append(d);
        return {{"as_floats", a}};
      }
      if (iv->isBoolList()) {
        QJsonArray a;
        for (bool b : iv->toBoolList()) a.append(b);
        return {{"as_bools", a}};
      }
      fail(QStringLiteral("a constant of type %1 cannot be saved as .pt2 yet").arg(QString::fromStdString(v->type()->str())));
    }
    if (p->kind() == c10::prim::ListConstruct) {
      const auto element = v->type()->expectRef<c10::ListType>().getElementType();
      QJsonArray items;
      if (element->kind() == c10::TypeKind::OptionalType) {
        for (const Value* in : p->inputs()) {
          if (in->type()->kind() == c10::TypeKind::NoneType) items.append(QJsonObject{{"as_none", true}});
          else items.append(QJsonObject{{"as_tensor", QJsonObject{{"name", tensorName(in)}}}});
        }
        return {{"as_optional_tensors", items}};
      }
      if (element->kind() == c10::TypeKind::TensorType) {
        for (const Value* in : p->inputs()) items.append(QJsonObject{{"name", tensorName(in)}});
        return {{"as_tensors", items}};
      }
      for (const Value* in : p->inputs()) {
        const auto iv = torch::jit::toIValue(in);
        if (!iv || !iv->isInt()) fail(QStringLiteral("a computed list cannot be saved as .pt2 yet"));
        items.append(qint64(iv->toInt()));
      }
      return {{"as_ints", items}};
    }
    if (!v->type()->cast<c10::TensorType>()) fail(QStringLiteral("a computed %1 cannot be saved as .pt2 yet").arg(QString::fromStdString(v->type()->str())));
    return {{"as_tensor", QJsonObject{{"name", tensorName(v)}}}};
  }

  QString tensorName(const Value* v) {
    if (v->node()->kind() == c10::prim::Constant) {
      const auto iv = torch::jit::toIValue(v);
      if (iv && iv->isTensor()) return weightFor(v, iv->toTensor());
    }
    return nameOf(v);
  }

  void addNode(Node* n, const QString& rootType) {
    const auto* schema = n->maybeSchema();
    if (!schema) fail(QStringLiteral("%1 has no schema").arg(QString::fromStdString(n->kind().toQualString())));
    const QString target = model::fxTarget(*schema);
    QJsonArray inputs;
    for (size_t i = 0; i < schema->arguments().size() && i < n->inputs().size(); ++i) {
      const auto& a = schema->arguments()[i];
      inputs.append(QJsonObject{{"name", QString::fromStdString(a.name())},
                                {"arg", encode(n->input(i), a)},
                                {"kind", a.kwarg_only() ? 2 : 1}});
    }
    QJsonArray outputs;
    for (const Value* o : n->outputs()) {
      if (const Node* unpack = listUnpackOf(o)) {  // a Tensor[] result: fx names each item
        QJsonArray items;
        for (const Value* item : unpack->outputs()) {
          auto s = sample_.find(item);
          if (s == sample_.end()) fail(QStringLiteral("%1 has a list item that is not a tensor (not supported yet)").arg(target));
          tensorValues_.insert(nameOf(item), tensorMeta(s->second));
          items.append(QJsonObject{{"name", nameOf(item)}});
        }
        outputs.append(QJsonObject{{"as_tensors", items}});
        continue;
      }
      const QString name = nameOf(o);
      auto s = sample_.find(o);
      if (s == sample_.end()) fail(QStringLiteral("%1 has an output that is not a tensor (not supported yet)").arg(target));
      tensorValues_.insert(name, tensorMeta(s->second));
      outputs.append(QJsonObject{{"as_tensor", QJsonObject{{"name", name}}}});
    }
    const model::NodeId id = rev_->idOf(n);
    const model::NodePlace& place = rev_->placeOf(id);
    QJsonObject metadata{{"nn_module_stack", moduleStack(rootType, place)}};
    if (const QString trace = stackTrace(place); !trace.isEmpty()) metadata.insert(QStringLiteral("stack_trace"), trace);
    // Provenance: the source program's op nodes (by graph order) this node derives from.
    if (provenance_) {
      if (auto it = opOrdinal_.find(id); it != opOrdinal_.end() && size_t(it->second) < provenance_->nodes.size()) {
        QStringList from;
        for (int f : provenance_->nodes[size_t(it->second)].from) from << QString::number(f);
        metadata.insert(QStringLiteral("graft_from"), from.join(QLatin1Char(',')));
      }
    }
    nodes_.append(QJsonObject{{"target", target},
                              {"inputs", inputs},
                              {"outputs", outputs},
                              {"metadata", metadata},
                              {"is_hop_single_tensor_return", QJsonValue()},
                              {"name", n->outputs().size() == 1 && !listUnpackOf(n->output(0)) ? nameOf(n->output(0))
                                                                                              : freshName(QString::fromStdString(n->kind().toUnqualString()))}});
  }

  // The prim::ListUnpack that is the only user of a list result, if there is one.
  static const Node* listUnpackOf(const Value* v) {
    if (!v->type()->cast<c10::ListType>() || v->uses().size() != 1) return nullptr;
    const Node* user = v->uses()[0].user;
    return user->kind() == c10::prim::ListUnpack ? user : nullptr;
  }

  model::RevisionPtr rev_;
  const model::SavedRecord* provenance_ = nullptr;
  Placeholders source_;
  std::unordered_map<model::NodeId, int> opOrdinal_;
  std::unordered_map<const Value*, at::Tensor> sample_;
  std::unordered_map<const Value*, QString> names_;
  QSet<QString> taken_;
  QVector<Weight> weights_;
  QStringList userInputs_, outputs_;
  QJsonArray nodes_;
  QJsonObject tensorValues_;
};

// The root module's class as fx's nn_module_stack names it.
QString rootTypeOf(const model::Revision& revision) {
  QString rootType = QString::fromStdString(revision.graph()->inputs()[0]->type()->str());
  rootType.remove(QRegularExpression(QStringLiteral("^__torch__\\.")));
  rootType.remove(QRegularExpression(QStringLiteral("\\.___torch_mangle_\\d+")));
  return rootType;
}

// A pytree spec (torch.utils._pytree's serialized TreeSpec) of `n` leaves in a tuple; `args`
// wraps it as forward's (args, kwargs).
QString treeSpec(int n, bool args) {
  QJsonArray leaves;
  for (int i = 0; i < n; ++i) leaves.append(QJsonObject{{"type", QJsonValue()}, {"context", QJsonValue()}, {"children_spec", QJsonArray()}});
  const QJsonObject tuple{{"type", "builtins.tuple"}, {"context", "null"}, {"children_spec", leaves}};
  QJsonObject root = tuple;
  if (args)
    root = QJsonObject{{"type", "builtins.tuple"}, {"context", "null"},
                       {"children_spec", QJsonArray{tuple, QJsonObject{{"type", "builtins.dict"}, {"context", "[]"}, {"children_spec", QJsonArray()}}}}};
  else if (n == 1)
    root = leaves.at(0).toObject();
  return QString::fromUtf8(QJsonDocument(QJsonArray{1, root}).toJson(QJsonDocument::Compact));
}

// torch.save of `value`: a zip of data.pkl and one record per tensor storage, without
// TorchScript's type tags on dicts and lists, so torch.load(weights_only=True) reads it.
std::vector<char> torchSave(const c10::IValue& value) {
  std::vector<char> out;
  caffe2::serialize::PyTorchStreamWriter writer([&](const void* buf, size_t n) -> size_t {
    if (buf) out.insert(out.end(), static_cast<const char*>(buf), static_cast<const char*>(buf) + n);
    else out.insert(out.end(), n, '\0');
    return n;
  });
  std::string pickle;
  std::vector<at::Tensor> storages;
  torch::jit::Pickler pickler([&](const char* bytes, size_t n) { pickle.append(bytes, n); }, nullptr, nullptr, nullptr,
                              [&](const at::Tensor& t) {
                                storages.push_back(t);
                                return std::to_string(storages.size() - 1);
                              },
                              /*tag_aggregates=*/false);
  pickler.protocol();
  pickler.pushIValue(value);
  pickler.stop();
  writer.writeRecord("data.pkl", pickle.data(), pickle.size());
  writer.writeRecord("byteorder", "little", 6);
  for (size_t i = 0; i < storages.size(); ++i) {
    const c10::Storage& storage = storages[i].storage();
    writer.writeRecord("data/" + std::to_string(i), storage.data(), storage.nbytes());
  }
  writer.writeEndOfFile();
  return out;
}

// Writes the archive atomically: `carry` adds the records that come from elsewhere (format,
// version, sample inputs), then the program, its weights and configs, and the provenance record.
void writeArchive(const QString& outPath, const QString& modelJson, const QString& modelName, const QJsonObject& model,
                  const Exporter& exporter, const model::SavedRecord* provenance,
                  const std::function<void(caffe2::serialize::PyTorchStreamWriter&)>& carry) {
  if (const QString why = checkOutputPath(outPath); !why.isEmpty()) fail(why);
  QSaveFile file(outPath);
  if (!file.open(QIODevice::WriteOnly)) fail(QStringLiteral("cannot write %1: %2").arg(outPath, file.errorString()));
  // A short write is remembered, not reported to libtorch's writer: it would throw, then throw
  // again from its destructor and end the process. The save is abandoned after it finishes.
  bool writeFailed = false;
  caffe2::serialize::PyTorchStreamWriter writer([&](const void* buf, size_t n) -> size_t {
    if (writeFailed) return n;
    // No buffer: a record whose bytes are skipped (libtorch's file writer seeks over them).
    const QByteArray gap = buf ? QByteArray() : QByteArray(qsizetype(n), '\0');
    const char* bytes = buf ? static_cast<const char*>(buf) : gap.constData();
    if (file.write(bytes, qint64(n)) != qint64(n)) writeFailed = true;
    return n;
  });
  carry(writer);
  const QByteArray json = QJsonDocument(model).toJson(QJsonDocument::Compact);
  writer.writeRecord(modelJson.toStdString(), json.constData(), size_t(json.size()));
  // The state dict (parameters, persistent buffers) goes to the weights; non-persistent buffers
  // and lifted constants to the constants, as torch.export.save splits them.
  QJsonObject weightsConfig, constantsConfig;
  int weightIndex = 0, constantIndex = 0;
  for (const auto& w : exporter.weights()) {
    const bool state = w.persistent;
    const QString path = state ? str(spec::WEIGHT_FILENAME_PREFIX) + QString::number(weightIndex++)
                               : str(spec::TENSOR_CONSTANT_FILENAME_PREFIX) + QString::number(constantIndex++);
    writer.writeRecord(((state ? str(spec::WEIGHTS_DIR) : str(spec::CONSTANTS_DIR)) + path).toStdString(), w.tensor.data_ptr(),
                       w.tensor.nbytes());
    QJsonObject meta = w.meta;
    meta.insert(QStringLiteral("requires_grad"), w.kind == StateKind::Parameter);
    (state ? weightsConfig : constantsConfig)
        .insert(w.fqn, QJsonObject{{"path_name", path}, {"is_param", w.kind == StateKind::Parameter}, {"use_pickle", false},
                                   {"tensor_meta", meta}});
  }
  const auto writeConfig = [&](std::string_view format, const QJsonObject& config) {
    const QByteArray bytes = QJsonDocument(QJsonObject{{"config", config}}).toJson(QJsonDocument::Compact);
    writer.writeRecord(str(format).replace(QLatin1String("{}"), modelName).toStdString(), bytes.constData(), size_t(bytes.size()));
  };
  writeConfig(spec::WEIGHTS_CONFIG_FILENAME_FORMAT, weightsConfig);
  writeConfig(spec::CONSTANTS_CONFIG_FILENAME_FORMAT, constantsConfig);
  if (provenance) {
    const QByteArray record = provenance->toJson();
    writer.writeRecord(kPt2ProvenanceRecord, record.constData(), size_t(record.size()));
  }
  writer.writeEndOfFile();
  if (writeFailed) {
    const QString why = writeFailure(file);
    file.cancelWriting();
    fail(QStringLiteral("cannot write %1: %2").arg(outPath, why));
  }
  if (!file.commit()) fail(QStringLiteral("cannot write %1: %2").arg(outPath, writeFailure(file)));
}

// Runs a save; whatever it throws (a refusal, libtorch's writer) becomes the result's message.
Pt2SaveResult guardedSave(const std::function<void()>& save) {
  Pt2SaveResult result;
  try {
    save();
    result.ok = true;
  } catch (const SaveError& e) {
    result.error = QString::fromStdString(e.what());
  } catch (const c10::Error& e) {
    result.error = QString::fromStdString(e.what_without_backtrace()).section(QLatin1Char('\n'), 0, 0);
  } catch (const std::exception& e) {
    result.error = QString::fromUtf8(e.what());
  }
  return result;
}

}  // namespace

Pt2SaveResult savePt2(const model::RevisionPtr& revision, const QString& sourcePt2, const QString& outPath,
                      const std::vector<c10::IValue>& sampleInputs, const model::SavedRecord* provenance) {
  if (QFileInfo(outPath).absoluteFilePath() == QFileInfo(sourcePt2).absoluteFilePath())
    return {false, QStringLiteral("%1 is the program this model was opened from: save to another file.").arg(outPath)};
  return guardedSave([&] {
    caffe2::serialize::PyTorchStreamReader reader(sourcePt2.toStdString());
    const QString modelJson = pt2::modelRecordOf(reader.getAllRecords());
    if (modelJson.isEmpty()) fail(QStringLiteral("%1 holds no program").arg(sourcePt2));
    auto [data, size] = reader.getRecord(modelJson.toStdString());
    QJsonObject model = QJsonDocument::fromJson(QByteArray(static_cast<const char*>(data.get()), qsizetype(size))).object();
    const QString modelName = QFileInfo(modelJson).completeBaseName();

    QJsonObject gm = model.value(QStringLiteral("graph_module")).toObject();
    Exporter exporter(revision, sampleInputs, provenance, placeholdersOf(gm));
    exporter.build(rootTypeOf(*revision));

    gm.insert(QStringLiteral("graph"), exporter.graphJson());
    gm.insert(QStringLiteral("signature"), exporter.signatureJson());
    model.insert(QStringLiteral("graph_module"), gm);

    // Only what the program needs is carried over from the source: its format and version
    // records, sample inputs and extra files (module info). Weights and the model are written
    // anew; anything else (a record nothing reads, a name that climbs out of the archive) stays
    // behind.
    auto carried = [](const QString& name) {
      if (name.contains(QLatin1String("..")) || name.startsWith(QLatin1Char('/'))) return false;
      if (name == QLatin1String(kPt2ProvenanceRecord)) return false;  // written anew below
      return name == str(spec::ARCHIVE_FORMAT_PATH) || name == str(spec::ARCHIVE_VERSION_PATH) ||
             name == QLatin1String("byteorder") || name.startsWith(str(spec::SAMPLE_INPUTS_DIR)) ||
             name.startsWith(str(spec::EXTRA_DIR));
    };
    writeArchive(outPath, modelJson, modelName, model, exporter, provenance, [&](caffe2::serialize::PyTorchStreamWriter& writer) {
      for (const auto& r : reader.getAllRecords()) {
        if (!carried(QString::fromStdString(r))) continue;
        auto [bytes, n] = reader.getRecord(r);
        writer.writeRecord(r, bytes.get(), n);
      }
    });
  });
}

Pt2SaveResult savePt2Program(const model::RevisionPtr& revision, const QString& outPath,
                             const std::vector<c10::IValue>& sampleInputs) {
  return guardedSave([&] {
    Exporter exporter(revision, sampleInputs, nullptr);
    exporter.build(rootTypeOf(*revision));
    const QString modelName = QStringLiteral("model");
    const QJsonObject graph = exporter.graphJson();
    QJsonArray argNames;
    for (const auto& in : graph.value(QStringLiteral("inputs")).toArray()) argNames.append(in.toObject().value(QStringLiteral("as_tensor")).toObject().value(QStringLiteral("name")));
    const int userInputs = int(sampleInputs.size());
    while (argNames.size() > userInputs) argNames.removeFirst();  // weights come first
    const QJsonObject root{{"fqn", ""},
                           {"signature", QJsonObject{{"inputs", QJsonArray()}, {"outputs", QJsonArray()},
                                                     {"in_spec", treeSpec(userInputs, true)},
                                                     {"out_spec", treeSpec(int(graph.value(QStringLiteral("outputs")).toArray().size()), false)},
                                                     {"forward_arg_names", argNames}}}};
    const QJsonObject model{
        {"graph_module", QJsonObject{{"graph", graph}, {"signature", exporter.signatureJson()}, {"module_call_graph", QJsonArray{root}},
                                     {"metadata", QJsonObject()}, {"treespec_namedtuple_fields", QJsonObject()}}},
        {"opset_version", QJsonObject{{"aten", 10}}},
        {"range_constraints", QJsonObject()},
        {"schema_version", QJsonObject{{"major", 8}, {"minor", 20}}},  // torch 2.11 to 2.14 read it
        {"verifiers", QJsonArray{"TRAINING"}},
        {"torch_version", QStringLiteral(TORCH_VERSION)},
        {"guards_code", QJsonArray()}};
    // torch.save((args, kwargs)) of the sample inputs, as torch.export.save writes them.
    std::vector<c10::IValue> args;  // each in storage of its own, nothing shared or offset
    for (const auto& v : sampleInputs) args.push_back(v.isTensor() ? c10::IValue(v.toTensor().cpu().contiguous().clone()) : v);
    c10::impl::GenericDict kwargs(c10::StringType::get(), c10::AnyType::get());
    const std::vector<char> samples = torchSave(c10::ivalue::Tuple::create({c10::ivalue::Tuple::create(args), c10::IValue(kwargs)}));
    writeArchive(outPath, str(spec::MODELS_FILENAME_FORMAT).replace(QLatin1String("{}"), modelName), modelName, model, exporter,
                 nullptr, [&](caffe2::serialize::PyTorchStreamWriter& writer) {
                   const auto put = [&](std::string_view name, const QByteArray& bytes) {
                     writer.writeRecord(std::string(name), bytes.constData(), size_t(bytes.size()));
                   };
                   put(spec::ARCHIVE_FORMAT_PATH, QByteArray(spec::ARCHIVE_FORMAT_VALUE.data(), qsizetype(spec::ARCHIVE_FORMAT_VALUE.size())));
                   put(spec::ARCHIVE_VERSION_PATH, QByteArray(spec::ARCHIVE_VERSION_VALUE.data(), qsizetype(spec::ARCHIVE_VERSION_VALUE.size())));
                   writer.writeRecord(str(spec::SAMPLE_INPUTS_FILENAME_FORMAT).replace(QLatin1String("{}"), modelName).toStdString(),
                                      samples.data(), samples.size());
                 });
  });
}

}  // namespace graft::core::io
