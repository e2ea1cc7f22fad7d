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
    foods food brands group holdings company corporation inc co""".split()
)

_REGISTRANT = re.compile(r"\n([^\n]{2,100})\n\s*\(\s*exact\s+name\s+of\s+(?:the\s+)?registrant", re.I)
# "Delaware 58-0628465" / "WASHINGTON 91-1144442": the state and employer id line under the name
_STATE_EIN = re.compile(r"^[A-Za-z .]{3,40}\s+\d{2}-\d{7}\b")
_COMMISSION = re.compile(r"commission\s+file\s+(?:number|no\.?)", re.I)
_EXCHANGE = r"(?:The\s+)?(?:Nasdaq|NASDAQ|New\s+York\s+Stock\s+Exchange|NYSE|Chicago\s+Stock\s+Exchange|Cboe)"
_TICKER_ROW = re.compile(rf"(?<![A-Za-z0-9.])([A-Z]{{1,5}}(?:\.[A-Z])?)\s+{_EXCHANGE}")
_NOT_TICKERS = frozenset({"LLC", "THE", "NYSE", "I", "A", "NONE", "INC", "AND", "PAR", "USD", "N/A", "NA"})
_NAME_WITH_SUFFIX = re.compile(
    r"\b((?:The\s+)?[A-Z][\w.&'-]*(?:\s+(?:&\s+)?[A-Z][\w.&'-]*){0,4}),?\s+"
    r"((?i:Inc\.|Incorporated|Corporation|Company|Co\.|plc|N\.V\.|Holdings))(?![\w])"
)


@dataclass
class CoverIdentity:
    company: str = ""
    tickers: list[str] = field(default_factory=list)


def tidy_name(name: str) -> str:
    """Cover pages often print the registrant in capitals: "AMAZON.COM, INC." -> "Amazon.com, Inc."."""
    name = re.sub(r"\s+([.,])", r"\1", re.sub(r"\s+", " ", name)).strip(" _")
    if name.isupper():
        return " ".join(w[:1] + w[1:].lower() for w in name.split())
    return name


def _squash(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", unicodedata.normalize("NFKC", text).lower())


def cover_identity(text: str, name_hint: str = "", body: str = "") -> CoverIdentity:
    """Registrant's exact name and trading symbols from a filing's first pages.

    ``name_hint``: words from the file name ("COCACOLA"); used only to pick among names the
    text itself prints (``body``: the pages after the cover) when the cover shows the name
    as an image."""
    head = "\n" + text[:20000]
    out = CoverIdentity()
    m = _REGISTRANT.search(head)
    if m and not _COMMISSION.search(m.group(1)) and not re.search(r"\d{3}", m.group(1)):
        out.company = tidy_name(m.group(1))
    if not out.company:
        lines = head.split("\n")
        for i, line in enumerate(lines[1:], 1):
            if _STATE_EIN.match(line.strip()) and i >= 1:
                cand = lines[i - 1].strip()
                if cand and not _COMMISSION.search(cand) and not re.search(r"\d{3}|\(", cand):
                    out.company = tidy_name(cand)
                break
    if not out.company:
        out.company = tidy_name(_frequent_name(text[:60000] + "\n" + body[:60000], name_hint))
    for m in _TICKER_ROW.finditer(head):
        t = m.group(1)
        # "JPM PR G": a preferred series is a suffix of the common stock's symbol
        if re.search(r"\b[A-Z]{1,5}\s+(?:PR\s+)?$", head[max(0, m.start() - 10):m.start()]):
            continue
        if t not in _NOT_TICKERS and t not in out.tickers:
            out.tickers.append(t)
    if not out.tickers:
        # older covers list no symbols; Item 5 says "traded ... under the symbol “ADBE”"
        m = _SYMBOL_IN_TEXT.search(text[:60000] + "\n" + body)
        if m and (m.group(1) or m.group(2)) not in _NOT_TICKERS:
            out.tickers.append(m.group(1) or m.group(2))
    return out


_SYMBOL_IN_TEXT = re.compile(
    r"under\s+the\s+(?:ticker\s+|trading\s+|stock\s+)?symbol\s+[“\"']?([A-Z]{1,5}(?:\.[A-Z])?)\b"
    rf"|\((?:{_EXCHANGE})\s*:\s*([A-Z]{{1,5}})\)")


def _frequent_name(text: str, name_hint: str) -> str:
    """The company name the text prints most, among those the file name hints at."""
    hint = _squash(name_hint)
    if len(hint) < 3:
        return ""
    counts: Counter[str] = Counter()
    for m in _NAME_WITH_SUFFIX.finditer(text):
        full = f"{m.group(1)} {m.group(2)}" if m.group(2) != "Co." else f"{m.group(1)} Co."
        core = _squash(core_name(full))
        if core and (hint.startswith(core) or core.startswith(hint)):
            counts[full] += 1
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
            names.add(core.replace("&", "and").replace("  ", " "))
            if " and " in core:
                names.add(core.replace(" and ", " & "))
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
            first = words[0].strip(",.") if words else ""
            if len(words) > 1 and len(first) >= 3 and first not in GENERIC_WORDS and not first.isdigit():
                # "Lockheed", "JPMorgan" (matched as a name only), cased as the filer prints it
                # when it has capitals inside ("JPMorgan", not "Jpmorgan": the name is shown)
                printed = re.search(rf"(?<![A-Za-z]){re.escape(first)}(?![A-Za-z])", company, re.I)
                inner = printed.group(0) if printed and any(c.isupper() for c in printed.group(0)[1:]) else ""
                names.add(inner if inner and not inner.isupper() else first.capitalize())
                if "-" in first:
                    names.add(first.replace("-", "").capitalize())  # "Wal-Mart Stores" -> "Walmart"
            if "&" in words and len(plain) == 2:
                names.add(f"{plain[0][0]}&{plain[1][0]}".upper())  # "J&J"
            elif len(plain) >= 3:
                names.add("".join(w[0] for w in plain if w[0].isalpha()).upper())  # "AMD", "IBM"
    names.update(t.upper() for t in tickers if t)
    return {n for n in names if len(n) >= 2}


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
        words = [w.strip(".,'’") for w in run]
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
                rf"\b(?:did|does|do)\s+(?:{esc}|[Tt]he\s+{legal})\s+[a-z]+", question):
            out.append(name)
    return out


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
