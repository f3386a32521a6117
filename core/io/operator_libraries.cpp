#include "core/io/operator_libraries.h"

#include <ATen/Context.h>
#include <torch/version.h>

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QRegularExpression>

#include <dlfcn.h>

namespace graft::core::io {

namespace {

bool openGlobal(const QString& path, QString* error) {
  if (dlopen(QFile::encodeName(path).constData(), RTLD_NOW | RTLD_GLOBAL)) return true;
  if (error) *error = QString::fromLocal8Bit(dlerror());
  return false;
}

// torchvision's library links libtorch_python, which needs the Python runtime's symbols
// (nothing is run: the operators are plain C++). The venv's pyvenv.cfg names the interpreter's
// home; Debian's libpython is the fallback.
bool loadPythonRuntime(const QString& sitePackages, QString* error) {
  const QRegularExpression pyVersion(QStringLiteral(R"(python(3\.\d+))"));
  const auto m = pyVersion.match(sitePackages);
  if (!m.hasMatch()) {
    *error = QStringLiteral("cannot tell the Python version of %1").arg(sitePackages);
    return false;
  }
  const QString soname = QStringLiteral("libpython%1.so.1.0").arg(m.captured(1));
  QStringList candidates;
  const QString envPrefix = QDir::cleanPath(sitePackages + QStringLiteral("/../../.."));
  QFile cfg(envPrefix + QStringLiteral("/pyvenv.cfg"));
  if (cfg.open(QIODevice::ReadOnly | QIODevice::Text)) {
    for (const QString& line : QString::fromUtf8(cfg.readAll()).split(QLatin1Char('\n'))) {
      if (!line.startsWith(QLatin1String("home"))) continue;
      const QString home = line.section(QLatin1Char('='), 1).trimmed();
      candidates << QDir::cleanPath(home + QStringLiteral("/../lib/") + soname);
    }
  }
  candidates << envPrefix + QStringLiteral("/lib/") + soname << QStringLiteral("/usr/lib/x86_64-linux-gnu/") + soname
             << QStringLiteral("/usr/lib/aarch64-linux-gnu/") + soname << QStringLiteral("/usr/lib/") + soname;
  for (const QString& c : candidates)
    if (QFileInfo::exists(c) && openGlobal(c, error)) return true;
  *error = QStringLiteral("%1 (the Python runtime torchvision's library links) was not found").arg(soname);
  return false;
}

// torchvision 0.N pairs with torch 2.(N-15): 0.29 with 2.14, 0.26 with 2.11.
QString matchingTorchvision() {
  const QStringList parts = QString::fromLatin1(TORCH_VERSION).split(QLatin1Char('.'));
  if (parts.size() < 2) return QStringLiteral("<the matching release>");
  return QStringLiteral("0.%1.*").arg(parts[1].toInt() + 15);
}

OperatorLibraryStatus findAndLoad() {
  OperatorLibraryStatus s;
  const QString override = qEnvironmentVariable("GRAFT_TORCHVISION_DIR");
  const QString torchRoot = loadedTorchRoot();
  const QString dir = !override.isEmpty() ? override
                      : torchRoot.isEmpty() ? QString()
                                            : QDir::cleanPath(torchRoot + QStringLiteral("/../torchvision"));
  s.path = dir;
  const QString how = QStringLiteral(
                          "Install the torchvision release that matches this torch into the same environment "
                          "(pip install torchvision==%1), or set GRAFT_TORCHVISION_DIR to its package folder.")
                          .arg(matchingTorchvision());
  if (dir.isEmpty() || !QFileInfo(dir).isDir()) {
    s.message = QStringLiteral("torchvision was not found beside libtorch (%1). %2")
                    .arg(dir.isEmpty() ? QStringLiteral("its location is unknown") : dir, how);
    return s;
  }
  s.version = packageVersion(dir);
  QStringList libs = QDir(dir).entryList(
      {QStringLiteral("_C.so"), QStringLiteral("_C_stable.so"), QStringLiteral("_C.*.so")}, QDir::Files);
  if (libs.isEmpty()) {
    s.message = QStringLiteral("%1 holds no operator library (_C.so). %2").arg(dir, how);
    return s;
  }
  const QString lib = dir + QLatin1Char('/') + libs.front();
  QString error;
  if (!openGlobal(lib, &error)) {
    // Its dependency on libtorch_python is the usual reason: bring the Python runtime and retry.
    const QString torchLib = torchRoot + QStringLiteral("/lib/libtorch_python.so");
    QString pyError;
    if (!(loadPythonRuntime(QDir::cleanPath(dir + QStringLiteral("/..")), &pyError) && openGlobal(torchLib, &pyError) &&
          openGlobal(lib, &error))) {
      s.message = QStringLiteral("torchvision's operator library %1 could not be loaded: %2%3. %4")
                      .arg(lib, error, pyError.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(pyError), how);
      return s;
    }
  }
  s.loaded = true;
  s.path = lib;
  return s;
}

}  // namespace

QString packageVersion(const QString& packageDir) {
  QFile f(packageDir + QStringLiteral("/version.py"));
  if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) return {};
  static const QRegularExpression re(QStringLiteral(R"(__version__\s*=\s*['"]([^'"]+)['"])"));
  const auto m = re.match(QString::fromUtf8(f.readAll()));
  return m.hasMatch() ? m.captured(1) : QString();
}

QString loadedTorchRoot() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<const void*>(&at::globalContext), &info) || !info.dli_fname) return {};
  // .../torch/lib/libtorch_cpu.so -> .../torch
  return QDir::cleanPath(QFileInfo(QString::fromLocal8Bit(info.dli_fname)).canonicalPath() + QStringLiteral("/.."));
}

const OperatorLibraryStatus& loadTorchvisionOperators() {
  static const OperatorLibraryStatus status = findAndLoad();
  return status;
}

}  // namespace graft::core::io
