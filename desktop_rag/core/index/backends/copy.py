"""Copy documents between two libraries without re-embedding (``main.py library push URL``:
this computer -> team server; ``library pull URL``: team server -> this computer).

Works on the ``LibraryStore`` interface only: each document is read with its page texts,
chunks (BM25 tokens, embeddings) and statements, and written to the target in one
transaction; documents the target already has (same content hash) are skipped, so a copy
that was interrupted is finished by running it again. Both libraries must have been built
alike (embedder, dimension, chunking, tokenizer): vectors of another model, or chunks of
another chunking, would silently mix.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from desktop_rag.core.domain.types import Chunk
from desktop_rag.core.index.backends.base import LibraryStore, ReadOnlyLibrary

MUST_MATCH = ("embedder", "dim", "chunking", "tokenizer")
CARRIED = ("schema_version", "embedder", "dim", "chunking", "tokenizer", "extractor")


@dataclass
class CopyReport:
    added: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (file, why)
    chunks: int = 0


def incompatibilities(source: dict, target: dict) -> list[str]:
    """Why documents of ``source`` cannot join ``target`` ([] = they can; an empty target
    takes the source's manifest)."""
    if not target.get("schema_version"):
        return []
    return [f"{k}: source has {source.get(k)!r}, target has {target.get(k)!r}"
            for k in MUST_MATCH if source.get(k) != target.get(k)]


def copy_library(source: LibraryStore, target: LibraryStore, log: Callable[[str], None] = lambda _m: None) -> CopyReport:
    if not target.can_write():
        raise ReadOnlyLibrary()
    src_manifest, dst_manifest = source.manifest(), target.manifest()
    if not src_manifest.get("schema_version"):
        raise ValueError("the source library is empty")
    problems = incompatibilities(src_manifest, dst_manifest)
    if problems:
        raise ValueError("the two libraries were built differently, so their vectors cannot be mixed: "
                         + "; ".join(problems))
    if not dst_manifest.get("schema_version"):
        target.set_manifest_values(**{k: src_manifest[k] for k in CARRIED if k in src_manifest})
    report = CopyReport()
    # in the source's chunk order, so the copy's chunk ids keep it (ties in retrieval scores
    # are broken by that order: the same question then gets the same passages on both)
    first = {doc.doc_id: min((r[0] for r in source.chunk_rows([doc.doc_id])), default=0)
             for doc in source.documents()}
    docs = sorted(source.documents(), key=lambda d: first[d.doc_id])
    for i, doc in enumerate(docs, 1):
        if target.has_document(doc.doc_id):
            report.skipped.append((doc.file_name, "already there"))
            continue
        texts = source.page_texts(doc.doc_id)
        rows = sorted(source.chunk_rows([doc.doc_id]), key=lambda r: r[2])  # by ordinal
        if any(len(r[9]) == 0 for r in rows):
            report.skipped.append((doc.file_name, "its embeddings are not complete yet (run ingest once)"))
            continue
        chunks = [Chunk(-1, doc.doc_id, r[2], r[3], r[4], r[5], texts[r[3] - 1][r[4]:r[5]], r[6], r[7]) for r in rows]
        tokens = [r[8].split() for r in rows]
        vectors = (np.frombuffer(b"".join(r[9] for r in rows), dtype=np.float32).reshape(len(rows), -1)
                   if rows else None)
        statements = source.load_statements(doc.doc_id)
        if target.add_document(doc, texts, chunks, tokens, vectors, statements) is None:
            report.skipped.append((doc.file_name, "added meanwhile by someone else"))
            continue
        report.added.append(doc.file_name)
        report.chunks += len(rows)
        log(f"[{i}/{len(docs)}] {doc.file_name}: {len(rows)} chunks copied")
    return report
