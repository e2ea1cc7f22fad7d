"""Local generation with llama-cpp-python on the CPU: model discovery, grounded prompts
(chat template when the GGUF has one, few-shot completion when it does not), the
JSON-schema grammar, cancellable token streaming, and the parsing of the JSON it asks for
(whole, truncated or streamed)."""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from desktop_rag.settings import GenerationSettings

if TYPE_CHECKING:  # llama_cpp loads its native library on import: only for annotations here
    from llama_cpp.llama_grammar import LlamaGrammar
    from llama_cpp.llama_types import CreateChatCompletionStreamResponse, CreateCompletionStreamResponse

ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "answer": {"type": "string"},
        "citations": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"chunk": {"type": "string"}, "quote": {"type": "string"}},
                "required": ["chunk", "quote"],
            },
            "maxItems": 2,
        },
    },
    "required": ["answer", "citations"],
}

NOT_IN_CORPUS = "Not in corpus"
# Without a grammar the base model is steered by prefilling the start of the JSON reply;
# it then writes the answer string and stops at the closing quote. Citations are located
# by the verifier (verify.py), which is all the model's own quotes would get anyway.
ANSWER_PREFIX = '{"answer": "'


RULES = (
    "You answer questions about company filings using ONLY the numbered passages. "
    "Reply with one JSON object: {\"answer\": <at most {words} words>, \"citations\": "
    "[{\"chunk\": <passage id like P1>, \"quote\": <words copied exactly from that passage, "
    "at most {chars} characters>}]} with at most {cites} citations. Copy figures exactly as "
    "printed. If the passages do not answer the question, reply {\"answer\": \"Not in corpus\", "
    "\"citations\": []}."
)

# Two worked examples: without them the 270M base model loops; with them it follows the format.
EXAMPLES = [
    (
        "[P1] Contoso Ltd. 10-Q Q2 2024 | CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS\n"
        "Three Months Ended\nMarch 30, March 25,\n2024 2023\nTotal net sales 12,345 11,002\n"
        "Research and development 1,234 1,100\n"
        "[P2] Contoso Ltd. 10-Q Q2 2024 | Liquidity and Capital Resources\n"
        "The Company believes its balances of cash will be sufficient to satisfy its cash requirements.",
        "What was Contoso's research and development expense in Q2 2024?",
        {"answer": "Research and development expense was $1,234 million for the quarter.",
         "citations": [{"chunk": "P1", "quote": "Research and development 1,234 1,100"}]},
    ),
    (
        "[P1] Fabrikam Inc. 10-Q Q1 2024 | Item 1. Legal Proceedings\n"
        "In March 2024 a jury found in favor of the Company in the patent case brought by Northwind "
        "Traders, and the plaintiff has filed an appeal.\n"
        "[P2] Fabrikam Inc. 10-Q Q1 2024 | Item 1A. Risk Factors\n"
        "The Company's business can be impacted by political events and natural disasters.",
        "What happened in Fabrikam's patent case with Northwind Traders?",
        {"answer": "A jury found in favor of Fabrikam in March 2024; Northwind Traders has appealed.",
         "citations": [{"chunk": "P1", "quote": "a jury found in favor of the Company in the patent case brought by Northwind Traders"}]},
    ),
]


def parse_model_json(raw: str) -> tuple[str, list[str]]:
    """(answer, quotes) from the model's output, tolerant of truncation and chatter."""
    raw = raw.strip()
    start = raw.find("{")
    if start >= 0:
        body = raw[start:]
        for candidate in (body, body[: body.rfind("}") + 1]):
            try:
                obj = json.loads(candidate)
            except ValueError:
                continue
            if isinstance(obj, dict):
                ans = obj.get("answer")
                quotes = [c.get("quote", "") for c in obj.get("citations") or [] if isinstance(c, dict)]
                return (ans if isinstance(ans, str) else ""), [q for q in quotes if isinstance(q, str)]
    # Truncated JSON: salvage the answer string and any complete quotes.
    m = re.search(r'"answer"\s*:\s*"((?:[^"\\]|\\.)*)', raw)
    answer = ""
    if m:
        try:
            answer = json.loads(f'"{m.group(1)}"')
        except ValueError:
            answer = m.group(1)
    quotes = []
    for q in re.findall(r'"quote"\s*:\s*"((?:[^"\\]|\\.)*)"', raw):
        try:
            quotes.append(json.loads(f'"{q}"'))
        except ValueError:
            continue
    if not m and start < 0:
        answer = raw  # plain text from a model that ignored the format
    return answer, quotes


_PRINTED_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def copied_figures_grammar(texts: list[str], need_figure: bool) -> str:
    """GBNF for the answer string after the prefilled ``{"answer": "`` whose digits can only be
    figures copied as printed in ``texts`` (the passages shown and the question): free words
    without digits between them, at least one figure when ``need_figure``, then the closing
    quote. The model still chooses which figure and its wording; a figure it would misread
    or invent cannot be written."""
    figures = sorted({m.group(0).rstrip(",") for t in texts for m in _PRINTED_NUMBER.finditer(t)}, key=lambda f: (-len(f), f))
    if not figures:
        return ""
    body = "text? num (text num)* text?" if need_figure else "text? (num text)* num?"
    alternatives = " | ".join(json.dumps(f) for f in figures)
    return f'root ::= {body} "\\""\ntext ::= [^"\\\\0-9\\n]+\nnum ::= {alternatives}\n'


class AnswerTextStream:
    """Incrementally pulls the ``answer`` string out of streamed JSON, for live display."""

    def __init__(self) -> None:
        self.raw = ""  # everything the model produced
        self._start = -1  # offset where the answer string's content begins
        self._shown = 0

    def feed(self, piece: str) -> str:
        """Add a piece of output; return the newly decoded part of the answer text."""
        self.raw += piece
        if self._start < 0:
            m = re.search(r'"answer"\s*:\s*"', self.raw)
            if not m:
                return ""
            self._start = m.end()
        out: list[str] = []
        i = self._start
        while i < len(self.raw):
            ch = self.raw[i]
            if ch == "\\":
                if i + 1 >= len(self.raw):
                    break  # escape split across pieces: wait for the rest
                nxt = self.raw[i + 1]
                if nxt == "u":
                    if i + 6 > len(self.raw):
                        break
                    try:
                        out.append(chr(int(self.raw[i + 2:i + 6], 16)))
                    except ValueError:
                        out.append(self.raw[i + 2:i + 6])
                    i += 6
                    continue
                out.append({"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}.get(nxt, nxt))
                i += 2
                continue
            if ch == '"':
                break
            out.append(ch)
            i += 1
        text = "".join(out)
        new = text[self._shown:]
        self._shown = len(text)
        return new


@dataclass
class ModelInfo:
    path: Path
    name: str
    size_mb: float
    quantization: str
    has_chat_template: bool
    architecture: str = ""

    @property
    def label(self) -> str:
        tmpl = "chat" if self.has_chat_template else "base"
        return f"{self.name} ({self.quantization}, {self.size_mb:.0f} MB, {tmpl})"


_FILE_TYPES = {0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K",
               11: "Q3_K_S", 12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S",
               17: "Q5_K_M", 18: "Q6_K", 30: "BF16"}


def inspect_model(path: Path) -> ModelInfo:
    """Read a GGUF's metadata (vocabulary only: cheap, no weights loaded)."""
    from llama_cpp import Llama

    silence_llama_logs()
    llm = Llama(str(path), vocab_only=True, verbose=False)
    try:
        meta = dict(llm.metadata)
    finally:
        llm.close()
    ftype = meta.get("general.file_type", "")
    quant = _FILE_TYPES.get(int(ftype), f"type {ftype}") if str(ftype).isdigit() else _quant_from_name(path.name)
    return ModelInfo(
        path=path, name=meta.get("general.name") or path.stem, size_mb=path.stat().st_size / 2**20,
        quantization=quant, has_chat_template="tokenizer.chat_template" in meta,
        architecture=meta.get("general.architecture", ""),
    )


def _quant_from_name(name: str) -> str:
    up = name.upper()
    for q in sorted(_FILE_TYPES.values(), key=len, reverse=True):
        if q in up:
            return q
    return "?"


def list_models(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.gguf") if p.is_file()) if folder.is_dir() else []


_LOG_CALLBACK = None


def silence_llama_logs() -> None:
    """llama.cpp writes load chatter to stderr even with verbose=False; route it nowhere
    (the CLI's stderr is for progress and errors an analyst should read)."""
    global _LOG_CALLBACK
    if _LOG_CALLBACK is not None:
        return
    import ctypes

    import llama_cpp

    @ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
    def _discard(level: int, text: bytes, user_data: object) -> None:
        return None

    _LOG_CALLBACK = _discard  # keep a reference: ctypes callbacks must outlive their use
    llama_cpp.llama_log_set(_discard, ctypes.c_void_p())


def physical_cores() -> int:
    try:
        import psutil

        return psutil.cpu_count(logical=False) or os.cpu_count() or 1
    except ImportError:  # pragma: no cover - psutil is a requirement
        return os.cpu_count() or 1


def format_passages(passages: list[tuple[str, str, str]]) -> str:
    """[(label, header, text)] -> prompt block."""
    return "\n".join(f"[{label}] {header}\n{text}" for label, header, text in passages)


class LlamaGenerator:
    """One loaded GGUF. Not thread-safe: the app runs one model job at a time."""

    def __init__(self, path: Path, settings: GenerationSettings) -> None:
        from llama_cpp import Llama

        silence_llama_logs()
        self.path = path
        self.settings = settings
        self.threads = settings.threads or physical_cores()
        self.llm = Llama(
            str(path), n_ctx=settings.context_window, n_threads=self.threads,
            n_threads_batch=self.threads, n_batch=512, verbose=False,
        )
        self.has_chat_template = "tokenizer.chat_template" in self.llm.metadata
        self.name = self.llm.metadata.get("general.name") or path.stem
        self._grammar: LlamaGrammar | None = None
        self.cache_prefix()

    def cache_prefix(self) -> None:
        """Evaluate the fixed prompt prefix (rules and worked examples, ~520 tokens for the
        bundled Gemma) into the KV cache now, while the model loads behind the window: the
        first question then pays only for its own passages, as every later one does
        (llama-cpp-python reuses the longest common token prefix of the cache)."""
        if self.has_chat_template:
            return  # the chat template is applied inside llama-cpp-python: its prefix is reused from the first question on
        self.llm.reset()
        self.llm.eval(self.llm.tokenize(self.fixed_prefix().encode("utf-8"), special=True))

    def close(self) -> None:
        self.llm.close()

    @property
    def grammar(self) -> LlamaGrammar:
        if self._grammar is None:
            from llama_cpp import LlamaGrammar

            schema = json.loads(json.dumps(ANSWER_SCHEMA))
            props = schema["properties"]
            # Bounded strings: a looping small model is forced to close the JSON.
            props["answer"]["maxLength"] = self.settings.max_answer_words * 8
            props["citations"]["maxItems"] = self.settings.max_citations
            props["citations"]["items"]["properties"]["quote"]["maxLength"] = self.settings.max_quote_chars
            self._grammar = LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
        return self._grammar

    def rules(self) -> str:
        s = self.settings
        return (RULES.replace("{words}", str(s.max_answer_words)).replace("{chars}", str(s.max_quote_chars))
                .replace("{cites}", str(s.max_citations)))

    def build_prompt(self, question: str, passages: list[tuple[str, str, str]]) -> str | list[dict[str, str]]:
        """A completion prompt (base model) or chat messages (model with a chat template).
        The fixed part comes first so llama.cpp reuses its KV cache across questions."""
        shots = []
        for ctx, q, ans in EXAMPLES:
            shots.append((f"PASSAGES:\n{ctx}\n\nQUESTION: {q}", json.dumps(ans)))
        task = f"PASSAGES:\n{format_passages(passages)}\n\nQUESTION: {question}"
        if self.has_chat_template:
            msgs = [{"role": "system", "content": self.rules()}]
            for user, reply in shots:
                msgs += [{"role": "user", "content": user}, {"role": "assistant", "content": reply}]
            msgs.append({"role": "user", "content": task})
            return msgs
        return f"{self.fixed_prefix()}{task}\nANSWER: "

    def fixed_prefix(self) -> str:
        """The start every completion prompt shares: the rules and the worked examples."""
        parts = [self.rules(), ""]
        for ctx, q, ans in EXAMPLES:
            parts += [f"PASSAGES:\n{ctx}\n\nQUESTION: {q}", f"ANSWER: {json.dumps(ans)}", ""]
        return "\n".join(parts) + "\n"

    def prompt_tokens(self, prompt: str | list[dict[str, str]], use_grammar: bool | None = None) -> tuple[int, int] | None:
        """(tokens of a completion prompt as ``stream`` sends it, how many of them the KV cache
        already holds): llama-cpp-python evaluates only the rest, and that evaluation is the
        first token's cost. None for chat messages (the template is applied inside llama.cpp)."""
        if not isinstance(prompt, str):
            return None
        grammar = self.settings.use_grammar if use_grammar is None else use_grammar
        text = prompt + ("" if grammar else ANSWER_PREFIX)
        tokens = self.llm.tokenize(text.encode("utf-8"), special=True)  # as create_completion does
        cached = 0
        for a, b in zip(self.llm._input_ids[: self.llm.n_tokens], tokens, strict=False):
            if a != b:
                break
            cached += 1
        return len(tokens), cached

    def count_tokens(self, text: str) -> int:
        return len(self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def stream(
        self, prompt: str | list[dict[str, str]], cancel: threading.Event | None = None,
        max_tokens: int | None = None, use_grammar: bool | None = None, answer_grammar: str = "",
    ) -> Iterator[str]:
        """Greedy token stream. Stops early when ``cancel`` is set. ``answer_grammar`` (GBNF, a
        completion prompt only): constrains the prefilled answer string alone (the JSON
        reply's frame stays prefilled), e.g. ``copied_figures_grammar``."""
        s = self.settings
        grammar = self.grammar if (s.use_grammar if use_grammar is None else use_grammar) else None
        if answer_grammar and isinstance(prompt, str):
            from llama_cpp import LlamaGrammar

            grammar = None  # the answer string's own grammar, after the prefilled opener below
        kwargs: dict[str, Any] = dict(
            max_tokens=max_tokens or s.max_tokens, temperature=0.0, top_k=1, top_p=1.0,
            repeat_penalty=1.0, stream=True, grammar=grammar,
        )
        # stream=True (in kwargs): both calls return iterators of stream chunks.
        it: Iterator[Any]
        if isinstance(prompt, list):
            chat = cast("Iterator[CreateChatCompletionStreamResponse]",
                        self.llm.create_chat_completion(messages=prompt, **kwargs))  # type: ignore[arg-type]
            it = chat
            for chat_part in chat:
                if cancel is not None and cancel.is_set():
                    break
                content = chat_part["choices"][0].get("delta", {}).get("content")
                if isinstance(content, str) and content:  # the role-only first chunk has none
                    yield content
        else:
            prefix = "" if grammar is not None else ANSWER_PREFIX
            stop = ["\n\n", "QUESTION:"] if grammar is not None else ['"', "\n"]
            if prefix:
                # Only the answer string is generated: ~2 tokens per word is plenty.
                kwargs["max_tokens"] = min(kwargs["max_tokens"], 2 * s.max_answer_words + 16)
            if answer_grammar:
                kwargs["grammar"] = LlamaGrammar.from_string(answer_grammar, verbose=False)
            completion = cast("Iterator[CreateCompletionStreamResponse]",
                              self.llm.create_completion(prompt=prompt + prefix, stop=stop, **kwargs))
            it = completion
            if prefix:
                yield prefix
            for part in completion:
                if cancel is not None and cancel.is_set():
                    break
                text = part["choices"][0]["text"]
                if text:
                    yield text
            if prefix and not (cancel is not None and cancel.is_set()):
                yield '", "citations": []}'
        if cancel is not None and cancel.is_set():
            # Closing the generator makes llama-cpp-python stop decoding right away.
            close = getattr(it, "close", None)
            if close:
                close()
