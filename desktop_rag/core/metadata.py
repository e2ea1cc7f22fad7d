"""Document metadata (company, form, fiscal period) from the file name and first pages.

File-name hints win over text: analysts name files the way they refer to them
("2023 Q1 NVDA.pdf"), and filings are inconsistent about fiscal vs calendar labels.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

from desktop_rag.core.types import DocumentMeta

# A few well-known issuers so tickers and common names resolve to one company. Any other
# company still gets its name and ticker from the cover page.
KNOWN_COMPANIES: dict[str, tuple[str, ...]] = {
    "AAPL": ("Apple Inc.", "apple"),
    "AMZN": ("Amazon.com, Inc.", "amazon", "amazon.com", "aws"),
    "INTC": ("Intel Corporation", "intel"),
    "MSFT": ("Microsoft Corporation", "microsoft"),
    "NVDA": ("NVIDIA Corporation", "nvidia"),
    "GOOGL": ("Alphabet Inc.", "alphabet", "google"),
    "GOOG": ("Alphabet Inc.", "alphabet", "google"),
    "META": ("Meta Platforms, Inc.", "meta", "facebook"),
    "TSLA": ("Tesla, Inc.", "tesla"),
    "AMD": ("Advanced Micro Devices, Inc.", "amd", "advanced micro devices"),
    "IBM": ("International Business Machines Corporation", "ibm"),
    "ORCL": ("Oracle Corporation", "oracle"),
    "CSCO": ("Cisco Systems, Inc.", "cisco"),
    "NFLX": ("Netflix, Inc.", "netflix"),
    "JPM": ("JPMorgan Chase & Co.", "jpmorgan", "jp morgan", "chase"),
    "BRK.B": ("Berkshire Hathaway Inc.", "berkshire"),
    "WMT": ("Walmart Inc.", "walmart"),
    "XOM": ("Exxon Mobil Corporation", "exxon", "exxonmobil"),
}

_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
_ORDINAL = {"first": 1, "second": 2, "third": 3, "fourth": 4}

_FILE_PERIOD = [
    re.compile(r"(?<!\d)(20\d\d)[\s_.-]*q([1-4])(?![0-9])", re.I),  # 2023 Q3, 2023-Q3
    re.compile(r"(?<![a-z])q([1-4])[\s_.-]*(?:fy)?[\s_.-]*(20\d\d|\d\d)(?!\d)", re.I),  # Q3 2023, Q3FY23
    re.compile(r"(?<![a-z])([1-4])q[\s_.-]*(20\d\d|\d\d)(?!\d)", re.I),  # 3Q23
]
_FILE_FY = re.compile(r"(?<![a-z])(?:fy|fiscal)[\s_.-]*(20\d\d|\d\d)(?!\d)", re.I)
_FILE_YEAR = re.compile(r"(?<!\d)(20\d\d)(?!\d)")
_FILE_FORM = re.compile(r"(?<![a-z0-9])(10-?k|10-?q|8-?k|20-?f|6-?k)(?![a-z0-9])", re.I)
_FILE_TICKER = re.compile(r"(?<![A-Za-z])([A-Z]{1,5})(?![A-Za-z])")
_FILE_KIND = re.compile(r"(?<![a-z])(earnings|transcript)(?![a-z])", re.I)

_COVER_FORM = re.compile(r"\bFORM\s+(10-K|10-Q|8-K|20-F|6-K)\b", re.I)
_PERIOD_END = re.compile(
    rf"(?:quarterly period|fiscal quarter|fiscal year|period|year) ended\s+(({_MONTHS})\s+\d{{1,2}},?\s+(20\d\d))",
    re.I,
)
_REGISTRANT = re.compile(r"\n([^\n]{2,80})\n\(\s*exact name of registrant", re.I)
_TICKER_ROW = re.compile(
    r"\b([A-Z]{1,5}(?:\.[A-Z])?)\s+(?:The\s+)?(?:Nasdaq|NASDAQ|New York Stock Exchange|NYSE)"
)
_TEXT_QUARTER = [
    re.compile(r"\bQ([1-4])\s+(?:FY\s?)?(20\d\d)\s+Form\s+10-Q", re.I),  # Apple's footer
    re.compile(rf"\b({'|'.join(_ORDINAL)})\s+quarter\s+of\s+fiscal\s+(?:year\s+)?(20\d\d)", re.I),
]
_TEXT_FY = re.compile(r"\bfiscal\s+(?:year\s+)?(20\d\d)\b", re.I)
_EARNINGS = re.compile(
    r"(reports?|announces?)\s+(?:\w+\s+){0,4}(quarter|fiscal|annual)\S*\s+(?:\w+\s+){0,3}results"
    r"|(reports?|announces?)\s+(?:\w+\s+){0,3}results\s+for\s+(?:the\s+)?(?:\w+\s+){0,2}(quarter|fiscal|year)",
    re.I,
)  # "Apple reports third quarter results" / "NVIDIA Announces Financial Results for Third Quarter"
_TRANSCRIPT = re.compile(r"\b(earnings (?:conference )?call|operator:|question-and-answer session)\b", re.I)


def company_for_ticker(ticker: str) -> str:
    entry = KNOWN_COMPANIES.get(ticker.upper())
    return entry[0] if entry else ""


def company_aliases(meta: DocumentMeta) -> set[str]:
    """Lower-case names a question may use for this document's company."""
    names: set[str] = set()
    if meta.ticker:
        names.add(meta.ticker.lower())
        names.update(KNOWN_COMPANIES.get(meta.ticker.upper(), ())[1:])
    if meta.company:
        full = meta.company.lower()
        names.add(full)
        core = re.sub(r"[,.]?\s*(inc|incorporated|corp|corporation|co|company|ltd|plc|llc|group|holdings)\.?$", "", full)
        core = core.replace(".com", "").strip(" ,.")
        if len(core) >= 3:
            names.add(core)
            names.add(core.split()[0]) if len(core.split()[0]) >= 4 else None
    return {n for n in names if n}


def _year(y: str) -> int:
    return int(y) if len(y) == 4 else 2000 + int(y)


def parse_file_name(name: str) -> DocumentMeta:
    stem = re.sub(r"\.pdf$", "", name, flags=re.I)
    meta = DocumentMeta()
    for i, rx in enumerate(_FILE_PERIOD):
        m = rx.search(stem)
        if m:
            if i == 0:
                meta.fiscal_year, meta.fiscal_quarter = int(m.group(1)), int(m.group(2))
            else:
                meta.fiscal_quarter, meta.fiscal_year = int(m.group(1)), _year(m.group(2))
            break
    if meta.fiscal_year is None:
        m = _FILE_FY.search(stem) or _FILE_YEAR.search(stem)
        if m:
            meta.fiscal_year = _year(m.group(1))
    m = _FILE_FORM.search(stem)
    if m:
        meta.form_type = m.group(1).upper().replace("10Q", "10-Q").replace("10K", "10-K").replace("8K", "8-K")
    elif kind := _FILE_KIND.search(stem):  # "3Q23 nvda earnings.pdf" is a press release, not a 10-Q
        meta.form_type = kind.group(1).lower()
    for m in _FILE_TICKER.finditer(stem):
        if m.group(1) in KNOWN_COMPANIES:
            meta.ticker = m.group(1)
            meta.company = company_for_ticker(m.group(1))
            break
    if not meta.ticker:
        low = stem.lower()
        for ticker, (_, *aliases) in KNOWN_COMPANIES.items():
            # names, and the ticker typed in lower case ("msft-10k-fy2024.pdf")
            if any(re.search(rf"(?<![a-z]){re.escape(a)}(?![a-z])", low) for a in [*aliases, ticker.lower()]):
                meta.ticker, meta.company = ticker, company_for_ticker(ticker)
                break
    if meta.fiscal_quarter and not meta.form_type:
        meta.form_type = "10-Q"
    return meta


def parse_first_pages(text: str) -> DocumentMeta:
    """Metadata printed on a filing's cover and first pages."""
    meta = DocumentMeta()
    head = text[:20000]
    m = _COVER_FORM.search(head)
    if m:
        meta.form_type = m.group(1).upper()
    elif _TRANSCRIPT.search(head):
        meta.form_type = "transcript"
    elif _EARNINGS.search(head[:3000]):
        meta.form_type = "earnings"
    m = _PERIOD_END.search(head)
    if m:
        try:
            d = datetime.strptime(re.sub(r"\s+", " ", m.group(1).replace(",", "")), "%B %d %Y").date()
            meta.period_end = d.isoformat()
        except ValueError:
            pass
    m = _REGISTRANT.search("\n" + head)
    if m:
        meta.company = m.group(1).strip()
    m = _TICKER_ROW.search(head)
    if m and m.group(1) not in {"LLC", "THE", "NYSE", "I", "A"}:
        meta.ticker = m.group(1)
    if meta.ticker and not meta.company:
        meta.company = company_for_ticker(meta.ticker)
    for rx in _TEXT_QUARTER:
        m = rx.search(text)
        if m:
            q = m.group(1)
            meta.fiscal_quarter = int(q) if q.isdigit() else _ORDINAL[q.lower()]
            meta.fiscal_year = int(m.group(2))
            break
    if meta.fiscal_year is None:
        m = _TEXT_FY.search(text)
        if m:
            meta.fiscal_year = int(m.group(1))
    if meta.fiscal_year is None and meta.period_end:
        meta.fiscal_year = int(meta.period_end[:4])
    if meta.form_type == "10-Q" and meta.fiscal_quarter is None and meta.period_end:
        meta.fiscal_quarter = (int(meta.period_end[5:7]) - 1) // 3 + 1  # calendar fallback
    if meta.form_type == "10-K":
        meta.fiscal_quarter = None
    return meta


def detect_metadata(file_name: str, first_pages_text: str) -> DocumentMeta:
    """Merge file-name hints (preferred) with what the cover pages say."""
    from_name = parse_file_name(file_name)
    from_text = parse_first_pages(first_pages_text)
    meta = DocumentMeta(
        company=company_for_ticker(from_name.ticker or from_text.ticker) or _tidy_name(from_text.company) or from_name.company,
        ticker=from_name.ticker or from_text.ticker,
        form_type=from_text.form_type or from_name.form_type,
        fiscal_year=from_name.fiscal_year or from_text.fiscal_year,
        fiscal_quarter=from_name.fiscal_quarter if from_name.fiscal_year else from_text.fiscal_quarter,
        period_end=from_text.period_end,
    )
    if meta.ticker and meta.ticker in KNOWN_COMPANIES and not meta.company:
        meta.company = company_for_ticker(meta.ticker)
    if meta.form_type == "10-K":
        meta.fiscal_quarter = None
    return meta


def _tidy_name(name: str) -> str:
    """Cover pages often print the registrant in capitals: "AMAZON.COM, INC." -> "Amazon.com, Inc."."""
    if name.isupper():
        return " ".join(w[:1] + w[1:].lower() for w in name.split())
    return name


def period_labels(meta: DocumentMeta) -> set[tuple[int, int | None]]:
    """(year, quarter) pairs a question may use for this document: its fiscal label and
    the calendar quarter of its period end (filings and analysts mix the two)."""
    labels: set[tuple[int, int | None]] = set()
    if meta.fiscal_year:
        labels.add((meta.fiscal_year, meta.fiscal_quarter))
    if meta.period_end:
        try:
            # 52/53-week years end a few days into the next month (Intel: Oct 1): step back
            # so the quarter is the one the period actually covers.
            d = date.fromisoformat(meta.period_end) - timedelta(days=20)
            labels.add((d.year, (d.month - 1) // 3 + 1 if meta.fiscal_quarter else None))
        except ValueError:
            pass
    return labels
