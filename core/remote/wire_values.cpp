#include "core/remote/wire_values.h"

#include "core/model/dtype_names.h"
#include "core/remote/host_text.h"

#include <ATen/ATen.h>

#include <QtCore/QJsonObject>
#include <cstring>
#include <limits>

namespace graft::core::remote {

namespace {

// Tuples and lists inside tuples and lists: deeper than any model's outputs, shallow enough for the stack.
constexpr int kMaxDepth = 64;

// torch's own names (str(torch.float32) without "torch."), which the agent reads with getattr.
std::optional<QString> wireDtype(c10::ScalarType t) {
  switch (t) {
    case c10::kFloat: return QStringLiteral("float32");
    case c10::kDouble: return QStringLiteral("float64");
    case c10::kHalf: return QStringLiteral("float16");
    case c10::kBFloat16: return QStringLiteral("bfloat16");
    case c10::kLong: return QStringLiteral("int64");
    case c10::kInt: return QStringLiteral("int32");
    case c10::kShort: return QStringLiteral("int16");
    case c10::kChar: return QStringLiteral("int8");
    case c10::kByte: return QStringLiteral("uint8");
    case c10::kBool: return QStringLiteral("bool");
    case c10::kComplexFloat: return QStringLiteral("complex64");
    case c10::kComplexDouble: return QStringLiteral("complex128");
    default: return std::nullopt;
  }
}

std::optional<QJsonObject> encode(const c10::IValue& v, QByteArray& payload, QString* error) {
  if (v.isTensor()) {
    const at::Tensor t = v.toTensor().detach().to(c10::kCPU).contiguous();
    const auto dtype = wireDtype(t.scalar_type());
    if (!dtype) {
      *error = QStringLiteral("a %1 tensor cannot be sent to a remote device")
                   .arg(QString::fromLatin1(c10::toString(t.scalar_type())));
      return std::nullopt;
    }
    const qint64 n = qint64(t.numel()) * qint64(t.element_size());
    QJsonArray shape;
    for (const auto d : t.sizes()) shape.append(qint64(d));
    QJsonObject o{{QStringLiteral("t"), QStringLiteral("tensor")},
                  {QStringLiteral("dtype"), *dtype},
                  {QStringLiteral("shape"), shape},
                  {QStringLiteral("offset"), payload.size()},
                  {QStringLiteral("nbytes"), n}};
    if (n > 0) payload.append(static_cast<const char*>(t.data_ptr()), n);
    return o;
  }
  if (v.isBool()) return QJsonObject{{QStringLiteral("t"), QStringLiteral("bool")}, {QStringLiteral("v"), v.toBool()}};
  if (v.isInt())
    return QJsonObject{{QStringLiteral("t"), QStringLiteral("int")}, {QStringLiteral("v"), qint64(v.toInt())}};
  if (v.isDouble())
    return QJsonObject{{QStringLiteral("t"), QStringLiteral("float")}, {QStringLiteral("v"), v.toDouble()}};
  if (v.isNone()) return QJsonObject{{QStringLiteral("t"), QStringLiteral("none")}};
  if (v.isTuple() || v.isList()) {
    const std::vector<c10::IValue> items = v.isTuple() ? v.toTupleRef().elements().vec() : v.toList().vec();
    QJsonArray trees;
    for (const auto& item : items) {
      auto tree = encode(item, payload, error);
      if (!tree) return std::nullopt;
      trees.append(*tree);
    }
    return QJsonObject{{QStringLiteral("t"), v.isTuple() ? QStringLiteral("tuple") : QStringLiteral("list")},
                       {QStringLiteral("items"), trees}};
  }
  *error = QStringLiteral("a %1 value cannot be sent to a remote device").arg(QString::fromStdString(v.tagKind()));
  return std::nullopt;
}

// The bytes a tensor of `shape` and `elementSize` holds, or nullopt for a negative dimension or a
// count past `limit` (checked per factor, so no product overflows).
std::optional<qint64> tensorBytes(const std::vector<int64_t>& shape, qint64 elementSize, qint64 limit) {
  for (const int64_t d : shape)
    if (d < 0) return std::nullopt;
  qint64 total = elementSize;
  for (const int64_t d : shape) {
    if (d == 0) return 0;
    if (total > limit / d) return std::nullopt;
    total *= d;
  }
  return total <= limit ? std::optional<qint64>(total) : std::nullopt;
}

std::optional<c10::IValue> decodeTensor(const QJsonObject& o, const QByteArray& payload, QString* error) {
  const auto dtype = model::dtypeFromName(o.value(QStringLiteral("dtype")).toString());
  const auto bad = [&](const QString& why) {
    *error = QStringLiteral("the agent sent a tensor Graft cannot read (%1)").arg(why);
    return std::nullopt;
  };
  if (!dtype) return bad(QStringLiteral("dtype '%1'").arg(hostText(o.value(QStringLiteral("dtype")).toString(), 40)));
  const QJsonArray dims = o.value(QStringLiteral("shape")).toArray();
  if (dims.size() > 64) return bad(QStringLiteral("%1 dimensions").arg(dims.size()));
  std::vector<int64_t> shape;
  for (const auto d : dims) {
    if (!d.isDouble()) return bad(QStringLiteral("a dimension that is not a number"));
    shape.push_back(d.toInteger(-1));
  }
  const QJsonValue offsetValue = o.value(QStringLiteral("offset")), sizeValue = o.value(QStringLiteral("nbytes"));
  const qint64 offset = offsetValue.toInteger(-1), n = sizeValue.toInteger(-1);
  // Subtraction, never offset + n: a host's 2^63-8 plus 32 must not wrap around to a small number.
  if (offset < 0 || n < 0 || offset > payload.size() || n > payload.size() - offset)
    return bad(QStringLiteral("%1 bytes at offset %2 of a %3-byte payload")
                   .arg(sizeValue.toVariant().toString(), offsetValue.toVariant().toString())
                   .arg(payload.size()));
  const qint64 elementSize = qint64(c10::elementSize(*dtype));
  if (o.value(QStringLiteral("meta")).toBool()) {  // a type without its values (shapes)
    if (n != 0) {
      *error = QStringLiteral("the agent sent a type with values");
      return std::nullopt;
    }
    // A meta tensor holds no memory, but its element count must still fit in int64.
    if (!tensorBytes(shape, elementSize, std::numeric_limits<qint64>::max()))
      return bad(QStringLiteral("a shape out of range"));
    return c10::IValue(at::empty(shape, at::TensorOptions().dtype(*dtype).device(at::kMeta)));
  }
  // The shape is checked against the bytes that came before anything is allocated.
  const auto expected = tensorBytes(shape, elementSize, payload.size());
  if (!expected || *expected != n) {
    *error = QStringLiteral("the agent sent a tensor whose size does not match its shape");
    return std::nullopt;
  }
  at::Tensor out = at::empty(shape, at::TensorOptions().dtype(*dtype));
  if (n > 0) std::memcpy(out.data_ptr(), payload.constData() + offset, size_t(n));
  return c10::IValue(out);
}

std::optional<c10::IValue> decode(const QJsonObject& o, const QByteArray& payload, QString* error, int depth) {
  const QString t = o.value(QStringLiteral("t")).toString();
  if (t == QLatin1String("tensor")) return decodeTensor(o, payload, error);
  if (t == QLatin1String("bool")) return c10::IValue(o.value(QStringLiteral("v")).toBool());
  if (t == QLatin1String("int")) return c10::IValue(int64_t(o.value(QStringLiteral("v")).toInteger()));
  if (t == QLatin1String("float")) return c10::IValue(o.value(QStringLiteral("v")).toDouble());
  if (t == QLatin1String("none")) return c10::IValue();
  if (t == QLatin1String("tuple") || t == QLatin1String("list")) {
    std::vector<c10::IValue> items;
    if (depth > kMaxDepth) {
      *error = QStringLiteral("the agent sent values nested deeper than %1").arg(kMaxDepth);
      return std::nullopt;
    }
    for (const auto item : o.value(QStringLiteral("items")).toArray()) {
      auto v = decode(item.toObject(), payload, error, depth + 1);
      if (!v) return std::nullopt;
      items.push_back(std::move(*v));
    }
    if (t == QLatin1String("tuple")) return c10::IValue(c10::ivalue::Tuple::create(std::move(items)));
    c10::impl::GenericList list(c10::AnyType::get());
    for (auto& item : items) list.push_back(std::move(item));
    return c10::IValue(list);
  }
  *error = QStringLiteral("the agent sent a value of unknown kind '%1'").arg(hostText(t, 40));
  return std::nullopt;
}

}  // namespace

std::optional<QJsonArray> encodeValues(const std::vector<c10::IValue>& values, QByteArray& payload, QString* error) {
  QJsonArray trees;
  for (const auto& v : values) {
    auto tree = encode(v, payload, error);
    if (!tree) return std::nullopt;
    trees.append(*tree);
  }
  return trees;
}

std::optional<std::vector<c10::IValue>> decodeValues(const QJsonArray& trees, const QByteArray& payload,
                                                     QString* error) {
  // A host's values are untrusted: whatever libtorch or the allocator throws on them is an error.
  try {
    std::vector<c10::IValue> values;
    for (const auto tree : trees) {
      auto v = decode(tree.toObject(), payload, error, 0);
      if (!v) return std::nullopt;
      values.push_back(std::move(*v));
    }
    return values;
  } catch (const std::bad_alloc&) {
    *error = QStringLiteral("the agent sent values too large to hold in memory");
  } catch (const std::exception& e) {
    *error = QStringLiteral("the agent sent values Graft cannot read: ") + hostText(QString::fromUtf8(e.what()), 200);
  }
  return std::nullopt;
}

}  // namespace graft::core::remote
