# The libtorch inside a torch wheel, linked directly: torch, torch_cpu and c10 with their include
# folders. TorchConfig.cmake is avoided on purpose: in a CUDA wheel it looks for a CUDA toolkit,
# which Graft never needs (CUDA is reached at run time through libtorch).
#
# Where it looks, first match wins:
#   -DGRAFT_TORCH_DIR=/path/to/site-packages/torch   (or a libtorch archive's root)
#   $GRAFT_PYTHON / .venv/bin/python in the source tree / python3 on PATH: the torch it imports
# Defines the imported target graft::torch, GRAFT_TORCH_DIR and GRAFT_TORCH_VERSION.

set(GRAFT_TORCH_DIR "" CACHE PATH "Root of a torch installation (site-packages/torch or a libtorch archive)")

if(NOT GRAFT_TORCH_DIR)
  set(_graft_pythons)
  if(DEFINED ENV{GRAFT_PYTHON})
    list(APPEND _graft_pythons "$ENV{GRAFT_PYTHON}")
  endif()
  list(APPEND _graft_pythons "${PROJECT_SOURCE_DIR}/.venv/bin/python")
  find_program(_graft_system_python NAMES python3)
  if(_graft_system_python)
    list(APPEND _graft_pythons "${_graft_system_python}")
  endif()
  foreach(_py IN LISTS _graft_pythons)
    if(EXISTS "${_py}")
      # find_spec locates torch without importing it (importing takes seconds).
      execute_process(
        COMMAND "${_py}" -c "import importlib.util as u; s = u.find_spec('torch'); print(s.submodule_search_locations[0] if s else '')"
        OUTPUT_VARIABLE _dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      if(_dir AND EXISTS "${_dir}/lib")
        set(GRAFT_TORCH_DIR "${_dir}" CACHE PATH "Root of a torch installation" FORCE)
        break()
      endif()
    endif()
  endforeach()
endif()

if(NOT GRAFT_TORCH_DIR OR NOT EXISTS "${GRAFT_TORCH_DIR}/include/torch/script.h")
  message(FATAL_ERROR "No libtorch found. Run `bash packaging/dev.sh build` (it makes .venv with the "
                      "pinned torch wheel), or pass -DGRAFT_TORCH_DIR=/path/to/site-packages/torch.")
endif()

# The version the headers belong to: torch/headeronly/version.h on newer releases,
# torch/csrc/api/include/torch/version.h on older ones.
foreach(_header headeronly/version.h csrc/api/include/torch/version.h)
  if(EXISTS "${GRAFT_TORCH_DIR}/include/torch/${_header}")
    file(STRINGS "${GRAFT_TORCH_DIR}/include/torch/${_header}" _defines REGEX "define TORCH_VERSION_(MAJOR|MINOR|PATCH) ")
    if(_defines)
      break()
    endif()
  endif()
endforeach()
set(_parts)
foreach(_part MAJOR MINOR PATCH)
  string(REGEX MATCH "TORCH_VERSION_${_part} ([0-9]+)" _ "${_defines}")
  list(APPEND _parts "${CMAKE_MATCH_1}")
endforeach()
list(JOIN _parts "." GRAFT_TORCH_VERSION)
if(GRAFT_TORCH_VERSION VERSION_LESS 2.11)
  message(FATAL_ERROR "Graft needs libtorch 2.11 or newer; ${GRAFT_TORCH_DIR} holds ${GRAFT_TORCH_VERSION}.")
endif()

set(_graft_torch_libs)
foreach(_lib torch torch_cpu c10)
  find_library(GRAFT_LIB_${_lib} NAMES ${_lib} PATHS "${GRAFT_TORCH_DIR}/lib" NO_DEFAULT_PATH REQUIRED)
  list(APPEND _graft_torch_libs "${GRAFT_LIB_${_lib}}")
endforeach()

add_library(graft_torch INTERFACE)
add_library(graft::torch ALIAS graft_torch)
target_include_directories(graft_torch SYSTEM INTERFACE
  "${GRAFT_TORCH_DIR}/include" "${GRAFT_TORCH_DIR}/include/torch/csrc/api/include")
# Keep libtorch.so on the link line even though no symbol is taken from it: it pulls in
# libtorch_cuda, whose start-up registers the CUDA hooks behind torch::cuda::is_available().
target_link_libraries(graft_torch INTERFACE -Wl,--no-as-needed ${_graft_torch_libs})
# The wheels use the C++11 ABI since torch 2.7, as Debian's Qt does.
target_compile_definitions(graft_torch INTERFACE _GLIBCXX_USE_CXX11_ABI=1)
message(STATUS "libtorch ${GRAFT_TORCH_VERSION} from ${GRAFT_TORCH_DIR}")
