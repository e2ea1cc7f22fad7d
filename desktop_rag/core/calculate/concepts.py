"""The concept map: which printed line items mean "revenue", "capex", "inventories", …

One data table (``CONCEPTS``), easy to extend: each concept names the statement(s) it is
read from, the label patterns that mean it (tried in order: the first pattern that matches
any row wins, so put the most specific first) and labels that must not match. Patterns are
matched against the lower-cased label with "’" folded to "'".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from desktop_rag.core.ingest.statements.model import Row, Statement


@dataclass(frozen=True)
class Concept:
    name: str
    title: str  # how an answer names it
    kinds: tuple[str, ...]  # statement kinds it is read from, in order of preference
    patterns: tuple[str, ...]
    exclude: str = r"$^"
    words: tuple[str, ...] = field(default=())  # how a question names it (regex)
    outflow: bool = False  # printed as a negative cash flow, asked about as an amount
    unit: str = "currency"  # the row's unit: currency | per_share (as printed, never rescaled) | shares


_C = Concept


def _eps_concept(kind: str) -> Concept:
    """Basic or diluted EPS: one row shape, read in any filer's wording ("Net income per share —
    diluted", "Diluted earnings per common share", "Earnings per share: Diluted")."""
    subject = r"(net )?(income|earnings|\(loss\) income|income \(loss\)|earnings \(loss\)|loss)( \(loss\))?"
    per_share = r"per (common |ordinary )?share"
    eps = r"(eps|earnings per (common )?share|net (income|earnings) per (common )?share)"
    return _C(f"eps_{kind}", f"{kind.capitalize()} earnings per share", ("income",), (
        rf"^{subject} {per_share}( attributable to [\w ,.&'-]+)?( of common stock)?:? [-\u2013\u2014]? ?{kind}$",
        rf"^{kind} {subject} {per_share}( attributable to [\w ,.&'-]+)?$",
        rf"{per_share}[^:]*: {kind}( (net )?(income|earnings)( per (common )?share)?)?$",
        # "Diluted earnings per share:" over "Net income attributable to common shareholders":
        # the heading names the measure, the row the bottom line it is taken of
        rf"^{kind} {eps}:? (net )?(income|earnings|loss)( \(loss\))?( attributable to [\w ,.&'-]+)?$"),
       exclude=r"continuing|discontinued|pro forma|adjusted|non-?gaap|before|cumulative|extraordinary|class [ab]\b|"
               r"weighted|shares|dividend",
       # "net earnings per diluted share": the whole phrase, longer than the "net earnings" it holds
       words=(rf"{kind} {eps}", rf"{eps},? \(?{kind}\)?", rf"{kind} [\w ]{{0,20}}per share",
              rf"(?:(?:net )?(?:income|earnings) )?per {kind} (?:common )?share"), unit="per_share")
def _shares_concept(kind: str) -> Concept:
    """Basic or diluted weighted-average shares, in any filer's wording."""
    other = "basic" if kind == "diluted" else "diluted"
    weighted = r"(weighted[- ]average |average )"
    return _C(f"shares_{kind}", f"{kind.capitalize()} weighted-average shares", ("income",), (rf"\b{kind}\b",),
              exclude=rf"\b{other}\b|effect|dilutive|anti|potential|securities|options|awards|"
                      r"units|participating|class [ab]\b|preferred",
              words=(rf"{kind} {weighted}?(number of )?(common )?shares( outstanding)?",
                     rf"{weighted}(number of )?(common )?{kind} shares( outstanding)?",
                     rf"{weighted}(number of )?(common )?shares( outstanding)?,? \(?{kind}\)?",
                     rf"{kind} share count"),
              unit="shares")


CONCEPTS: dict[str, Concept] = {c.name: c for c in [
    _C("revenue", "Revenue", ("income",), (
        r"^total (net )?revenues?(, net)?$", r"^total net sales( and revenues?)?$", r"^(net )?revenues?(, net)?$",
        r"^net sales$", r"^total (net )?operating revenues?$", r"^(net )?operating revenues?$", r"^sales$",
        r"^net revenues?$", r"^total revenues? and other income$", r"^total net sales and revenue$",
        r"^revenues?,? net of interest expense$", r"^total net revenue$"),
       words=(r"revenues?", r"net sales", r"top[- ]line", r"\bsales\b")),
    _C("cogs", "Cost of sales", ("income",), (
        r"^total costs? of (net )?(sales|revenues?|goods sold|products sold)$", r"^costs? of (net )?(sales|revenues?|goods sold|products sold)"
        r"( \(exclusive of .*\))?$", r"^merchandise costs$", r"^cost of products( sold)?$", r"^costs? of sales$",
        r"^costs? of (net )?(sales|revenues?|goods sold)\b"),
       exclude=r"depreciation|amortization only", words=(r"cogs", r"cost of (goods|sales|revenues?|products)", r"merchandise costs")),
    _C("gross_profit", "Gross profit", ("income",), (r"^gross (profit|margin)$",), words=(r"gross (profit|margin)",)),
    _C("operating_income", "Operating income", ("income",), (
        r"^(total )?operating (income|profit)( \(loss\))?$", r"^operating (loss|income) \(loss\)$", r"^income from operations$",
        r"^(income|earnings) \(loss\) from operations$", r"^operating (income|profit)"),
       words=(r"operating (income|profit)", r"income from operations", r"\bebit\b")),
    _C("net_income", "Net income", ("income",), (
        r"^(consolidated )?net (income|earnings)( \(loss\))? attributable to (?!non-?controlling|noncontrolling)(?!.*non-?controlling).*$",
        r"^(consolidated )?net (income|earnings|loss|income \(loss\)|\(loss\) income)$", r"^net (income|earnings)\b(?!.*(per|non-?controlling))"),
       exclude=r"per (common )?share|non-?controlling|comprehensive|before",
       words=(r"net (income|earnings|profit)", r"net loss\b(?! per)")),
    _C("pretax_income", "Income before income taxes", ("income",), (
        r"^(income|earnings)( \(loss\))?( from continuing operations)? before (provision for |benefit from )?income tax",
        # "Income before benefit from (provision for) income taxes"
        r"^(income|earnings)( \(loss\))?( from continuing operations)? before (\(?(provision for|benefit from)\)? ?){1,2}income tax",
        r"before (provision for )?income tax",
        # "Income (loss) before taxes"
        r"^(income|earnings)( \(loss\))?( from continuing operations)? before taxes$"),
       words=(r"pre-?tax (income|earnings)", r"before (income )?tax", r"before (the )?(provision for|benefit from) (income )?tax")),
    _C("income_tax", "Income tax expense", ("income",), (
        r"^(provision for|\(provision\) benefit for|provision \(benefit\) for) income taxes?$", r"^income tax (expense|provision)( \(benefit\))?$",
        # "Benefit from (provision for) income taxes", "(Provision for) benefit from income taxes"
        r"^\(?(benefit from|provision for)\)? \(?(provision for|benefit from)\)? income taxes?$",
        r"^(provision for|income tax) ", r"^income taxes?$",
        # Coca-Cola's "Income taxes from continuing operations"
        r"^income taxes?( \(benefit\))? (from|on) (income from )?continuing operations$"), exclude=r"before",
       words=(r"income tax (expense|provision)", r"tax provision", r"provision for income tax")),
    # printed "(403)" under "Other income (expense)" by some filers: asked about as an amount
    _C("rnd", "Research and development", ("income",), (r"^research(,)? and development", r"^research, development"),
       exclude=r"in-process|acquired|credit", words=(r"\br&d\b", r"research and development")),
    _C("sga", "Selling, general and administrative", ("income",), (
        r"^selling, general(,)? and administrative", r"^sales, general(,)? and administrative"),
       words=(r"\bsg&a\b", r"selling, general(,)? and administrative")),
    _C("interest_expense", "Interest expense", ("income",), (r"^interest expense(, net)?$", r"^interest expense"),
       words=(r"interest expense",), outflow=True),
    _C("da", "Depreciation and amortization", ("cash_flow",), (
        r"^depreciation(,)? (and |depletion and |amortization)", r"^depreciation and amortization", r"^depreciation$"),
       words=(r"d&a", r"depreciation")),
    _C("capex", "Capital expenditures", ("cash_flow",), (
        r"^capital expenditures?", r"^(purchases?|additions?|payments?|acquisitions?|expenditures?) (of|to|for|for acquisition of) "
        r"(property|premises|plant|fixed assets)", r"^capital spending"),
       exclude=r"proceeds|sales? of", words=(r"capex", r"capital expenditures?",
              r"(purchases?|additions?|payments?) (of|to|for) (property|pp&e)(,? (plant )?and equipment)?"),
       outflow=True),
    _C("cfo", "Net cash provided by operating activities", ("cash_flow",), (
        r"^net cash (provided by|from|used in|provided by \(used (in|for)\)|\(used in\) provided by) operat",
        r"^cash (generated by|provided by|from|provided \(used\) by) operat", r"^net cash from operations",
        r"operating activities$"), exclude=r"discontinued|^changes? in|adjustments",
       words=(r"cash (flows? )?from operations", r"operating cash flow", r"cash (provided by|from) operating", r"\bcfo\b")),
    _C("dividends_paid", "Dividends paid", ("cash_flow",), (
        r"^(cash )?dividends paid", r"^payments? (of|for) (cash )?dividends", r"^(cash )?dividend payments", r"^(common stock )?(cash )?dividends( paid)?",
        r"dividends paid", r"^dividends"), exclude=r"received|non-?controlling|per share",
       words=(r"dividends? paid", r"cash dividends?", r"dividend"), outflow=True),
    _C("total_assets", "Total assets", ("balance",), (r"^total assets$",), words=(r"total assets",)),
    # the balance-sheet line, not a charge against it: "goodwill impairment" is an expense of the
    # year (a note's or the income statement's), "goodwill allocated to a segment" a note's part
    _C("goodwill", "Goodwill", ("balance",), (r"^goodwill(, net)?$",), exclude=r"impair|intangible",
       words=(r"\bgoodwill\b(?!\s+(?:and\s+(?:other\s+)?intangible|impair|write|charge|allocat|attribut|relat|"
              r"associated|arising|recogni[sz]ed\s+(?:in|on|from)|from|for|of|by|in\s+(?:the|our|its)\s+\w+\s+segment))"
              r"(?<!impairment of goodwill)",)),
    _C("current_assets", "Total current assets", ("balance",), (r"^total current assets$",), words=(r"current assets",)),
    _C("current_liabilities", "Total current liabilities", ("balance",), (r"^total current liabilities$",),
       words=(r"current liabilities",)),
    _C("inventory", "Inventories", ("balance",), (r"^(merchandise )?inventor(y|ies)(, net)?( \(note \d+\))?$", r"^inventor(y|ies)\b"),
       words=(r"inventor(y|ies)",)),
    _C("receivables", "Accounts receivable", ("balance",), (
        r"^(trade )?(accounts )?receivables?(, net| - net)?( of allowances?.*)?$", r"^accounts receivable", r"^trade (accounts )?receivables?",
        r"^receivables?, net"), exclude=r"non-?trade|vendor|financing|notes",
       words=(r"receivables?",)),
    _C("payables", "Accounts payable", ("balance",), (r"^(trade )?accounts payable$", r"^trade payables?$", r"^accounts payable"),
       words=(r"payables?",)),
    _C("cash", "Cash and cash equivalents", ("balance",), (r"^cash and (cash )?equivalents$", r"^cash and (cash )?equivalents",
                                                           r"^cash$"), words=(r"cash and (cash )?equivalents",)),
    _C("marketable_securities", "Marketable securities", ("balance",), (r"^(current )?marketable securities$",),
       words=(r"marketable securities",)),
    _C("amortization", "Amortization", ("cash_flow",), (r"^amortization",), exclude=r"debt|discount|premium|issuance",
       words=(r"amortization",)),
    _C("short_term_investments", "Short-term investments", ("balance",), (
        r"^short-term investments", r"^marketable securities$", r"^short-term marketable securities"),
       words=(r"short-term investments", r"marketable securities")),
    _C("equity", "Total shareholders' equity", ("balance",), (
        r"^total (?!liabilities).*(stockholders|shareholders|shareowners)' equity( \(deficit\))?$",
        r"^total (stockholders|shareholders|shareowners)' (equity|deficit)",
        r"^(total )?equity attributable to (stockholders|shareholders|shareowners) of", r"^total equity$",
        r"^(stockholders|shareholders)' equity$"), exclude=r"liabilities and|non-?controlling",
       words=(r"(stockholders|shareholders|shareowners)'? equity", r"\bequity\b")),
    # Per-share figures: "Diluted" under "Earnings per share:", "Net income per share - diluted",
    # "Diluted earnings per common share". The label is read with its heading (see _text);
    # parts of EPS (continuing / discontinued operations, pro forma, adjusted) are not EPS.
    _eps_concept("diluted"),
    _eps_concept("basic"),
    _C("dividends_per_share", "Dividends declared per share", ("income", "equity"), (
        r"^(cash )?dividends? (declared |paid )?per (common |ordinary )?share$",
        r"^(cash )?dividends? (declared |paid )?per (common |ordinary )?share",),
       exclude=r"preferred|special", words=(r"dividends? (declared |paid )?per (common )?share", r"\bdps\b"), unit="per_share"),
    _C("net_interest_income", "Net interest income", ("income",), (r"^net interest income$",),
       exclude=r"after|per share|taxable", words=(r"net interest income",)),
    # A bank's operating expenses: its income statement has no cost of sales.
    _C("noninterest_expense", "Noninterest expense", ("income",), (
        r"^total non-?interest expenses?$", r"^non-?interest expenses?$", r"^total non-?interest expenses?\b"),
       exclude=r"per share|other non-?interest", words=(r"(total )?non-?interest expenses?",)),
    # Weighted-average share counts of the EPS computation ("Weighted-average diluted shares",
    # "Diluted" under "Shares used in computing earnings per share:"); read with their heading.
    # Their scale is the one the statement's note gives share counts (see shares.py).
    _shares_concept("diluted"),
    _shares_concept("basic"),
    # The balance sheet's debt lines, summed (``debt_rows``): never named alone by a question
    # ("long-term debt" is one of them), only through the total debt metric.
    _C("debt", "Debt", ("balance",), (r"\b(?:debt|borrowings?|commercial paper|notes payable|loans? (?:and notes )?payable)\b",),
       exclude=r"^total\b|securities|investments?|\bto total\b|ratio|issuance|receivable|\bassets?\b|deferred|"
               r"^(?:finance|capital|operating) lease|interest payable|\bless\b|^net of"),
    # the non-current long-term debt line itself, when a question names it ("Did it reduce its
    # long-term debt during 2022?"); the company's whole debt is the total debt metric's
    _C("long_term_debt", "Long-term debt", ("balance",), (
        r"^long-term debt(,? (?:net|less current portion|excluding current portion|net of current portion|non-?current|"
        r"due after one year))*$", r"^long-term borrowings$", r"^long-term debt and finance leases?$"),
       # (not a gloss: "the net carrying amount of its notes (long-term debt)" asks the notes)
       exclude=r"current portion|^total|due within", words=(r"(?<!\()long[- ]term (?:debt|borrowings)(?!\))",)),
    _C("ppe_net", "Property, plant and equipment, net", ("balance",), (
        r"^property(,)? (plant )?and equipment, net", r"^property and equipment, net", r"^net property", r"^property, plant and equipment",
        r"^property and equipment"), exclude=r"gross|accumulated", words=(r"pp&e", r"property(, plant)? and equipment", r"fixed assets")),
]}


LABEL_PREFIX = "label:"
_LABEL_STOP = frozenset({"the", "a", "an", "of", "and", "on", "in", "from", "its", "their", "as", "reported", "line",
                         "item", "items", "balance", "sheet", "statement"})


def label_concept(text: str) -> Concept:
    """A concept named by the words of a label the filing prints ("notes payable, current",
    "notes payable and other borrowings, non-current"), as a question's definition writes an
    operand no concept of the table means. Its row is the one whose label is those words, else
    the first whose label holds all of them (each word whole: "current" is not "non-current")."""
    norm = _norm(text)
    words = [w for w in re.findall(r"[a-z0-9&'-]+", norm) if w not in _LABEL_STOP]
    whole = "".join(rf"(?=.*(?<![\w-]){re.escape(w)}(?![\w-]))" for w in words)
    return Concept(LABEL_PREFIX + norm, text.strip().capitalize(), ("balance", "income", "cash_flow"),
                   (rf"^{re.escape(norm)}(?: |$)", rf"^{whole}"), words=(re.escape(norm),))


def concept_named(name: str) -> Concept:
    """The concept of a metric's input: one of the table's, or a label's (``label_concept``)."""
    if name.startswith(LABEL_PREFIX):
        return label_concept(name[len(LABEL_PREFIX):])
    return CONCEPTS[name]


def _norm(label: str) -> str:
    return re.sub(r"\s+", " ", label.lower().replace("\u2019", "'")).strip(" :")


def _text(concept: Concept, row: Row) -> str:
    """What a concept's patterns read: the label, and for a per-share row named only by its
    share class ("Diluted" under "Earnings per share:") the heading with it."""
    label = _norm(row.label)
    if concept.name.startswith(LABEL_PREFIX) and row.parent:
        # a label written with its heading: "term debt, non-current" is the "Term debt" row
        # under "Non-current liabilities"
        return f"{label} {_norm(row.parent)}"
    if concept.unit == "per_share" and row.parent and not re.search(r"per (common |ordinary )?share|\beps\b", label):
        return f"{_norm(row.parent)}: {label}"
    if concept.unit == "shares" and row.parent and not re.search(r"\bshares\b", label):
        return f"{_norm(row.parent)}: {label}"
    return label


@dataclass
class Found:
    concept: Concept
    statement: Statement
    row: Row


def find(concept: Concept, statements: list[Statement], question: str = "") -> Found | None:
    """The row of the first statement of a suitable kind whose label means ``concept``.
    A row whose label the question quotes ("net sales", "merchandise costs") wins."""
    q = _norm(question)
    if q:
        quoted: list[tuple[int, Found]] = []
        for kind in concept.kinds:
            for st in statements:
                if st.kind != kind:
                    continue
                for row in st.rows:
                    label = _text(concept, row)
                    if (len(label) >= 8 and re.search(rf"(?<![a-z]){re.escape(label)}(?![a-z])", q) and row.unit == concept.unit
                            and any(re.search(p, label) for p in concept.patterns) and not re.search(concept.exclude, label)
                            and any(c.value is not None for c in row.cells)):
                        quoted.append((len(label), Found(concept, st, row)))
        if quoted:  # the longest quoted label: "property and equipment, net" over "property and equipment"
            return max(quoted, key=lambda x: x[0])[1]
    for kind in concept.kinds:
        for st in statements:
            if st.kind != kind:
                continue
            for pattern in concept.patterns:
                rx = re.compile(pattern)
                for row in st.rows:
                    label = _text(concept, row)
                    if row.unit == concept.unit and rx.search(label) and not re.search(concept.exclude, label) \
                            and any(c.value is not None for c in row.cells) and not any(c.column for c in row.cells):
                        return Found(concept, st, row)
    return None


def named_in(question: str) -> list[Concept]:
    """Concepts a question names, most specific (longest match) first."""
    q = question.lower().replace("\u2019", "'")
    hits: list[tuple[int, Concept]] = []
    for c in CONCEPTS.values():
        best = max((len(m.group(0)) for w in c.words for m in re.finditer(w, q)), default=0)
        if best:
            hits.append((best, c))
    return [c for _, c in sorted(hits, key=lambda h: -h[0])]


def components(concept: Concept, statements: list[Statement]) -> list[Found]:
    """The rows a statement prints under the concept's own heading: its parts ("Subscription"
    and "Product" under "Revenue:", "Membership fees" under "REVENUE", "Services" under "Net
    sales:"). A row that is itself the concept ("Total revenue", "Net sales") is no part."""
    out: list[Found] = []
    for st in statements:
        if st.kind not in concept.kinds:
            continue
        for row in st.rows:
            parent, label = _norm(row.parent), _norm(row.label)
            if (parent and row.unit == concept.unit and any(re.search(p, parent) for p in concept.patterns)
                    and not any(re.search(p, label) for p in concept.patterns) and not label.startswith("total")
                    and not re.search(concept.exclude, label) and any(c.value is not None for c in row.cells)
                    and not any(c.column for c in row.cells)):
                out.append(Found(concept, st, row))
    return out


def debt_rows(statement: Statement, period_end: str) -> list[Row]:
    """The debt lines of a balance sheet with a figure at ``period_end`` ("Short-term
    borrowings", "Current portion of long-term debt", "Long-term debt"): their sum is the
    company's debt on the balance sheet. Totals and netting rows ("Less current portion") are
    left out; a balance sheet that prints both a long-term debt line and its net of current
    portion gives none (summing them would count the debt twice)."""
    debt = CONCEPTS["debt"]
    rows = [r for r in statement.rows
            if r.unit == "currency" and any(re.search(p, _norm(r.label)) for p in debt.patterns)
            and not re.search(debt.exclude, _norm(r.label))
            and (c := r.cell_for(period_end, 0)) is not None and c.value is not None and not c.column]
    long_term = [r for r in rows if not re.search(r"(?<!non-)(?<!non)current|short|due within|maturities|commercial paper|"
                                                  r"notes payable|loans?|within one year", f"{_norm(r.label)} {_norm(r.parent)}")]
    if len(long_term) > 1 or any((r.cell_for(period_end, 0).value or 0.0) < 0 for r in rows):  # type: ignore[union-attr]
        return []
    return rows
