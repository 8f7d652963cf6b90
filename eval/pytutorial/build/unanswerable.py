#!/usr/bin/env python3
"""Write unanswerable.jsonl; TERMS (also pasted into check_gt.py) are regexes that must
not occur anywhere in the corpus, as evidence the tutorial does not answer the query."""
import json
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
U = [
    ("near", "How do I run several coroutines concurrently with asyncio.gather and await their results?"),
    ("near", "Does the global interpreter lock prevent Python threads from using multiple CPU cores for CPU-bound work?"),
    ("near", "How do I build a wheel for my project and upload it to PyPI with twine?"),
    ("near", "How do I write a generic function with TypeVar so the return type follows the argument type?"),
    ("near", "How do I write my own context manager class with __enter__ and __exit__ for use in a with statement?"),
    ("near", "How do I write a decorator that times a function and keeps its name with functools.wraps?"),
    ("near", "What is a metaclass and when would I define one?"),
    ("near", "How do I spread CPU-heavy work across several processes with multiprocessing.Pool?"),
    ("near", "How do I map my classes to database tables with the SQLAlchemy ORM?"),
    ("near", "How do I share setup code between tests with pytest fixtures?"),
    ("near", "How does defining __slots__ in a class reduce the memory used per instance?"),
    ("near", "How do I declare an abstract base class whose subclasses must implement a method, using abc.ABC and @abstractmethod?"),
    ("near", "How do I run an external command and capture its output with subprocess.run?"),
    ("near", "How do I convert a datetime from UTC to Europe/Berlin local time with zoneinfo?"),
    ("near", "How do I make a read-only attribute or a validating setter with @property?"),
    ("near", "How do I group consecutive records by a key with itertools.groupby?"),
    ("near", "How do I count how often each word occurs using collections.Counter and get the top ten?"),
    ("near", "How do I memoize an expensive recursive function with functools.lru_cache?"),
    ("near", "How do I bundle my script into a single standalone .exe with PyInstaller?"),
    ("near", "How do I type-check my annotated code with mypy before running it?"),
    ("near", "How do I install my own package in editable mode with pip install -e while I develop it?"),
    ("off", "What hydration ratio should I use for a sourdough loaf made with whole wheat flour?"),
    ("off", "What is the capital of Australia, and is it larger than Sydney?"),
    ("off", "How often should I water a fiddle leaf fig houseplant in winter?"),
    ("off", "What tire pressure should I run on my road bike?"),
    ("off", "How should I structure a 16-week marathon training plan for a first race?"),
    ("off", "When is the deadline for filing my income tax return this year?"),
    ("off", "How do I tune my guitar to drop D?"),
    ("off", "Any tips for beating jet lag after a flight from New York to Tokyo?"),
    ("off", "How long should a best man's wedding speech be?"),
]
with open(os.path.join(HERE, "unanswerable.jsonl"), "w", encoding="utf-8") as fh:
    for n, (kind, q) in enumerate(U, 1):
        fh.write(json.dumps({"id": f"u{n:02d}", "query": q, "kind": kind}, ensure_ascii=False) + "\n")
