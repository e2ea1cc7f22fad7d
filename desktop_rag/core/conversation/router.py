"""Per message: answer from the conversation (what was already said and cited), retrieve
from the filings, or both (compare an answer already given with a new one)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from desktop_rag.core.conversation.styles import is_style_only
from desktop_rag.core.domain.companies import names_in
from desktop_rag.core.domain.periods import find_periods, relative_period

CONVERSATION = "conversation"
RETRIEVE = "retrieve"
BOTH = "both"

RECALL_RE = re.compile(
    r"\b(?:what\s+did\s+you\s+(?:say|tell\s+me|find|answer)|you\s+(?:said|mentioned|told\s+me|found)|"
    r"(?:earlier|before|previously)\s+you|remind\s+me|recap|repeat\s+(?:that|the\s+(?:last\s+)?answer|your\s+answer)|"
    r"what\s+(?:you(?:'ve|\s+have)?|we(?:'ve|\s+have)?)\s+(?:said|told\s+me|found|established|learned|covered)|"
    r"summari[sz]e\s+(?:our|the|this)\s+(?:conversation|discussion|thread|chat|answers|findings)|"
    r"summari[sz]e\s+(?:everything|all\s+(?:of\s+)?(?:this|that|the\s+above)|the\s+above)|"
    r"what\s+(?:have\s+we|do\s+we\s+know)|so\s+far)\b", re.I)
SUMMARY_RE = re.compile(r"\b(?:summari[sz]e|summary|recap|so\s+far|what\s+have\s+we|what\s+do\s+we\s+know)\b", re.I)
COMPARE_RE = re.compile(
    r"\b(?:compare|comparison|versus|vs\.?|(?:difference|change|gap|growth)\s+between|"
    r"which\s+(?:one\s+|of\s+(?:them|these|those|the\s+two)\s+|[a-z]+\s+)?"
    r"(?:was|is|were|had|did|grew|performed|came\s+in)\s+(?:the\s+)?(?:higher|larger|bigger|lower|smaller|greater|more|less|"
    r"highest|largest|biggest|lowest|smallest|greatest|most|least|better|worse|best|worst|faster|slower)|"
    r"(?:higher|larger|bigger|lower|smaller)\s+than)\b", re.I)
_THOSE = re.compile(r"\b(?:those|these|them|the\s+two|both|the\s+(?:two\s+)?(?:answers|figures|numbers))\b", re.I)


@dataclass
class Route:
    kind: str  # conversation | retrieve | both
    reason: str
    task: str = ""  # for conversation: restyle | recall | summary | compare

    def note(self) -> str:
        return f"route: {self.kind}" + (f" ({self.task})" if self.task else "") + f" — {self.reason}"


_ROUTE_NOTE = re.compile(r"^route: (\w+)(?: \((\w+)\))? — (.*)$")


def route_in(notes: Iterable[str]) -> Route | None:
    """The router's decision as an answer's notes record it (``Route.note``), the latest one:
    a stored message keeps its notes, not its ``Turn``."""
    found = None
    for n in notes:
        m = _ROUTE_NOTE.match(n)
        if m:
            found = Route(m.group(1), m.group(3), m.group(2) or "")
    return found


def is_route_note(note: str) -> bool:
    return bool(_ROUTE_NOTE.match(note))


def _entities(text: str, names: Iterable[str]) -> tuple[set[str], set[str]]:
    comp = {n.lower() for n in names_in(text, names)}
    per = set(find_periods(text).labels())
    return comp, per


def route(question: str, previous_standalone: list[str], answered: int, names: Iterable[str]) -> Route:
    """Where the answer to ``question`` comes from.

    ``previous_standalone``: the thread's earlier standalone questions; ``answered``: how
    many of them have a verified, cited answer stored (what the conversation can quote)."""
    names = set(names)
    q = question.strip()
    if not previous_standalone or answered == 0:
        return Route(RETRIEVE, "nothing answered yet in this conversation")
    if is_style_only(q):
        return Route(CONVERSATION, "asks only for another layout of the last answer", "restyle")
    if RECALL_RE.search(q):
        task = "summary" if SUMMARY_RE.search(q) else "recall"
        return Route(CONVERSATION, "asks about what was already said", task)
    if COMPARE_RE.search(q):
        comp, per = _entities(q, names)
        known_c: set[str] = set()
        known_p: set[str] = set()
        for s in previous_standalone:
            c, p = _entities(s, names)
            known_c |= c
            known_p |= p
        new_c, new_p = comp - known_c, per - known_p
        if relative_period(q):
            new_p.add("shifted")
        if new_c or new_p:
            what = ", ".join(sorted(new_c | new_p))
            return Route(BOTH, f"compares with something not answered yet ({what})")
        if answered >= 2 or _THOSE.search(q):
            return Route(CONVERSATION, "compares answers already given", "compare")
        return Route(BOTH, "compares with something not answered yet")
    return Route(RETRIEVE, "asks for something new from the filings")
