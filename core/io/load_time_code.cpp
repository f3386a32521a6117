#include "core/io/load_time_code.h"

#include "core/io/pickle_check.h"
#include "core/model/effect_ops.h"

#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/frontend/source_range.h>
#include <torch/csrc/jit/serialization/import_source.h>

#include <QtCore/QRegularExpression>
#include <QtCore/QSet>

#include <unordered_set>

namespace graft::core::io {

namespace {

// prim:: nodes that only move values: building, unpacking and indexing tuples, lists and dicts,
// reading and setting attributes, branching and raising.
bool isStructural(c10::Symbol kind) {
  static const std::unordered_set<c10::Symbol> kinds{
      c10::prim::Constant,       c10::prim::GetAttr,        c10::prim::SetAttr,      c10::prim::TupleConstruct,
      c10::prim::TupleUnpack,    c10::prim::TupleIndex,     c10::prim::TupleSlice,   c10::prim::ListConstruct,
      c10::prim::ListUnpack,     c10::prim::DictConstruct,  c10::prim::If,           c10::prim::RaiseException,
      c10::prim::Uninitialized,  c10::prim::unchecked_cast, c10::prim::isinstance,   c10::prim::CreateObject,
      c10::prim::NumToTensor,    c10::prim::device,         c10::prim::dtype,        c10::prim::is_cuda,
      c10::prim::requires_grad,  c10::prim::Closure,        c10::prim::TypeCheck,    c10::prim::StringIndex};
  return kinds.count(kind) > 0;
}

// Ops on tensors whose cost is bounded by the tensors they are given: what quantized modules'
// __setstate__ calls around packing their weights.
bool isBoundedTensorOp(const QString& name) {
  static const QSet<QString> names{
      QStringLiteral("clone"),          QStringLiteral("contiguous"),   QStringLiteral("detach"),
      QStringLiteral("to"),             QStringLiteral("size"),         QStringLiteral("dim"),
      QStringLiteral("numel"),          QStringLiteral("item"),         QStringLiteral("is_floating_point"),
      QStringLiteral("is_quantized"),   QStringLiteral("dequantize"),   QStringLiteral("quantize_per_tensor"),
      QStringLiteral("quantize_per_channel"), QStringLiteral("int_repr"), QStringLiteral("q_scale"),
      QStringLiteral("q_zero_point"),   QStringLiteral("q_per_channel_scales"),
      QStringLiteral("q_per_channel_zero_points"), QStringLiteral("q_per_channel_axis"), QStringLiteral("qscheme"),
      QStringLiteral("_make_per_tensor_quantized_tensor"), QStringLiteral("_make_per_channel_quantized_tensor"),
      QStringLiteral("__is__"),         QStringLiteral("__isnot__"),    QStringLiteral("__getitem__"),
      QStringLiteral("len"),            QStringLiteral("append"),       QStringLiteral("Float"),
      QStringLiteral("Int"),            QStringLiteral("Bool"),         QStringLiteral("ScalarImplicit"),
      QStringLiteral("eq"),             QStringLiteral("ne"),           QStringLiteral("requires_grad_")};
  return names.contains(name);
}

// Ops without tensors whose cost follows a value: repetition and padding to a given width.
bool growsWithValue(const QString& name) {
  static const QSet<QString> names{QStringLiteral("mul"),    QStringLiteral("ljust"),  QStringLiteral("rjust"),
                                   QStringLiteral("center"), QStringLiteral("zfill"),  QStringLiteral("expandtabs"),
                                   QStringLiteral("factorial"), QStringLiteral("__range_length"),
                                   QStringLiteral("range"), QStringLiteral("_print"), QStringLiteral("warn")};
  return names.contains(name);
}

bool mentionsTensor(const c10::TypePtr& type) {
  if (type->kind() == c10::TypeKind::TensorType) return true;
  for (const auto& contained : type->containedTypes())
    if (mentionsTensor(contained)) return true;
  return false;
}

// Why one op (neither a loop nor an outside effect, which the walker names) may not run at load;
// empty when it may.
QString refusalOf(const torch::jit::Node* n) {
  const QString op = QString::fromStdString(n->kind().toQualString());
  if (isStructural(n->kind())) return {};
  const QString space = op.section(QStringLiteral("::"), 0, 0);
  const QString name = op.section(QStringLiteral("::"), 1);
  if (space == QLatin1String("quantized") || space == QLatin1String("_quantized")) return {};  // weight packing
  const c10::FunctionSchema* schema = n->maybeSchema();
  if (!schema || (space != QLatin1String("aten") && space != QLatin1String("prim")))
    return QStringLiteral("calls %1, which Graft cannot bound at load").arg(op);
  bool tensors = false;
  for (const auto& a : schema->arguments()) tensors = tensors || mentionsTensor(a.type());
  for (const auto& r : schema->returns()) tensors = tensors || mentionsTensor(r.type());
  if (tensors ? !isBoundedTensorOp(name) : growsWithValue(name))
    return QStringLiteral("calls %1, whose cost or output load-time code may not have").arg(op);
  return {};
}

QString placeOf(const torch::jit::Node* n) {
  if (auto flc = n->sourceRange().file_line_col())
    return QStringLiteral(" (%1 line %2)").arg(QString::fromStdString(std::get<0>(*flc))).arg(std::get<1>(*flc));
  return {};
}

QString qualifiedNameOf(const c10::ClassTypePtr& cls) {
  return QString::fromStdString(cls->name() ? cls->name()->qualifiedName() : std::string("<class>"));
}

// Walks a compiled function and all it reaches, and names the gravest thing it finds: an outside
// effect before a loop before anything else.
class LoadTimeWalker {
 public:
  QString walk(torch::jit::Function& fn) {
    walkFunction(fn, {});
    if (found_.empty()) return {};
    const auto gravest = [](const auto& a, const auto& b) { return a.first < b.first; };
    return std::min_element(found_.begin(), found_.end(), gravest)->second;
  }

 private:
  enum Gravity { Outside, Loops, Other };

  void walkFunction(torch::jit::Function& fn, const QString& through) {
    auto* graphFn = torch::jit::tryToGraphFunction(fn);
    if (!graphFn || !seen_.insert(graphFn).second) return;  // a builtin of libtorch's own, or walked
    walkBlock(graphFn->graph()->block(), through);
  }

  void walkBlock(const torch::jit::Block* block, const QString& through) {
    for (const torch::jit::Node* n : block->nodes()) {
      visit(n, through);
      for (const torch::jit::Block* sub : n->blocks()) walkBlock(sub, through);
      if (n->hasAttribute(c10::attr::Subgraph) && n->kindOf(c10::attr::Subgraph) == torch::jit::AttributeKind::g)
        walkBlock(n->g(c10::attr::Subgraph)->block(), through);
    }
  }

  void note(Gravity gravity, const QString& why, const torch::jit::Node* n, const QString& through) {
    QString text = why + placeOf(n);
    if (!through.isEmpty()) text += QStringLiteral(" (through %1)").arg(through);
    found_.emplace_back(gravity, text);
  }

  void visit(const torch::jit::Node* n, const QString& through) {
    const auto kind = n->kind();
    if (kind == c10::prim::CallMethod) return callMethod(n, QString::fromStdString(n->s(c10::attr::name)), through);
    if (kind == c10::prim::Enter) return callMethod(n, QStringLiteral("__enter__"), through);
    if (kind == c10::prim::Exit) return callMethod(n, QStringLiteral("__exit__"), through);
    if (kind == c10::prim::CallFunction) {
      auto fnType = n->input(0)->type()->cast<c10::FunctionType>();
      if (!fnType || n->input(0)->node()->kind() != c10::prim::Constant)
        return note(Other, QStringLiteral("calls a function chosen at run time"), n, through);
      return walkFunction(*fnType->function(),
                          QString::fromStdString(fnType->function()->qualname().qualifiedName()));
    }
    if (kind == c10::prim::Loop) return note(Loops, QStringLiteral("loops"), n, through);
    const QString op = QString::fromStdString(kind.toQualString());
    if (QString why = model::outsideEffectOf(op); !why.isEmpty())
      return note(Outside, QStringLiteral("calls %1, which %2").arg(op, why), n, through);
    if (QString why = refusalOf(n); !why.isEmpty()) note(Other, why, n, through);
  }

  void callMethod(const torch::jit::Node* n, const QString& method, const QString& through) {
    const auto type = n->input(0)->type();
    if (auto cls = type->cast<c10::ClassType>()) {
      const QString owner = qualifiedNameOf(cls);
      if (owner.startsWith(QLatin1String("__torch__.torch.classes.")))  // libtorch's C++ classes
        return;
      torch::jit::Function* fn = cls->findMethod(method.toStdString());
      if (!fn) return note(Other, QStringLiteral("calls %1.%2, which is not compiled").arg(owner, method), n, through);
      return walkFunction(*fn, owner + QLatin1Char('.') + method);
    }
    if (type->cast<c10::InterfaceType>())
      return note(Other, QStringLiteral("calls %1 through an interface, which could be any class's").arg(method), n,
                  through);
    note(Other, QStringLiteral("calls %1 on a value of type %2").arg(method, QString::fromStdString(type->str())), n,
         through);
  }

  std::unordered_set<const torch::jit::GraphFunction*> seen_;
  std::vector<std::pair<Gravity, QString>> found_;
};

// "__torch__.m" -> "code/__torch__/m.py", where torch.jit.load looks for a qualifier's code.
std::string codeRecordOf(const std::string& qualifier) {
  std::string path = "code/" + qualifier;
  std::replace(path.begin(), path.end(), '.', '/');
  return path + ".py";
}

std::shared_ptr<torch::jit::Source> sourceFor(caffe2::serialize::PyTorchStreamReader& reader,
                                              const std::string& qualifier) {
  const std::string path = codeRecordOf(qualifier);
  if (!reader.hasRecord(path)) return nullptr;
  auto [data, size] = reader.getRecord(path);
  return std::make_shared<torch::jit::Source>(std::string(static_cast<const char*>(data.get()), size), path, 1);
}

// The constant table the code refers to as CONSTANTS.cN, as placeholders: compiling needs only
// its size and (for tensors, nearly always) its types; no constant is read or unpickled.
std::vector<at::IValue> placeholderConstants(caffe2::serialize::PyTorchStreamReader& reader) {
  static const QRegularExpression constant(QStringLiteral(R"(CONSTANTS\s*\.\s*c(\d+))"));
  qsizetype count = 0;
  for (const std::string& record : reader.getAllRecords()) {
    if (record.rfind("code/", 0) != 0) continue;
    auto [data, size] = reader.getRecord(record);
    const QString text = QString::fromUtf8(static_cast<const char*>(data.get()), qsizetype(size));
    for (auto it = constant.globalMatch(text); it.hasNext();)
      count = std::max(count, it.next().captured(1).toLongLong() + 1);
  }
  count = std::min<qsizetype>(count, 1 << 20);
  return std::vector<at::IValue>(std::size_t(count), at::IValue(at::empty({0})));
}

}  // namespace

LoadTimeCode checkLoadTimeCode(caffe2::serialize::PyTorchStreamReader& reader) {
  LoadTimeCode result;
  std::vector<std::string> names;
  for (const char* pickle : {"data.pkl", "constants.pkl"}) {
    if (!reader.hasRecord(pickle)) continue;
    auto [data, size] = reader.getRecord(pickle);
    auto globals = pickleGlobals(static_cast<const char*>(data.get()), size);
    if (!globals) {
      result.uncheckable = QStringLiteral("%1 could not be read to its end").arg(QLatin1String(pickle));
      return result;
    }
    names.insert(names.end(), globals->begin(), globals->end());
  }
  const auto constants = placeholderConstants(reader);
  auto unit = std::make_shared<torch::jit::CompilationUnit>();
  torch::jit::SourceImporter importer(
      unit, &constants, [&](const std::string& qualifier) { return sourceFor(reader, qualifier); },
      std::size_t(reader.version()));
  std::unordered_set<std::string> checked;
  for (const std::string& name : names) {
    if (!checked.insert(name).second) continue;
    const auto dot = name.rfind('.');
    // A name the archive's code does not define is one of the unpickler's builtins (tensors,
    // lists, OrderedDict) or one libtorch refuses itself: no code of the file's runs for it.
    if (dot == std::string::npos || !reader.hasRecord(codeRecordOf(name.substr(0, dot)))) continue;
    c10::TypePtr type;
    try {
      type = importer.loadType(c10::QualifiedName(name));
    } catch (const std::exception& e) {
      result.uncheckable = QStringLiteral("%1 does not compile: %2")
                               .arg(QString::fromStdString(name),
                                    QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0));
      return result;
    }
    auto cls = type ? type->cast<c10::ClassType>() : nullptr;
    if (!cls) continue;
    torch::jit::Function* setstate = cls->findMethod("__setstate__");
    if (!setstate) continue;
    const QString method = QString::fromStdString(name) + QStringLiteral(".__setstate__");
    LoadTimeWalker walker;
    if (QString why = walker.walk(*setstate); !why.isEmpty())
      result.refusals << method + QLatin1Char(' ') + why;
  }
  return result;
}

}  // namespace graft::core::io
