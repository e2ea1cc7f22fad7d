"""Writes ``eval/threads_variants.jsonl``: the follow-up robustness battery of issue #12.

Each thread is a short conversation (an opening question that names company and period,
then one or two follow-ups) in the format of ``threads.jsonl``; every follow-up is one way
analysts type a change of period or company (shorthand, typos, product names, "Q4/FY21",
"9M", "the back half", "3/31/23", two changes at once, pronouns, a company the library
lacks). ``group`` is the kind of variation ("v-period", "v-date", "v-span", "v-company",
"v-two", "v-pronoun", "v-absent"). Labels were written by hand from the filings' cover
periods (see ``eval/README.md``); run it with
``main.py eval --threads --threads-file eval/threads_variants.jsonl``.
"""

from __future__ import annotations

import json
from pathlib import Path

S, F = "sec10q", "financebench-dev"
INTEL, AMZN, MSFT, NVDA, AAPL = ("Intel Corporation", "Amazon.com, Inc.", "Microsoft Corporation",
                                 "Nvidia Corporation", "Apple Inc.")
KO, COST, LMT, GLW, JPM = ("The Coca-Cola Company", "Costco Wholesale Corporation", "Lockheed Martin Corporation",
                           "Corning Incorporated", "JPMorgan Chase & Co.")
NKE, ADBE, ADBS, NFLX, WMT = ("NIKE, Inc.", "Adobe Inc.", "Adobe Systems Incorporated", "Netflix, Inc.", "Walmart Inc.")
KHC, AMD, AWK = "The Kraft Heinz Company", "Advanced Micro Devices, Inc.", "American Water Works Company, Inc."

# (set, opening question, company, period, doc), then its follow-ups: (group, q, company, period, doc)
Base = tuple[str, str, str, str, str | None]
Turn = tuple[str, str, str, str, str | None]
BASES: list[tuple[Base, list[Turn]]] = [
    ((S, "What was Intel's net revenue in Q3 2023?", INTEL, "Q3 2023", "2023 Q3 INTC.pdf"), [
        ("v-period", "and Q2'23?", INTEL, "Q2 2023", "2023 Q2 INTC.pdf"),
        ("v-period", "what about 2Q23", INTEL, "Q2 2023", "2023 Q2 INTC.pdf"),
        ("v-period", "and 2023 Q2?", INTEL, "Q2 2023", "2023 Q2 INTC.pdf"),
        ("v-period", "Q2/23?", INTEL, "Q2 2023", "2023 Q2 INTC.pdf"),
        ("v-period", "and 2Q 2023?", INTEL, "Q2 2023", "2023 Q2 INTC.pdf"),
        ("v-period", "how about the June quarter?", INTEL, "Q2 2023", "2023 Q2 INTC.pdf"),
        ("v-period", "and the June '23 qtr?", INTEL, "Q2 2023", "2023 Q2 INTC.pdf"),
        ("v-period", "and 3Q22?", INTEL, "Q3 2022", "2022 Q3 INTC.pdf"),
        ("v-period", "same period last year?", INTEL, "Q3 2022", "2022 Q3 INTC.pdf"),
        ("v-period", "and the prior-year period?", INTEL, "Q3 2022", "2022 Q3 INTC.pdf"),
        ("v-period", "and the year-ago quarter?", INTEL, "Q3 2022", "2022 Q3 INTC.pdf"),
        ("v-period", "what about Q3 last year?", INTEL, "Q3 2022", "2022 Q3 INTC.pdf"),
        ("v-period", "and last year's Q3?", INTEL, "Q3 2022", "2022 Q3 INTC.pdf"),
        ("v-period", "and two quarters back?", INTEL, "Q1 2023", "2023 Q1 INTC.pdf"),
        ("v-period", "and Q1?", INTEL, "Q1 2023", "2023 Q1 INTC.pdf"),
        ("v-period", "and the first quarter?", INTEL, "Q1 2023", "2023 Q1 INTC.pdf"),
        ("v-period", "and the March quarter?", INTEL, "Q1 2023", "2023 Q1 INTC.pdf"),
        ("v-period", "and 1Q?", INTEL, "Q1 2023", "2023 Q1 INTC.pdf"),
        ("v-period", "and FY22?", INTEL, "fiscal 2022", None),
        ("v-period", "and fiscal '22?", INTEL, "fiscal 2022", None),
        ("v-period", "and in '22?", INTEL, "2022", None),
        ("v-period", "and full-year 2022?", INTEL, "2022", None),
        ("v-period", "and calendar 2022?", INTEL, "2022", None),
        ("v-date", "and the quarter ended 7/1/23?", INTEL, "the quarter ended July 1, 2023", "2023 Q2 INTC.pdf"),
        ("v-date", "and the 13 weeks ended July 1, 2023?", INTEL, "the quarter ended July 1, 2023", "2023 Q2 INTC.pdf"),
        ("v-date", "and the thirteen weeks ending April 1, 2023?", INTEL, "the quarter ended April 1, 2023",
         "2023 Q1 INTC.pdf"),
        ("v-span", "9M?", INTEL, "the nine months ended September 30, 2023", "2023 Q3 INTC.pdf"),
        ("v-span", "and YTD?", INTEL, "the nine months ended September 30, 2023", "2023 Q3 INTC.pdf"),
        ("v-span", "and 9M23?", INTEL, "the nine months ended September 30, 2023", "2023 Q3 INTC.pdf"),
        ("v-span", "and 9M 2023?", INTEL, "the nine months ended September 30, 2023", "2023 Q3 INTC.pdf"),
        ("v-span", "year-to-date?", INTEL, "the nine months ended September 30, 2023", "2023 Q3 INTC.pdf"),
        ("v-span", "and 1H23?", INTEL, "the first half of 2023", "2023 Q2 INTC.pdf"),
        ("v-span", "and H1?", INTEL, "the first half of 2023", "2023 Q2 INTC.pdf"),
        ("v-span", "and H1 2023?", INTEL, "the first half of 2023", "2023 Q2 INTC.pdf"),
        ("v-span", "and the first six months?", INTEL, "the first half of 2023", "2023 Q2 INTC.pdf"),
        ("v-span", "and 2H22?", INTEL, "the second half of 2022", None),
        ("v-span", "and H2 2022?", INTEL, "the second half of 2022", None),
        ("v-span", "and the back half of 2022?", INTEL, "the second half of 2022", None),
        ("v-span", "LTM?", INTEL, "the twelve months ended September 30, 2023", None),
        ("v-span", "what about TTM", INTEL, "the twelve months ended September 30, 2023", None),
        ("v-company", "and amazon?", AMZN, "Q3 2023", "2023 Q3 AMZN.pdf"),
        ("v-company", "AMZN?", AMZN, "Q3 2023", "2023 Q3 AMZN.pdf"),
        ("v-company", "amzn?", AMZN, "Q3 2023", "2023 Q3 AMZN.pdf"),
        ("v-company", "and amazn?", AMZN, "Q3 2023", "2023 Q3 AMZN.pdf"),
        ("v-company", "what about Amazon.com?", AMZN, "Q3 2023", "2023 Q3 AMZN.pdf"),
        ("v-company", "same for amazon inc", AMZN, "Q3 2023", "2023 Q3 AMZN.pdf"),
        ("v-company", "and Amazons?", AMZN, "Q3 2023", "2023 Q3 AMZN.pdf"),
        ("v-company", "and the AWS parent?", AMZN, "Q3 2023", "2023 Q3 AMZN.pdf"),
        ("v-company", "ditto nvda", NVDA, "Q3 2023", "2023 Q3 NVDA.pdf"),
        ("v-company", "nvidia?", NVDA, "Q3 2023", "2023 Q3 NVDA.pdf"),
        ("v-company", "nvida?", NVDA, "Q3 2023", "2023 Q3 NVDA.pdf"),
        ("v-company", "and NVDA's?", NVDA, "Q3 2023", "2023 Q3 NVDA.pdf"),
        ("v-company", "and the GeForce maker?", NVDA, "Q3 2023", "2023 Q3 NVDA.pdf"),
        ("v-company", "and msft?", MSFT, "Q3 2023", "2023 Q3 MSFT.pdf"),
        ("v-company", "microsfot?", MSFT, "Q3 2023", "2023 Q3 MSFT.pdf"),
        ("v-company", "and the Xbox maker?", MSFT, "Q3 2023", "2023 Q3 MSFT.pdf"),
        ("v-company", "and appl?", AAPL, "Q3 2023", "2023 Q3 AAPL.pdf"),
        ("v-company", "and aapl", AAPL, "Q3 2023", "2023 Q3 AAPL.pdf"),
        ("v-company", "Apple Inc.?", AAPL, "Q3 2023", "2023 Q3 AAPL.pdf"),
        ("v-company", "and the iPhone maker?", AAPL, "Q3 2023", "2023 Q3 AAPL.pdf"),
        ("v-company", "same for apples", AAPL, "Q3 2023", "2023 Q3 AAPL.pdf"),
        ("v-absent", "and AMD?", "AMD", "Q3 2023", None),
        ("v-absent", "same for qualcomm", "Qualcomm", "Q3 2023", None),
        ("v-absent", "what about tsmc?", "TSMC", "Q3 2023", None),
        ("v-absent", "and Texas Instruments?", "Texas Instruments", "Q3 2023", None),
        ("v-absent", "and google?", "Google", "Q3 2023", None),
        ("v-absent", "Meta?", "Meta", "Q3 2023", None),
        ("v-two", "and Apple's for the prior quarter?", AAPL, "Q2 2023", "2023 Q2 AAPL.pdf"),
        ("v-two", "and amzn a year earlier?", AMZN, "Q3 2022", "2022 Q3 AMZN.pdf"),
        ("v-two", "what about nvda in Q2?", NVDA, "Q2 2023", "2023 Q2 NVDA.pdf"),
        ("v-two", "same for Amazon, 2Q23", AMZN, "Q2 2023", "2023 Q2 AMZN.pdf"),
        ("v-two", "Amazon Q1?", AMZN, "Q1 2023", "2023 Q1 AMZN.pdf"),
        ("v-two", "and AMD for the prior-year quarter?", "AMD", "Q3 2022", None),
        ("v-two", "how about Amazon's 9M?", AMZN, "the nine months ended September 30, 2023", "2023 Q3 AMZN.pdf"),
        ("v-two", "and amazon ytd?", AMZN, "the nine months ended September 30, 2023", "2023 Q3 AMZN.pdf"),
    ]),
    ((S, "What were Microsoft's total revenues in Q1 FY2024?", MSFT, "Q1 FY2024", "2023 Q3 MSFT.pdf"), [
        ("v-period", "and Q3 FY23?", MSFT, "Q3 FY2023", "2023 Q2 MSFT.pdf"),
        ("v-period", "FY23 Q3?", MSFT, "Q3 FY2023", "2023 Q2 MSFT.pdf"),
        ("v-period", "and 3Q FY23?", MSFT, "Q3 FY2023", "2023 Q2 MSFT.pdf"),
        ("v-period", "and Q3/FY23?", MSFT, "Q3 FY2023", "2023 Q2 MSFT.pdf"),
        ("v-period", "and FQ3'23?", MSFT, "Q3 FY2023", "2023 Q2 MSFT.pdf"),
        ("v-period", "and fiscal Q3 '23?", MSFT, "Q3 FY2023", "2023 Q2 MSFT.pdf"),
        ("v-period", "and Q3 fiscal 2023?", MSFT, "Q3 FY2023", "2023 Q2 MSFT.pdf"),
        ("v-period", "and the third fiscal quarter of 2023?", MSFT, "Q3 FY2023", "2023 Q2 MSFT.pdf"),
        ("v-period", "and the March quarter?", MSFT, "Q3 FY2023", "2023 Q2 MSFT.pdf"),
        ("v-period", "and the March '23 quarter?", MSFT, "Q3 FY2023", "2023 Q2 MSFT.pdf"),
        ("v-period", "and Q4/FY23?", MSFT, "Q4 FY2023", None),
        ("v-period", "and 4Q FY23?", MSFT, "Q4 FY2023", None),
        ("v-period", "and FY23 Q4?", MSFT, "Q4 FY2023", None),
        ("v-period", "last fiscal year?", MSFT, "fiscal 2023", None),
        ("v-period", "and the prior fiscal year?", MSFT, "fiscal 2023", None),
        ("v-period", "and FY23 as a whole?", MSFT, "fiscal 2023", None),
        ("v-period", "what about the prior-year quarter?", MSFT, "Q1 FY2023", "2022 Q3 MSFT.pdf"),
        ("v-period", "same qtr last year?", MSFT, "Q1 FY2023", "2022 Q3 MSFT.pdf"),
        ("v-date", "and the quarter ended 3/31/23?", MSFT, "the quarter ended March 31, 2023", "2023 Q2 MSFT.pdf"),
        ("v-date", "and Mar-23?", MSFT, "the quarter ended March 31, 2023", "2023 Q2 MSFT.pdf"),
        ("v-date", "March '23?", MSFT, "the quarter ended March 31, 2023", "2023 Q2 MSFT.pdf"),
        ("v-date", "and the Sept '22 quarter?", MSFT, "the quarter ended September 30, 2022", "2022 Q3 MSFT.pdf"),
        ("v-date", "and the Dec-22 qtr?", MSFT, "the quarter ended December 31, 2022", "2023 Q1 MSFT.pdf"),
        ("v-two", "and NVDA for FY24 Q2?", NVDA, "Q2 FY2024", "2023 Q2 NVDA.pdf"),
        ("v-two", "same for nvidia, fiscal Q2 '24", NVDA, "Q2 FY2024", "2023 Q2 NVDA.pdf"),
        ("v-two", "and Apple's Q4 FY23?", AAPL, "Q4 FY2023", None),
    ]),
    ((S, "What was NVIDIA's revenue in Q2 FY2024?", NVDA, "Q2 FY2024", "2023 Q2 NVDA.pdf"), [
        ("v-period", "1Q FY24?", NVDA, "Q1 FY2024", "2023 Q1 NVDA.pdf"),
        ("v-period", "and FY24 Q1?", NVDA, "Q1 FY2024", "2023 Q1 NVDA.pdf"),
        ("v-period", "Q1/FY24?", NVDA, "Q1 FY2024", "2023 Q1 NVDA.pdf"),
        ("v-period", "and fiscal Q1 '24?", NVDA, "Q1 FY2024", "2023 Q1 NVDA.pdf"),
        ("v-period", "and the April quarter?", NVDA, "Q1 FY2024", "2023 Q1 NVDA.pdf"),
        ("v-period", "and the prior quarter?", NVDA, "Q1 FY2024", "2023 Q1 NVDA.pdf"),
        ("v-period", "Q3 FY23?", NVDA, "Q3 FY2023", "2022 Q3 NVDA.pdf"),
        ("v-period", "and the year-ago quarter?", NVDA, "Q2 FY2023", None),
        ("v-period", "and fiscal '23?", NVDA, "fiscal 2023", None),
        ("v-period", "last fiscal year?", NVDA, "fiscal 2023", None),
        ("v-span", "and 1H FY24?", NVDA, "the first half of fiscal 2024", "2023 Q2 NVDA.pdf"),
        ("v-span", "and the first half?", NVDA, "the first half of fiscal 2024", "2023 Q2 NVDA.pdf"),
        ("v-span", "and YTD?", NVDA, "the six months ended July 30, 2023", "2023 Q2 NVDA.pdf"),
        ("v-date", "and the 26 weeks ended July 30, 2023?", NVDA, "the six months ended July 30, 2023",
         "2023 Q2 NVDA.pdf"),
    ]),
    ((S, "What were Amazon's net sales in Q2 2023?", AMZN, "Q2 2023", "2023 Q2 AMZN.pdf"), [
        ("v-date", "and 3/31/23?", AMZN, "2023-03-31", "2023 Q1 AMZN.pdf"),
        ("v-date", "Mar-23?", AMZN, "2023-03-31", "2023 Q1 AMZN.pdf"),
        ("v-date", "March '23?", AMZN, "2023-03-31", "2023 Q1 AMZN.pdf"),
        ("v-period", "and the March 2023 quarter?", AMZN, "Q1 2023", "2023 Q1 AMZN.pdf"),
        ("v-period", "and 1Q23?", AMZN, "Q1 2023", "2023 Q1 AMZN.pdf"),
        ("v-period", "and the comparable period last year?", AMZN, "Q2 2022", None),
        ("v-period", "and Q3?", AMZN, "Q3 2023", "2023 Q3 AMZN.pdf"),
        ("v-period", "and the following quarter?", AMZN, "Q3 2023", "2023 Q3 AMZN.pdf"),
        ("v-period", "and the next qtr?", AMZN, "Q3 2023", "2023 Q3 AMZN.pdf"),
        ("v-span", "and 6M?", AMZN, "the first half of 2023", "2023 Q2 AMZN.pdf"),
        ("v-span", "and 1H?", AMZN, "the first half of 2023", "2023 Q2 AMZN.pdf"),
        ("v-span", "and H1'23?", AMZN, "the first half of 2023", "2023 Q2 AMZN.pdf"),
        ("v-span", "and the 9M ended Sept 30, 2023?", AMZN, "the nine months ended September 30, 2023",
         "2023 Q3 AMZN.pdf"),
    ]),
    ((S, "What was Apple's total net sales in Q3 FY2023?", AAPL, "Q3 FY2023", "2023 Q3 AAPL.pdf"), [
        ("v-period", "and Q2 FY23?", AAPL, "Q2 FY2023", "2023 Q2 AAPL.pdf"),
        ("v-period", "and the March quarter?", AAPL, "Q2 FY2023", "2023 Q2 AAPL.pdf"),
        ("v-period", "and the December '22 quarter?", AAPL, "Q1 FY2023", "2023 Q1 AAPL.pdf"),
        ("v-date", "and the 13 weeks ended April 1, 2023?", AAPL, "the quarter ended April 1, 2023", "2023 Q2 AAPL.pdf"),
        ("v-span", "9M?", AAPL, "the nine months ended July 1, 2023", "2023 Q3 AAPL.pdf"),
        ("v-span", "and YTD?", AAPL, "the nine months ended July 1, 2023", "2023 Q3 AAPL.pdf"),
        ("v-span", "and 9M FY23?", AAPL, "the nine months ended July 1, 2023", "2023 Q3 AAPL.pdf"),
        ("v-span", "and the first nine months of fiscal '23?", AAPL, "the nine months ended July 1, 2023",
         "2023 Q3 AAPL.pdf"),
        ("v-period", "and the same quarter last year?", AAPL, "Q3 FY2022", "2022 Q3 AAPL.pdf"),
        ("v-period", "and the prior-year period?", AAPL, "Q3 FY2022", "2022 Q3 AAPL.pdf"),
        ("v-period", "and fiscal '22?", AAPL, "fiscal 2022", None),
        ("v-period", "last fiscal year?", AAPL, "fiscal 2022", None),
    ]),
    ((F, "What were The Coca-Cola Company's net operating revenues in 2017?", KO, "2017", "COCACOLA_2017_10K.pdf"), [
        ("v-period", "and 2016?", KO, "2016", "COCACOLA_2017_10K.pdf"),
        ("v-period", "and the prior year?", KO, "2016", "COCACOLA_2017_10K.pdf"),
        ("v-period", "FY16?", KO, "fiscal 2016", "COCACOLA_2017_10K.pdf"),
        ("v-period", "fiscal '16?", KO, "fiscal 2016", "COCACOLA_2017_10K.pdf"),
        ("v-period", "and two years earlier?", KO, "2015", "COCACOLA_2017_10K.pdf"),
        ("v-absent", "same for pepsi", "Pepsi", "2017", None),
        ("v-company", "and coke's operating income?", KO, "2017", "COCACOLA_2017_10K.pdf"),
        ("v-two", "Coca Cola 2016?", KO, "2016", "COCACOLA_2017_10K.pdf"),
    ]),
    ((F, "What was Costco's total revenue in fiscal 2021?", COST, "fiscal 2021", "COSTCO_2021_10K.pdf"), [
        ("v-period", "and FY20?", COST, "fiscal 2020", "COSTCO_2021_10K.pdf"),
        ("v-period", "and the prior fiscal year?", COST, "fiscal 2020", "COSTCO_2021_10K.pdf"),
        ("v-period", "and fiscal '20?", COST, "fiscal 2020", "COSTCO_2021_10K.pdf"),
        ("v-date", "and the 52 weeks ended August 30, 2020?", COST, "the year ended August 30, 2020",
         "COSTCO_2021_10K.pdf"),
        ("v-date", "and the fiscal year ended 8/29/21?", COST, "the year ended August 29, 2021", "COSTCO_2021_10K.pdf"),
        ("v-company", "and walmart?", WMT, "fiscal 2021", None),
        ("v-two", "and Walmart FY2020?", WMT, "fiscal 2020", "WALMART_2020_10K.pdf"),
        ("v-two", "same for wal-mart, fiscal 2020", WMT, "fiscal 2020", "WALMART_2020_10K.pdf"),
        ("v-two", "WMT FY18?", WMT, "fiscal 2018", "WALMART_2018_10K.pdf"),
        ("v-absent", "and target?", "Target", "fiscal 2021", None),
        ("v-absent", "and BJ's Wholesale?", "BJ's Wholesale", "fiscal 2021", None),
    ]),
    ((F, "What were Lockheed Martin's net sales in 2022?", LMT, "2022", "LOCKHEEDMARTIN_2022_10K.pdf"), [
        ("v-period", "and 2021?", LMT, "2021", "LOCKHEEDMARTIN_2021_10K.pdf"),
        ("v-period", "and FY21?", LMT, "fiscal 2021", "LOCKHEEDMARTIN_2021_10K.pdf"),
        ("v-period", "and the year before?", LMT, "2021", "LOCKHEEDMARTIN_2021_10K.pdf"),
        ("v-period", "and fiscal '20?", LMT, "fiscal 2020", "LOCKHEEDMARTIN_2020_10K.pdf"),
        ("v-period", "and 2H22?", LMT, "the second half of 2022", None),
        ("v-two", "lmt 2020?", LMT, "2020", "LOCKHEEDMARTIN_2020_10K.pdf"),
        ("v-company", "and lockheed's operating profit?", LMT, "2022", "LOCKHEEDMARTIN_2022_10K.pdf"),
        ("v-absent", "northrop?", "Northrop", "2022", None),
        ("v-absent", "and Raytheon?", "Raytheon", "2022", None),
        ("v-absent", "and general dynamics?", "General Dynamics", "2022", None),
    ]),
    ((F, "What were Corning's net sales in 2022?", GLW, "2022", "CORNING_2022_10K.pdf"), [
        ("v-period", "and 2021?", GLW, "2021", "CORNING_2021_10K.pdf"),
        ("v-period", "and last year?", GLW, "2021", "CORNING_2021_10K.pdf"),
        ("v-two", "and glw 2020?", GLW, "2020", "CORNING_2020_10K.pdf"),
        ("v-two", "and the Gorilla Glass maker in 2020?", GLW, "2020", "CORNING_2020_10K.pdf"),
        ("v-company", "and lockhead?", LMT, "2022", "LOCKHEEDMARTIN_2022_10K.pdf"),
        ("v-company", "and american water?", AWK, "2022", "AMERICANWATERWORKS_2022_10K.pdf"),
        ("v-company", "AWK?", AWK, "2022", "AMERICANWATERWORKS_2022_10K.pdf"),
        ("v-company", "and american watr works?", AWK, "2022", "AMERICANWATERWORKS_2022_10K.pdf"),
        ("v-two", "and american water works for 2021?", AWK, "2021", "AMERICANWATERWORKS_2021_10K.pdf"),
        ("v-two", "and Lockheed's FY21?", LMT, "fiscal 2021", "LOCKHEEDMARTIN_2021_10K.pdf"),
        ("v-company", "and Lockheed Martin Corp?", LMT, "2022", "LOCKHEEDMARTIN_2022_10K.pdf"),
    ]),
    ((F, "What was JPMorgan's total net revenue in Q2 2023?", JPM, "Q2 2023", "JPMORGAN_2023Q2_10Q.pdf"), [
        ("v-period", "and 2Q22?", JPM, "Q2 2022", "JPMORGAN_2022Q2_10Q.pdf"),
        ("v-period", "and the prior-year quarter?", JPM, "Q2 2022", "JPMORGAN_2022Q2_10Q.pdf"),
        ("v-period", "and the same period last year?", JPM, "Q2 2022", "JPMORGAN_2022Q2_10Q.pdf"),
        ("v-period", "and Q1 2021?", JPM, "Q1 2021", "JPMORGAN_2021Q1_10Q.pdf"),
        ("v-period", "and 1Q21?", JPM, "Q1 2021", "JPMORGAN_2021Q1_10Q.pdf"),
        ("v-period", "and the March '21 quarter?", JPM, "Q1 2021", "JPMORGAN_2021Q1_10Q.pdf"),
        ("v-span", "and 1H23?", JPM, "the first half of 2023", "JPMORGAN_2023Q2_10Q.pdf"),
        ("v-span", "and YTD?", JPM, "the first half of 2023", "JPMORGAN_2023Q2_10Q.pdf"),
        ("v-span", "and 6M23?", JPM, "the first half of 2023", "JPMORGAN_2023Q2_10Q.pdf"),
        ("v-span", "and the six months ended 6/30/23?", JPM, "the six months ended June 30, 2023",
         "JPMORGAN_2023Q2_10Q.pdf"),
        ("v-company", "what about jpm's net income?", JPM, "Q2 2023", "JPMORGAN_2023Q2_10Q.pdf"),
        ("v-company", "and JP Morgan's net income?", JPM, "Q2 2023", "JPMORGAN_2023Q2_10Q.pdf"),
        ("v-absent", "and wells fargo?", "Wells Fargo", "Q2 2023", None),
        ("v-absent", "and Citi?", "Citi", "Q2 2023", None),
    ]),
    ((F, "What were NIKE's revenues in fiscal 2023?", NKE, "fiscal 2023", "NIKE_2023_10K.pdf"), [
        ("v-period", "and FY22?", NKE, "fiscal 2022", "NIKE_2023_10K.pdf"),
        ("v-period", "and the prior fiscal year?", NKE, "fiscal 2022", "NIKE_2023_10K.pdf"),
        ("v-period", "and fiscal '21?", NKE, "fiscal 2021", "NIKE_2021_10K.pdf"),
        ("v-date", "and the year ended May 31, 2021?", NKE, "the year ended May 31, 2021", "NIKE_2021_10K.pdf"),
        ("v-date", "and the FY ended 5/31/19?", NKE, "the year ended May 31, 2019", "NIKE_2019_10K.pdf"),
        ("v-two", "nke fy19?", NKE, "fiscal 2019", "NIKE_2019_10K.pdf"),
        ("v-absent", "and adidas?", "adidas", "fiscal 2023", None),
        ("v-absent", "and under armour?", "Under Armour", "fiscal 2023", None),
    ]),
    ((F, "What was Adobe's total revenue in fiscal 2022?", ADBE, "fiscal 2022", "ADOBE_2022_10K.pdf"), [
        ("v-period", "and FY17?", ADBS, "fiscal 2017", "ADOBE_2017_10K.pdf"),
        ("v-period", "and fiscal '16?", ADBS, "fiscal 2016", "ADOBE_2016_10K.pdf"),
        ("v-two", "and ADBE 2015?", ADBS, "2015", "ADOBE_2015_10K.pdf"),
        ("v-two", "and Msft FY23?", MSFT, "fiscal 2023", "MICROSOFT_2023_10K.pdf"),
        ("v-company", "and microsoft?", MSFT, "fiscal 2022", "MICROSOFT_2023_10K.pdf"),
        ("v-company", "and microsft?", MSFT, "fiscal 2022", "MICROSOFT_2023_10K.pdf"),
        ("v-company", "and the Windows maker?", MSFT, "fiscal 2022", "MICROSOFT_2023_10K.pdf"),
        ("v-company", "and netflx?", NFLX, "fiscal 2022", None),
    ]),
    ((F, "What were Netflix's revenues in 2017?", NFLX, "2017", "NETFLIX_2017_10K.pdf"), [
        ("v-period", "and 2015?", NFLX, "2015", "NETFLIX_2015_10K.pdf"),
        ("v-two", "nflx 2015?", NFLX, "2015", "NETFLIX_2015_10K.pdf"),
        ("v-two", "and the Photoshop maker in fiscal 2017?", ADBS, "fiscal 2017", "ADOBE_2017_10K.pdf"),
        ("v-two", "and coca-cola for the same year?", KO, "2017", "COCACOLA_2017_10K.pdf"),
    ]),
    ((F, "What were Walmart's total revenues in fiscal 2020?", WMT, "fiscal 2020", "WALMART_2020_10K.pdf"), [
        ("v-period", "and fiscal 2018?", WMT, "fiscal 2018", "WALMART_2018_10K.pdf"),
        ("v-period", "and FY18?", WMT, "fiscal 2018", "WALMART_2018_10K.pdf"),
        ("v-date", "and the year ended 1/31/18?", WMT, "the year ended January 31, 2018", "WALMART_2018_10K.pdf"),
        ("v-company", "and costco?", COST, "fiscal 2020", "COSTCO_2021_10K.pdf"),
        ("v-two", "and Costco's FY21?", COST, "fiscal 2021", "COSTCO_2021_10K.pdf"),
        ("v-absent", "and kroger?", "Kroger", "fiscal 2020", None),
        ("v-absent", "and Target Corp?", "Target", "fiscal 2020", None),
    ]),
    ((F, "What were Kraft Heinz's net sales in 2019?", KHC, "2019", "KRAFTHEINZ_2019_10K.pdf"), [
        ("v-period", "and 2018?", KHC, "2018", "KRAFTHEINZ_2019_10K.pdf"),
        ("v-two", "khc 2018?", KHC, "2018", "KRAFTHEINZ_2019_10K.pdf"),
        ("v-company", "and coke?", KO, "2019", None),
        ("v-two", "and Coca-Cola's 2017?", KO, "2017", "COCACOLA_2017_10K.pdf"),
        ("v-absent", "and general mills?", "General Mills", "2019", None),
    ]),
    ((F, "What was AMD's net revenue in 2015?", AMD, "2015", "AMD_2015_10K.pdf"), [
        ("v-period", "and 2014?", AMD, "2014", "AMD_2015_10K.pdf"),
        ("v-period", "and the prior year?", AMD, "2014", "AMD_2015_10K.pdf"),
        ("v-absent", "and intel?", "Intel", "2015", None),
        ("v-absent", "and nvidia?", "Nvidia", "2015", None),
    ]),
    ((F, "What were American Water Works' operating revenues in 2021?", AWK, "2021", "AMERICANWATERWORKS_2021_10K.pdf"), [
        ("v-period", "and 2020?", AWK, "2020", "AMERICANWATERWORKS_2020_10K.pdf"),
        ("v-two", "awk 2022?", AWK, "2022", "AMERICANWATERWORKS_2022_10K.pdf"),
        ("v-company", "and corning?", GLW, "2021", "CORNING_2021_10K.pdf"),
        ("v-absent", "and essential utilities?", "Essential Utilities", "2021", None),
    ]),
]

# three-turn threads: a company change, then a follow-up pointing back with a pronoun
# (set, opening, its labels, the swap (q, company, period, doc), then the pronoun turns)
PRONOUNS: list[tuple[Base, Turn, list[Turn]]] = [
    ((S, "What was Intel's net revenue in Q3 2023?", INTEL, "Q3 2023", "2023 Q3 INTC.pdf"),
     ("v-company", "and Amazon?", AMZN, "Q3 2023", "2023 Q3 AMZN.pdf"), [
        ("v-pronoun", "what was their operating income?", AMZN, "Q3 2023", "2023 Q3 AMZN.pdf"),
        ("v-pronoun", "and its net income?", AMZN, "Q3 2023", "2023 Q3 AMZN.pdf"),
        ("v-pronoun", "how about them a year earlier?", AMZN, "Q3 2022", "2022 Q3 AMZN.pdf"),
        ("v-pronoun", "their revenue in Q2?", AMZN, "Q2 2023", "2023 Q2 AMZN.pdf"),
        ("v-pronoun", "what did they report for net income?", AMZN, "Q3 2023", "2023 Q3 AMZN.pdf"),
        ("v-pronoun", "and the same for them in 2Q23", AMZN, "Q2 2023", "2023 Q2 AMZN.pdf"),
    ]),
    ((F, "What were Walmart's total revenues in fiscal 2020?", WMT, "fiscal 2020", "WALMART_2020_10K.pdf"),
     ("v-company", "and Costco's?", COST, "fiscal 2020", "COSTCO_2021_10K.pdf"), [
        ("v-pronoun", "what about their net income?", COST, "fiscal 2020", "COSTCO_2021_10K.pdf"),
        ("v-pronoun", "and its membership fees the year after?", COST, "fiscal 2021", "COSTCO_2021_10K.pdf"),
        ("v-pronoun", "same for them in FY21", COST, "fiscal 2021", "COSTCO_2021_10K.pdf"),
    ]),
    ((F, "What was Adobe's total revenue in fiscal 2022?", ADBE, "fiscal 2022", "ADOBE_2022_10K.pdf"),
     ("v-company", "and msft?", MSFT, "fiscal 2022", "MICROSOFT_2023_10K.pdf"), [
        ("v-pronoun", "their operating income?", MSFT, "fiscal 2022", "MICROSOFT_2023_10K.pdf"),
        ("v-pronoun", "and the year after for them?", MSFT, "fiscal 2023", "MICROSOFT_2023_10K.pdf"),
    ]),
]


def _turn(group: str, q: str, company: str, period: str, doc: str | None) -> dict[str, object]:
    return {"q": q, "company": company, "period": period, "route": "retrieve", "doc": doc, "variant": group}


def threads() -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for (set_name, q, company, period, doc), follow in BASES:
        for group, *turn in follow:
            out.append({"id": f"tv-{len(out) + 1:03d}", "group": group, "set": set_name, "scope": [],
                        "turns": [_turn("open", q, company, period, doc), _turn(group, *turn)]})
    for (set_name, q, company, period, doc), swap, follow in PRONOUNS:
        for group, *turn in follow:
            out.append({"id": f"tv-{len(out) + 1:03d}", "group": group, "set": set_name, "scope": [],
                        "turns": [_turn("open", q, company, period, doc), _turn(*swap), _turn(group, *turn)]})
    return out


if __name__ == "__main__":
    path = Path(__file__).with_name("threads_variants.jsonl")
    rows = threads()
    path.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in rows), "utf-8")
    print(f"{path}: {len(rows)} threads, {sum(len(t['turns']) - 1 for t in rows)} follow-ups")
