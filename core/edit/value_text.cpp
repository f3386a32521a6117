#include "core/edit/value_text.h"

#include "core/model/dtype_names.h"

#include <QtCore/QStringList>

namespace graft::core::edit {

namespace {

std::optional<bool> parseBool(const QString& t) {
  if (t == QLatin1String("True") || t == QLatin1String("true") || t == QLatin1String("1")) return true;
  if (t == QLatin1String("False") || t == QLatin1String("false") || t == QLatin1String("0")) return false;
  return std::nullopt;
}

}  // namespace

std::optional<c10::IValue> parseValueText(const QString& rawText, const c10::TypePtr& rawType, QString* error) {
  const QString text = rawText.trimmed();
  auto fail = [&](const QString& why) -> std::optional<c10::IValue> {
    if (error) *error = why;
    return std::nullopt;
  };
  c10::TypePtr type = rawType;
  if (auto opt = type->cast<c10::OptionalType>()) {
    if (text == QLatin1String("None")) return c10::IValue();
    type = opt->getElementType();
  }
  const QString typeName = QString::fromStdString(type->annotation_str());
  bool ok = false;
  switch (type->kind()) {
    case c10::TypeKind::IntType: {
      if (auto dt = model::dtypeFromName(text)) return c10::IValue(static_cast<int64_t>(*dt));
      const qlonglong v = text.toLongLong(&ok);
      if (!ok) return fail(QStringLiteral("'%1' is not an integer (or a dtype name such as float16)").arg(text));
      return c10::IValue(static_cast<int64_t>(v));
    }
    case c10::TypeKind::FloatType: {
      const double v = text.toDouble(&ok);
      if (!ok) return fail(QStringLiteral("'%1' is not a number").arg(text));
      return c10::IValue(v);
    }
    case c10::TypeKind::NumberType: {
      const qlonglong i = text.toLongLong(&ok);
      if (ok) return c10::IValue(static_cast<int64_t>(i));
      const double v = text.toDouble(&ok);
      if (!ok) return fail(QStringLiteral("'%1' is not a number").arg(text));
      return c10::IValue(v);
    }
    case c10::TypeKind::BoolType: {
      if (auto b = parseBool(text)) return c10::IValue(*b);
      return fail(QStringLiteral("'%1' is not a bool (True or False)").arg(text));
    }
    case c10::TypeKind::StringType: {
      QString s = text;
      if (s.size() >= 2 && (s.front() == QLatin1Char('\'') || s.front() == QLatin1Char('"')) && s.back() == s.front())
        s = s.mid(1, s.size() - 2);
      return c10::IValue(s.toStdString());
    }
    case c10::TypeKind::DeviceObjType: {
      try {
        return c10::IValue(c10::Device(text.toStdString()));
      } catch (const std::exception&) {
        return fail(QStringLiteral("'%1' is not a device (cpu, cuda:0)").arg(text));
      }
    }
    case c10::TypeKind::ListType: {
      const auto elem = type->castRaw<c10::ListType>()->getElementType();
      if (!text.startsWith(QLatin1Char('[')) || !text.endsWith(QLatin1Char(']')))
        return fail(QStringLiteral("'%1' is not a list such as [1, 1]").arg(text));
      const QString body = text.mid(1, text.size() - 2).trimmed();
      const QStringList parts = body.isEmpty() ? QStringList() : body.split(QLatin1Char(','));
      if (elem->kind() == c10::TypeKind::IntType) {
        std::vector<int64_t> v;
        for (const auto& p : parts) {
          const qlonglong x = p.trimmed().toLongLong(&ok);
          if (!ok) return fail(QStringLiteral("'%1' in %2 is not an integer").arg(p.trimmed(), text));
          v.push_back(x);
        }
        return c10::IValue(v);
      }
      if (elem->kind() == c10::TypeKind::FloatType) {
        std::vector<double> v;
        for (const auto& p : parts) {
          const double x = p.trimmed().toDouble(&ok);
          if (!ok) return fail(QStringLiteral("'%1' in %2 is not a number").arg(p.trimmed(), text));
          v.push_back(x);
        }
        return c10::IValue(v);
      }
      if (elem->kind() == c10::TypeKind::BoolType) {
        c10::List<bool> v;
        for (const auto& p : parts) {
          auto b = parseBool(p.trimmed());
          if (!b) return fail(QStringLiteral("'%1' in %2 is not a bool").arg(p.trimmed(), text));
          v.push_back(*b);
        }
        return c10::IValue(v);
      }
      return fail(
          QStringLiteral("lists of %1 cannot be edited as text").arg(QString::fromStdString(elem->annotation_str())));
    }
    default:
      return fail(QStringLiteral("values of type %1 cannot be edited as text").arg(typeName));
  }
}

}  // namespace graft::core::edit
