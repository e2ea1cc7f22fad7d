"""Raw page text for the verbatim-quote check: canonical characters mapped back to the page's own."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from desktop_rag.evaluation.pages import raw_text_from


def test_raw_text_from_maps_boxes_back_to_the_drawn_characters():
    a, b, c, d, e = (0, 0, 1, 1), (1, 0, 2, 1), (2, 0, 3, 1), (3, 0, 4, 1), (4, 0, 5, 1)
    zero = (0.0, 0.0, 0.0, 0.0)
    # canonical "it's ffi\nx": the apostrophe was folded, the ligature expanded into 3 characters
    canonical = "it's ffi\nx"
    boxes = [a, b, c, d, zero, e, e, e, zero, (9, 9, 10, 10)]
    raw = {a: "i", b: "t", c: "\u2019", d: "s", e: "\ufb03"}
    assert raw_text_from(canonical, boxes, raw) == "it\u2019s \ufb03\nx"  # unknown box: canonical char kept
