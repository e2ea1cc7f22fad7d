"""Draw the application icon (a document with a magnifier) with QPainter.

    QT_QPA_PLATFORM=offscreen .venv/bin/python resources/make_icon.py

Writes resources/icon.png (512 px); Qt scales it for the window, taskbar and dock.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QGuiApplication, QImage, QLinearGradient, QPainter, QPainterPath, QPen

HERE = Path(__file__).resolve().parent


def draw(size: int = 512) -> QImage:
    img = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    img.fill(Qt.GlobalColor.transparent)
    p = QPainter(img)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.scale(size / 512, size / 512)

    # Rounded square background, blue gradient.
    bg = QLinearGradient(0, 0, 512, 512)
    bg.setColorAt(0, QColor("#3b82f6"))
    bg.setColorAt(1, QColor("#1d4ed8"))
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(QBrush(bg))
    p.drawRoundedRect(QRectF(16, 16, 480, 480), 108, 108)

    # Document with a folded corner.
    doc = QPainterPath()
    doc.moveTo(132, 96)
    doc.lineTo(300, 96)
    doc.lineTo(380, 176)
    doc.lineTo(380, 416)
    doc.quadTo(380, 432, 364, 432)
    doc.lineTo(148, 432)
    doc.quadTo(132, 432, 132, 416)
    doc.closeSubpath()
    p.setBrush(QColor("#ffffff"))
    p.drawPath(doc)
    fold = QPainterPath()
    fold.moveTo(300, 96)
    fold.lineTo(300, 160)
    fold.quadTo(300, 176, 316, 176)
    fold.lineTo(380, 176)
    fold.closeSubpath()
    p.setBrush(QColor("#bfd3fb"))
    p.drawPath(fold)

    # Text lines, one highlighted like a cited quote.
    p.setBrush(QColor("#cbd5e1"))
    for y, w in ((212, 170), (252, 200), (332, 120)):
        p.drawRoundedRect(QRectF(168, y, w, 18), 9, 9)
    p.setBrush(QColor(255, 200, 0, 230))
    p.drawRoundedRect(QRectF(160, 284, 190, 30), 8, 8)
    p.setBrush(QColor("#475569"))
    p.drawRoundedRect(QRectF(170, 291, 150, 16), 8, 8)

    # Magnifier over the lower right corner.
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.setPen(QPen(QColor("#0f172a"), 30, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
    p.drawLine(QPointF(392, 392), QPointF(446, 446))
    p.setPen(QPen(QColor("#0f172a"), 24))
    p.setBrush(QColor(255, 255, 255, 150))
    p.drawEllipse(QPointF(340, 340), 70, 70)
    p.end()
    return img


def main() -> int:
    app = QGuiApplication.instance() or QGuiApplication(sys.argv)
    img = draw(512)
    img.save(str(HERE / "icon.png"))
    del app
    print(f"wrote {HERE / 'icon.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
