// Precompiled header for graft_ui: Qt Widgets (ui/ headers never include libtorch).
#pragma once
#include <QtWidgets/QtWidgets>
