#include "app/cli/side_options.h"

#include "app/cli/cli_common.h"

namespace graft::cli {

namespace {
bool parseNumber(const QCommandLineParser& p, const char* name, double& out) {
  if (!p.isSet(QLatin1String(name))) return true;
  bool ok = false;
  out = p.value(QLatin1String(name)).toDouble(&ok);
  if (!ok || out < 0) {
    fail(QStringLiteral("--%1 needs a non-negative number, got '%2'")
             .arg(QLatin1String(name), p.value(QLatin1String(name))));
    return false;
  }
  return true;
}
}  // namespace

void addSideOptions(QCommandLineParser& parser) {
  addInputOption(parser);
  parser.addOption({QStringLiteral("seed"), QStringLiteral("Seed for random inputs (default 0)."), QStringLiteral("N"),
                    QStringLiteral("0")});
  parser.addOption({QStringLiteral("atol"),
                    QStringLiteral("Judge elementwise instead of by rounding: absolute tolerance (default then 1e-5)."),
                    QStringLiteral("X")});
  parser.addOption({QStringLiteral("rtol"),
                    QStringLiteral("Judge elementwise instead of by rounding: relative tolerance, |a-b| <= atol + "
                                   "rtol*|b| (default then 1e-4; 1e-3 at float16, 1.6e-2 at bfloat16)."),
                    QStringLiteral("Y")});
  parser.addOption(
      {QStringLiteral("tf32"),
       QStringLiteral(
           "TF32 for float32 convolutions and matrix products on CUDA: default (PyTorch's: cuDNN convolutions yes, "
           "cuBLAS no), on, off; emulate: B rounds their inputs to TF32 on any device, as tensor cores do."),
       QStringLiteral("MODE"), QStringLiteral("default")});
  parser.addOption({QStringLiteral("device"),
                    QStringLiteral("Device for A (and B unless --device-b): cpu, cuda, cuda:N."), QStringLiteral("D"),
                    QStringLiteral("cpu")});
  parser.addOption({QStringLiteral("device-b"),
                    QStringLiteral("Device for B: cpu, cuda, cuda:N, or ssh://HOST/DEVICE[?python=PATH] to run B on "
                                   "another machine (compare; docs/remote.md)."),
                    QStringLiteral("D")});
  parser.addOption({QStringLiteral("dtype-a"),
                    QStringLiteral("Run A with its floating weights and inputs cast to T (float64 for a reference)."),
                    QStringLiteral("T")});
  parser.addOption({QStringLiteral("dtype-b"),
                    QStringLiteral("Run B at T: float16, bfloat16, float32 or float64. Each node's own (local) error "
                                   "is measured too, and the node that introduces the error is named."),
                    QStringLiteral("T")});
  parser.addOption(
      {QStringLiteral("casts"),
       QStringLiteral("What a run at another dtype answers. follow (default): the model under model.half() (or "
                      ".to(T)): dtypes the capture recorded from the model's float32 (.to(x.device), .to(h.dtype)) "
                      "and torch.finfo extremes follow T; a cast the source spells as float32 stays. as-written: "
                      "this program's ops at T, its float32 casts as written."),
       QStringLiteral("MODE"), QStringLiteral("follow")});
  parser.addOption(
      {QStringLiteral("autocast"), QStringLiteral("With --dtype-b: keep reductions and normalisations (softmax, "
                                                  "layer_norm, sum, …) in float32 on B, as torch.autocast does.")});
}

bool readSideOptions(const QCommandLineParser& parser, core::run::CompareOptions& options, quint64& seed,
                     std::optional<core::remote::RemoteDevice>* remoteB) {
  for (const auto& [flag, precision] :
       {std::pair{"dtype-a", &options.precisionA}, std::pair{"dtype-b", &options.precisionB}}) {
    if (!parser.isSet(QLatin1String(flag))) continue;
    QString why;
    precision->dtype = core::run::precisionDtype(parser.value(QLatin1String(flag)), &why);
    if (!precision->dtype) {
      fail(QStringLiteral("--%1: %2").arg(QLatin1String(flag), why));
      return false;
    }
  }
  options.precisionB.autocast = parser.isSet(QStringLiteral("autocast"));
  const auto casts = core::run::castsFromName(parser.value(QStringLiteral("casts")));
  if (!casts) {
    fail(QStringLiteral("--casts needs follow or as-written, got '%1'").arg(parser.value(QStringLiteral("casts"))));
    return false;
  }
  options.precisionA.casts = options.precisionB.casts = *casts;
  const auto tf32 = core::run::tf32FromName(parser.value(QStringLiteral("tf32")));
  if (!tf32) {
    fail(
        QStringLiteral("--tf32 needs default, on, off or emulate, got '%1'").arg(parser.value(QStringLiteral("tf32"))));
    return false;
  }
  options.tf32 = *tf32;
  options.tol = core::run::defaultTolerance(options);
  if (!parseNumber(parser, "atol", options.tol.atol) || !parseNumber(parser, "rtol", options.tol.rtol)) return false;
  // The user's own tolerance means what it says: elementwise, as torch.allclose.
  options.tol.elementwise = parser.isSet(QStringLiteral("atol")) || parser.isSet(QStringLiteral("rtol"));
  bool seedOk = false;
  seed = parser.value(QStringLiteral("seed")).toULongLong(&seedOk);
  if (!seedOk) {
    fail(QStringLiteral("--seed needs a non-negative integer"));
    return false;
  }
  QString error;
  if (core::remote::isRemoteDevice(parser.value(QStringLiteral("device")))) {
    fail(QStringLiteral("--device: A runs on this machine; give the remote device as --device-b ssh://HOST/DEVICE"));
    return false;
  }
  auto devA = core::run::Executor::parseDevice(parser.value(QStringLiteral("device")), &error);
  const QString nameB = parser.value(QStringLiteral("device-b"));
  if (devA && parser.isSet(QStringLiteral("device-b")) && core::remote::isRemoteDevice(nameB)) {
    if (!remoteB) {
      fail(QStringLiteral("--device-b %1: precision and reduce run B on this machine: they cast node by node as Graft "
                          "does, which a host's agent does not yet (docs/remote.md). On a host: compare --device-b, "
                          "profile, shapes and replay --ledger with --device")
               .arg(nameB));
      return false;
    }
    *remoteB = core::remote::parseRemoteDevice(nameB, &error);
    if (!*remoteB) {
      fail(error);
      return false;
    }
    options.deviceA = *devA;
    options.deviceB = c10::Device((*remoteB)->device.toStdString());  // the host's: for the rounding model
    return true;
  }
  auto devB = devA && parser.isSet(QStringLiteral("device-b")) ? core::run::Executor::parseDevice(nameB, &error) : devA;
  if (!devA || !devB) {
    fail(error);
    return false;
  }
  options.deviceA = *devA;
  options.deviceB = *devB;
  return true;
}

}  // namespace graft::cli
