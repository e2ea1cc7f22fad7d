"""The dense side of retrieval: an hnswlib graph over the chunks' unit vectors, saved beside
the library's SQLite file as ``dense.<writer>.hnsw`` + ``dense.json`` (atomically, no pickle)
and rebuilt from the stored embeddings when missing or stale.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import hnswlib
import numpy as np

from desktop_rag.settings import write_text_atomic


class DenseIndex:
    """hnswlib inner-product index over unit vectors, labels = chunk ids.

    ``m`` and ``ef_construction`` shape the graph and are part of its manifest (a saved
    graph built with other values is rebuilt); ``ef_search`` applies at query time only.
    """

    def __init__(self, dim: int, path: Path, ef_search: int = 400, m: int = 64, ef_construction: int = 400) -> None:
        self.dim = dim
        self.path = path
        self.ef_search = ef_search
        self.m = m
        self.ef_construction = ef_construction
        self._index: hnswlib.Index | None = None
        self._count = 0
        self.generation = -1  # the store generation this graph reflects (set by the Library)
        self._lock = threading.RLock()

    def _new(self, capacity: int) -> hnswlib.Index:
        index = hnswlib.Index(space="ip", dim=self.dim)
        index.init_index(max_elements=max(capacity, 1024), ef_construction=self.ef_construction, M=self.m,
                         allow_replace_deleted=True)
        index.set_ef(self.ef_search)
        return index

    @property
    def params(self) -> dict[str, int]:
        """The graph-shaping parameters, as recorded in the manifest."""
        return {"M": self.m, "ef_construction": self.ef_construction}

    def __len__(self) -> int:
        return self._count

    def build(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        with self._lock:
            index = self._new(len(ids) + 1024)
            if len(ids):
                index.add_items(vectors, ids)
            self._index, self._count = index, len(ids)

    def add(self, ids: list[int], vectors: np.ndarray) -> None:
        if not ids:
            return
        with self._lock:
            if self._index is None:
                self._index = self._new(len(ids) + 1024)
            need = self._index.get_current_count() + len(ids)
            if need > self._index.get_max_elements():
                self._index.resize_index(max(need, 2 * self._index.get_max_elements()))
            self._index.add_items(vectors, np.asarray(ids, dtype=np.int64))
            self._count += len(ids)

    def remove(self, ids: Iterable[int]) -> None:
        with self._lock:
            if self._index is None:
                return
            for i in ids:
                try:
                    self._index.mark_deleted(int(i))
                    self._count -= 1
                except RuntimeError:
                    pass  # not in the index (already removed)

    def search(self, vector: np.ndarray, k: int, allowed: set[int] | None = None) -> list[tuple[int, float]]:
        """Top-k (chunk_id, cosine)."""
        with self._lock:
            if self._index is None or self._count == 0:
                return []
            k = min(k, self._count)
            flt = (lambda label: label in allowed) if allowed is not None else None
            if allowed is not None:
                k = min(k, len(allowed))
                if k == 0:
                    return []
            self._index.set_ef(max(self.ef_search, k))
            try:
                labels, dists = self._index.knn_query(vector.reshape(1, -1), k=k, filter=flt)
            except RuntimeError:
                # hnswlib cannot return k results (heavy filtering): ask for fewer.
                labels, dists = self._index.knn_query(vector.reshape(1, -1), k=max(1, k // 4), filter=flt)
        return [(int(lab), float(1.0 - d)) for lab, d in zip(labels[0], dists[0], strict=True)]

    def save(self, manifest: dict[str, Any]) -> None:
        """Write the graph to a file of its own, then point the manifest at it (one atomic
        rename). Two processes saving at once (two ``ingest`` runs) then never pair one's graph
        with the other's manifest: whichever manifest lands last names a complete graph."""
        with self._lock:
            if self._index is None:
                return
            graph = self.path.with_name(f"{self.path.stem}.{os.getpid()}-{time.time_ns()}{self.path.suffix}")
            tmp = graph.with_name(f".{graph.name}.tmp")
            self._index.save_index(str(tmp))
            with open(tmp, "rb") as fh:
                os.fsync(fh.fileno())
            os.replace(tmp, graph)
            write_text_atomic(self.path.with_suffix(".json"), json.dumps(
                {**manifest, "hnsw": self.params, "count": self._count, "graph": graph.name}))
            self._remove_stale_graphs(keep=graph.name)

    def _remove_stale_graphs(self, keep: str, min_age_s: float = 60.0) -> None:
        """Delete graphs no manifest names any more. A graph younger than a minute may be
        another process's, written but not yet named by its manifest: it stays until later."""
        now = time.time()
        for old in self.path.parent.glob(f"{self.path.stem}*{self.path.suffix}"):
            try:
                if old.name != keep and now - old.stat().st_mtime > min_age_s:
                    old.unlink()
            except OSError:
                pass  # gone already, or still open on a system that forbids it: next save

    @property
    def graph_path(self) -> Path | None:
        """The graph file the manifest names (None when nothing was saved)."""
        try:
            name = json.loads(self.path.with_suffix(".json").read_text("utf-8")).get("graph")
        except (OSError, ValueError):
            return None
        return self.path.with_name(name) if isinstance(name, str) and "/" not in name else None

    def load(self, manifest: dict[str, Any]) -> bool:
        """Load the saved graph if it was built from exactly this manifest."""
        meta_path = self.path.with_suffix(".json")
        try:
            saved = json.loads(meta_path.read_text("utf-8"))
        except (OSError, ValueError):
            return False
        if any(saved.get(k) != v for k, v in {**manifest, "hnsw": self.params}.items()):
            return False
        graph = saved.get("graph")
        if not isinstance(graph, str) or "/" in graph or "\\" in graph:
            return False  # written before graphs had their own names: rebuild once
        try:
            index = hnswlib.Index(space="ip", dim=self.dim)
            index.load_index(str(self.path.with_name(graph)), allow_replace_deleted=True)
            index.set_ef(self.ef_search)
        except (RuntimeError, OSError, ValueError):
            return False
        with self._lock:
            self._index, self._count = index, int(saved.get("count", index.get_current_count()))
        return True
