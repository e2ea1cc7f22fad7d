"""core/domain/company_terms.py: terms that identify a company, derived from the library's text."""

from __future__ import annotations

from desktop_rag.core.domain.company_terms import (
    companies_named_by_terms,
    identifying_terms,
    library_terms,
    name_lists,
    prominent_labels,
    short_name,
    trademark_names,
)

CLOUDCO = ["Segment Information\nCloud Platform\nCloud Platform 20,538 23,059\nRetail Stores 5,403 6,976\n"
           "The cloud platform segment grew on demand from customers.",
           "Cloud Platform\nNet sales by segment were as follows."]
CHIPCO = ["Segments\nGraphics Division 4,280 2,043\nGraphics Division\nRetail Stores 1,000 900\n"
          "We sell to customers through distributors."]


def test_prominent_labels_are_headings_and_row_labels() -> None:
    labels = prominent_labels(CLOUDCO[0])
    assert "Cloud Platform" in labels and "Retail Stores" in labels
    assert not any(lab.startswith("The cloud platform segment") for lab in labels)


def test_terms_printed_by_one_company_only() -> None:
    terms = identifying_terms({"CloudCo Inc.": CLOUDCO, "ChipCo Corporation": CHIPCO})
    assert terms["cloud platform"] == "CloudCo Inc."
    assert terms["graphics division"] == "ChipCo Corporation"
    assert "retail stores" not in terms  # both print it
    assert "segments" not in terms and "net sales" not in terms  # generic words identify nobody
    assert identifying_terms({"CloudCo Inc.": CLOUDCO}) == {}  # one company: nothing to tell apart


def test_a_question_names_a_company_by_a_term_written_as_a_name() -> None:
    terms = identifying_terms({"CloudCo Inc.": CLOUDCO, "ChipCo Corporation": CHIPCO})
    assert companies_named_by_terms("what was Cloud Platform operating income?", terms) == {"CloudCo Inc."}
    assert companies_named_by_terms("what was cloud platform operating income?", terms) == set()
    assert short_name("The Coca-Cola Company") == "Coca-Cola"
    assert short_name("JPMorgan Chase & Co.") == "JPMorgan Chase"
    assert short_name("Amazon.com, Inc.") == "Amazon.com"


def test_labels_per_company_even_alone() -> None:
    alone = library_terms({"CloudCo Inc.": CLOUDCO})
    assert "cloud platform" in alone.labels["CloudCo Inc."] and alone.identifying == {}


def test_a_filer_s_trademarks_are_its_names() -> None:
    coke = ["“Trademark Coca-Cola” means beverages bearing the trademark Coca-Cola or any trademark that includes "
            "Coca-Cola or Coke (that is, Coca-Cola, Diet Coke).\nTrademark Sprite\nA simply great year for sprite."]
    shoes = ["Sales of basketball products using the Jumpman trademark grew.\nWe own the Converse, Star Chevron and "
             "Jack Purcell trademarks.\nMicrosoft and Windows are trademarks of Microsoft Corporation."]
    assert set(trademark_names(coke[0])) == {"Coca-Cola", "Coke", "Sprite"}
    assert "Windows" not in trademark_names(shoes[0])  # another owner's trademarks
    terms = library_terms({"The Coca-Cola Company": coke, "NIKE, Inc.": shoes})
    assert terms.identifying["coke"] == "The Coca-Cola Company" and terms.identifying["jumpman"] == "NIKE, Inc."
    # a trademark never printed in lower case is a name however typed; "sprite" is also printed as a word
    assert "coke" in terms.names and "sprite" not in terms.names
    assert "chevron" not in terms.identifying  # the whole trademark names the filer, not each of its words
    assert companies_named_by_terms("what did you tell me about coke?", terms.identifying, terms.names) == {
        "The Coca-Cola Company"}
    assert companies_named_by_terms("coke's revenue?", terms.identifying, terms.names) == {"The Coca-Cola Company"}
    assert companies_named_by_terms("what did you tell me about coke?", terms.identifying) == set()
    assert companies_named_by_terms("a sprite of a question", terms.identifying, terms.names) == set()


def test_capitalised_names_typed_in_lower_case() -> None:
    pages = {"Amazon.com, Inc.": ["AMZN Nasdaq\nSee www.amazon.com/amzn for filings. Net sales grew."],
             "Costco Wholesale Corporation": ["COST Nasdaq\nThe cost of sales rose."]}
    aliases = {"Amazon.com, Inc.": {"amazon.com", "amazon", "AMZN"}, "Costco Wholesale Corporation": {"costco", "COST"}}
    terms = library_terms(pages, aliases)
    # no filing prints "amzn" in prose (a web address is no prose); "cost" is a word
    assert terms.identifying["amzn"] == "Amazon.com, Inc." and "amzn" in terms.names
    assert "cost" not in terms.names
    assert companies_named_by_terms("amzn rev 2Q23?", terms.identifying, terms.names) == {"Amazon.com, Inc."}


def test_a_list_of_names_is_no_prose_and_a_company_s_frequent_words_are_its_own() -> None:
    rival_list = ("We compete with apparel and equipment companies, including adidas, Anta, ASICS, Li Ning, "
                  "lululemon athletica, Puma and Under Armour, among others.")
    assert any("adidas" in rival_list[a:b] for a, b in name_lists(rival_list))
    assert name_lists("Our products include servers, storage, and networking equipment sold to customers.") == []
    shoes = [rival_list, "Converse sales grew. Converse footwear and Converse apparel. Jordan Brand and Converse."]
    soda = ["Net operating revenues grew. We compete with PepsiCo in many markets. Sprite and Sprite Zero sold well."]
    terms = library_terms({"NIKE, Inc.": shoes, "The Coca-Cola Company": soda})
    # "adidas" is printed in lower case only in a list of names: no common word
    assert "adidas" not in terms.printed_lower and "apparel" in terms.printed_lower
    assert "converse" in terms.own_words["NIKE, Inc."]  # four times in two pages
    assert "pepsico" not in terms.own_words["The Coca-Cola Company"]  # named once, in passing


def test_abbreviations_the_filings_define_for_another_entity() -> None:
    pages = {
        "Streamco, Inc.": ['We rely on Lumen Cloud Services ("LCS") for our computing; the retail side of Lumen '
                           'competes with us. Our Global Streaming Membership ("GSM") grew in the Baltic '
                           'Union ("BU").\n'
                           'our global streaming membership and cloud software assurance'],
        "Lumen Cloud, Inc.": ['Lumen Cloud, Inc. ("LC") is the registrant. Software Assurance ("SA") is sold.\n'
                              'customers buy software assurance'],
    }
    defined = library_terms(pages).defined
    # another entity's name (its first word a name, no word of the filer's own)
    assert defined.get("LCS") == "Lumen Cloud Services"
    # a filer's own name, a product named with common words, a phrase printed in lower case, a
    # place (no organisation's last word): none
    assert "LC" not in defined and "SA" not in defined and "GSM" not in defined and "BU" not in defined


def test_a_period_word_a_filing_heads_its_columns_with_identifies_nobody() -> None:
    # one filer heads its columns "Oct 1, 2022" and "YTD 2023", the other never does: still no term of it
    mine = ["Revenue by quarter\nOct\nYTD\nQ3\nCloud Platform\n", "Oct\nYTD\nQ3\nCloud Platform 1,000\n"]
    other = ["Graphics Division\nGraphics Division 200\n"]
    terms = identifying_terms({"CloudCo Inc.": mine, "ChipCo Corporation": other})
    assert terms.get("cloud platform") == "CloudCo Inc."
    assert not {"oct", "ytd", "q3"} & set(terms)


def test_other_companies_the_filings_print_with_a_legal_form() -> None:
    from desktop_rag.core.domain.company_terms import companies_with_legal_form
    pages = ["Our competitors include Acme Rocket Works, Inc., Orbital Dynamics Corporation and others. "
             "Total CloudCo Inc. revenue rose. Under the Exchange Act. The Company files reports.",
             "FY22 CloudCo Corporation"]
    found = companies_with_legal_form(pages, ["CloudCo Inc.", "CloudCo"])
    assert found == {"acme rocket works": "Acme Rocket Works", "orbital dynamics": "Orbital Dynamics"}
