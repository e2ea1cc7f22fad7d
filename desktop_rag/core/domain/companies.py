"""Company identity for any filer: the registrant's name and trading symbols from a cover
page, and the names an analyst may use for it, derived from the name itself (no table of
known companies): "The Boeing Company" -> boeing; "JPMorgan Chase & Co." -> jpmorgan chase,
jpmorgan (and its ticker JPM from the cover); "Advanced Micro Devices, Inc." -> amd.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field

from desktop_rag.core.domain.measures import FINANCE_ABBREVIATIONS, MEASURE_WORDS, QUALIFIER_WORDS
from desktop_rag.core.domain.periods import MONTH_NAMES
from desktop_rag.core.domain.terms import QUESTION_NOISE, SHORTHAND, STOPWORDS

# Legal-form words that end a registrant's name and that nobody says in a question.
_LEGAL = (r"inc|incorporated|corp|corporation|company|co|companies|ltd|limited|plc|llc|l\.?l\.?c|lp|l\.?p|"
          r"n\.?\s?v|s\.?a|a\.?g|se|holdings?|holding\s+company|group\s+holdings|de|del|the")
_SUFFIX = re.compile(rf"(?:[\s,]+|^)(?:&\s*)?(?:{_LEGAL})\s*\.?\s*$", re.I)
# Words too common to name a company on their own ("American" of American Water Works).
GENERIC_WORDS = frozenset(
    """american america general united first national international global new north south east west
    western eastern northern southern central pacific atlantic standard federal public capital
    financial bank banks trust energy power water gas oil systems technologies technology
    industries industrial services service products communications health healthcare data
    digital solutions resources the and of market markets real estate insurance motors motor
    foods food brands group holdings company corporation inc co advanced applied integrated consolidated
    allied associated universal premier regional mutual continental""".split()
)

_REGISTRANT = re.compile(r"\n([^\n]{2,100})\n\s*\(\s*exact\s+name\s+of\s+(?:the\s+)?registrant", re.I)
# "Delaware 58-0628465" / "WASHINGTON 91-1144442": the state and employer id line under the name
_EIN = re.compile(r"(?<![\d-])\d{2}-\d{7}(?![\d-])")
_COMMISSION = re.compile(r"commission\s+file\s+(?:number|no\.?)", re.I)
# The words of a cover page's labels: a line that says them is a label, never a registrant's name
# ("State of Incorporation: Delaware", "Commission File Number 1-3285", "(Exact name of registrant
# as specified in its charter)", "I.R.S. Employer Identification No. 41-0417775").
_COVER_LABEL = re.compile(
    r"\b(?:state\s+(?:of|or\s+other)|jurisdiction|incorporat(?:ion|ed)\s+(?:in|or|under)|incorporation\b|"
    r"commission|file\s+(?:number|no)|i\.?\s?r\.?\s?s\.?\b|employer|identification|exact\s+name|"
    r"name\s+of\s+(?:the\s+)?registrant|registrant['’]?s|telephone|area\s+code|address|principal\s+executive|"
    r"zip\s+code|securities\s+registered|title\s+of\s+each|trading\s+symbol|name\s+of\s+(?:each\s+)?exchange|"
    r"former\s+name|check\s+mark|pursuant\s+to|annual\s+report|quarterly\s+report|transition\s+report|"
    r"(?:fiscal\s+year|quarterly\s+period|period)\s+ended|securities\s+and\s+exchange|washington,?\s+d\.?\s?c|"
    r"table\s+of\s+contents|mark\s+one|date\s+of\s+(?:report|earliest)|not\s+applicable|n/a)\b"
    r"|^\s*(?:form\s+\d|\(|\d[\d\s.-]*$)|:",
    re.I,
)


def plausible_name(line: str) -> bool:
    """Whether a line of a cover page can be a registrant's name: a few words with letters,
    not a label of the cover ("State of Incorporation: Delaware", "Commission File Number",
    "(Exact name of registrant ...)"), nor a number, a date or a sentence."""
    line = line.strip()
    words = line.split()
    return (1 <= len(words) <= 10 and bool(re.search(r"[A-Za-z]{2}", line)) and not _COVER_LABEL.search(line)
            and not re.search(r"\d{3}", line) and not re.search(r"[.;]\s+[a-z]", line))


_EXCHANGE = (r"(?:The\s+)?(?:Nasdaq|NASDAQ|New\s+York\s+Stock\s+Exchange|NYSE|Chicago\s+Stock\s+Exchange|Cboe|CBOE|"
             r"Boston\s+Stock\s+Exchange|Pacific\s+Exchange|Archipelago)")
_NOT_TICKERS = frozenset({"LLC", "THE", "NYSE", "I", "A", "NONE", "INC", "AND", "PAR", "USD", "N/A", "NA",
                          # the words of a cover's table of securities, printed in capitals by some filers
                          "STOCK", "COMMON", "CLASS", "SHARE", "SHARES", "VALUE", "NOTES", "NOTE", "DUE", "UNITS",
                          "SERIES", "PER", "NO", "EACH", "TITLE", "NAME", "OF", "ON", "WHICH", "MARKET", "GLOBAL",
                          "SELECT", "ARCA", "AMEX", "MKT", "AMERICAN", "EXCHANGE", "NASDAQ", "CBOE", "BZX"})
# A trading symbol as a cover's table prints it, with what a preferred series or a note adds to the
# common stock's symbol: "PCG-PE", "JPM PR G", "FDX 25A", "WMT26", "JPM/28", "BRK.B" (a class of
# common stock); "OrCL": symbols set in small capitals come out of the PDF with lower-case letters.
_SYMBOL = r"[A-Z][A-Za-z]{0,4}(?:\.[A-Z](?![A-Za-z]))?"
_SERIES = r"(?:-[A-Z]{1,3}|\s+PR\s*[A-Z]{1,2}|\s+\d{2}[A-Z]?|/\d{2}|\d{2}[A-Z]?|\.PR[A-Z]?)"
_SYMBOL_ROW = re.compile(rf"(?:^|(?<=\s))(?P<sym>{_SYMBOL})(?P<series>{_SERIES})?\s+(?P<exchange>{_EXCHANGE})\b")
# The title of a security that is not the company's common stock: its notes, bonds, preferred
# shares, depositary shares, units, warrants, rights, exchange-traded notes, guarantees.
_OTHER_SECURITY = re.compile(
    r"\b(?:notes?|debentures?|bonds?|preferred|preference|depositary|(?<!common\s)units?|warrants?|rights|etns?|"
    r"guarantee[sd]?|trust|subordinated|senior|series\s+[a-z]{1,2}\b|\d+(?:\.\d+)?\s?%)",
    re.I)
_COMMON_SECURITY = re.compile(r"\b(?:common|ordinary|capital\s+stock|class\s+[a-z]\b|shares\s+of\s+beneficial)", re.I)


def _symbol(token: str) -> str:
    """A trading symbol as printed ("AAPL", small capitals "OrCL"), upper-cased; "" for a word."""
    core = token.split(".")[0]
    if token.isupper() or (3 <= len(core) <= 5 and core[-1].isupper() and sum(c.isupper() for c in core) >= 2):
        sym = token.upper()
        return "" if sym in _NOT_TICKERS else sym
    return ""


@dataclass(frozen=True)
class ListedSecurity:
    """One row of a cover's table of securities registered under Section 12(b)."""

    symbol: str
    title: str
    common: bool  # the company's own shares (a class of common stock), not a note, bond or preferred series


def listed_securities(cover: str) -> list[ListedSecurity]:
    """The rows of a cover's table of listed securities (title, trading symbol, exchange), in
    the order printed. A row is a symbol before an exchange's name; its title is the text before
    the symbol with the lines around it that carry no symbol ("First preferred stock ... 5% series
    A" over "redeemable PCG-PE NYSE American LLC"). A row is the company's own shares unless its
    symbol adds a series to another ("PCG-PE", "JPM PR G", "FDX 25A") or its title is a note,
    bond, preferred or depositary share, unit, warrant or exchange-traded note; a row without a
    title is not the company's when its symbol extends the company's ("EBAYL" of "EBAY")."""
    m = re.search(r"12\s*\(\s*b\s*\)|title\s+of\s+each\s+class", cover, re.I)
    section = cover[m.end():m.end() + 6000] if m else cover[:6000]  # a cover without the table's header
    end = re.search(r"12\s*\(\s*g\s*\)|indicate\s+by\s+check\s+mark", section, re.I)
    lines = section[:end.start() if end else len(section)].split("\n")
    rows: list[tuple[int, str, str, str]] = []  # line, symbol, series, title on the line
    for i, line in enumerate(lines):
        for sm in _SYMBOL_ROW.finditer(line):
            sym = _symbol(sm.group("sym"))
            if sym:
                rows.append((i, sym, sm.group("series") or "", line[:sm.start()]))
    out: list[ListedSecurity] = []
    row_lines = {i for i, _, _, _ in rows}
    for i, sym, series, title in rows:
        # the title's other lines: the lines above back to the previous row or the table's header,
        # and the one below when it carries no symbol of its own
        above: list[str] = []
        j = i - 1
        while j >= 0 and j not in row_lines and not re.search(r"title\s+of|trading|symbol", lines[j], re.I):
            above.insert(0, lines[j])
            j -= 1
        below = [lines[i + 1]] if i + 1 < len(lines) and i + 1 not in row_lines else []
        full = " ".join([*above[-2:], title, *below]).strip()
        # the title on the row's line first, then with the lines over it, then with the one below
        common: bool | None = False if series else None
        for words in (title, " ".join([*above[-2:], title]), full):
            if common is None and _OTHER_SECURITY.search(words):
                common = False
            elif common is None and _COMMON_SECURITY.search(words):
                common = True
        if common is None:
            common = not any(s.common and sym.startswith(s.symbol) and sym != s.symbol for s in out)
        symbol = sym + series.replace(" ", "") if series else sym
        if all(s.symbol != symbol for s in out):
            out.append(ListedSecurity(symbol, re.sub(r"\s+", " ", full), common))
    return out


@dataclass
class CoverIdentity:
    company: str = ""
    tickers: list[str] = field(default_factory=list)
    # the other registrants of a combined filing ("Pacific Gas and Electric Company" beside PG&E
    # Corporation) and the name the cover says the registrant had before ("Former name ...")
    other_names: list[str] = field(default_factory=list)


def tidy_name(name: str) -> str:
    """Cover pages often print the registrant in capitals: "AMAZON.COM, INC." -> "Amazon.com, Inc.";
    a word with "&" or a digit keeps its capitals ("PG&E", "3M"), a small word inside is lower
    case ("Pacific Gas and Electric Company"); a typographic apostrophe is
    written plainly ("McDonald’s" -> "McDonald's")."""
    name = re.sub(r"\s+([.,])", r"\1", re.sub(r"\s+", " ", name)).strip(" _").replace("\u2019", "'")
    if _shouted(name):
        return " ".join(w if re.search(r"[&\d]", w) else w.lower() if i and w.lower() in _SMALL_WORDS
                        else w[:1] + w[1:].lower() for i, w in enumerate(name.split()))
    return name


_SMALL_WORDS = frozenset({"and", "of", "the", "for", "in", "on", "at", "by", "de", "du", "la"})


def _shouted(name: str) -> bool:
    """A name printed in capitals ("NVIDIA CORPORATION", "McDONALD’S CORPORATION")."""
    letters = [c for c in name if c.isalpha()]
    return len(letters) >= 4 and sum(c.isupper() for c in letters) >= 0.8 * len(letters)


def _squash(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", unicodedata.normalize("NFKC", text).lower())


def printed_name(name: str, text: str) -> str:
    """The registrant's name as the filing prints it in its prose, when its cover prints it in
    capitals: "NVIDIA CORPORATION" -> "NVIDIA Corporation", "McDONALD’S CORPORATION" ->
    "McDonald's Corporation", EDGAR's "COCA COLA CO" -> "The Coca-Cola Company" (the name with a
    legal form the filing prints most whose words are the same); ``tidy_name`` when the filing
    prints it in capitals only."""
    name = re.sub(r"\s+", " ", name).strip()
    if not _shouted(name):
        return tidy_name(name)
    norm = text.replace("\u2019", "'")
    words = [re.escape(w) for w in re.split(r"\s+", tidy_name(name).replace(" ,", ","))]
    exact = re.compile(r"(?<![\w&])" + r"\s+".join(words) + r"(?![\w&])", re.I)
    seen: Counter[str] = Counter()
    for m in exact.finditer(norm):
        found = re.sub(r"\s+", " ", m.group(0))
        if not _shouted(found):
            seen[found] += 1
    if not seen:
        core, form = _squash(core_name(name)), _legal_form(name)
        for m in _NAME_WITH_SUFFIX.finditer(norm):
            found = re.sub(r"\s+", " ", m.group(0)).rstrip(",")
            if core and _squash(core_name(found)) == core and _legal_form(found) == form and not _shouted(found):
                seen[found] += 1
    return tidy_name(seen.most_common(1)[0][0]) if seen else tidy_name(name)


# The first words of a name in capitals or as a brand writes it ("eBay"), then its legal form
_NAME_WITH_SUFFIX = re.compile(
    r"(?<![\w&])((?:The\s+)?(?:[A-Z]|[a-z]+[A-Z])[\w.&'-]*(?:\s+(?:&\s+)?[A-Z][\w.&'-]*){0,4}),?\s+"
    r"((?i:Inc\.|Incorporated|Corporation|Company|Co\.|plc|N\.V\.|Holdings(?:,\s+Inc\.)?))(?![\w])"
)
_LEGAL_FORM_WORDS = r"INC\.?|INCORPORATED|CORPORATION|CORP\.?|COMPANY|CO\.|LLC|L\.P\.|PLC|N\.V\.|Inc\.?|Incorporated|Corporation|Company"

_FORM_ABBREVIATIONS = {"co": "company", "corp": "corporation", "inc": "incorporated", "ltd": "limited"}


def _legal_form(name: str) -> str:
    """The legal form a name ends with, abbreviations spelled out ("Co" -> "company")."""
    m = re.search(r"([A-Za-z]+)\.?\s*$", name)
    word = m.group(1).lower() if m else ""
    return _FORM_ABBREVIATIONS.get(word, word)


# A row of a combined filing's table of registrants: "1-12609 PG&E CORPORATION California 94-3234914"
_REGISTRANT_ROW = re.compile(
    rf"^\s*(?:\d{{1,3}}-)?\d{{3,6}}\s+(?P<name>.+?(?:{_LEGAL_FORM_WORDS}))\s+[A-Z][A-Za-z .]{{1,30}}\s+\d{{2}}-\d{{7}}\s*$",
    re.M)
def _registrant_names(head: str) -> list[str]:
    """The registrants a cover names, in the order printed: the line over "(Exact name of
    registrant as specified in its charter)"; the rows of a combined filing's table of
    registrants ("1-12609 PG&E CORPORATION California 94-3234914"); or the line over the state
    and employer id ("MICROSOFT CORPORATION" over "WASHINGTON 91-1144442"), going up past the
    cover's labels ("State of Incorporation: Delaware", "I.R.S. Employer Identification No.").
    Every one is a plausible name (``plausible_name``): a label is never a registrant."""
    m = _REGISTRANT.search(head)
    if m and plausible_name(m.group(1)):
        return [m.group(1).strip()]
    table = re.search(r"exact\s+name\s+of\b", head, re.I)
    if table:
        rows = [r.group("name").strip() for r in _REGISTRANT_ROW.finditer(head[table.end():table.end() + 1500])]
        rows = [r for r in rows if plausible_name(r)]
        if rows:
            return rows
    lines = head.split("\n")
    for i, line in enumerate(lines[:200]):
        if not _EIN.search(line) or _COMMISSION.search(line):
            continue
        for cand in reversed(lines[max(0, i - 3):i]):
            if plausible_name(cand):
                return [cand.strip()]
            if _COMMISSION.search(cand):
                break
        break
    return []


_FORMER = re.compile(r"\n([^\n]{3,100})\n\s*\(?\s*former\s+name", re.I)


def cover_identity(text: str, name_hint: str = "", body: str = "") -> CoverIdentity:
    """Registrant's exact name and trading symbols from a filing's first pages.

    ``name_hint``: words from the file name ("COCACOLA"); used only to pick among names the
    text itself prints (``body``: the pages after the cover) when the cover shows the name
    as an image. The name is written as the filing's prose prints it (``printed_name``). The
    symbols are the company's own shares' (``listed_securities``), or, on covers without a
    table of symbols, the one the filing says its common stock trades under."""
    head = "\n" + text[:20000]
    prose = text[:60000] + "\n" + body[:200000]
    out = CoverIdentity()
    names = _registrant_names(head)
    if names:
        out.company = printed_name(names[0], prose)
        out.other_names = [printed_name(n, prose) for n in names[1:]]
    else:
        out.company = tidy_name(_frequent_name(text[:60000] + "\n" + body[:60000], name_hint))
    former = _FORMER.search(head)
    if former and plausible_name(former.group(1)) and re.search(rf"(?:{_LEGAL_FORM_WORDS})\s*$", former.group(1).strip()):
        out.other_names.append(printed_name(former.group(1), prose))
    out.tickers = [s.symbol for s in listed_securities(head) if s.common]
    if not out.tickers:
        # older covers list no symbols; Item 5 says "traded ... under the symbol “ADBE”", a
        # release "Lockheed Martin Corporation [NYSE: LMT]"
        sym = _symbol_in_text(text[:60000] + "\n" + body, out.company)
        if sym:
            out.tickers.append(sym)
    return out


_UNDER_SYMBOL = re.compile(
    r"under\s+the\s+(?:ticker\s+|trading\s+|stock\s+)?symbols?\s+[“\"'‘]?(?P<sym>[A-Z][A-Za-z]{0,4}(?:\.[A-Z])?)\b")
_EXCHANGE_COLON = re.compile(rf"[(\[]\s*(?:{_EXCHANGE})\s*:\s*(?P<sym>[A-Z]{{1,5}}(?:\.[A-Z])?)\s*[)\]]")


def _symbol_in_text(text: str, company: str) -> str:
    """The symbol a filing says its stock trades under ("under the symbol “ORCL”", small capitals
    "OrCL" read as ORCL), else the one it prints beside its own name ("Costco Wholesale
    Corporation ... (Nasdaq: COST)", "[NYSE: LMT]"): another company's symbol in the text is
    not the filer's."""
    for m in _UNDER_SYMBOL.finditer(text):
        sym = _symbol(m.group("sym"))
        if sym:
            return sym
    first = core_name(company).split()[:1] if company else []
    for m in _EXCHANGE_COLON.finditer(text):
        before = text[max(0, m.start() - 160):m.start()].lower().replace("\u2019", "'")
        # the name, its legal form and its own short names ("(“Costco” or the “Company”)"), then the symbol
        gaps = [before[w.end():] for w in re.finditer(re.escape(first[0]), before)] if first else []
        if any(re.fullmatch(r"[^()\[\]]{0,40}(?:\([^()]{0,60}\)\s*)?", gap) for gap in gaps) \
                and m.group("sym") not in _NOT_TICKERS:
            return m.group("sym")
    return ""


def _frequent_name(text: str, name_hint: str) -> str:
    """The company name the text prints most, among those the file name hints at."""
    hint = _squash(name_hint)
    if len(hint) < 3:
        return ""
    counts: Counter[str] = Counter()
    for m in _NAME_WITH_SUFFIX.finditer(text.replace("\u2019", "'")):
        full = re.sub(r"\s+", " ", m.group(0))  # as printed: "Foot Locker, Inc.", not "Foot Locker Inc."
        core = _squash(core_name(full))
        if core and (hint.startswith(core) or core.startswith(hint)):
            counts[full] += 1 if _shouted(full) else 2  # prose over headings in capitals
    return counts.most_common(1)[0][0] if counts else ""


def core_name(name: str) -> str:
    """Lower-case name without "The" and legal suffixes: "The Coca-Cola Company" -> "coca-cola",
    "JPMorgan Chase & Co." -> "jpmorgan chase", "Amazon.com, Inc." -> "amazon.com"."""
    n = unicodedata.normalize("NFKC", name).lower().replace("\u2019", "'").strip()
    n = re.sub(r"\s+", " ", n)
    n = re.sub(r"^the\s+", "", n)
    prev = None
    while prev != n:
        prev = n
        n = _SUFFIX.sub("", n).strip(" ,.&")
    return n


def derived_aliases(company: str, tickers: Iterable[str] = ()) -> set[str]:
    """Names a question may use for a company, derived from its registered name and its
    trading symbols. Lower-case names match in any case; names kept with capitals (trading
    symbols, initials, the first word of a longer name: "JPM", "AMD", "Lockheed", "Foot")
    match only as capitalised words, so "foot" or "cost" in a question names nobody."""
    names: set[str] = set()
    if company:
        full = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", company).lower()).strip(" ,.")
        names.add(full)
        core = core_name(company)
        if core:
            names.add(core)
            if " & " in core:
                names.add(core.replace(" & ", " and "))
            if " and " in core:
                names.add(core.replace(" and ", " & "))
            if re.search(r"[a-z0-9][&'-][a-z0-9]", core):
                # written together as analysts and file names do: "pg&e" -> "pge", "mcdonald's" ->
                # "mcdonalds", "coca-cola" -> "cocacola"
                names.add(re.sub(r"(?<=[a-z0-9])[&'-](?=[a-z0-9])", "", core))
            if core.endswith(".com"):
                names.add(core[:-4])
            if "-" in core:
                names.add(core.replace("-", " "))
            words = [w for w in core.replace(".com", "").split() if w]
            plain = [w for w in words if w not in {"&", "and", "of", "the"}]
            if len(plain) > 1:
                names.add("".join(plain))  # "footlocker", as file names write it
            for n in range(2, len(words)):
                if words[n - 1] not in {"&", "and", "of", "the"}:
                    names.add(" ".join(words[:n]))  # "american water" of American Water Works
            stem = re.fullmatch(r"([a-z][a-z.&-]+)'s", words[0]) if words else None
            if stem:
                # "McDonald's": the name without its "'s" ("McDonald's revenue" is read as the
                # possessive of "McDonald"), as printed, matched as a name only
                printed = re.search(rf"(?<![A-Za-z]){re.escape(stem.group(1))}(?=['’]s)", company, re.I)
                names.add(printed.group(0) if printed and not printed.group(0).isupper() else stem.group(1).capitalize())
            first = words[0].strip(",.") if words else ""
            if len(words) > 1 and len(first) >= 3 and first not in GENERIC_WORDS and not first.isdigit():
                # "Lockheed", "JPMorgan" (matched as a name only), cased as the filer prints it
                # when it has capitals inside ("JPMorgan", not "Jpmorgan": the name is shown)
                printed = re.search(rf"(?<![A-Za-z]){re.escape(first)}(?![A-Za-z])", company, re.I)
                inner = printed.group(0) if printed and any(c.isupper() for c in printed.group(0)[1:]) else ""
                names.add(inner if inner and not inner.isupper() else first.capitalize())
                initials = re.fullmatch(r"([A-Z]{2,3})([A-Z][a-z]{2,})", inner)
                if initials:  # "JPMorgan" is also written "JP Morgan" and "J.P. Morgan"
                    names.add(f"{initials.group(1)} {initials.group(2)}")
                    names.add(f"{'.'.join(initials.group(1))}. {initials.group(2)}")
                if "-" in first:
                    names.add(first.replace("-", "").capitalize())  # "Wal-Mart Stores" -> "Walmart"
            if "&" in words and len(plain) == 2:
                names.add(f"{plain[0][0]}&{plain[1][0]}".upper())  # "J&J"
            elif len(plain) >= 3:
                names.add("".join(w[0] for w in plain if w[0].isalpha()).upper())  # "AMD", "IBM"
    names.update(t.upper() for t in tickers if t)
    return {n for n in names if len(n) >= 2}


def abbreviates(token: str, company: str) -> bool:
    """Is ``token`` (a capitalised word of 3-5 letters, "MCD") written from the first word of the
    company's name, its first letter first and the rest in order ("McDonald's" -> MCD, "Netflix"
    -> NFLX)? How trading symbols are usually made: an analyst types one the filing never prints."""
    if not re.fullmatch(r"[A-Z]{3,5}", token):
        return False
    words = re.sub(r"[^a-z0-9 ]", "", core_name(company).replace(".com", "")).split()
    if not words or len(words[0]) < len(token):
        return False
    first, letters = words[0], token.lower()
    if first[0] != letters[0]:
        return False
    at = 1
    for ch in letters[1:]:
        at = first.find(ch, at) + 1
        if not at:
            return False
    return True


def printed_short_name(company: str, text: str) -> str:
    """The first word of a registrant's name of several words as a name of its own, when its
    filing (``text``) prints that word alone as the company ("Costco" of Costco Wholesale
    Corporation, "Adobe" of Adobe Systems Incorporated: three times or more without the
    name's next word) and never in lower case as a word of its prose ("advanced" of Advanced
    Micro Devices is a word; "Foot" is printed only as "Foot Locker"); "" otherwise. Written in
    lower case: a name the filing itself uses alone names the company however it is typed."""
    words = core_name(company).replace(".com", "").split()
    if len(words) < 2 or len(words[0]) < 3 or words[0] in GENERIC_WORDS or not words[0].isalpha():
        return ""
    first, second = words[0], words[1]
    printed = re.search(rf"(?<![A-Za-z]){re.escape(first)}(?![A-Za-z])", company, re.I)
    word = printed.group(0) if printed else first.capitalize()
    norm = text.replace("\u2019", "'")
    alone = sum(1 for m in re.finditer(rf"(?<![\w&.-]){re.escape(word)}(?![\w&-])", norm)
                if not re.match(rf"[\s-]+{re.escape(second)}\b", norm[m.end():], re.I))
    return first if alone >= 3 and first not in _NOT_NAME_WORDS and not printed_in_lower_case(first, norm) else ""


def printed_in_lower_case(word: str, text: str) -> bool:
    """``word`` occurs in ``text`` in lower case as a word of prose (not inside a web or mail
    address: "adobe.com", "investor.relations@us.mcd.com")."""
    return bool(re.search(rf"(?<![\w./@-]){re.escape(word.lower())}(?![\w/@-])(?!\.[a-z])", text))


def lower_case_symbols(names: Iterable[str], text: str) -> list[str]:
    """A filer's trading symbols and initials of three letters or more ("AMD", "MSFT") as
    analysts also type them, in lower case, when its filing (``text``) never prints them in
    lower case as a word ("cost" is a word of Costco's filings: COST stays a name only in
    capitals), nor are they a word of questions about filings (``_NOT_NAME_WORDS``: a short
    release may not print "cost")."""
    return sorted({n.lower() for n in names if n.isupper() and n.isalpha() and 3 <= len(n) <= 5
                   and n.lower() not in _NOT_NAME_WORDS and not printed_in_lower_case(n, text)})


def names_in(text: str, names: Iterable[str]) -> list[str]:
    """Which of a company's names occur in ``text``: lower-case names in any case,
    capitalised names (tickers, initials, first words) only capitalised or in capitals."""
    norm = unicodedata.normalize("NFKC", text).replace("\u2019", "'")
    low = norm.lower()
    found = []
    for n in names:
        if n == n.lower():
            if re.search(_NAME_BOUNDARY.format(re.escape(n)), low):
                found.append(n)
            continue
        for m in re.finditer(rf"(?<![A-Za-z0-9&]){re.escape(n)}(?![A-Za-z0-9&])", norm, re.I):
            word = m.group(0)
            if (word.isupper() if n.isupper() else word[0].isupper()):
                found.append(n)
                break
    return found


def mentions(text: str, names: Iterable[str]) -> bool:
    return bool(names_in(text, names))


_NAME_BOUNDARY = r"(?<![a-z0-9&]){}(?![a-z0-9&])"


_PROPER = re.compile(
    r"(?<![\w-])((?:[A-Z][\w&.'’-]*|[0-9][A-Z][\w]*)(?:\s+(?:&\s+|of\s+|and\s+)?[A-Z][\w&.'’-]*)*)"
)
# Capitalised words that are not names of companies: finance vocabulary, statements, months.
NOT_NAMES = frozenset(
    """what which who how when where why is are was were does do did the a an in on of for and or
    to by from with as at per please round answer using use you your here here's give list show tell
    describe explain provide calculate compute based assume if fy fiscal q1 q2 q3 q4 quarter year
    annual quarterly usd us u.s. dollar dollars million millions billion billions thousand thousands
    percent eps ebit ebitda ebitda's capex opex cogs sg&a r&d gaap non-gaap ttm yoy qoq roa roe roi
    roic dpo dso dio ccc p&l form item part note notes total net gross operating income statement
    statements balance sheet sheets cash flow flows consolidated financial position comprehensive
    equity shareholders stockholders revenue revenues sales earnings profit margin ratio assets
    liabilities debt inventory capital expenditure expenditures dividend dividends share shares
    segment segments mda md&a management discussion analysis risk risks factors legal proceedings
    january february march april may june july august september october november december
    sec edgar ceo cfo coo board directors investment investor banker analyst only resource resources
    question following definition defined according per cent company company's corporation inc
    ltd plc llc holdings group i it its this that these those there their they we our
    data center gaming automotive cloud ai asia europe china americas emea apac covid covid-19 pandemic""".split()
)


# words trimmed off a run of capitalised words: finance vocabulary and analysts' abbreviations
_TRIMMED = NOT_NAMES | FINANCE_ABBREVIATIONS


def proper_names(question: str) -> list[str]:
    """Capitalised names in a question that may be companies ("Boeing", "Home Depot"), not
    counting the first word of a sentence when it is a common word, nor finance vocabulary."""
    out: list[str] = []
    runs = []
    for m in _PROPER.finditer(question):
        # a plural's possessive ends a name: "Raytheon Technologies' Raytheon Missiles & Defense" is
        # two ("BJ's Wholesale", "Lowe's Companies" keep their "'s" inside the name)
        words = re.split(r"\s+", m.group(1))
        cut = next((i + 1 for i, w in enumerate(words[:-1]) if re.search(r"s['’]$", w)), len(words))
        runs += [run for run in (words[:cut], words[cut:]) if run]
    for run in runs:
        # an initialism keeps its final dot ("J.P. Morgan", "U.S."); other words lose their punctuation
        words = [w.strip(",'’") if re.fullmatch(r"(?:[A-Z]\.){2,}(?:'s|’s)?", w.strip(",'’")) else w.strip(".,'’")
                 for w in run]
        words = [re.sub(r"(?:'s|’s)$", "", w) for w in words]
        # drop leading/trailing vocabulary ("FY2015", "What", "Revenue", "FCF": "Northrop's FCF")
        while words and (words[0].lower() in _TRIMMED or re.fullmatch(r"(?:fy|q[1-4])?\d{2,4}", words[0].lower())):
            words.pop(0)
        while words and (words[-1].lower() in _TRIMMED or re.fullmatch(r"(?:fy|q[1-4])?\d{2,4}", words[-1].lower())):
            words.pop()
        if not words:
            continue
        name = " ".join(words)
        if len(name) >= 2 and name not in out and not name.isdigit():
            out.append(name)
    return out


_LEGAL_TAIL = r"(?:,?\s+(?:Inc\.?|Incorporated|Corporation|Corp\.?|Company|Co\.|plc|Ltd\.?|Holdings))?"


def subject_names(question: str) -> list[str]:
    """Proper names the question is plainly *about*: possessives ("Boeing's revenue") and the
    subject of "did/does X <verb>" ("What dividend did Home Depot pay?"). A library may
    mention such a company (a competitor, a customer) without holding its filings, so these
    need a library company's name, not just a word somewhere in the text."""
    out: list[str] = []
    for name in proper_names(question):
        # the registrant's legal form may follow: "The Coca-Cola Company's", "did Target Corporation report"
        esc = re.escape(name) + _LEGAL_TAIL
        # after "the" only with its legal form ("did The Kroger Co. report"): "did the Activision
        # Blizzard deal close", "did the Tax Cuts and Jobs Act affect" name a thing, not who did it
        legal = re.escape(name) + _LEGAL_TAIL.removesuffix("?")
        if re.search(rf"{esc}(?:'s|’s|'|’)(?=[\s?!.,;:)]|$)", question) or re.search(
                rf"\b(?:did|does|do)\s+(?:{esc}|[Tt]he\s+{legal})\s+[a-z]+", question) or _spelled_out(question, name):
            out.append(name)
    return out


def spelled_out_names(question: str) -> list[str]:
    """Names the question writes with the words their initials stand for ("UPS (United Parcel
    Service)"): a company introduced to the reader, the question is about it whatever else it
    names."""
    return [name for name in proper_names(question) if _spelled_out(question, name)]


def _spelled_out(question: str, name: str) -> bool:
    """The question writes ``name`` with the words its initials stand for in parentheses, as
    an analyst names a company the reader may not know ("UPS (United Parcel Service)")."""
    m = re.search(rf"(?<![\w&-]){re.escape(name)}\s*\(((?:[A-Z][\w&.'’-]*\s*){{2,6}})\)", question)
    return m is not None and "".join(w[0] for w in m.group(1).split()).upper() == name.upper()


def segment_owners(question: str) -> list[str]:
    """The owners of capitalised segments or products ("Meta's Reality Labs operating loss",
    "Lockheed Martin's Aeronautics"): the capitalised run before the possessive, which
    ``proper_names`` reads as one name with what it owns ("Meta Reality Labs"). A candidate
    company only: a nickname the library's own terms know ("Coke's Latin America") is no other
    company, which the caller checks."""
    out: list[str] = []
    for m in re.finditer(r"(?<![\w&.'’-])((?:[A-Z][\w&.-]*\s+){0,3}[A-Z][\w&.-]*)(?:'s|’s)\s+(?=[A-Z])", question):
        words = m.group(1).split()
        while words and (words[0].lower() in _TRIMMED or re.fullmatch(r"(?:fy|q[1-4])?\d{2,4}", words[0].lower())):
            words.pop(0)
        owner = " ".join(words).strip(".")
        if len(owner) >= 2 and owner not in out and not re.fullmatch(r"(?:fy|q[1-4])?\d{2,4}", owner.lower()):
            out.append(owner)
    return out


# Words no lower-case name is made of: the vocabulary of questions about filings.
_NOT_NAME_WORDS = (NOT_NAMES | GENERIC_WORDS | MEASURE_WORDS | QUALIFIER_WORDS | FINANCE_ABBREVIATIONS | STOPWORDS
                   | QUESTION_NOISE | frozenset(SHORTHAND)
                   | frozenset(MONTH_NAMES) | frozenset(m[:3] for m in MONTH_NAMES)
                   | frozenset({"qtr", "qtrs", "yr", "yrs", "pls", "plz", "thx", "thanks", "ok", "okay", "lol", "hmm",
                                "abt", "w", "vs", "versus", "same", "again", "then", "too", "also", "instead", "now"}))
_LOWER_NAME_WORD = re.compile(r"[a-z][a-z&'.-]*[a-z0-9]")


def is_question_word(word: str) -> bool:
    """``word`` belongs to the vocabulary of questions about filings ("cost", "them", "sales"):
    typed in lower case it is that word, not a trading symbol spelled the same ("COST")."""
    return word.lower() in _NOT_NAME_WORDS
# the endings of common nouns, which a name typed in lower case seldom has: plurals ("layoffs",
# "warehouses"; not "-ss", "-us", "-is", "-as", "-os": "adidas"), "-ing", "-tion", "-ment"...
_COMMON_NOUN_END = re.compile(r"(?:[^suaio]s|ing|tion|sion|ment|ness|ity|ance|ence|ism)$")


# a word shortened with its verb ("how'd", "what's", "they're"): no name
_CONTRACTION = re.compile(r"['’](?:d|s|ll|re|ve|t|m)$")


def _deletions(word: str) -> set[str]:
    return {word} | {word[:i] + word[i + 1:] for i in range(len(word))}


def near_spelling(word: str, vocabulary: Iterable[str]) -> bool:
    """``word`` is one slip of the keyboard from a word of ``vocabulary`` (a letter added,
    dropped, changed or two swapped: "revnue", "gorss"), not being that word. One slip, not
    two: "kroger" (a letter dropped at the start and one added at the end) is no "rogers"."""
    mine = _deletions(word)
    n = len(word)
    for v in vocabulary:
        if v != word and abs(len(v) - n) <= 1 and v[:1].isalpha() and not mine.isdisjoint(_deletions(v)) \
                and _edit_distance(word, v, 1) <= 1:
            return True
    return False


def lower_case_name(phrase: str, printed_lower: Collection[str], vocabulary: Collection[str] = frozenset(),
                    slips: bool = True) -> str:
    """A phrase typed in lower case that reads as the name of a company ("google", "pepsi",
    "under armour"), written as a name ("Google"); "" when it reads as words.

    Names are the words the library's filings never print in lower case in prose
    (``printed_lower``, from ``company_terms.LibraryTerms``: a filer's own list of competitors
    such as "including adidas, Anta, ASICS" does not count), of one to three words, none of
    them a word of a question about filings (a measure, a period, an analyst's abbreviation:
    "nii", "qtr") or of ``vocabulary`` (the caller's own words, the library's segment and
    product labels), nor a slip of the keyboard away from one ("revnue", "gorss"), nor
    ending as common nouns do ("layoffs", "pricing"). The library's company names are
    matched before this (``names_in``). What remains may still be a word the library never
    prints ("bitcoin" in a library of chip makers): the searched question shows it as a
    name, and the analyst can edit it. ``slips`` false: a word one slip from a word the filings
    print is still a name (a possessive says it is an owner: "fargo's", not "cargo")."""
    words = phrase.split()
    if not 1 <= len(words) <= 3 or phrase != phrase.lower() or len("".join(words)) < 3:
        return ""
    if phrase in vocabulary:
        return ""
    for w in words:
        if not _LOWER_NAME_WORD.fullmatch(w) or w in _NOT_NAME_WORDS or w in printed_lower or w in vocabulary:
            return ""
        if w.endswith("'s") or w.endswith("s'") or _COMMON_NOUN_END.search(w) or _CONTRACTION.search(w):
            return ""
        if len(w) >= 4 and ((slips and near_spelling(w, printed_lower)) or near_spelling(w, _NOT_NAME_WORDS | set(vocabulary))):
            return ""
    if len(words) == 1 and len(words[0]) <= 3:
        return words[0].upper()  # "amd", "ibm": initials or a trading symbol
    return " ".join(w[:1].upper() + w[1:] for w in words)


# a lower-case possessive: "wells fargo's", "ibm's R&D", "under armour's 2018 revenue"
_LOWER_POSSESSIVE = re.compile(r"(?<![\w&'’.-])(?P<run>(?:[a-z][a-z&.-]*\s+){0,2}[a-z][a-z&.-]*[a-z0-9])(?:'s|’s)(?![\w'’])")


def lower_case_owner(text: str, printed_lower: Collection[str], vocabulary: Collection[str] = frozenset()) -> str:
    """A company named in lower case as the owner of a figure ("wells fargo's", "ibm's R&D"):
    the words before the possessive, back to the first that is a word of questions about
    filings; the one before "'s" must read as a name (``lower_case_name``: never printed in
    lower case by the library), the others may be common words of a name ("wells"). ""
    when none ("the company's", "this year's", "apple's" are matched elsewhere)."""
    for m in _LOWER_POSSESSIVE.finditer(text):
        words = m.group("run").split()
        if not lower_case_name(words[-1], printed_lower, vocabulary, slips=False):
            continue
        start = len(words) - 1
        while start > 0 and words[start - 1] not in _NOT_NAME_WORDS and words[start - 1] not in vocabulary \
                and _LOWER_NAME_WORD.fullmatch(words[start - 1]):
            start -= 1
        name = " ".join(words[start:])
        return name.upper() if len(words[start:]) == 1 and len(name) <= 3 else \
            " ".join(w[:1].upper() + w[1:] for w in words[start:])
    return ""


def lower_case_head(phrase: str, printed_lower: Collection[str], vocabulary: Collection[str] = frozenset()) -> str:
    """The name that opens a lower-case phrase before a measure ("qualcomm handset" of "qualcomm
    handset revenue"): its longest first words that read as a name (``lower_case_name``); ""
    when its first word does not."""
    words = phrase.split()
    for n in range(min(3, len(words)), 0, -1):
        found = lower_case_name(" ".join(words[:n]), printed_lower, vocabulary)
        if found:
            return found
    return ""


def named_company_at_start(phrase: str, named: Mapping[str, str]) -> str:
    """The company a lower-case phrase opens with, of those the filings print by name with a
    legal form (``company_terms.LibraryTerms.companies_named``: "general dynamics" ->
    "General Dynamics"), the longest; "" when none."""
    words = phrase.lower().split()
    for n in range(min(4, len(words)), 1, -1):
        found = named.get(" ".join(words[:n]))
        if found:
            return found
    return ""


def _edit_distance(a: str, b: str, limit: int) -> int:
    """Levenshtein distance with adjacent swaps ("mircosoft"), stopped past ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        if min(cur) > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[-1]


# a word of a question that may be a library company's name mistyped: five letters or more
_TYPED_WORD = re.compile(r"(?<![\w&'’.-])[A-Za-z][A-Za-z&-]{3,}[A-Za-z](?![\w&'’-])")
MIN_TYPED_NAME = 5  # shorter names collide with common words ("intel" is the shortest kept)


def typed_library_names(text: str, names: Iterable[str], printed_lower: Collection[str],
                        vocabulary: Collection[str] = frozenset()) -> list[tuple[int, int, str, bool]]:
    """Library company names a question types in a way ``names_in`` does not read: a
    possessive or plural without its apostrophe ("apples R&D", "amazons books") or a slip of
    the keyboard ("microsft", "nvidai"): (start, end, the library name, possessive).

    Only the library's own one-word names of five letters or more are matched (a common word
    cannot be one slip from a short name), a word by the same first letter, one edit away
    (two for names of eight letters or more), and never a word the library's filings print
    in lower case (``printed_lower``: "apply" is no slip of "apple") nor a word of questions
    about filings or of ``vocabulary``."""
    single = {n.lower(): n for n in names if n.replace("-", "").isalpha() and " " not in n
              and len(n) >= MIN_TYPED_NAME and not (n.isupper() and len(n) <= 5)}
    out: list[tuple[int, int, str, bool]] = []
    for m in _TYPED_WORD.finditer(text) if single else ():
        word = m.group(0)
        low = word.lower()
        if low in single or low in printed_lower or low in _NOT_NAME_WORDS or low in vocabulary:
            continue
        found = ""
        possessive = False
        if low.endswith("s") and low[:-1] in single:
            found, possessive = single[low[:-1]], True
        else:
            best = 3
            for key, name in single.items():
                if key[0] != low[0]:
                    continue
                limit = 2 if len(key) >= 8 else 1
                d = _edit_distance(low, key, limit)
                if d <= limit and d < best:
                    best, found = d, name
        if found:
            out.append((m.start(), m.end(), found, possessive))
    out += _typed_long_names(text, names, printed_lower, vocabulary, out)
    return sorted(out + _typed_split_names(text, names, [(a, b) for a, b, _, _ in out]))


def _typed_split_names(text: str, names: Iterable[str], taken: list[tuple[int, int]]) -> list[tuple[int, int, str, bool]]:
    """A library company's one-word name typed as two or three words, or with a hyphen or a
    period inside ("JP Morgan" of JPMorgan, "Wal-Mart" of Walmart, "Kraft-Heinz" of the library's
    "kraftheinz"): the words run together are one of the library's names of five letters or more
    (the library writes each name squashed too: ``derived_aliases``)."""
    squashed = {n.lower(): n for n in names if n.isalpha() and len(n) >= MIN_TYPED_NAME}
    words = list(re.finditer(r"[A-Za-z]+", text))
    out: list[tuple[int, int, str, bool]] = []
    spans = list(taken)
    for size in (3, 2):
        for i in range(len(words) - size + 1):
            run = words[i:i + size]
            if any(not re.fullmatch(r"\s?|[-.]|\.\s", text[x.end():y.start()]) for x, y in itertools.pairwise(run)):
                continue  # written together: a space, a hyphen or a period between the parts
            a, b = run[0].start(), run[-1].end()
            found = squashed.get("".join(w.group(0) for w in run).lower())
            if found and names_in(text[a:b], names):
                continue  # written as a library name already ("Foot Locker")
            if found and all(b <= x or a >= y for x, y in spans):
                out.append((a, b, found, False))
                spans.append((a, b))
    return out


def _typed_long_names(text: str, names: Iterable[str], printed_lower: Collection[str], vocabulary: Collection[str],
                      taken: list[tuple[int, int, str, bool]]) -> list[tuple[int, int, str, bool]]:
    """A library company's name of two to four words typed with one word slipped ("american watr
    works"): the other words as the name has them, the slipped word by the same first letter and
    one edit away (two for words of eight letters or more), never a word the library's filings
    print in lower case nor a word of ``vocabulary``."""
    words = list(re.finditer(r"[A-Za-z][A-Za-z&-]*", text))
    out: list[tuple[int, int, str, bool]] = []
    spans = [(a, b) for a, b, _, _ in taken]
    # the longest name first: "american watr works" is American Water Works, not "American Water" + "works"
    for name in sorted({n for n in names if " " in n.strip()}, key=lambda n: (-len(n.split()), -len(n), n)):
        parts = name.lower().split()
        if not 2 <= len(parts) <= 4 or not all(p.isalpha() for p in parts):
            continue
        for i in range(len(words) - len(parts) + 1):
            run = words[i:i + len(parts)]
            if any(text[x.end():y.start()].strip() for x, y in itertools.pairwise(run)):
                continue  # the words of a name are written together
            typed = [w.group(0).lower() for w in run]
            slips = [(t, p) for t, p in zip(typed, parts) if t != p]
            if len(slips) != 1:
                continue
            t, p = slips[0]
            if len(p) < 4 or t[0] != p[0] or t in printed_lower or t in _NOT_NAME_WORDS or t in vocabulary:
                continue
            limit = 2 if len(p) >= 8 else 1
            a, b = run[0].start(), run[-1].end()
            if _edit_distance(t, p, limit) <= limit and all(b <= x or a >= y for x, y in spans):
                out.append((a, b, name, False))
                spans.append((a, b))
    return out


# A table introduced as one entity's: "The following table presents JPMSE's capital metrics:",
# "The table below summarizes JPMorgan Chase Bank, N.A.'s ratios". The owner is the possessor.
_TABLE_INTRO = re.compile(
    r"(?i:\b(?:following|below)\s+(?:tables?\s+)?(?:presents?|summari[sz]es?|shows?|sets\s+(?:forth|out)|provides?|"
    r"lists?|reflects?|details?)\s+)(?P<owner>(?:the\s+)?[A-Z][^\n:;]{0,80}?)(?:'s|’s|(?<=s)'|(?<=s)’)\s")
_NAME_SMALL_WORDS = frozenset({"of", "and", "&", "de", "du", "la", "plc", "ltd", "inc", "llc", "n.a", "s.a", "ag", "nv", "bv"})
# how a filing names itself: these possessors are the registrant's own tables
_SELF = re.compile(r"^(?:the\s+)?(?:firm|company|corporation|group|registrant|partnership|trust)$|^(?:our|its|their)$",
                   re.I)


def table_owner(text_above: str, window: int = 1500) -> str:
    """The entity the nearest table introduction above a row names as the table's owner
    ("JPMSE" of "The following table presents JPMSE's capital metrics:"); "" when the
    introduction names none or names the filer itself ("the Firm's", "our")."""
    found = list(_TABLE_INTRO.finditer(text_above[-window:]))
    if not found:
        return ""
    owner = re.sub(r"\s+", " ", found[-1].group("owner")).strip()
    words = re.sub(r"^the\s+", "", owner, flags=re.I).split()
    # a name: its words capitalised ("J.P. Morgan Securities plc"), not "Level 3 assets'"
    named = all(w[:1].isupper() or w[:1].isdigit() or w.lower().strip(",.") in _NAME_SMALL_WORDS for w in words)
    if _SELF.match(owner) or not named:
        return ""
    return owner


def is_other_entity(owner: str, aliases: Iterable[str]) -> bool:
    """``owner`` (a table's possessor) is not the registrant: none of its names is the
    owner's whole name ("JPMorgan Chase Bank, N.A." is a subsidiary of "JPMorgan Chase &
    Co.", whose names include "jpmorgan chase")."""
    if not owner:
        return False
    core = core_name(owner)
    names = {a.lower() for a in aliases} | {core_name(a) for a in aliases}
    return core not in names and owner.lower() not in names
