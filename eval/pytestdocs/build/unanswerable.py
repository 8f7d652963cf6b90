#!/usr/bin/env python3
"""Write unanswerable.jsonl.  check_gt.py holds, for each question, key-term regexes
(UNANSWERABLE_TERMS) that must not occur anywhere in the corpus, as evidence the
documents do not answer it.  `near` questions are Python testing topics (plugins,
tools and integrations around pytest) that the 31 chosen pages do not cover; `off`
questions are off-topic (none of them one of the off questions of the other folders
under eval/)."""
import json
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
U = [
    ("near", "How do I write async def test functions that run on an asyncio event loop with pytest-asyncio?"),
    ("near", "How do I use the mocker fixture from pytest-mock to spy on a method and check how it was called?"),
    ("near", "How do I write property-based tests with Hypothesis and its @given decorator?"),
    ("near", "How do I use pytest-benchmark to compare the speed of two implementations across runs?"),
    ("near", "How do I do snapshot testing of large outputs with syrupy?"),
    ("near", "How can I freeze datetime.now() in a test with freezegun or time-machine?"),
    ("near", "How do I produce a self-contained HTML report of a test run with pytest-html?"),
    ("near", "How do I run my test suite on several Python versions with a GitHub Actions matrix?"),
    ("near", "How do I configure the test explorer of the VS Code Python extension to use pytest?"),
    ("near", "How do I set up a PyCharm run configuration for a single test?"),
    ("near", "How do I wrap each test in a SQLAlchemy transaction that is rolled back afterwards?"),
    ("near", "How do I test a Click command-line application with CliRunner?"),
    ("near", "How do I test FastAPI endpoints with TestClient?"),
    ("near", "How do I fake AWS S3 buckets in tests with moto?"),
    ("near", "How do I simulate mouse clicks on a Qt widget with qtbot from pytest-qt?"),
    ("near", "How can I execute the cells of Jupyter notebooks as tests with nbval?"),
    ("near", "How do I generate realistic fake names and addresses for test data with Faker or factory_boy?"),
    ("near", "How do I split a slow suite into evenly sized shards across CI jobs with pytest-split?"),
    ("near", "How do I compare two pandas DataFrames in a test with assert_frame_equal?"),
    ("near", "How do I define test sessions in a noxfile to run the suite against several dependency sets?"),
    ("near", "How do I run the tests automatically before every commit with a pre-commit git hook?"),
    ("off", "How do I wax a snowboard at home with an old iron?"),
    ("off", "How can I stop my cat from scratching the sofa?"),
    ("off", "What is the best way to polish and waterproof leather boots?"),
    ("off", "How do I make quick refrigerator pickles from cucumbers?"),
    ("off", "How do I fold a paper airplane that glides a long way?"),
    ("off", "How do I hang a heavy picture frame on a plasterboard wall?"),
    ("off", "Which sunscreen SPF should I use for a full day at the beach?"),
    ("off", "How do I get chewing gum off a pair of jeans?"),
    ("off", "What is a good warm-up routine before running a 5k race?"),
]


def main():
    with open(os.path.join(HERE, "unanswerable.jsonl"), "w", encoding="utf-8") as fh:
        for n, (kind, q) in enumerate(U, 1):
            fh.write(json.dumps({"id": f"u{n:02d}", "query": q, "kind": kind}, ensure_ascii=False) + "\n")
    print(len(U), "questions")


if __name__ == "__main__":
    main()
