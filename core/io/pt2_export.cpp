#include "core/io/pt2_export.h"

#include "core/io/atomic_write.h"
#include "core/io/pt2_python_ops.h"
#include "core/io/output_file.h"
#include "core/io/pt2_schema.h"
#include "core/model/fx_text.h"
#include "core/model/op_symbols.h"
#include "core/model/shape_symbols.h"
#include "core/model/revision.h"
#include "core/model/size_expression.h"
#include "core/run/executor.h"

#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/export/pt2_archive_constants.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/ir/scope.h>
#include <torch/csrc/jit/passes/symbolic_shape_analysis.h>

#include <QtCore/QFileInfo>
#include <QtCore/QHash>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QRegularExpression>
#include <QtCore/QSet>

#include <torch/csrc/jit/serialization/pickler.h>
#include <torch/version.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
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
  const QJsonObject meta =
      graphModule.value(QLatin1String("graph")).toObject().value(QLatin1String("tensor_values")).toObject();
  for (const auto& s :
       graphModule.value(QLatin1String("signature")).toObject().value(QLatin1String("input_specs")).toArray()) {
    const QJsonObject specObj = s.toObject();
    const QString kind = specObj.keys().value(0);
    const QJsonObject body = specObj.value(kind).toObject();
    const QJsonObject arg = body.value(QLatin1String("arg")).toObject();
    const QString name = arg.contains(QLatin1String("as_tensor"))
                             ? arg.value(QLatin1String("as_tensor")).toObject().value(QLatin1String("name")).toString()
                             : arg.value(QLatin1String("name")).toString();
    if (name.isEmpty()) continue;
    Placeholder p;
    if (kind == QLatin1String("parameter")) p.kind = StateKind::Parameter;
    else if (kind == QLatin1String("buffer")) p.kind = StateKind::Buffer;
    else if (kind == QLatin1String("tensor_constant")) p.kind = StateKind::Constant;
    else if (kind == QLatin1String("user_input"))
      p.kind = StateKind::Constant, p.persistent = false;  // only its device is used
    else continue;  // tokens, custom objects
    p.fqn = body.value(p.kind == StateKind::Parameter ? QLatin1String("parameter_name")
                       : p.kind == StateKind::Buffer  ? QLatin1String("buffer_name")
                                                      : QLatin1String("tensor_constant_name")).toString();
    p.persistent = p.kind == StateKind::Parameter ||
                   (p.kind == StateKind::Buffer && body.value(QLatin1String("persistent")).toBool(true));
    p.device = meta.value(name).toObject().value(QLatin1String("device")).toObject();
    out.insert(name, p);
  }
  return out;
}

// The source's constant inputs (a keyword fixed at export: use_cache=False), each at its place
// among the user inputs, so a save keeps the in_spec's leaves as torch.export.load expects them.
struct ConstantInput {
  int leaf = 0;        // its place among user_input and constant_input specs
  QJsonObject spec;    // the constant_input body: {"name": …, "value": {"as_bool": false}}
};

QVector<ConstantInput> constantInputsOf(const QJsonObject& graphModule) {
  QVector<ConstantInput> out;
  int leaf = 0;
  for (const auto& s :
       graphModule.value(QLatin1String("signature")).toObject().value(QLatin1String("input_specs")).toArray()) {
    const QJsonObject specObj = s.toObject();
    if (specObj.contains(QLatin1String("constant_input")))
      out.push_back({leaf++, specObj.value(QLatin1String("constant_input")).toObject()});
    else if (specObj.contains(QLatin1String("user_input"))) ++leaf;
  }
  return out;
}

// One size or stride as the export schema writes it: a number, or a sympy expression (srepr, as
// torch writes them) with the value it has on the sample inputs as its hint.
struct SymSize {
  int64_t hint = 0;
  QString expr;  // empty: static
  bool symbolic() const { return !expr.isEmpty(); }
  QString sympy() const { return symbolic() ? expr : QStringLiteral("Integer(%1)").arg(hint); }
  QJsonObject json() const {
    if (!symbolic()) return {{"as_int", qint64(hint)}};
    return {{"as_expr", QJsonObject{{"expr_str", expr}, {"hint", QJsonObject{{"as_int", qint64(hint)}}}}}};
  }
};

SymSize times(const SymSize& a, const SymSize& b) {
  if (!a.symbolic() && !b.symbolic()) return {a.hint * b.hint, {}};
  if (!a.symbolic() && a.hint == 1) return b;
  if (!b.symbolic() && b.hint == 1) return a;
  return {a.hint * b.hint, QStringLiteral("Mul(%1, %2)").arg(a.sympy(), b.sympy())};
}

// A TensorMeta of the export schema for a tensor of this dtype and shape (contiguous, CPU);
// `sizes`, when given, are its sizes with their symbols, and its strides are derived from them.
QJsonObject tensorMeta(const at::Tensor& t, const std::vector<SymSize>& sizes = {}) {
  QJsonArray sizeArray, strideArray;
  if (sizes.empty() || sizes.size() != size_t(t.dim())) {
    sizeArray = symInts(t.sizes());
    strideArray = symInts(t.is_contiguous() ? t.strides().vec() : at::empty(t.sizes(), t.options()).strides().vec());
  } else {
    std::vector<SymSize> strides(sizes.size());
    SymSize stride{1, {}};
    for (size_t d = sizes.size(); d-- > 0;) {
      strides[d] = stride;
      // A dimension of size 0 strides as one of size 1, as torch's contiguous strides do.
      stride = times(stride, sizes[d].symbolic() ? sizes[d] : SymSize{std::max<int64_t>(sizes[d].hint, 1), {}});
    }
    for (const auto& s : sizes) sizeArray.append(s.json());
    for (const auto& s : strides) strideArray.append(s.json());
  }
  return {{"dtype", pt2::schemaValueOf(t.scalar_type())},
          {"sizes", sizeArray},
          {"requires_grad", false},
          {"device", QJsonObject{{"type", QStringLiteral("cpu")}, {"index", QJsonValue()}}},
          {"strides", strideArray},
          {"storage_offset", QJsonObject{{"as_int", 0}}},
          {"layout", pt2::schemaValueOf(c10::kStrided)}};
}

// `Symbol('s77', positive=True, integer=True)` in a sympy expression: the symbol and its name.
const QRegularExpression& symbolPattern() {
  static const QRegularExpression re(QStringLiteral(R"(Symbol\('(\w+)'[^)]*\))"));
  return re;
}

// What the source program wrote about its symbolic values: each symbol's spelling with its
// assumptions, and each SymInt/SymBool/SymFloat value's expression by name (for a value a save
// cannot derive from the graph, such as a data-dependent u0).
struct SourceSymbols {
  QHash<QString, QString> symbols;  // "s77" -> "Symbol('s77', positive=True, integer=True)"
  QHash<QString, QString> values;   // "sym_size_int_1" -> its expr_str
};

SourceSymbols symbolsOf(const QJsonObject& graphModule) {
  SourceSymbols out;
  const auto exprOf = [](const QJsonValue& v) {
    return v.toObject().value(QLatin1String("as_expr")).toObject().value(QLatin1String("expr_str")).toString();
  };
  const auto collect = [&](const QString& expr) {
    for (auto it = symbolPattern().globalMatch(expr); it.hasNext();) {
      const auto m = it.next();
      out.symbols.insert(m.captured(1), m.captured(0));
    }
  };
  const QJsonObject graph = graphModule.value(QLatin1String("graph")).toObject();
  const QJsonObject tensors = graph.value(QLatin1String("tensor_values")).toObject();
  for (auto it = tensors.begin(); it != tensors.end(); ++it)
    for (const char* key : {"sizes", "strides"})
      for (const auto& s : it.value().toObject().value(QLatin1String(key)).toArray()) collect(exprOf(s));
  for (const char* table : {"sym_int_values", "sym_bool_values", "sym_float_values"}) {
    const QJsonObject values = graph.value(QLatin1String(table)).toObject();
    for (auto it = values.begin(); it != values.end(); ++it) {
      const QString expr = exprOf(it.value());
      if (expr.isEmpty()) continue;
      out.values.insert(it.key(), expr);
      collect(expr);
    }
  }
  return out;
}

// A node on scalars only (sizes and arithmetic on them): the graph form of a Python operator.
bool isScalarCall(const Node* n) {
  if (n->outputs().size() != 1) return false;
  for (const Value* in : n->inputs())
    if (!model::isScalarValue(in)) return false;
  return model::isScalarValue(n->output());
}

// "L__self__,,<root type>;L__self__layer1,layer1,<type>;…" from a node's place (the import keeps
// each module's qualified class name there; a rewrite's nodes take the place of their sources).
QString moduleStack(const QString& rootType, const model::NodePlace& place) {
  QStringList entries{QStringLiteral("L__self__,,") + rootType};
  QString path;
  for (qsizetype i = 0; i < place.modulePath.size(); ++i) {
    // An inlined region (pt2_import's no_grad, autocast(…) groups) is no module: it saves as ops.
    if (place.moduleTypes.value(i).startsWith(QLatin1String("torch.ops.higher_order."))) continue;
    path = path.isEmpty() ? place.modulePath[i] : path + QLatin1Char('.') + place.modulePath[i];
    QString key = QStringLiteral("L__self__") + QString(path).replace(QLatin1Char('.'), QLatin1Char('_'));
    // A module's later calls keep their keys apart as torch.export writes them: relu@1 is its second call.
    if (place.callAt(i) > 1) key += QLatin1Char('@') + QString::number(place.callAt(i) - 1);
    entries << QStringLiteral("%1,%2,%3").arg(key, path, place.moduleTypes.value(i));
  }
  return entries.join(QLatin1Char(';'));
}

QString stackTrace(const model::NodePlace& place) {
  if (place.sourceLine <= 0) return {};
  return QStringLiteral("File \"%1\", line %2, in forward\n    %3")
      .arg(place.sourceFile)
      .arg(place.sourceLine)
      .arg(place.sourceText);
}

class Exporter {
 public:
  Exporter(const model::RevisionPtr& rev, const std::vector<c10::IValue>& inputs, const model::SavedRecord* provenance,
           Placeholders source = {}, SourceSymbols symbols = {})
      : rev_(rev), provenance_(provenance), source_(std::move(source)), symbols_(std::move(symbols)) {
    const auto ops = rev->opNodeIds();
    for (size_t i = 0; i < ops.size(); ++i) opOrdinal_[ops[i]] = int(i);
    // Shapes and dtypes of every value, from one node-by-node run.
    run::Executor executor(rev);
    run::RunOptions options;
    options.instrumented = true;
    options.keepIntermediates = true;
    const auto result = executor.run(model::InputSet{inputs, {}}, options);
    if (!result.ok)
      fail(QStringLiteral("the revision does not run on the program's inputs: %1").arg(result.error.headline()));
    for (const auto& rec : result.nodes) {
      const Node* n = rev->nodeOf(rec.id);
      if (!n) continue;
      for (size_t k = 0; k < rec.outputs.size() && k < n->outputs().size(); ++k) {
        const c10::IValue& out = rec.outputs[k];
        if (out.isTensor()) sample_[n->outputs()[k]] = out.toTensor();
        else if (out.isInt() || out.isDouble() || out.isBool()) scalars_[n->outputs()[k]] = out;
        else if (const Node* unpack = listUnpackOf(n->outputs()[k]); unpack && out.isTensorList())  // split's items
          for (size_t i = 0; i < out.toTensorList().size() && i < unpack->outputs().size(); ++i)
            sample_[unpack->outputs()[i]] = out.toTensorList().get(i);
      }
    }
    const auto graph = rev->graph();
    inferShapes();
    for (size_t i = 1; i < graph->inputs().size() && i - 1 < inputs.size(); ++i)
      if (inputs[i - 1].isTensor()) sample_[graph->inputs()[i]] = inputs[i - 1].toTensor();
  }

  // The program's graph_module.graph and signature; `weights` collects the tensors to store.
  void build(const QString& rootType) {
    rootType_ = rootType;
    const auto graph = rev_->graph();
    for (size_t i = 1; i < graph->inputs().size(); ++i) {
      const Value* in = graph->inputs()[i];
      if (!sample_.count(in)) fail(QStringLiteral("input %1 is not a tensor (not supported yet)").arg(i));
      const QString name = nameOf(in);
      tensorValues_.insert(name, onSourceDevice(metaOf(in, sample_.at(in)), name));
      userInputs_ << name;
    }
    runAtAnotherSize();
    for (Node* n : graph->nodes()) {
      if (!n->blocks().empty())
        fail(QStringLiteral("control flow (%1, torch.cond) cannot be saved as .pt2 yet; save the revision as "
                            "TorchScript (.pt) instead")
                 .arg(QString::fromStdString(n->kind().toQualString())));
      const auto k = n->kind();
      if (k == c10::prim::Constant || k == c10::prim::ListConstruct || k == c10::prim::TupleConstruct) continue;
      if (k == c10::prim::ListUnpack && n->input()->node()->kind().is_aten())
        continue;                      // written as its producer's outputs
      if (onlySizeLists(n)) continue;  // written in its consumers' arguments
      if (isScalarCall(n)) {
        if (auto call = pt2::pythonCallOf(k)) {
          addPythonCall(n, *call, rootType);
          continue;
        }
      }
      if (k.is_prim())
        fail(QStringLiteral("%1 cannot be saved as .pt2 yet").arg(QString::fromStdString(k.toQualString())));
      addNode(n, rootType);
    }
    const Value* out = graph->outputs().at(0);
    std::vector<const Value*> outs;
    if (out->node()->kind() == c10::prim::TupleConstruct)
      outs.assign(out->node()->inputs().begin(), out->node()->inputs().end());
    else outs.push_back(out);
    for (const Value* o : outs) {
      if (!o->type()->cast<c10::TensorType>()) fail(QStringLiteral("a non-tensor output cannot be saved as .pt2 yet"));
      outputs_ << nameOf(o);
    }
  }

  QJsonObject graphJson() const {
    QJsonArray inputs, outputs;
    for (const auto& w : weights_) inputs.append(QJsonObject{{"as_tensor", QJsonObject{{"name", w.name}}}});
    forEachUserLeaf([&](const QString& user, const ConstantInput* constant) {
      inputs.append(constant ? constant->spec.value(QLatin1String("value")).toObject()
                             : QJsonObject{{"as_tensor", QJsonObject{{"name", user}}}});
    });
    for (const auto& o : outputs_) outputs.append(QJsonObject{{"as_tensor", QJsonObject{{"name", o}}}});
    return {{"inputs", inputs},
            {"outputs", outputs},
            {"nodes", nodes_},
            {"tensor_values", tensorValues_},
            {"sym_int_values", symIntValues_},
            {"sym_bool_values", symBoolValues_},
            {"sym_float_values", symFloatValues_},
            {"custom_obj_values", QJsonObject()},
            {"is_single_tensor_return", false}};
  }

  // range_constraints: the revision's range of every symbol the saved program still uses.
  QJsonObject rangeConstraintsJson() const {
    QJsonObject out;
    for (const QString& name : usedSymbols_) {
      // A symbol the program gave no range is unbounded, as torch writes a plain Dim.
      const model::SymbolRange range = rev_->symbolRanges().value(name, model::SymbolRange{});
      out.insert(name,
                 QJsonObject{{"min_val", range.min}, {"max_val", range.max ? QJsonValue(*range.max) : QJsonValue()}});
    }
    return out;
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
    forEachUserLeaf([&](const QString& user, const ConstantInput* constant) {
      in.append(constant ? one("constant_input", constant->spec) : one("user_input", one("arg", tensorArg(user))));
    });
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
    const Value* value = nullptr;  // the graph's value (none for carried state)
  };
  const QVector<Weight>& weights() const { return weights_; }

  void keepConstantInputs(QVector<ConstantInput> constants) { constantInputs_ = std::move(constants); }

  // The source's state-dict entries this save would drop although the rewrite did not consume
  // them, written back under their own names (unread placeholders): entries the source graph never
  // read (a batch norm's num_batches_tracked in eval) and aliases of an entry kept unchanged (tied
  // weights: `emb.weight` beside `head.weight`, which the source stores once). An entry the source
  // graph read and the revision no longer does was consumed (folded) and stays out. `config`: the
  // source's weights config; `bytes` reads one of its weight records.
  void carryUnconsumedState(const QJsonObject& sourceGraph, const QJsonObject& config,
                            const std::function<QByteArray(const QString& pathName)>& bytes) {
    QSet<QString> read;  // placeholders the source graph's nodes take
    std::function<void(const QJsonValue&)> collect = [&](const QJsonValue& v) {
      if (v.isArray())
        for (const auto& x : v.toArray()) collect(x);
      if (!v.isObject()) return;
      const QJsonObject o = v.toObject();
      for (auto it = o.begin(); it != o.end(); ++it) {
        if (it.key() == QLatin1String("as_tensor"))
          read.insert(it.value().toObject().value(QLatin1String("name")).toString());
        else collect(it.value());
      }
    };
    for (const auto& n : sourceGraph.value(QLatin1String("nodes")).toArray())
      collect(n.toObject().value(QLatin1String("inputs")));
    QSet<QString> written;
    QHash<QString, const Weight*> keptByRecord;  // a source record -> the weight kept unchanged from it
    for (const auto& w : weights_) {
      written.insert(w.fqn);
      if (auto s = source_.constFind(w.name); s != source_.constEnd() && s->fqn == w.fqn)
        keptByRecord.insert(config.value(w.fqn).toObject().value(QLatin1String("path_name")).toString(), &w);
    }
    // Which source entries go back in: not written, and either never read or an alias of a kept one.
    const auto carriedBack = [&](const QString& placeholder, const Placeholder& s) {
      const QJsonObject entry = config.value(s.fqn).toObject();
      if (s.fqn.isEmpty() || written.contains(s.fqn) || entry.isEmpty() ||
          entry.value(QLatin1String("use_pickle")).toBool())
        return false;
      return !read.contains(placeholder) || keptByRecord.contains(entry.value(QLatin1String("path_name")).toString());
    };
    QSet<QString> reserved;  // names the carried entries will take
    for (auto s = source_.cbegin(); s != source_.cend(); ++s)
      if (carriedBack(s.key(), *s)) reserved.insert(s->fqn);
    // A weight a rewrite made is named after its place: the module and argument that take it
    // ("layer1.0.conv1.weight" for a folded convolution's weight, the name stock's fuse gives),
    // unless that name stays another entry's.
    for (auto& w : weights_) {
      if (w.fqn != w.name || !w.value) continue;  // from the source, or not a rewrite's
      const QString place = placeName(w.value);
      if (place.isEmpty()) continue;
      QString fqn = place;
      for (int i = 1; written.contains(fqn) || reserved.contains(fqn); ++i)
        fqn = QStringLiteral("%1_%2").arg(place).arg(i);
      written.remove(w.fqn);
      written.insert(fqn);
      w.fqn = fqn;
    }
    // An unread entry belongs to its module: it goes where the rewrite consumed the whole module
    // (a folded batch norm's num_batches_tracked), as stock's fuse drops the module.
    const auto moduleStays = [&](const QString& fqn) {
      const QString module = fqn.section(QLatin1Char('.'), 0, -2) + QLatin1Char('.');
      return std::any_of(written.cbegin(), written.cend(), [&](const QString& w) { return w.startsWith(module); });
    };
    QVector<Weight> carried;
    QStringList placeholders = source_.keys();
    placeholders.sort();  // one order every time: a save of the same revision is the same bytes
    for (const QString& placeholder : placeholders) {
      const auto s = source_.constFind(placeholder);
      if (!reserved.contains(s->fqn) || !carriedBack(s.key(), *s)) continue;
      const QJsonObject entry = config.value(s->fqn).toObject();
      const QString record = entry.value(QLatin1String("path_name")).toString();
      const Weight* alias = keptByRecord.value(record);
      if (!alias && s->fqn.contains(QLatin1Char('.')) && !moduleStays(s->fqn)) continue;
      at::Tensor t =
          alias ? alias->tensor : tensorOf(entry.value(QLatin1String("tensor_meta")).toObject(), bytes(record));
      if (!t.defined()) continue;
      const QString name = freshName(s.key());
      const QJsonObject meta = onSourceDevice(tensorMeta(t), s.key());
      carried.push_back({name, s->fqn, s->kind, s->persistent, t, meta});
      tensorValues_.insert(name, meta);
      written.insert(s->fqn);
    }
    weights_ += carried;
  }

 private:
  // The user inputs in the in_spec's order, the source's constant inputs at their places.
  void forEachUserLeaf(const std::function<void(const QString&, const ConstantInput*)>& visit) const {
    qsizetype user = 0, constant = 0;
    for (int leaf = 0; user < userInputs_.size() || constant < constantInputs_.size(); ++leaf) {
      if (constant < constantInputs_.size() && (constantInputs_[constant].leaf == leaf || user == userInputs_.size()))
        visit(QString(), &constantInputs_[constant++]);
      else visit(userInputs_[user++], nullptr);
    }
  }

  // A unique, valid fx name for a value: its debug name where it is one.
  QString nameOf(const Value* v) {
    auto it = names_.find(v);
    if (it != names_.end()) return it->second;
    static const QRegularExpression valid(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
    QString name = v->hasDebugName() ? QString::fromStdString(v->debugName()) : QString();
    if (!valid.match(name).hasMatch())
      name =
          QStringLiteral("v") + name.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_]")), QStringLiteral("_"));
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
      weights_.push_back({name, s->fqn, s->kind, s->persistent, t.contiguous(), meta, v});
    else if (at::isFloatingType(t.scalar_type()))
      weights_.push_back({name, name, StateKind::Parameter, true, t.contiguous(), meta, v});
    else
      weights_.push_back({name, name, StateKind::Buffer, true, t.contiguous(), meta, v});
    tensorValues_.insert(name, meta);
    return name;
  }

  // "layer1.0.conv1.weight": the module path and schema argument of the first node taking `v`;
  // empty when that node has neither.
  QString placeName(const Value* v) const {
    for (const auto& use : v->uses()) {
      const auto* schema = use.user->maybeSchema();
      if (!schema || use.offset >= schema->arguments().size()) continue;
      const QString argument = QString::fromStdString(schema->arguments()[use.offset].name());
      const QString path = rev_->modulePathOf(rev_->idOf(use.user));
      if (!path.isEmpty()) return path + QLatin1Char('.') + argument;
    }
    return {};
  }

  // The tensor a weight record holds, as its TensorMeta lays it out; undefined when they disagree.
  static at::Tensor tensorOf(const QJsonObject& meta, const QByteArray& record) {
    const auto dtype = pt2::scalarTypeOf(meta.value(QLatin1String("dtype")).toInt());
    std::vector<int64_t> sizes, strides;
    const auto number = [](const QJsonValue& v) { return v.toObject().value(QLatin1String("as_int")).toInteger(); };
    for (const auto& s : meta.value(QLatin1String("sizes")).toArray()) sizes.push_back(number(s));
    for (const auto& s : meta.value(QLatin1String("strides")).toArray()) strides.push_back(number(s));
    const int64_t offset = number(meta.value(QLatin1String("storage_offset")));
    if (!dtype || sizes.size() != strides.size()) return {};
    int64_t extent = offset + 1;  // elements the view reaches into its storage
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (sizes[d] == 0) return at::empty(sizes, at::TensorOptions().dtype(*dtype));
      extent += (sizes[d] - 1) * strides[d];
    }
    if (extent * int64_t(c10::elementSize(*dtype)) > record.size()) return {};
    auto* data = const_cast<char*>(record.constData()) + offset * int64_t(c10::elementSize(*dtype));
    return at::from_blob(data, sizes, strides, at::TensorOptions().dtype(*dtype)).clone();
  }

  // `meta` with the device the source program gave placeholder `name`, when it gave one.
  QJsonObject onSourceDevice(QJsonObject meta, const QString& name) const {
    if (auto s = source_.constFind(name); s != source_.constEnd() && !s->device.isEmpty())
      meta.insert(QStringLiteral("device"), s->device);
    return meta;
  }

  // An int list computed from sizes that never change (any list op on static sizes): on static
  // sizes the list is one constant, written in its consumers' place.
  bool isStaticSizeList(const Value* v, int depth = 0) {
    const auto list = v->type()->cast<c10::ListType>();
    if (!list || list->getElementType()->kind() != c10::TypeKind::IntType || depth > 16) return false;
    const Node* p = v->node();
    if (p->kind() == c10::prim::Constant) return true;
    if (p->kind() != c10::prim::ListConstruct && (!p->kind().is_aten() || !p->blocks().empty())) return false;
    for (const Value* in : p->inputs()) {
      if (torch::jit::toIValue(in)) continue;
      if (in->type()->cast<c10::TensorType>()) {
        for (const SymSize& size : shapeOf(in))
          if (size.symbolic()) return false;
        continue;
      }
      if (in->type()->cast<c10::ListType>()) {
        if (!isStaticSizeList(in, depth + 1)) return false;
        continue;
      }
      // An int: a size of a tensor whose sizes never change.
      const Node* q = in->node();
      const bool size = (q->kind() == c10::aten::size || q->kind() == c10::aten::sym_size) && q->inputs().size() == 2;
      if (!size || !q->input(0)->type()->cast<c10::TensorType>()) return false;
      for (const SymSize& s : shapeOf(q->input(0)))
        if (s.symbolic()) return false;
    }
    const auto value = valueOf(v);
    return value && value->isIntList();
  }

  // One item of a size list and where a symbolic one comes from: an int value of the graph
  // (x.shape[0] as aten::size(x, 0)), or a dimension of a tensor (an item of aten::size(x)).
  struct SizeItem {
    SymSize size;
    const Value* scalar = nullptr;
    const Value* tensor = nullptr;
    int64_t dim = 0;
  };
  using SizeList = std::vector<SizeItem>;

  // An int list of sizes item by item: aten::size(x), a ListConstruct of ints, slices and
  // concatenations of such lists (fuse-linear-relu's replacement computes its output shape so),
  // or any list op on static sizes. fx has no node for these TorchScript list ops: a save writes
  // the list in its consumers' arguments, each symbolic item a SymInt, as torch.export does.
  std::optional<SizeList> sizeListOf(const Value* v, int depth = 0) {
    const auto list = v->type()->cast<c10::ListType>();
    if (!list || list->getElementType()->kind() != c10::TypeKind::IntType || depth > 16) return std::nullopt;
    const Node* p = v->node();
    const auto k = p->kind();
    const auto isList = [](const Value* in) { return bool(in->type()->cast<c10::ListType>()); };
    SizeList items;
    if (k == c10::prim::ListConstruct) {
      for (const Value* in : p->inputs()) {
        if (auto c = torch::jit::toIValue(in); c && c->isInt()) items.push_back({{c->toInt(), {}}});
        else if (in->type()->kind() == c10::TypeKind::IntType) items.push_back({symbolicSizeOf(in), in});
        else return std::nullopt;
      }
      return items;
    }
    if (k == c10::aten::size && p->inputs().size() == 1 && p->input(0)->type()->cast<c10::TensorType>()) {
      const std::vector<SymSize> shape = shapeOf(p->input(0));
      for (size_t d = 0; d < shape.size(); ++d) items.push_back({shape[d], nullptr, p->input(0), int64_t(d)});
      return items;
    }
    if (k == c10::aten::slice && p->inputs().size() == 4 && isList(p->input(0))) return sliceOf(p, depth);
    if (k == c10::aten::add && p->inputs().size() == 2 && isList(p->input(0)) && isList(p->input(1))) {
      auto head = sizeListOf(p->input(0), depth + 1), tail = sizeListOf(p->input(1), depth + 1);
      if (!head || !tail) return std::nullopt;
      head->insert(head->end(), tail->begin(), tail->end());
      return head;
    }
    if (k == c10::prim::Constant || isStaticSizeList(v, depth)) {
      for (int64_t i : valueOf(v)->toIntVector()) items.push_back({{i, {}}});
      return items;
    }
    return std::nullopt;
  }

  // list[start:end:step] with Python's bounds (aten::slice.t), on constant bounds and step.
  std::optional<SizeList> sliceOf(const Node* p, int depth) {
    auto base = sizeListOf(p->input(0), depth + 1);
    const auto bound = [&](size_t i, int64_t otherwise) -> std::optional<int64_t> {
      const auto iv = torch::jit::toIValue(p->input(i));
      if (!iv) return std::nullopt;
      return iv->isNone() ? otherwise : iv->toInt();
    };
    const int64_t n = base ? int64_t(base->size()) : 0;
    const auto start = bound(1, 0), end = bound(2, n), step = bound(3, 1);
    if (!base || !start || !end || !step || *step <= 0) return std::nullopt;
    const auto clamp = [&](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + n : i, 0, n); };
    SizeList items;
    for (int64_t i = clamp(*start); i < clamp(*end); i += *step) items.push_back((*base)[size_t(i)]);
    return items;
  }

  // An int value of the graph as a size: its value on the sample inputs and its expression.
  SymSize symbolicSizeOf(const Value* v) {
    const SymScalar s = symbolicOf(v);
    if (!s.value.isInt()) fail(QStringLiteral("%1 is used as a size but is not an int").arg(nameOf(v)));
    return {s.value.toInt(), s.expr};
  }

  // A node that only computes size lists (written in its consumers' arguments, not as a node).
  bool onlySizeLists(const Node* n) {
    if (n->outputs().empty() || n->kind() == c10::prim::ListConstruct) return false;
    for (const Value* o : n->outputs())
      if (!sizeListOf(o)) return false;
    return true;
  }

  // A size list as an argument: numbers where every item is one, else SymInts, each a number or
  // the name of the SymInt value it is.
  QJsonObject sizeListJson(const SizeList& items) {
    QJsonArray ints, symInts;
    bool symbolic = false;
    for (const SizeItem& item : items) {
      ints.append(qint64(item.size.hint));
      if (item.scalar) symInts.append(QJsonObject{{"as_name", nameOf(item.scalar)}});
      else if (item.size.symbolic()) symInts.append(QJsonObject{{"as_name", symSizeNode(item.tensor, item.dim)}});
      else symInts.append(QJsonObject{{"as_int", qint64(item.size.hint)}});
      symbolic = symbolic || item.scalar || item.size.symbolic();
    }
    return symbolic ? QJsonObject{{"as_sym_ints", symInts}} : QJsonObject{{"as_ints", ints}};
  }

  // The SymInt of `tensor`'s dimension `dim` as torch.export writes a size it reads
  // (sym_size_int = torch.ops.aten.sym_size.int(x, 0)), written once, before its first user.
  QString symSizeNode(const Value* tensor, int64_t dim) {
    const auto key = std::make_pair(tensor, dim);
    if (auto it = symSizeNodes_.find(key); it != symSizeNodes_.end()) return it->second;
    const SymSize size = shapeOf(tensor).at(size_t(dim));
    const QString name = freshName(QStringLiteral("sym_size_int"));
    symIntValues_.insert(name, size.json());
    noteSymbols(size.expr);
    const QJsonObject place = writing_ ? metadataOf(writing_, rootType_) : QJsonObject();
    nodes_.append(QJsonObject{
        {"target", QStringLiteral("torch.ops.aten.sym_size.int")},
        {"inputs",
         QJsonArray{QJsonObject{{"name", "self"},
                                {"arg", QJsonObject{{"as_tensor", QJsonObject{{"name", tensorName(tensor)}}}}},
                                {"kind", 1}},
                    QJsonObject{{"name", "dim"}, {"arg", QJsonObject{{"as_int", qint64(dim)}}}, {"kind", 1}}}},
        {"outputs", QJsonArray{QJsonObject{{"as_sym_int", QJsonObject{{"as_name", name}}}}}},
        {"metadata", QJsonObject{{"nn_module_stack", place.value(QLatin1String("nn_module_stack"))}}},
        {"is_hop_single_tensor_return", QJsonValue()},
        {"name", name}});
    symSizeNodes_[key] = name;
    return name;
  }

  QJsonObject encode(const Value* v, const c10::Argument& arg) {
    const Node* p = v->node();
    const c10::TypePtr& type = arg.type();
    if (p->kind() != c10::prim::Constant)
      if (auto items = sizeListOf(v)) return sizeListJson(*items);
    if (p->kind() == c10::prim::Constant) {
      const auto iv = torch::jit::toIValue(v);
      if (!iv || iv->isNone()) return {{"as_none", true}};
      if (iv->isTensor()) return {{"as_tensor", QJsonObject{{"name", weightFor(v, iv->toTensor())}}}};
      if (iv->isBool()) return {{"as_bool", iv->toBool()}};
      if (iv->isInt()) {
        const auto kind = type->kind() == c10::TypeKind::OptionalType
                              ? type->expectRef<c10::OptionalType>().getElementType()->kind()
                              : type->kind();
        const int64_t i = iv->toInt();
        if (kind == c10::TypeKind::ScalarTypeType)
          return {{"as_scalar_type", pt2::schemaValueOf(static_cast<c10::ScalarType>(i))}};
        if (kind == c10::TypeKind::LayoutType) return {{"as_layout", pt2::schemaValueOf(static_cast<c10::Layout>(i))}};
        if (kind == c10::TypeKind::MemoryFormatType)
          return {{"as_memory_format", pt2::schemaValueOf(static_cast<c10::MemoryFormat>(i))}};
        return {{"as_int", qint64(i)}};
      }
      if (iv->isDouble()) return {{"as_float", pt2::floatToJson(iv->toDouble())}};
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
        for (auto d : iv->toDoubleVector()) a.append(pt2::floatToJson(d));
        return {{"as_floats", a}};
      }
      if (iv->isBoolList()) {
        QJsonArray a;
        for (bool b : iv->toBoolList()) a.append(b);
        return {{"as_bools", a}};
      }
      fail(QStringLiteral("a constant of type %1 cannot be saved as .pt2 yet")
               .arg(QString::fromStdString(v->type()->str())));
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
      bool computed = false;
      for (const Value* in : p->inputs()) {
        const auto iv = torch::jit::toIValue(in);
        if (iv && iv->isInt()) items.append(qint64(iv->toInt()));
        else if (in->type()->kind() == c10::TypeKind::IntType) computed = true;
        else
          fail(
              QStringLiteral("a list of %1 cannot be saved as .pt2 yet").arg(QString::fromStdString(v->type()->str())));
      }
      if (!computed) return {{"as_ints", items}};
      // Sizes computed in the graph (x.shape[0]): SymInts, each a number or a value's name.
      QJsonArray symItems;
      for (const Value* in : p->inputs()) {
        const auto iv = torch::jit::toIValue(in);
        symItems.append(iv ? QJsonObject{{"as_int", qint64(iv->toInt())}} : QJsonObject{{"as_name", nameOf(in)}});
      }
      return {{"as_sym_ints", symItems}};
    }
    if (model::isScalarValue(v)) return {{symKind(v), QJsonObject{{"as_name", nameOf(v)}}}};
    if (!v->type()->cast<c10::TensorType>())
      fail(QStringLiteral("a computed %1 cannot be saved as .pt2 yet").arg(QString::fromStdString(v->type()->str())));
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
    writing_ = n;
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
          if (s == sample_.end())
            fail(QStringLiteral("%1 has a list item that is not a tensor (not supported yet)").arg(target));
          tensorValues_.insert(nameOf(item), metaOf(item, s->second));
          items.append(QJsonObject{{"name", nameOf(item)}});
        }
        outputs.append(QJsonObject{{"as_tensors", items}});
        continue;
      }
      const QString name = nameOf(o);
      if (model::isScalarValue(o)) {  // a SymInt (aten.sym_size.int), SymFloat or SymBool
        addSymValue(o, name);
        outputs.append(QJsonObject{{symKind(o), QJsonObject{{"as_name", name}}}});
        continue;
      }
      auto s = sample_.find(o);
      if (s == sample_.end()) {
        if (o->type()->cast<c10::ListType>())
          fail(QStringLiteral("%1 computes a list of sizes that changes with the input sizes, which Graft cannot write "
                              "as .pt2 yet; "
                              "save the revision as TorchScript (.pt) instead")
                   .arg(target));
        fail(QStringLiteral("%1 has an output of type %2, which Graft cannot write as .pt2 yet; save the revision as "
                            "TorchScript (.pt) instead")
                 .arg(target, QString::fromStdString(o->type()->str())));
      }
      tensorValues_.insert(name, metaOf(o, s->second));
      outputs.append(QJsonObject{{"as_tensor", QJsonObject{{"name", name}}}});
    }
    nodes_.append(QJsonObject{{"target", target},
                              {"inputs", inputs},
                              {"outputs", outputs},
                              {"metadata", metadataOf(n, rootType)},
                              {"is_hop_single_tensor_return", QJsonValue()},
                              {"name", n->outputs().size() == 1 && !listUnpackOf(n->output(0))
                                           ? nameOf(n->output(0))
                                           : freshName(QString::fromStdString(n->kind().toUnqualString()))}});
  }

  QJsonObject metadataOf(const Node* n, const QString& rootType) const {
    const model::NodeId id = rev_->idOf(n);
    const model::NodePlace& place = rev_->placeOf(id);
    QJsonObject metadata{{"nn_module_stack", moduleStack(rootType, place)}};
    if (const QString trace = stackTrace(place); !trace.isEmpty())
      metadata.insert(QStringLiteral("stack_trace"), trace);
    // Provenance: the source program's op nodes (by graph order) this node derives from.
    if (provenance_) {
      if (auto it = opOrdinal_.find(id); it != opOrdinal_.end() && size_t(it->second) < provenance_->nodes.size()) {
        QStringList from;
        for (int f : provenance_->nodes[size_t(it->second)].from) from << QString::number(f);
        metadata.insert(QStringLiteral("graft_from"), from.join(QLatin1Char(',')));
      }
    }
    return metadata;
  }

  // Arithmetic on sizes goes back as the Python operator torch.export recorded ("_operator.mul").
  void addPythonCall(Node* n, const pt2::PythonCall& call, const QString& rootType) {
    writing_ = n;
    QJsonArray inputs;
    for (size_t i = 0; i < n->inputs().size(); ++i) {
      const QString parameter = call.parameters.value(int(i), QStringLiteral("arg%1").arg(i));
      inputs.append(
          QJsonObject{{"name", parameter},
                      {"arg", encode(n->input(i), c10::Argument(parameter.toStdString(), n->input(i)->type()))},
                      {"kind", 1}});
    }
    const Value* out = n->output();
    const QString name = nameOf(out);
    addSymValue(out, name);
    nodes_.append(QJsonObject{{"target", call.target},
                              {"inputs", inputs},
                              {"outputs", QJsonArray{QJsonObject{{symKind(out), QJsonObject{{"as_name", name}}}}}},
                              {"metadata", metadataOf(n, rootType)},
                              {"is_hop_single_tensor_return", QJsonValue()},
                              {"name", name}});
  }

  // The schema's kind of a scalar value: as_sym_int, as_sym_float or as_sym_bool.
  static QString symKind(const Value* v) {
    switch (v->type()->kind()) {
      case c10::TypeKind::FloatType:
      case c10::TypeKind::SymFloatType: return QStringLiteral("as_sym_float");
      case c10::TypeKind::BoolType:
      case c10::TypeKind::SymBoolType: return QStringLiteral("as_sym_bool");
      default: return QStringLiteral("as_sym_int");
    }
  }

  // The TensorMeta of `v` (whose value on the sample inputs is `t`), its symbolic sizes kept.
  QJsonObject metaOf(const Value* v, const at::Tensor& t) {
    const std::vector<SymSize> sizes = sizesOf(v, t);
    checkAtAnotherSize(v, sizes);
    shapes_[v] = sizes;
    for (const auto& size : sizes) noteSymbols(size.expr);
    return tensorMeta(t, sizes);
  }

  // A second run with every symbol of the inputs at another value in its range (the sample
  // inputs cut or repeated along those dimensions), so that sizes written as numbers or plain
  // symbols are checked at two sizes. Skipped where the inputs' sizes are expressions, no other
  // value is allowed, or the revision does not run there.
  void runAtAnotherSize() {
    const auto graph = rev_->graph();
    std::vector<c10::IValue> inputs;
    bool varies = false;
    for (size_t i = 1; i < graph->inputs().size(); ++i) {
      const Value* in = graph->inputs()[i];
      at::Tensor t = sample_.at(in);
      const auto& sizes = shapes_.at(in);
      for (size_t d = 0; d < sizes.size(); ++d) {
        if (!sizes[d].symbolic()) continue;
        const auto m = symbolPattern().match(sizes[d].expr);
        if (!m.hasMatch() || m.captured(0) != sizes[d].expr) return;  // an expression of symbols
        const auto other = otherValueOf(m.captured(1));
        if (!other) return;
        otherSymbolValues_.insert(m.captured(1), *other);
        t = t.index_select(int64_t(d),
                           at::arange(*other, at::TensorOptions().dtype(at::kLong)).remainder(sizes[d].hint));
        varies = true;
      }
      inputs.push_back(t);
    }
    if (!varies) return;
    run::Executor executor(rev_);
    run::RunOptions options;
    options.instrumented = true;
    options.keepIntermediates = true;
    const auto result = executor.run(model::InputSet{inputs, {}}, options);
    if (!result.ok) {
      otherSymbolValues_.clear();
      return;
    }
    for (size_t i = 1; i < graph->inputs().size(); ++i)
      otherSizes_[graph->inputs()[i]] = inputs[i - 1].toTensor().sizes().vec();
    for (const auto& rec : result.nodes) {
      const Node* n = rev_->nodeOf(rec.id);
      if (!n) continue;
      for (size_t k = 0; k < rec.outputs.size() && k < n->outputs().size(); ++k) {
        const c10::IValue& out = rec.outputs[k];
        if (out.isTensor()) otherSizes_[n->outputs()[k]] = out.toTensor().sizes().vec();
        else if (const Node* unpack = listUnpackOf(n->outputs()[k]); unpack && out.isTensorList())
          for (size_t i = 0; i < out.toTensorList().size() && i < unpack->outputs().size(); ++i)
            otherSizes_[unpack->outputs()[i]] = out.toTensorList().get(i).sizes().vec();
      }
    }
  }

  // A value of symbol `name` other than its hint, within its range: one less, else one more.
  std::optional<int64_t> otherValueOf(const QString& name) const {
    const int64_t hint = symbolHints_.value(name);
    const model::SymbolRange range = rev_->symbolRanges().value(name, model::SymbolRange{});
    const int64_t lowest = std::max<int64_t>(range.min, 2);  // torch.export specialises sizes 0 and 1
    if (auto it = otherSymbolValues_.constFind(name); it != otherSymbolValues_.constEnd()) return *it;
    if (hint - 1 >= lowest) return hint - 1;
    if (!range.max || hint + 1 <= *range.max) return hint + 1;
    return std::nullopt;
  }

  // The sizes chosen for `v` must hold in the second run too: a number where the size does not
  // change, a symbol where it is that symbol's other value. A size that changes in a way Graft
  // cannot write is refused rather than saved as the number it had on the sample inputs.
  void checkAtAnotherSize(const Value* v, const std::vector<SymSize>& sizes) {
    const auto other = otherSizes_.find(v);
    if (other == otherSizes_.end() || other->second.size() != sizes.size()) return;
    for (size_t d = 0; d < sizes.size(); ++d) {
      int64_t expected = sizes[d].hint;
      if (sizes[d].symbolic()) {
        const auto m = symbolPattern().match(sizes[d].expr);
        if (!m.hasMatch() || m.captured(0) != sizes[d].expr) continue;  // an expression: not evaluated here
        expected = otherSymbolValues_.value(m.captured(1), expected);
      }
      if (other->second[d] == expected) continue;
      QStringList first, second;
      for (const auto& s : sizes) first << QString::number(s.hint);
      for (int64_t s : other->second) second << QString::number(s);
      fail(QStringLiteral(
               "the shape of %1 (%2) changes with the input sizes in a way Graft cannot write for torch.export "
               "([%3] on the sample inputs, [%4] at another size); save the revision as TorchScript (.pt) instead")
               .arg(nameOf(v), QString::fromStdString(v->node()->kind().toQualString()),
                    first.join(QStringLiteral(", ")), second.join(QStringLiteral(", "))));
    }
  }

  // The sizes of `v`: its type's symbols (the program's metadata), else those libtorch's shape
  // analysis gives it (a node a rewrite added), else the run's numbers.
  std::vector<SymSize> sizesOf(const Value* v, const at::Tensor& t) {
    if (auto sizes = symbolicSizes(v->type(), t)) return *sizes;
    if (auto it = inferred_.find(v); it != inferred_.end())
      if (auto sizes = symbolicSizes(it->second, t)) return *sizes;
    if (auto sizes = derivedSizes(v, t)) return *sizes;
    std::vector<SymSize> concrete;
    for (int64_t d = 0; d < t.dim(); ++d) concrete.push_back({t.size(d), {}});
    return concrete;
  }

  // The sizes of a value no type names (a node a rewrite added, where libtorch's shape analysis
  // gave none), from its inputs' written sizes: a reshape's size list, an elementwise op's
  // broadcast, else each changing dimension from the input dimension that changes the same way
  // in the second run. None where that does not give the run's sizes.
  std::optional<std::vector<SymSize>> derivedSizes(const Value* v, const at::Tensor& t) {
    const Node* n = v->node();
    if (n->outputs().size() != 1) return std::nullopt;
    std::optional<std::vector<SymSize>> sizes;
    const auto k = n->kind();
    if ((k == c10::aten::reshape || k == c10::aten::view || k == c10::aten::_unsafe_view) && n->inputs().size() == 2)
      sizes = reshapedSizes(n);
    if (!sizes) sizes = broadcastSizes(n);
    if (!sizes) sizes = matchedSizes(v, t);
    if (!sizes || sizes->size() != size_t(t.dim())) return std::nullopt;
    for (int64_t d = 0; d < t.dim(); ++d)
      if ((*sizes)[size_t(d)].hint != t.size(d)) return std::nullopt;
    return sizes;
  }

  // reshape(x, sizes): the list's items, its -1 the element count of x over the other items.
  std::optional<std::vector<SymSize>> reshapedSizes(const Node* n) {
    const auto items = sizeListOf(n->input(1));
    if (!items) return std::nullopt;
    std::vector<SymSize> out, known;
    std::optional<size_t> inferred;
    for (const SizeItem& item : *items) {
      if (!item.size.symbolic() && item.size.hint == -1) {
        if (inferred) return std::nullopt;
        inferred = out.size();
      } else {
        known.push_back(item.size);
      }
      out.push_back(item.size);
    }
    if (inferred) {
      const auto rest = quotient(shapeOf(n->input(0)), known);
      if (!rest) return std::nullopt;
      out[*inferred] = *rest;
    }
    return out;
  }

  // The product of `factors` over the product of `divisors`: equal symbolic factors cancel, the
  // numbers divide; what does not cancel is a FloorDiv, as torch writes an integer quotient.
  static std::optional<SymSize> quotient(std::vector<SymSize> factors, const std::vector<SymSize>& divisors) {
    SymSize over{1, {}};
    for (const SymSize& d : divisors) {
      const auto same = std::find_if(factors.begin(), factors.end(),
                                     [&](const SymSize& f) { return d.symbolic() && f.expr == d.expr; });
      if (same != factors.end()) factors.erase(same);
      else over = times(over, d);
    }
    SymSize product{1, {}};
    for (const SymSize& f : factors) product = times(product, f);
    if (over.hint <= 0 || product.hint % over.hint != 0) return std::nullopt;
    if (!over.symbolic() && over.hint == 1) return product;
    if (!product.symbolic() && !over.symbolic()) return SymSize{product.hint / over.hint, {}};
    return SymSize{product.hint / over.hint, QStringLiteral("FloorDiv(%1, %2)").arg(product.sympy(), over.sympy())};
  }

  // An elementwise op's sizes: the broadcast of its tensor inputs' sizes, each dimension the
  // symbolic one where an input has it. Only where broadcasting gives the run's sizes at both
  // sizes of the inputs.
  std::optional<std::vector<SymSize>> broadcastSizes(const Node* n) {
    std::vector<std::vector<SymSize>> shapes;
    size_t rank = 0;
    for (const Value* in : n->inputs()) {
      if (!in->type()->cast<c10::TensorType>()) continue;
      shapes.push_back(shapeOf(in));
      rank = std::max(rank, shapes.back().size());
    }
    if (shapes.empty()) return std::nullopt;
    std::vector<SymSize> out(rank, SymSize{1, {}});
    for (const auto& shape : shapes) {
      for (size_t i = 0; i < shape.size(); ++i) {
        SymSize& o = out[rank - shape.size() + i];
        const SymSize& s = shape[i];
        if (s.hint == 1 && !s.symbolic()) continue;
        if (o.hint != 1 && o.hint != s.hint) return std::nullopt;
        if (o.hint == 1 || (!o.symbolic() && s.symbolic())) o = s;
      }
    }
    if (const auto other = otherSizesOf(n->output()); other && !broadcastsAtAnotherSize(n, *other)) return std::nullopt;
    return out;
  }

  // Whether the inputs' sizes in the second run broadcast to `other`, the output's there.
  bool broadcastsAtAnotherSize(const Node* n, const std::vector<int64_t>& other) {
    std::vector<int64_t> out(other.size(), 1);
    for (const Value* in : n->inputs()) {
      if (!in->type()->cast<c10::TensorType>()) continue;
      const auto shape = otherSizesOf(in);
      if (!shape || shape->size() > out.size()) return false;
      for (size_t i = 0; i < shape->size(); ++i) {
        int64_t& o = out[out.size() - shape->size() + i];
        if ((*shape)[i] == 1) continue;
        if (o != 1 && o != (*shape)[i]) return false;
        o = (*shape)[i];
      }
    }
    return out == other;
  }

  // Each dimension that changes in the second run: the symbolic input dimension that has the
  // same values in both runs, where all such dimensions are one expression.
  std::optional<std::vector<SymSize>> matchedSizes(const Value* v, const at::Tensor& t) {
    const auto other = otherSizesOf(v);
    if (!other || other->size() != size_t(t.dim())) return std::nullopt;
    std::vector<SymSize> out;
    for (int64_t d = 0; d < t.dim(); ++d) {
      const int64_t there = (*other)[size_t(d)];
      if (t.size(d) == there) {
        out.push_back({t.size(d), {}});
        continue;
      }
      QString expr;
      for (const Value* in : v->node()->inputs()) {
        if (!in->type()->cast<c10::TensorType>()) continue;
        const auto shape = shapeOf(in);
        const auto inOther = otherSizesOf(in);
        if (!inOther || inOther->size() != shape.size()) continue;
        for (size_t i = 0; i < shape.size(); ++i) {
          if (!shape[i].symbolic() || shape[i].hint != t.size(d) || (*inOther)[i] != there) continue;
          if (!expr.isEmpty() && expr != shape[i].expr) return std::nullopt;  // two candidates
          expr = shape[i].expr;
        }
      }
      if (expr.isEmpty()) return std::nullopt;
      out.push_back({t.size(d), expr});
    }
    return out;
  }

  // A tensor's sizes in the second run; a constant's are its own.
  std::optional<std::vector<int64_t>> otherSizesOf(const Value* v) {
    if (auto it = otherSizes_.find(v); it != otherSizes_.end()) return it->second;
    if (otherSizes_.empty() || v->node()->kind() != c10::prim::Constant) return std::nullopt;
    const auto iv = torch::jit::toIValue(v);
    if (!iv || !iv->isTensor()) return std::nullopt;
    return iv->toTensor().sizes().vec();
  }

  // `type`'s sizes, when it holds a shape of the tensor's rank whose every dimension is a number
  // or a named symbol and agrees with the run: static sizes equal, a symbol the same value
  // everywhere.
  std::optional<std::vector<SymSize>> symbolicSizes(const c10::TypePtr& type, const at::Tensor& t) {
    const auto tensorType = type->cast<c10::TensorType>();
    const auto dims = tensorType ? tensorType->symbolic_sizes().sizes() : std::nullopt;
    if (!dims || dims->size() != size_t(t.dim())) return std::nullopt;
    std::vector<SymSize> sizes;
    QHash<QString, int64_t> hints;
    for (int64_t d = 0; d < t.dim(); ++d) {
      const c10::ShapeSymbol& symbol = (*dims)[size_t(d)];
      const int64_t value = t.size(d);
      if (symbol.is_static()) {
        if (symbol.static_size() != value) return std::nullopt;  // a type older than the graph
        sizes.push_back({value, {}});
        continue;
      }
      const QString name = model::symbolName(symbol);
      if (name == QLatin1String("?")) return std::nullopt;  // a dimension no program named
      if (isSymbolName(name)) {
        const int64_t known = symbolHints_.value(name, hints.value(name, value));
        if (known != value) return std::nullopt;
        hints.insert(name, value);
      }
      sizes.push_back({value, sympyOf(name)});
    }
    symbolHints_.insert(hints);
    return sizes;
  }

  // libtorch's symbolic shape analysis on a copy of the graph: each op's shape function carries the
  // program's symbols to the values a rewrite added, whose types hold no shape.
  void inferShapes() {
    const auto graph = rev_->graph();
    auto copy = graph->copy();
    try {
      torch::jit::PropagateShapesOnGraph(copy);
    } catch (const std::exception&) {
      return;  // those values keep the run's sizes
    }
    auto original = graph->nodes().begin();
    auto inferred = copy->nodes().begin();
    for (; original != graph->nodes().end() && inferred != copy->nodes().end(); ++original, ++inferred) {
      if (original->outputs().size() != inferred->outputs().size()) return;
      for (size_t k = 0; k < original->outputs().size(); ++k)
        inferred_[original->outputs()[k]] = inferred->outputs()[k]->type();
    }
  }

  static bool isSymbolName(const QString& name) {
    static const QRegularExpression identifier(QStringLiteral("^[A-Za-z_]\\w*$"));
    return identifier.match(name).hasMatch();
  }

  // A symbol's sympy spelling: as the source program wrote it, else as torch writes a size
  // ("s77": positive; an unbacked "u0": any integer). An expression's name is its srepr already.
  QString sympyOf(const QString& name) const {
    if (!isSymbolName(name)) return name;
    if (auto it = symbols_.symbols.constFind(name); it != symbols_.symbols.constEnd()) return *it;
    return name.startsWith(QLatin1Char('u')) ? QStringLiteral("Symbol('%1', integer=True)").arg(name)
                                             : QStringLiteral("Symbol('%1', positive=True, integer=True)").arg(name);
  }

  void noteSymbols(const QString& expr) {
    for (auto it = symbolPattern().globalMatch(expr); it.hasNext();) usedSymbols_.insert(it.next().captured(1));
  }

  // The value `v` has on the sample inputs: from the run, a constant, or the node evaluated on
  // its inputs' values (scalar nodes the run does not record, such as prim::max).
  std::optional<c10::IValue> valueOf(const Value* v) {
    if (auto it = sample_.find(v); it != sample_.end()) return c10::IValue(it->second);
    if (auto it = scalars_.find(v); it != scalars_.end()) return it->second;
    if (auto constant = torch::jit::toIValue(v)) return constant;
    const Node* n = v->node();
    if (n->kind() == c10::prim::ListConstruct) {  // a list of sizes
      const auto list = v->type()->cast<c10::ListType>();
      if (!list || list->getElementType()->kind() != c10::TypeKind::IntType) return std::nullopt;
      c10::List<int64_t> items;
      for (const Value* in : n->inputs()) {
        const auto item = valueOf(in);
        if (!item || !item->isInt()) return std::nullopt;
        items.push_back(item->toInt());
      }
      return c10::IValue(items);
    }
    if (!n->maybeOperator()) return std::nullopt;
    torch::jit::Stack stack;
    for (const Value* in : n->inputs()) {
      auto iv = valueOf(in);
      if (!iv) return std::nullopt;
      stack.push_back(*iv);
    }
    try {
      n->getOperation()(stack);
    } catch (const std::exception&) {
      return std::nullopt;
    }
    if (stack.size() != n->outputs().size()) return std::nullopt;
    for (size_t i = 0; i < stack.size(); ++i)
      if (!stack[i].isTensor()) scalars_[n->outputs()[i]] = stack[i];
    return scalars_.count(v) ? std::optional<c10::IValue>(scalars_.at(v)) : std::nullopt;
  }

  // A scalar's value on the sample inputs and, when it depends on a symbol, its sympy expression.
  struct SymScalar {
    c10::IValue value;
    QString expr;  // empty: the same number at every size
    QString sympy() const {
      if (!expr.isEmpty()) return expr;
      if (value.isBool()) return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
      if (value.isDouble()) return QStringLiteral("Float('%1', precision=53)").arg(value.toDouble(), 0, 'g', 17);
      return QStringLiteral("Integer(%1)").arg(value.toInt());
    }
  };

  // Derived from the graph: a size of a tensor (aten.sym_size.int), its element count, or a Python
  // operator on such values; else the expression the source program recorded under its name.
  SymScalar symbolicOf(const Value* v) {
    if (auto it = symScalars_.find(v); it != symScalars_.end()) return it->second;
    const Node* n = v->node();
    const QString what = QString::fromStdString(n->kind().toQualString());
    const auto value = valueOf(v);
    if (!value)
      fail(QStringLiteral("the value of %1 (%2) on the program's inputs is unknown, so it cannot be saved as .pt2")
               .arg(nameOf(v), what));
    SymScalar result{*value, {}};
    const auto kind = n->kind();
    bool dependsOnSymbols = false;  // some input is symbolic: the value may change with a size
    for (const Value* in : n->inputs()) {
      if (in->type()->cast<c10::TensorType>()) dependsOnSymbols = true;
      else if (model::isScalarValue(in) && !symbolicOf(in).expr.isEmpty()) dependsOnSymbols = true;
    }
    bool derived = kind == c10::prim::Constant || !dependsOnSymbols;  // else: the same number at every size
    if (derived) {
    } else if ((kind == c10::aten::sym_size || kind == c10::aten::size) && n->inputs().size() == 2) {
      const std::vector<SymSize> shape = shapeOf(n->input(0));
      int64_t d = valueOf(n->input(1)).value_or(c10::IValue(int64_t(0))).toInt();
      if (d < 0) d += int64_t(shape.size());
      derived = d >= 0 && size_t(d) < shape.size();
      if (derived) result.expr = shape[size_t(d)].expr;
    } else if ((kind == c10::aten::sym_numel || kind == model::ops::numel) && n->inputs().size() == 1) {
      SymSize count{1, {}};
      for (const auto& size : shapeOf(n->input(0))) count = times(count, size);
      result.expr = count.expr;
      derived = true;
    } else if (auto call = pt2::pythonCallOf(kind); call && isScalarCall(n)) {
      QStringList args;
      bool floating = false;
      for (const Value* in : n->inputs()) {
        const SymScalar arg = symbolicOf(in);
        args << arg.sympy();
        floating = floating || arg.value.isDouble();
      }
      if (kind == c10::aten::sub && args.size() == 2)
        result.expr = QStringLiteral("Add(%1, Mul(Integer(-1), %2))").arg(args[0], args[1]);
      else if (kind == c10::aten::neg && args.size() == 1)
        result.expr = QStringLiteral("Mul(Integer(-1), %1)").arg(args[0]);
      else if (!call->sympy.isEmpty()) {
        QString function = call->sympy;
        if (floating && function == QLatin1String("IntTrueDiv")) function = QStringLiteral("FloatTrueDiv");
        if (floating && function == QLatin1String("PowByNatural")) function = QStringLiteral("FloatPow");
        result.expr = QStringLiteral("%1(%2)").arg(function, args.join(QStringLiteral(", ")));
      }
      derived = !result.expr.isEmpty();
    }
    if (!derived && v->hasDebugName()) result.expr = symbols_.values.value(QString::fromStdString(v->debugName()));
    // A size from data or from an op Graft cannot express: a number would be wrong at other sizes.
    if (!derived && result.expr.isEmpty())
      fail(QStringLiteral(
               "%1 (%2) computes a size torch.export would keep symbolic, and Graft cannot write its expression; "
               "save the revision as TorchScript (.pt) instead")
               .arg(nameOf(v), what));
    symScalars_[v] = result;
    return result;
  }

  // The sizes a tensor value was written with (a weight's and an unwritten value's: the run's).
  std::vector<SymSize> shapeOf(const Value* v) {
    if (auto it = shapes_.find(v); it != shapes_.end()) return it->second;
    std::vector<SymSize> sizes;
    if (auto t = valueOf(v); t && t->isTensor())
      for (int64_t s : t->toTensor().sizes()) sizes.push_back({s, {}});
    return sizes;
  }

  // The entry of sym_int_values (sym_float_values, sym_bool_values) for a scalar output.
  void addSymValue(const Value* v, const QString& name) {
    const SymScalar s = symbolicOf(v);
    noteSymbols(s.expr);
    if (s.value.isDouble()) {
      const QJsonObject hint{{"as_float", pt2::floatToJson(s.value.toDouble())}};
      symFloatValues_.insert(
          name, s.expr.isEmpty() ? hint : QJsonObject{{"as_expr", QJsonObject{{"expr_str", s.expr}, {"hint", hint}}}});
    } else if (s.value.isBool()) {
      symBoolValues_.insert(name, s.expr.isEmpty() ? QJsonObject{{"as_bool", s.value.toBool()}}
                                                   : QJsonObject{{"as_expr", QJsonObject{{"expr_str", s.expr}}}});
    } else if (s.value.isInt()) {
      symIntValues_.insert(name, SymSize{s.value.toInt(), s.expr}.json());
    } else {
      fail(QStringLiteral("%1 is not a number on the program's inputs and cannot be saved as .pt2").arg(name));
    }
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
  SourceSymbols symbols_;
  std::unordered_map<model::NodeId, int> opOrdinal_;
  std::unordered_map<const Value*, c10::IValue> scalars_;               // ints, floats, bools on the sample inputs
  std::unordered_map<const Value*, std::vector<SymSize>> shapes_;       // as written
  std::unordered_map<const Value*, SymScalar> symScalars_;
  std::unordered_map<const Value*, c10::TypePtr> inferred_;           // types from the shape analysis
  std::unordered_map<const Value*, std::vector<int64_t>> otherSizes_;  // tensors' sizes in the second run
  QHash<QString, int64_t> otherSymbolValues_;                          // each input symbol's value there
  QHash<QString, int64_t> symbolHints_;                                 // each symbol's value on the sample inputs
  std::set<QString> usedSymbols_;
  std::map<std::pair<const Value*, int64_t>, QString> symSizeNodes_;  // sym_size.int nodes written for size lists
  const Node* writing_ = nullptr;                                      // the node being written
  QString rootType_;
  QJsonObject symIntValues_, symBoolValues_, symFloatValues_;
  std::unordered_map<const Value*, at::Tensor> sample_;
  std::unordered_map<const Value*, QString> names_;
  QSet<QString> taken_;
  QVector<Weight> weights_;
  QStringList userInputs_, outputs_;
  QVector<ConstantInput> constantInputs_;
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
  for (int i = 0; i < n; ++i)
    leaves.append(QJsonObject{{"type", QJsonValue()}, {"context", QJsonValue()}, {"children_spec", QJsonArray()}});
  const QJsonObject tuple{{"type", "builtins.tuple"}, {"context", "null"}, {"children_spec", leaves}};
  QJsonObject root = tuple;
  if (args)
    root = QJsonObject{{"type", "builtins.tuple"},
                       {"context", "null"},
                       {"children_spec", QJsonArray{tuple, QJsonObject{{"type", "builtins.dict"},
                                                                       {"context", "[]"},
                                                                       {"children_spec", QJsonArray()}}}}};
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
  ignoreFileSizeSignal();
  OutputFile file(outPath);
  if (const QString why = file.open(); !why.isEmpty()) fail(why);
  // A short write is remembered, not reported to libtorch's writer: it would throw, then throw
  // again from its destructor and end the process. The save is abandoned after it finishes.
  bool writeFailed = false;
  caffe2::serialize::PyTorchStreamWriter writer([&](const void* buf, size_t n) -> size_t {
    if (writeFailed) return n;
    // No buffer: a record whose bytes are skipped (libtorch's file writer seeks over them).
    const QByteArray gap = buf ? QByteArray() : QByteArray(qsizetype(n), '\0');
    const char* bytes = buf ? static_cast<const char*>(buf) : gap.constData();
    if (!file.write(bytes, qint64(n))) writeFailed = true;
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
    writer.writeRecord(((state ? str(spec::WEIGHTS_DIR) : str(spec::CONSTANTS_DIR)) + path).toStdString(),
                       w.tensor.data_ptr(), w.tensor.nbytes());
    QJsonObject meta = w.meta;
    meta.insert(QStringLiteral("requires_grad"), w.kind == StateKind::Parameter);
    (state ? weightsConfig : constantsConfig)
        .insert(w.fqn, QJsonObject{{"path_name", path},
                                   {"is_param", w.kind == StateKind::Parameter},
                                   {"use_pickle", false},
                                   {"tensor_meta", meta}});
  }
  const auto writeConfig = [&](std::string_view format, const QJsonObject& config) {
    const QByteArray bytes = QJsonDocument(QJsonObject{{"config", config}}).toJson(QJsonDocument::Compact);
    writer.writeRecord(str(format).replace(QLatin1String("{}"), modelName).toStdString(), bytes.constData(),
                       size_t(bytes.size()));
  };
  writeConfig(spec::WEIGHTS_CONFIG_FILENAME_FORMAT, weightsConfig);
  writeConfig(spec::CONSTANTS_CONFIG_FILENAME_FORMAT, constantsConfig);
  if (provenance) {
    const QByteArray record = provenance->toJson();
    writer.writeRecord(kPt2ProvenanceRecord, record.constData(), size_t(record.size()));
  }
  writer.writeEndOfFile();
  if (const QString why = file.commit(); !why.isEmpty())
    fail(QStringLiteral("cannot write %1: %2").arg(outPath, why));
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
  if (const QString why = checkOutputPath(outPath, {sourcePt2}); !why.isEmpty()) return {false, why};
  return guardedSave([&] {
    caffe2::serialize::PyTorchStreamReader reader(sourcePt2.toStdString());
    const QString modelJson = pt2::modelRecordOf(reader.getAllRecords());
    if (modelJson.isEmpty()) fail(QStringLiteral("%1 holds no program").arg(sourcePt2));
    auto [data, size] = reader.getRecord(modelJson.toStdString());
    QJsonObject model =
        QJsonDocument::fromJson(QByteArray(static_cast<const char*>(data.get()), qsizetype(size))).object();
    const QString modelName = QFileInfo(modelJson).completeBaseName();

    QJsonObject gm = model.value(QStringLiteral("graph_module")).toObject();
    Exporter exporter(revision, sampleInputs, provenance, placeholdersOf(gm), symbolsOf(gm));
    exporter.keepConstantInputs(constantInputsOf(gm));
    exporter.build(rootTypeOf(*revision));
    const auto sourceRecord = [&](const QString& name) {
      if (!reader.hasRecord(name.toStdString())) return QByteArray();
      auto [bytes, n] = reader.getRecord(name.toStdString());
      return QByteArray(static_cast<const char*>(bytes.get()), qsizetype(n));
    };
    const QByteArray weightsConfig =
        sourceRecord(str(spec::WEIGHTS_CONFIG_FILENAME_FORMAT).replace(QLatin1String("{}"), modelName));
    exporter.carryUnconsumedState(
        gm.value(QStringLiteral("graph")).toObject(),
        QJsonDocument::fromJson(weightsConfig).object().value(QLatin1String("config")).toObject(),
        [&](const QString& pathName) { return sourceRecord(str(spec::WEIGHTS_DIR) + pathName); });
    model.insert(QStringLiteral("range_constraints"), exporter.rangeConstraintsJson());

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
    writeArchive(outPath, modelJson, modelName, model, exporter, provenance,
                 [&](caffe2::serialize::PyTorchStreamWriter& writer) {
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
    for (const auto& in : graph.value(QStringLiteral("inputs")).toArray())
      argNames.append(in.toObject().value(QStringLiteral("as_tensor")).toObject().value(QStringLiteral("name")));
    const int userInputs = int(sampleInputs.size());
    while (argNames.size() > userInputs) argNames.removeFirst();  // weights come first
    const QJsonObject root{
        {"fqn", ""},
        {"signature",
         QJsonObject{{"inputs", QJsonArray()},
                     {"outputs", QJsonArray()},
                     {"in_spec", treeSpec(userInputs, true)},
                     {"out_spec", treeSpec(int(graph.value(QStringLiteral("outputs")).toArray().size()), false)},
                     {"forward_arg_names", argNames}}}};
    const QJsonObject model{{"graph_module", QJsonObject{{"graph", graph},
                                                         {"signature", exporter.signatureJson()},
                                                         {"module_call_graph", QJsonArray{root}},
                                                         {"metadata", QJsonObject()},
                                                         {"treespec_namedtuple_fields", QJsonObject()}}},
                            {"opset_version", QJsonObject{{"aten", 10}}},
                            {"range_constraints", exporter.rangeConstraintsJson()},
                            {"schema_version", QJsonObject{{"major", 8}, {"minor", 20}}},  // torch 2.11 to 2.14 read it
                            {"verifiers", QJsonArray{"TRAINING"}},
                            {"torch_version", QStringLiteral(TORCH_VERSION)},
                            {"guards_code", QJsonArray()}};
    // torch.save((args, kwargs)) of the sample inputs, as torch.export.save writes them.
    std::vector<c10::IValue> args;  // each in storage of its own, nothing shared or offset
    for (const auto& v : sampleInputs)
      args.push_back(v.isTensor() ? c10::IValue(v.toTensor().cpu().contiguous().clone()) : v);
    c10::impl::GenericDict kwargs(c10::StringType::get(), c10::AnyType::get());
    const std::vector<char> samples =
        torchSave(c10::ivalue::Tuple::create({c10::ivalue::Tuple::create(args), c10::IValue(kwargs)}));
    writeArchive(outPath, str(spec::MODELS_FILENAME_FORMAT).replace(QLatin1String("{}"), modelName), modelName, model,
                 exporter, nullptr, [&](caffe2::serialize::PyTorchStreamWriter& writer) {
                   const auto put = [&](std::string_view name, const QByteArray& bytes) {
                     writer.writeRecord(std::string(name), bytes.constData(), size_t(bytes.size()));
                   };
                   put(spec::ARCHIVE_FORMAT_PATH,
                       QByteArray(spec::ARCHIVE_FORMAT_VALUE.data(), qsizetype(spec::ARCHIVE_FORMAT_VALUE.size())));
                   put(spec::ARCHIVE_VERSION_PATH,
                       QByteArray(spec::ARCHIVE_VERSION_VALUE.data(), qsizetype(spec::ARCHIVE_VERSION_VALUE.size())));
                   writer.writeRecord(
                       str(spec::SAMPLE_INPUTS_FILENAME_FORMAT).replace(QLatin1String("{}"), modelName).toStdString(),
                       samples.data(), samples.size());
                 });
  });
}

}  // namespace graft::core::io
