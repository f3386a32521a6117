#include "app/cli/commands.h"
#include "core/model/document.h"
#include "core/remote/remote_device.h"
#include "core/remote/remote_shapes.h"
#include "core/report/shapes_report.h"
#include "core/io/input_set.h"
#include "app/cli/remote_progress.h"
#include "core/run/input_values.h"

#include <QtCore/QJsonArray>

namespace graft::cli {

Command shapesCommand() {
  Command c{QStringLiteral("shapes"),
            QStringLiteral("List every value with its node, module path, shape and dtype (.pt2: from its metadata; "
                           "TorchScript: from one node-by-node run)."),
            QStringLiteral("MODEL [--input SPEC ...] [--seed N] [--device ssh://HOST/DEVICE] [--json]"), {}};
  c.run = [c](const QStringList& args) {
    QCommandLineParser parser;
    addModelOptions(parser);
    addInputOption(parser);
    parser.addOption({QStringLiteral("seed"), QStringLiteral("Seed of the random inputs (default 0)."),
                      QStringLiteral("N"), QStringLiteral("0")});
    parser.addOption({QStringLiteral("device"),
                      QStringLiteral("cpu (default), or ssh://HOST/DEVICE[?python=PATH] to run a .pt2 node by node "
                                     "on another machine; only dtypes and sizes come back (docs/remote.md)."),
                      QStringLiteral("D"), QStringLiteral("cpu")});
    parser.addPositionalArgument(QStringLiteral("MODEL"),
                                 QStringLiteral("A TorchScript .pt or torch.export .pt2 file."));
    if (!parseOrExit(parser, c, args)) return int(kUsageOrInput);
    auto doc = openModel(parser);
    if (!doc) return int(kUsageOrInput);
    QJsonObject report;
    const QStringList specs = parser.values(QStringLiteral("input"));
    const QString device = parser.value(QStringLiteral("device"));
    if (core::remote::isRemoteDevice(device)) {
      QString error;
      const auto remote = core::remote::parseRemoteDevice(device, &error);
      if (!remote) return fail(error);
      const auto inputs = inputsOrFail(parser, *doc, parser.value(QStringLiteral("seed")).toULongLong());
      if (!inputs) return int(kUsageOrInput);
      const auto result = core::remote::shapesRemote(*doc, doc->current(), *inputs, *remote, 0, printProgress);
      if (result.traffic.roundTrips > 0) printProgress(result.traffic.summary());
      if (result.report.isEmpty()) return fail(result.error);
      report = result.report;
      report.insert(QStringLiteral("remote"), result.traffic.toJson());
    } else if (device != QLatin1String("cpu")) {
      return fail(QStringLiteral("shapes --device: cpu or ssh://HOST/DEVICE (got %1)").arg(device));
    } else if (doc->format() == QLatin1String("pt2") && specs.isEmpty()) {
      report = core::report::shapesFromMetadata(*doc->current());
    } else {
      const quint64 seed = parser.value(QStringLiteral("seed")).toULongLong();
      const auto inputs = inputsOrFail(parser, *doc, seed);
      if (!inputs) return int(kUsageOrInput);
      QString error;
      report = core::report::shapesFromRun(doc->current(), *inputs, &error);
      if (report.isEmpty()) return fail(QStringLiteral("%1 failed to run: %2").arg(doc->displayName(), error));
    }
    report.insert(QStringLiteral("model"), doc->displayName());
    if (parser.isSet(QStringLiteral("json"))) {
      printJson(report);
      return int(kOk);
    }
    const auto dims = [](const QJsonValue& shape) {
      QStringList out;
      for (const auto& d : shape.toArray()) out << (d.isString() ? d.toString() : QString::number(d.toInteger()));
      return QStringLiteral("[%1]").arg(out.join(QStringLiteral(", ")));
    };
    QString text;
    for (const auto& v : report.value(QStringLiteral("values")).toArray()) {
      const auto o = v.toObject();
      QString shape = dims(o.value(QStringLiteral("shape")));
      if (o.contains(QStringLiteral("symbolic_shape")))
        shape += QStringLiteral(" = ") + dims(o.value(QStringLiteral("symbolic_shape")));
      text += QStringLiteral("%1  %2  %3 %4  %5\n")
                  .arg(o.value(QStringLiteral("name")).toString(), -24)
                  .arg(o.value(QStringLiteral("op")).toString(), -28)
                  .arg(o.value(QStringLiteral("dtype")).toString(), shape,
                       o.value(QStringLiteral("module_path")).toString());
    }
    const QJsonObject symbols = report.value(QStringLiteral("symbols")).toObject();
    for (auto it = symbols.begin(); it != symbols.end(); ++it) {
      const QJsonObject s = it.value().toObject();
      const QString range = QStringLiteral("%1..%2")
                                .arg(s.value(QStringLiteral("min")).toInteger())
                                .arg(s.value(QStringLiteral("max")).isNull()
                                         ? QStringLiteral("∞")
                                         : QString::number(s.value(QStringLiteral("max")).toInteger()));
      text += s.contains(QStringLiteral("value")) ? QStringLiteral("%1 = %2 (allowed %3)\n")
                                                        .arg(it.key())
                                                        .arg(s.value(QStringLiteral("value")).toInteger())
                                                        .arg(range)
                                                  : QStringLiteral("%1 in %2\n").arg(it.key(), range);
    }
    printText(text);
    return int(kOk);
  };
  return c;
}

}  // namespace graft::cli
