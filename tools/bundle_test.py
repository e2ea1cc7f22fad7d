"""Smoke test of the frozen one-folder bundle (``make bundle-test``; not part of ``make test``).

Runs the bundle's own executables, never the checkout's Python code: ``desktop_rag-cli``
ingests a bundled corpus 10-Q, answers ``search --json`` and ``ask --json`` (every quote must
be exact page text, checked here against the PDF with the checkout's page reader), all under
``unshare -n`` when that works (root on Linux); then the desktop app starts offscreen and must log
its ready line (window shown, library open) and load its model. The bundled llama.cpp must not
use instructions beyond AVX2 (checked with objdump). User data
goes to a temporary folder; the bundle folder must be byte-for-byte unchanged afterwards.
Prints the folder size, what dominates it, and cold-start times.

    .venv/bin/python tools/bundle_test.py [dist/desktop_rag-<version>]
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from desktop_rag import APP_NAME, __version__  # noqa: E402
from desktop_rag.core.ingest.pdf import extract_page, fold_text, match_form  # noqa: E402

QUESTION = "What was Apple's total net sales in Q3 2023?"
FILING = "2023 Q3 AAPL.pdf"
FIGURE = "81,797"


def fail(msg: str) -> None:
    print(f"FAIL: {msg}", flush=True)
    sys.exit(1)


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in folder.rglob("*") if p.is_file() and not p.is_symlink()}


def size_report(folder: Path) -> list[str]:
    total = sum(s for s, _ in snapshot(folder).values())
    internal = folder / "_internal"
    parts: dict[str, int] = {}
    for p in internal.rglob("*"):
        if p.is_file() and not p.is_symlink():
            top = p.relative_to(internal).parts[0]
            parts[top] = parts.get(top, 0) + p.stat().st_size
    lines = [f"bundle size: {total / 2**20:.0f} MB ({folder})"]
    for name, size in sorted(parts.items(), key=lambda kv: -kv[1])[:12]:
        lines.append(f"  {size / 2**20:8.1f} MB  _internal/{name}")
    return lines


# Instruction sets beyond x86-64-v3 (AVX2/FMA/F16C/BMI2): AVX-512 (zmm and mask registers,
# EVEX-only mnemonics) and VNNI. A llama.cpp built with -march=native on a newer CPU picks them
# up and the bundle then dies with SIGILL on an ordinary laptop.
BEYOND_V3 = ("zmm", "%k1", "%k2", "%k3", "%k4", "%k5", "%k6", "%k7", "vpdpbusd", "vpdpwssd", "vcvtne2ps2bf16",
             "vdpbf16ps", "vpermt2", "vpternlog", "tdpbssd")


def llama_isa(bundle: Path) -> tuple[bool, str]:
    """(portable, what the bundled ggml/llama libraries use) by disassembling them."""
    libs = sorted({p.resolve() for p in bundle.rglob("*") if p.is_file()
                   and p.name.startswith(("libggml", "libllama", "ggml", "llama"))
                   and (".so" in p.name or p.suffix in (".dll", ".dylib"))})  # resolved: .so links once
    if not libs:
        return False, "no llama.cpp library found in the bundle"
    if not shutil.which("objdump") or not sys.platform.startswith("linux"):
        return True, "instruction sets NOT checked (needs objdump on Linux)"
    found: dict[str, set[str]] = {}
    avx2 = False
    for lib in libs:
        asm = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(lib)], capture_output=True, text=True).stdout
        avx2 = avx2 or "%ymm" in asm
        for marker in BEYOND_V3:
            if marker in asm:
                found.setdefault(marker, set()).add(lib.name)
    if found:
        return False, f"llama.cpp uses instructions beyond AVX2 (x86-64-v3): {sorted(found)}"
    return True, (f"llama.cpp: {'AVX2/FMA (x86-64-v3)' if avx2 else 'no AVX2'}, no AVX-512/VNNI "
                  f"({len(libs)} libraries disassembled): runs on x86-64 CPUs with AVX2 (Intel 2013+, AMD Zen)")


def network_prefix() -> tuple[list[str], str]:
    if not sys.platform.startswith("linux") or os.geteuid() != 0 or not shutil.which("unshare"):
        return [], "network namespace NOT removed (needs root and unshare on Linux)"
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True)
    if probe.returncode != 0:
        return [], f"network namespace NOT removed (unshare -n failed: {probe.stderr.decode()[:120]})"
    return ["unshare", "-n"], "run under unshare -n (no network)"


def main() -> int:
    bundle = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "dist" / f"{APP_NAME}-{__version__}"
    cli_exe = bundle / (f"{APP_NAME}-cli.exe" if os.name == "nt" else f"{APP_NAME}-cli")
    gui_exe = bundle / (f"{APP_NAME}.exe" if os.name == "nt" else APP_NAME)
    if not cli_exe.is_file():
        fail(f"no bundle at {bundle} (run `make bundle` first)")
    for line in size_report(bundle):
        print(line)
    portable, isa_note = llama_isa(bundle)
    print(isa_note)
    if not portable:
        fail(f"{isa_note}; was the bundle built by `make bundle` (it packs the portable build of "
             ".cache/bundle-site, not the native one of .venv)?")
    before = snapshot(bundle)
    prefix, net_note = network_prefix()
    print(net_note)

    work = Path(tempfile.mkdtemp(prefix="bundle-test-"))
    home = work / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DESKTOP_RAG_", "HF_", "TRANSFORMERS_", "PYTHON"))}
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "data"), XDG_CONFIG_HOME=str(home / "config"),
               XDG_CACHE_HOME=str(home / "cache"))  # the platform folders, in a temp dir
    data = work / "data"

    def run(*args: str, timeout: float = 1800) -> tuple[subprocess.CompletedProcess, float]:
        t0 = time.perf_counter()
        proc = subprocess.run([*prefix, str(cli_exe), "--data-dir", str(data), *args], capture_output=True,
                              text=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL)
        return proc, time.perf_counter() - t0

    proc, version_s = run("--version")
    if proc.returncode != 0 or __version__ not in proc.stdout + proc.stderr:
        fail(f"--version: {proc.returncode} {proc.stderr[-2000:]}")
    proc, docs_s = run("docs")
    if proc.returncode != 0:
        fail(f"docs: {proc.stderr[-2000:]}")
    print(f"cold start: --version {version_s:.1f} s, `docs` (opens the index) {docs_s:.1f} s")

    corpus_pdf = next(bundle.rglob(f"corpus/{FILING}"), None)
    if corpus_pdf is None:
        fail(f"the bundled corpus has no {FILING}")
    pdf = work / FILING
    shutil.copy(corpus_pdf, pdf)
    proc, ingest_s = run("ingest", str(pdf))
    if proc.returncode != 0 or "1 added" not in proc.stderr:
        fail(f"ingest: {proc.stderr[-3000:]}")
    print(f"ingest {FILING}: {ingest_s:.1f} s")

    import pymupdf

    doc = pymupdf.open(pdf)
    if doc.needs_pass:
        doc.authenticate("")
    pages = [extract_page(page).text for page in doc]
    doc.close()

    proc, search_s = run("search", "--json", "--k", "5", QUESTION)
    if proc.returncode != 0:
        fail(f"search: {proc.stderr[-3000:]}")
    hits = json.loads(proc.stdout.strip().splitlines()[-1])["hits"]
    if not any(FIGURE in h["text"] for h in hits) or any(h["text"] not in pages[h["page_start"] - 1] for h in hits):
        fail(f"search hits: {hits}")
    print(f"search --json: {search_s:.1f} s, {len(hits)} hits, page-exact")

    proc, ask_s = run("ask", "--json", QUESTION)
    if proc.returncode != 0:
        fail(f"ask: {proc.stderr[-3000:]}")
    answer = json.loads(proc.stdout.strip().splitlines()[-1])
    if answer["not_in_corpus"] or not answer["citations"]:
        fail(f"ask: {answer}")
    for c in answer["citations"]:
        if fold_text(c["quote"]) not in match_form(pages[c["page"] - 1]):
            fail(f"quote is not page text: {c}")
    print(f"ask --json: {ask_s:.1f} s, model {answer['model']}, answer {answer['answer']!r}, "
          f"{len(answer['citations'])} exact quote(s)")

    # The desktop app, offscreen: it logs "ready:" once its window is shown and its library
    # open, then "model loaded:" when the GGUF has loaded behind it; no error in between.
    gui_env = {**env, "QT_QPA_PLATFORM": "offscreen"}
    gui_data = work / "gui-data"
    t0 = time.perf_counter()
    gui = subprocess.Popen([str(gui_exe), "--data-dir", str(gui_data), "--no-corpus"], env=gui_env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    log_path = gui_data / "logs" / f"{APP_NAME}.log"
    seen: dict[str, float] = {}
    while time.perf_counter() - t0 < 300 and gui.poll() is None and len(seen) < 2:
        text = log_path.read_text("utf-8", "replace") if log_path.is_file() else ""
        for marker in ("ready:", "model loaded:"):
            if marker in text and marker not in seen:
                seen[marker] = time.perf_counter() - t0
        if " ERROR " in text:
            break
        time.sleep(0.1)
    alive = gui.poll() is None
    gui.send_signal(signal.SIGTERM)
    try:
        out = gui.communicate(timeout=30)[0]
    except subprocess.TimeoutExpired:
        gui.kill()
        out = gui.communicate()[0]
    log_text = log_path.read_text("utf-8", "replace") if log_path.is_file() else "(no log)"
    if not alive or len(seen) < 2 or " ERROR " in log_text or "Traceback" in out:
        fail(f"the desktop app did not start cleanly (seen: {seen}):\n{log_text[-2000:]}\n{out[-2000:]}")
    print(f"desktop app (offscreen): window shown and library open in {seen['ready:']:.1f} s, "
          f"model loaded {seen['model loaded:']:.1f} s after launch, no error logged")

    after = snapshot(bundle)
    changed = sorted(set(before.items()) ^ set(after.items()))
    if changed:
        fail(f"the app wrote into its bundle: {changed[:10]}")
    print("bundle unchanged by the runs (user data went to the data folder)")
    shutil.rmtree(work, ignore_errors=True)
    print("bundle-test: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
