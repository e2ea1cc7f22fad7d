"""A computed answer (``Answer.calculation``, the shared contract of ``ask --json``) shows a
calculation card; clicking an input opens its page with exactly that cell highlighted."""

from __future__ import annotations

import pymupdf
import pytest
from PySide6.QtCore import Qt

from desktop_rag.core.domain.types import Answer, Citation
from desktop_rag.gui.text import displayed_text

pytestmark = pytest.mark.gui


def test_calculation_card_inputs_open_the_exact_cell(qtbot, fake_window) -> None:  # type: ignore[no-untyped-def]
    win = fake_window()
    apple = next(d for d in win.docs if "AAPL" in d.file_name)
    pdf = pymupdf.open(apple.path)
    cell = pdf[1].search_for("7,442")[0]  # the R&D cell of the statement of operations
    pdf.close()
    calc = {
        "metric": "R&D as a share of net sales", "formula": "research_and_development / total_net_sales",
        "result": 9.098, "unit": "percent",
        "inputs": [
            {"label": "Research and development", "period": "Q3 FY2023", "value": 7442.0, "unit": "usd_millions",
             "doc": apple.file_name, "page": 2, "quote": "Research and development 7,442 6,797",
             "bbox": [cell.x0, cell.y0, cell.x1, cell.y1]},
            {"label": "Total net sales", "period": "Q3 FY2023", "value": 81797.0, "unit": "usd_millions",
             "doc": apple.file_name, "page": 2, "quote": "Total net sales 81,797 82,959"},
        ],
    }
    ans = Answer("What share of net sales went to R&D in Q3 2023?", "R&D was 9.1% of net sales.",
                 [Citation(apple.doc_id, apple.file_name, 2, "Research and development 7,442 6,797")])
    ans.calculation = calc  # type: ignore[attr-defined]
    ans.computed = True  # type: ignore[attr-defined]
    win.conv_id = win.ws.history.new_conversation()
    ex = win.chat.add_exchange(ans.query)
    win._answered(ex, ans, win.conv_id)
    card = ex.calculation_card
    assert card is not None and ex.badge_texts() == ["Computed"]
    assert displayed_text(card.title) == "R&D as a share of net sales = 9.1%"
    assert ex.text.isHidden()  # the card, not its one-line form repeated above it
    assert len(card.chips) == 2
    assert "Research and development Q3 FY2023 = $7,442 million" in displayed_text(card.chips[0].text_label)

    qtbot.mouseClick(card.chips[0], Qt.MouseButton.LeftButton)
    assert win.viewer.path is not None and win.viewer.path.name == apple.file_name
    assert win.viewer.highlight_page == 2 and win.viewer.current_page == 2
    assert win.viewer.highlight_rects == [(cell.x0, cell.y0, cell.x1, cell.y1)]

    qtbot.mouseClick(card.chips[1], Qt.MouseButton.LeftButton)  # no box: the quote is located
    rects = win.viewer.highlight_rects
    assert rects and all(r[1] < cell.y0 for r in rects)  # the net sales row is above the R&D row


def test_core_calculation_objects_highlight_exactly_the_cell(qtbot, fake_window) -> None:  # type: ignore[no-untyped-def]
    from desktop_rag.core.domain.types import Calculation, CalculationInput

    win = fake_window()
    apple = next(d for d in win.docs if "AAPL" in d.file_name)
    text = win.ws.library.page_text(apple.doc_id, 2)
    start = text.index("7,442")
    inp = CalculationInput("Research and development", "3 months ended 2023-07-01", 7442.0, "millions",
                           apple.file_name, 2, "Research and development 7,442 6,797", doc_id=apple.doc_id,
                           cell_start=start, cell_end=start + len("7,442"))
    ans = Answer("R&D in Q3 2023?", "$7,442 million", [Citation(apple.doc_id, apple.file_name, 2, inp.quote)],
                 calculation=Calculation("Research and development", "", [inp], 7442.0, "usd_millions"), computed=True)
    win.conv_id = win.ws.history.new_conversation()
    ex = win.chat.add_exchange(ans.query)
    win._answered(ex, ans, win.conv_id)
    card = ex.calculation_card
    assert card is not None and ex.badge_texts() == ["Computed"]
    assert "= 7,442 million" in displayed_text(card.chips[0].text_label)
    qtbot.mouseClick(card.chips[0], Qt.MouseButton.LeftButton)
    # the cell's span is read from the library in the background, then highlighted
    qtbot.waitUntil(lambda: bool(win.viewer.highlight_rects), timeout=10_000)
    rects = win.viewer.highlight_rects
    pdf = pymupdf.open(apple.path)
    cell = pdf[1].search_for("7,442")[0]
    pdf.close()
    assert len(rects) == 1 and win.viewer.current_page == 2
    x0, y0, x1, y1 = rects[0]
    assert abs(x0 - cell.x0) < 2 and abs(x1 - cell.x1) < 2 and y0 < cell.y1 and y1 > cell.y0  # the cell, not the row


def test_asked_on_a_real_filing_the_chip_highlights_the_extracted_cells_box(qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """End to end on the bundled Apple 10-Q (a real statement page, not a generated one): the
    question is asked in the window, the calculator reads the cash-flow statement at ingest's
    extraction, and clicking the input chip draws exactly the box of the printed cell "(8,796)"."""
    from desktop_rag.core.index.library import IngestReport
    from desktop_rag.core.workspace import Workspace
    from desktop_rag.gui.main_window import MainWindow
    from tests.conftest import FakeEmbedder

    from .conftest import CORPUS_FILING, MODELS_DIR

    ws = Workspace(tmp_path / "home", MODELS_DIR)
    ws.embedder = ws.library.embedder = FakeEmbedder()  # type: ignore[assignment]
    report = IngestReport()
    for _ in ws.library.ingest([CORPUS_FILING], report=report):
        pass
    assert report.added and not report.failed
    win = MainWindow(workspace=ws, ingest_bundled_corpus=False, load_model=False)
    qtbot.addWidget(win)
    try:
        win.show()
        qtbot.waitUntil(lambda: win._library_ready, timeout=20_000)
        ex = win.ask("What was Apple's capital expenditure in the nine months ended July 1, 2023?")
        assert ex is not None
        qtbot.waitUntil(lambda: ex.calculation_card is not None, timeout=60_000)
        card = ex.calculation_card
        assert ex.badge_texts() == ["Computed"] and len(card.chips) == 1
        calc = win.last_answer.calculation
        [inp] = calc.inputs
        assert inp.page == 8 and inp.value == -8796 and inp.bbox is not None

        qtbot.mouseClick(card.chips[0], Qt.MouseButton.LeftButton)
        assert win.viewer.path is not None and win.viewer.path.name == CORPUS_FILING.name
        assert win.viewer.current_page == 8 and win.viewer.highlight_page == 8
        [rect] = win.viewer.highlight_rects
        assert rect == pytest.approx(tuple(inp.bbox))
        # the box is the printed cell's (located independently on the page), not the row's
        pdf = pymupdf.open(CORPUS_FILING)
        cells = pdf[7].search_for("(8,796)")
        pdf.close()
        assert len(cells) == 1
        cell = cells[0]
        assert rect == pytest.approx((cell.x0, cell.y0, cell.x1, cell.y1), abs=1.5)
    finally:
        win.shutdown()


def test_a_change_is_shown_signed_in_its_unit() -> None:
    """A trend's result is a change: percentage points for a ratio, the sign before the dollar."""
    from desktop_rag.gui.chat_pane import format_value

    assert format_value(-2.2, "percentage_points") == "-2.2 percentage points"
    assert format_value(2.73, "percentage_points") == "+2.73 percentage points"
    assert format_value(-2544.0, "usd_millions") == "-$2,544 million"
    assert format_value(36.8, "percent") == "36.8%"
