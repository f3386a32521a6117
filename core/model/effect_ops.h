#pragma once
// Which operators reach outside the process: files, mapped memory, other processes, the network.
// A model file is data; running one of these ops is what the user must have trusted the file for
// (run/outside_effects.h refuses such runs, io/code_scan.h refuses such code at load).
//
// The list is made from libtorch's own operator registry, not typed in: every registered schema
// is classified by its namespace (distributed collectives and symmetric memory talk to other
// processes), by its arguments (a `str` argument named filename, file, path, fd, url, host or
// port names something outside), and by name for the few that say it otherwise (aten::save,
// RPC calls, debugprims::load_tensor). An op a later libtorch adds with such an argument is
// caught without a change here.
#include <QtCore/QString>
#include <QtCore/QStringList>

namespace graft::core::model {

// Why `qualifiedName` ("aten::save") reaches outside the process, in words ("writes the file its
// `filename` argument names"); empty when it does not. Overload names are ignored.
QString outsideEffectOf(const QString& qualifiedName);

// Every registered operator that reaches outside the process, qualified ("aten::from_file"),
// sorted: for documentation and tests.
QStringList outsideEffectOps();

}  // namespace graft::core::model
