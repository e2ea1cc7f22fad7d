"""core/answer/generate.py: JSON extraction from model output and streaming display of the
answer text."""

from __future__ import annotations

import json

from desktop_rag.core.answer.generate import AnswerTextStream, parse_model_json

# -- parse_model_json -----------------------------------------------------------------------------


def test_parse_clean_json() -> None:
    raw = json.dumps({"answer": "Net sales were $81,797 million.",
                      "citations": [{"chunk": "P1", "quote": "Total net sales 81,797"}]})
    assert parse_model_json(raw) == ("Net sales were $81,797 million.", ["Total net sales 81,797"])


def test_parse_chatter_around_json() -> None:
    raw = ('Sure! Here is the JSON you asked for:\n```json\n'
           '{"answer": "It grew 8%.", "citations": [{"chunk": "P2", "quote": "increased 8 % year over year"}]}\n'
           '```\nLet me know if you need anything else {smile}.')
    assert parse_model_json(raw) == ("It grew 8%.", ["increased 8 % year over year"])


def test_parse_truncated_json_salvages_answer_and_complete_quotes() -> None:
    raw = ('{"answer": "Net sales were \\"strong\\" at $81,797 million", "citations": ['
           '{"chunk": "P1", "quote": "Total net sales 81,797 82,959"}, {"chunk": "P2", "quote": "Products $ 60,5')
    answer, quotes = parse_model_json(raw)
    assert answer == 'Net sales were "strong" at $81,797 million'
    assert quotes == ["Total net sales 81,797 82,959"]  # the cut-off quote is dropped


def test_parse_truncated_inside_answer() -> None:
    answer, quotes = parse_model_json('{"answer": "Research and development expense was 7,4')
    assert answer == "Research and development expense was 7,4"
    assert quotes == []


def test_parse_plain_text_and_empty() -> None:
    assert parse_model_json("Net sales were $81.8 billion.") == ("Net sales were $81.8 billion.", [])
    assert parse_model_json("") == ("", [])
    assert parse_model_json("   ") == ("", [])


def test_parse_wrong_types_are_ignored() -> None:
    raw = json.dumps({"answer": 42, "citations": [{"quote": 7}, "P1", {"chunk": "P1", "quote": "real quote"}]})
    assert parse_model_json(raw) == ("", ["real quote"])
    assert parse_model_json('{"answer": "x", "citations": null}') == ("x", [])


def test_parse_two_objects_takes_the_first_answer() -> None:
    raw = '{"answer": "first", "citations": []}\n{"answer": "second", "citations": []}'
    answer, _ = parse_model_json(raw)
    assert answer == "first"


def test_parse_unicode_escapes() -> None:
    raw = '{"answer": "Caf\\u00e9 sales rose \\u2014 a lot", "citations": []}'
    assert parse_model_json(raw)[0] == "Café sales rose — a lot"


# -- AnswerTextStream -------------------------------------------------------------------------------
def _feed_all(pieces: list[str]) -> str:
    stream = AnswerTextStream()
    return "".join(stream.feed(p) for p in pieces)


def test_stream_decodes_answer_incrementally() -> None:
    stream = AnswerTextStream()
    assert stream.feed('{"ans') == ""
    assert stream.feed('wer": "Net ') == "Net "
    assert stream.feed("sales") == "sales"
    assert stream.feed('", "citations": [{"quote": "other"}]}') == ""
    assert stream.feed(" more") == ""
    assert stream.raw.endswith(" more")


def test_stream_escape_split_across_pieces() -> None:
    pieces = ['{"answer": "Line one', "\\", 'nline \\"two', "\\", '" and a back\\', "\\slash", '"}']
    assert _feed_all(pieces) == 'Line one\nline "two" and a back\\slash'


def test_stream_unicode_escape_split_across_pieces() -> None:
    # json.dumps-style output escapes non-ASCII: the live text must show the character.
    pieces = ['{"answer": "Caf', "\\u00", 'e9 up 5% \\u20', '14 strong", "citations": []}']
    assert _feed_all(pieces) == "Café up 5% — strong"


def test_stream_matches_parse_model_json() -> None:
    raw = json.dumps({"answer": 'Tab\there, "quoted", slash / and newline\nend', "citations": []})
    for size in (1, 2, 3, 7):
        pieces = [raw[i:i + size] for i in range(0, len(raw), size)]
        assert _feed_all(pieces) == parse_model_json(raw)[0], size


class _CharLlama:
    """The part of llama_cpp.Llama that prompt_tokens reads: one token per byte, a KV cache
    holding ``n_tokens`` of ``_input_ids``."""

    def __init__(self, cached: str) -> None:
        self._input_ids = list(cached.encode()) + [0] * 8  # stale slots past n_tokens
        self.n_tokens = len(cached.encode())

    def tokenize(self, text: bytes, add_bos: bool = True, special: bool = False) -> list[int]:
        return list(text)


def test_prompt_tokens_counts_what_the_kv_cache_already_holds() -> None:
    from desktop_rag.core.answer.generate import ANSWER_PREFIX, LlamaGenerator
    from desktop_rag.settings import GenerationSettings

    gen = object.__new__(LlamaGenerator)
    gen.settings = GenerationSettings(use_grammar=False)
    prefix = "RULES and EXAMPLES\n"
    gen.llm = _CharLlama(prefix + "PASSAGES: an earlier question's passages")  # type: ignore[assignment]
    prompt = prefix + "PASSAGES: new"
    total, cached = gen.prompt_tokens(prompt)  # type: ignore[misc]
    assert total == len(prompt) + len(ANSWER_PREFIX)  # sent with the prefilled JSON opener
    assert cached == len(prefix + "PASSAGES: ")
    assert gen.prompt_tokens(prompt, use_grammar=True) == (len(prompt), cached)
    assert gen.prompt_tokens([{"role": "user", "content": "chat"}]) is None


class _RecordingLlama(_CharLlama):
    def __init__(self) -> None:
        super().__init__("")
        self.evaluated: list[list[int]] = []

    def reset(self) -> None:
        self.n_tokens = 0

    def eval(self, tokens: list[int]) -> None:
        self.evaluated.append(list(tokens))
        self._input_ids[: len(tokens)] = tokens
        self.n_tokens = len(tokens)


def _base_generator(chat: bool = False):  # type: ignore[no-untyped-def]
    from desktop_rag.core.answer.generate import LlamaGenerator
    from desktop_rag.settings import GenerationSettings

    gen = object.__new__(LlamaGenerator)
    gen.settings = GenerationSettings()
    gen.has_chat_template = chat
    gen.llm = _RecordingLlama()  # type: ignore[assignment]
    return gen


def test_every_completion_prompt_starts_with_the_fixed_prefix_then_its_passages() -> None:
    from desktop_rag.core.answer.generate import EXAMPLES

    gen = _base_generator()
    passages = [("P1", "Contoso 10-Q | page 3", "Total net sales 12,345 11,002")]
    prompt = gen.build_prompt("What were net sales?", passages)
    prefix = gen.fixed_prefix()
    assert isinstance(prompt, str) and prompt.startswith(prefix)
    assert prompt[len(prefix):] == ("PASSAGES:\n[P1] Contoso 10-Q | page 3\nTotal net sales 12,345 11,002\n\n"
                                    "QUESTION: What were net sales?\nANSWER: ")
    assert all(q in prefix and json.dumps(a) in prefix for _, q, a in EXAMPLES)
    assert prefix.startswith(gen.rules()) and prefix.endswith("\n\n")


def test_the_fixed_prefix_is_in_the_kv_cache_before_the_first_question() -> None:
    gen = _base_generator()
    gen.cache_prefix()
    assert gen.llm.evaluated == [list(gen.fixed_prefix().encode())]
    prompt = gen.build_prompt("What were net sales?", [("P1", "h", "text")])
    total, cached = gen.prompt_tokens(prompt)
    assert cached == len(gen.fixed_prefix().encode()) and total - cached < 120  # only the question's part is new
    chat = _base_generator(chat=True)
    chat.cache_prefix()
    assert chat.llm.evaluated == []


def test_the_copied_figures_grammar_lets_digits_be_only_the_printed_figures() -> None:
    from llama_cpp import LlamaGrammar

    from desktop_rag.core.answer.generate import copied_figures_grammar

    g = copied_figures_grammar(["Total net sales 81,797 82,959.", "What were net sales in Q3 2023?"], True)
    num = next(line for line in g.splitlines() if line.startswith("num ::="))
    assert set(num.removeprefix("num ::= ").split(" | ")) == {'"81,797"', '"82,959"', '"2023"', '"3"'}
    assert "text ::= [^\"\\\\0-9\\n]+" in g  # free words carry no digit, no quote, no line break
    root = g.splitlines()[0]
    assert root == 'root ::= text? num (text num)* text? "\\""'  # a figure required, the string closed
    assert copied_figures_grammar(["81,797"], False).splitlines()[0] == 'root ::= text? (num text)* num? "\\""'
    assert copied_figures_grammar(["no figures here"], True) == ""
    LlamaGrammar.from_string(g, verbose=False)  # llama.cpp parses it
