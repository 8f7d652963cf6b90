"""Row lookups in spreadsheets: does the chunk holding the asked row rank first?

Three CSV sheets are generated from a fixed seed (120 staff, 150 stock parts, 100
invoices), with 124 questions that name a row by its identifier and a column by
its header's words ("What is the phone extension of employee E1042?"). A question
is answered by the chunk whose rows include the asked one. The sheets are
synthetic: the figures say how each list ranks identifier lookups in a sheet, not
how often users ask them. The answers are counted too: the asked row quoted alone,
refused, or other rows quoted in its place; 30 lookups by codes no sheet holds,
which should all be refused; and 30 lookups of columns no sheet has, by codes the
sheets hold, which should be refused too. Then 90 lookups of columns the sheets do
have, phrased as users phrase them (a synonym, a plural, an abbreviation, a value,
no column word), which should be answered with the row alone, and 30 more of columns
no sheet has, near misses among them, which should be refused ("phrased").

    python benchmarks/sheet_lookup.py [--out benchmarks/results/sheet_lookup.json]
                                      [--against OTHER.json]

``--against`` pairs this run's hybrid ranks with another run's (e.g. the code
before a change, run from its checkout) by a sign test at R@1 and R@4.

Indexes into a temporary folder with the bundled model (~15 s on 2 cores).
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import re
import sys
import tempfile
from pathlib import Path

from citeline.eval.stats import paired
from citeline.pipeline import Index

FIRST = ("Anna Ben Carla David Emil Fatima Gustav Hanna Ivan Julia Karl Lena Marco Nina "
         "Oskar Paula Quentin Rosa Stefan Tara").split()
LAST = "Berg Olsen Novak Rossi Meyer Costa Horvat Jensen Kowalski Dubois".split()
DEPARTMENTS = "Finance Logistics Sales Research Support Legal Marketing Facilities".split()
CITIES = "Oslo Lyon Graz Porto Turin Bergen Brno Ghent".split()
ITEMS = ("Hex bolt|Hex nut|Washer|Torque wrench|Spring pin|Circlip|Grease gun|Socket set|"
         "Allen key|Cable tie|Drill bit|Spirit level").split("|")
CUSTOMERS = ["Hotel Aurora", "Bakery Lund", "City Museum", "Ferry Lines", "Dental Clinic Rye",
             "School 12"]


def make_sheets(docs: Path, seed: int = 7) -> list[dict]:
    """Write the three sheets into ``docs``; return the questions (doc, sheet row, text)."""
    rng = random.Random(seed)
    qs: list[dict] = []

    def ask(doc: str, i: int, *questions: str) -> None:  # about the i-th row under the header
        qs.extend({"doc": doc, "row": i + 2, "q": q} for q in questions)

    with (docs / "staff.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["employee id", "name", "department", "office", "phone extension",
                    "start date"])
        for i in range(120):
            eid = f"E{1000 + i}"
            w.writerow([eid, f"{rng.choice(FIRST)} {rng.choice(LAST)}", rng.choice(DEPARTMENTS),
                        rng.choice(CITIES), str(rng.randint(2000, 7999)),
                        f"20{rng.randint(10, 25)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"])
            if i % 6 == 0:
                ask("staff.csv", i, f"What is the phone extension of employee {eid}?",
                    f"In which office does employee {eid} work?")
    with (docs / "stock.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["part number", "description", "unit price", "quantity in stock", "supplier",
                    "warehouse bin"])
        for i in range(150):
            pn = f"P-{4000 + i * 3}"
            size = rng.choice(["M4", "M6", "M8", "M10", "M12", "small", "large"])
            w.writerow([pn, f"{rng.choice(ITEMS)} {size}", f"{rng.uniform(0.1, 90):.2f}",
                        rng.randint(0, 9000), rng.choice(["Acme", "Bolton", "Cogs Ltd", "Dray"]),
                        f"B{rng.randint(1, 99)}"])
            if i % 7 == 0:
                ask("stock.csv", i, f"What is the unit price of part {pn}?",
                    f"Which supplier delivers part number {pn}?")
    with (docs / "invoices.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["invoice", "customer", "amount due", "due date", "status"])
        for i in range(100):
            inv = f"INV-{20500 + i}"
            w.writerow([inv, rng.choice(CUSTOMERS), f"{rng.randint(100, 9000)}.00",
                        f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
                        rng.choice(["paid", "open", "overdue"])])
            if i % 5 == 0:
                ask("invoices.csv", i, f"When is invoice {inv} due?",
                    f"What is the status of invoice {inv}?")
    return qs


def make_absent() -> list[str]:
    """Lookups by codes that no sheet holds (the sheets' own forms, out of their ranges):
    the documents do not hold the answer, so each should be refused."""
    return ([f"What is the phone extension of employee E{5000 + i * 37}?" for i in range(10)]
            + [f"What is the unit price of part P-{9000 + i * 41}?" for i in range(10)]
            + [f"When is invoice INV-{30000 + i * 53} due?" for i in range(10)])


def make_absent_columns() -> list[str]:
    """Lookups by codes the sheets hold, of a column no sheet has: the documents do not
    hold the answer either, but the row they name is there, so only the gate's distance
    can refuse them. Each answered is a bluff that quotes the named row."""
    return ([f"What is the blood type of employee E{1000 + i * 11}?" for i in range(10)]
            + [f"Who manufactured part P-{4000 + i * 39}?" for i in range(10)]
            + [f"Which sales representative handled invoice INV-{20500 + i * 9}?"
               for i in range(10)])


# Lookups of columns the sheets DO have, phrased as users phrase them: a synonym, a
# plural, an abbreviation, a verb for the noun, a value for the column, or no column
# word at all ("What is part P-4021?"). Written before any column check was tried, so
# they measure how often such a check refuses a lookup the sheet can answer.
PHRASED = {
    "staff.csv": ["What is the name of employee {c}?", "Who is employee {c}?",
                  "Which dept does {c} belong to?", "What's the extension for {c}?",
                  "What is the phone number of employee {c}?",
                  "When did employee {c} start?", "When was {c} hired?",
                  "Where is the office of {c}?", "Which city does employee {c} work in?",
                  "What is the start date for {c}?"],
    "stock.csv": ["What is the price of part {c}?", "How much does {c} cost?",
                  "What qty of {c} is in stock?", "How many of {c} do we have?",
                  "Who supplies part {c}?", "Which vendor sells {c}?",
                  "In which bin is {c} kept?", "Where is part {c} stored?", "What is part {c}?",
                  "Give me the description of {c}."],
    "invoices.csv": ["Which customer is invoice {c} for?", "Who was invoice {c} billed to?",
                     "How much is owed on invoice {c}?", "What amount is due on {c}?",
                     "Has invoice {c} been paid?", "Is {c} overdue?",
                     "What is the payment status of {c}?", "What's the due date of {c}?",
                     "By when must {c} be paid?", "What is the total of invoice {c}?"],
}
# ... and of columns no sheet has, near misses among them (a date, a phone number or a
# price that is not the sheet's): each answered is a bluff quoting the named row.
ABSENT_PHRASED = {
    "staff.csv": ["What is the date of birth of employee {c}?", "What is the salary of {c}?",
                  "What is the email address of employee {c}?", "Who is the manager of {c}?",
                  "What is the mobile number of {c}?"],
    "stock.csv": ["What is the warranty period of part {c}?", "How much does part {c} weigh?",
                  "What colour is part {c}?", "What is the reorder level of {c}?",
                  "What is the lead time for part {c}?"],
    "invoices.csv": ["What is the tax rate on invoice {c}?",
                     "Which payment method was used for {c}?", "What currency is invoice {c} in?",
                     "When was invoice {c} issued?", "What discount was given on invoice {c}?"],
}


def code_of(doc: str, i: int) -> str:
    """The code of the ``i``-th row under the header of ``doc``, as make_sheets writes it."""
    return {"staff.csv": f"E{1000 + i}", "stock.csv": f"P-{4000 + i * 3}",
            "invoices.csv": f"INV-{20500 + i}"}[doc]


def make_phrased() -> list[dict]:
    """90 lookups of columns the sheets have, each template by three rows' codes."""
    return [{"doc": doc, "row": i + 2, "q": t.format(c=code_of(doc, i))}
            for doc, templates in PHRASED.items() for n, t in enumerate(templates)
            for i in (3 + n * 7, 41 + n * 5, 77 + n * 2)]


def make_absent_phrased() -> list[str]:
    """30 lookups of columns no sheet has, each template by two rows' codes."""
    return [t.format(c=code_of(doc, i)) for doc, templates in ABSENT_PHRASED.items()
            for n, t in enumerate(templates) for i in (5 + n * 11, 60 + n * 7)]


def rank_of(hits, doc: str, row: int) -> int | None:  # type: ignore[no-untyped-def]
    for h in hits:
        m = re.fullmatch(r".*!A(\d+):[A-Z]+(\d+)", h.locator.sheet_range or "")
        if h.document == doc and m and int(m.group(1)) <= row <= int(m.group(2)):
            return int(h.rank)
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=Path("benchmarks/results/sheet_lookup.json"))
    ap.add_argument("--against", type=Path, help="another run's JSON, paired at R@1 and R@4")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        docs = Path(tmp) / "docs"
        docs.mkdir()
        qs = make_sheets(docs)
        idx = Index(Path(tmp) / "ix")
        idx.index(docs)
        out: dict[str, dict] = {}
        for mode in ("bm25", "dense", "hybrid"):
            ranks = [rank_of(idx.search(q["q"], k=20, mode=mode).hits, q["doc"], q["row"])
                     for q in qs]
            first = sum(1 for q in qs
                        if (h := idx.search(q["q"], k=1, mode=mode).hits)
                        and (h[0].locator.sheet_range or "").split("!")[1].startswith("A1:"))
            n = len(ranks)
            out[mode] = {
                **{f"R@{k}": round(sum(1 for r in ranks if r and r <= k) / n, 3)
                   for k in (1, 2, 4, 20)},
                "MRR": round(sum(1 / r for r in ranks if r) / n, 3),
                "top_is_first_chunk": first, "queries": n, "ranks": ranks,
            }
            print(mode, {k: v for k, v in out[mode].items() if k != "ranks"})
        # the extractive answer: the asked row quoted alone; or refused, the row over the
        # gate's distance (the gate weighs a lookup's row, Index.row_distances); or other
        # rows quoted as the answer (a bluff)
        alone = refused = over_gate = others = 0
        for q in qs:
            ans = idx.ask(q["q"])
            spans = [sp.locator.sheet_range or "" for sp in ans.spans]
            alone += len(spans) == 1 and bool(
                re.fullmatch(rf".*!A{q['row']}:[A-Z]+{q['row']}", spans[0]))
            refused += ans.refused
            top = idx.row_distances(q["q"], idx.search(q["q"], k=1).hits)[0]
            over_gate += ans.refused and top.distance >= idx.threshold
            others += not ans.refused and not any(
                re.fullmatch(rf".*!A{q['row']}:[A-Z]+{q['row']}", sp) for sp in spans)
        # lookups of codes no sheet holds: refused, or other rows quoted (a bluff)
        absent = [a for q in make_absent() for a in [idx.ask(q)]]
        # lookups of a column no sheet has, by codes they hold: refused, or answered (a bluff)
        columns = [a for q in make_absent_columns() for a in [idx.ask(q)]]
        # the phrased lookups: a column the sheet has (the row alone, or refused) and
        # one it lacks (refused, or answered: a bluff)
        phrased_alone = phrased_refused = 0
        for q in make_phrased():
            ans = idx.ask(q["q"])
            spans = [sp.locator.sheet_range or "" for sp in ans.spans]
            phrased_alone += len(spans) == 1 and bool(
                re.fullmatch(rf".*!A{q['row']}:[A-Z]+{q['row']}", spans[0]))
            phrased_refused += ans.refused
        lacking = [a for q in make_absent_phrased() for a in [idx.ask(q)]]
        out["phrased"] = {"the_row_alone": phrased_alone, "refused": phrased_refused,
                          "queries": len(make_phrased()),
                          "absent_column_refused": sum(a.refused for a in lacking),
                          "absent_column_answered": sum(not a.refused for a in lacking),
                          "absent_column_queries": len(lacking)}
        print("phrased", out["phrased"])
        out["answer"] = {"the_row_alone": alone, "refused": refused,
                         "refused_its_row_over_the_gate": over_gate,
                         "other_rows_quoted": others, "queries": len(qs),
                         "absent_code_refused": sum(a.refused for a in absent),
                         "absent_code_answered": sum(not a.refused for a in absent),
                         "absent_code_queries": len(absent),
                         "absent_column_refused": sum(a.refused for a in columns),
                         "absent_column_answered": sum(not a.refused for a in columns),
                         "absent_column_queries": len(columns)}
        print("answer", out["answer"])
        idx.close()
    if args.against is not None:
        other = json.loads(args.against.read_text())["hybrid"]["ranks"]
        for k in (1, 4):
            res = paired([r is not None and r <= k for r in out["hybrid"]["ranks"]],
                         [r is not None and r <= k for r in other])
            out["hybrid"][f"vs_against_R@{k}"] = {"wins": res.wins, "losses": res.losses,
                                                  "p": float(f"{res.p:.3g}")}
            print(f"hybrid vs {args.against} at R@{k}: +{res.wins}/-{res.losses}, p = {res.p:.3g}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
