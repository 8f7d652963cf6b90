#!/usr/bin/env python3
"""Write questions.jsonl: each needle is cut verbatim from its document between a
start marker and an end marker (both included), so nothing is retyped by hand.
The queries were written by hand from the text alone (no retrieval was run)."""
import json
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

GS, US, AS, FX = ("01-getting-started.rst", "02-how-to-usage.rst", "03-how-to-assert.rst",
                  "04-how-to-fixtures.rst")
MK, PZ, SK, TP = ("05-how-to-mark.rst", "06-how-to-parametrize.rst", "07-how-to-skipping.rst",
                  "08-how-to-tmp-path.rst")
MP, CO, WA, LG = ("09-how-to-monkeypatch.rst", "10-how-to-capture-stdout-stderr.rst",
                  "11-how-to-capture-warnings.rst", "12-how-to-logging.rst")
DT, CA, OU = "13-how-to-doctest.rst", "14-how-to-cache.rst", "15-how-to-output.rst"
UT, WP, WH = ("18-how-to-unittest.rst", "22-how-to-writing-plugins.rst",
              "23-how-to-writing-hook-functions.rst")
EF, GP, FL = ("25-explanation-fixtures.rst", "26-explanation-goodpractices.rst",
              "29-explanation-flaky.rst")

GT = [
    # --- getting started
    (GS, "Something to be aware of when grouping tests", "a unique instance of the class.",
     "Do the test methods of a pytest test class share one object of that class, or does each get its own?",
     "I set self.counter in one method of my TestFoo and the next method doesn't see it; "
     "does pytest build a fresh TestFoo every time?"),
    # --- how to invoke pytest
    (US, "By default, pytest will not show test durations", "is passed on the command-line.",
     "Why are very fast tests missing from the --durations report, and how do I make them appear?",
     "ran pytest --durations=0 expecting a timing for every test but the list stops after a few "
     "entries; are the quick ones hidden?"),
    (US, "Due to the caching mechanism of python's import system,", "between the calls.",
     "Is it safe to invoke pytest.main() repeatedly in one Python process to rerun tests after editing them?",
     "our watcher script calls pytest.main() in a loop after each save, but edits to the test files "
     "are ignored until I restart the script"),
    # --- assertions
    (AS, "Note that ``pytest.raises`` will match the exception type", "standard ``except`` statement).",
     "If I expect RuntimeError with pytest.raises, will a derived error class also satisfy it?",
     "with pytest.raises(RuntimeError) passed although the code raised NotImplementedError, "
     "I wanted the exact class to be checked"),
    (AS, "``pytest`` only rewrites test\nmodules directly discovered", "will not be rewritten**.",
     "Which modules get pytest's assertion rewriting, and what about helper modules imported by tests?",
     "asserts inside our tests/helpers.py give a bare AssertionError with no values, while the same "
     "assert written in a test file shows a nice diff"),
    # --- fixtures
    (FX, "Pytest only caches one instance of a fixture at a time", "the given scope.",
     "Can a module-scoped fixture be set up more than once within the same module when it has params?",
     "my session-wide db fixture with params=['pg', 'mysql'] gets created again and again during the "
     "run, I thought session scope means exactly once"),
    (FX, "If a yield fixture raises an exception before yielding", "fixture's ``yield`` statement.",
     "What happens to the cleanup part of a generator fixture when its setup fails with an error?",
     "fixture setup blew up halfway, before it got to the yield, and the code after yield that deletes "
     "the temp user never ran"),
    (FX, "We have to be careful though, because pytest will run that finalizer",
     "after adding the finalizer.",
     "If a fixture registers a cleanup callback with request.addfinalizer and then fails, does the callback still execute?",
     "I call request.addfinalizer(drop_table) at the top of my fixture, then the create step crashes "
     "and drop_table runs anyway and errors on a missing table"),
    (FX, "In the latter case if the function\nreturns ``None``", "auto-generated ID will be used.",
     "When I pass a callable as ids for a parametrized fixture, what happens if it returns None for some value?",
     "my ids=lambda v: ... gives back nothing for some params and those tests still get names like "
     "data_set2, where do those come from?"),
    (FX, "``@pytest.mark.usefixtures`` cannot be used on **fixture functions**.", "**fixture functions**.",
     "Can a fixture declare what it depends on through the usefixtures marker instead of arguments?",
     "decorated my db fixture with @pytest.mark.usefixtures('cleandir') so that cleandir runs first, "
     "and pytest complains about it"),
    # --- marks
    (MK, "Marks can only be applied to tests, having no effect on", ":ref:`fixtures <fixtures>`.",
     "Does putting a marker such as skipif or filterwarnings on a fixture function do anything?",
     "I added @pytest.mark.filterwarnings('ignore') above my fixture to silence a warning its setup "
     "emits, and I still see the warning every run"),
    # --- parametrize
    (PZ, "Parameter values are passed as-is to tests", "(no copy whatsoever).",
     "Does pytest copy list or dict arguments given to parametrize before each test case receives them?",
     "cases share a dict from @parametrize; one case appends to it and the next case sees the extra "
     "key, so results depend on order"),
    # --- skip / xfail
    (SK, "If multiple ``skipif`` decorators are applied to a test function", "skip conditions is true.",
     "How does pytest combine several skipif marks stacked on one test?",
     "stacked two conditional skip decorators (linux only, needs gpu) expecting both to be required, "
     "but the test is skipped whenever one of them holds"),
    (SK, "Then the test will be reported as a regular failure", "exception not mentioned in ``raises``.",
     "Under an xfail mark restricted to certain errors, what outcome do I get if a different error is thrown?",
     "marked a test xfail(raises=KeyError) but it crashed with TypeError and now it's a red F instead of an x"),
    # --- tmp_path
    (TP, "The directory given to :option:`--basetemp` will be cleared blindly",
     "for that purpose only.",
     "What does pytest do to the existing contents of a custom base temporary directory at the start of a session?",
     "ran pytest --basetemp=. in my project root and all my files vanished!!"),
    # --- monkeypatch
    (MP, "For example,\n    if your module does ``from os import getcwd``", "rather than ``os.getcwd``.",
     "When code imports a function by name from a standard library module, which reference should monkeypatch target?",
     "monkeypatch.setattr(os.path, 'exists', fake) has no effect on my app, which does "
     "`from os.path import exists` at the top"),
    # --- capturing
    (CO, "In addition, ``stdin`` is set to a \"null\" object", "when running automated tests.",
     "What happens when code under test tries to read from standard input during a pytest run?",
     "function calls input() for a confirmation prompt and under pytest it blows up with an OSError "
     "instead of waiting for me to type"),
    (CO, "When a capture fixture such as :fixture:`capsys`", "``-s`` or ``--capture=no``.",
     "If I run with capturing turned off globally, do capsys or capfd still intercept output in tests that request them?",
     "running pytest -s to watch prints live, but the tests that take capsys still print nothing to my terminal"),
    # --- warnings
    (WA, "When a warning matches more than one option in the list", "is performed.",
     "If several filterwarnings entries in the config match the same warning, which one wins?",
     "config has 'error' followed by 'ignore::DeprecationWarning' and a DeprecationWarning gets ignored "
     "rather than failing; I expected error to take priority"),
    (WA, "If all tests pass but the number of warnings exceeds the threshold", "exit with code ``6``",
     "What exit status does pytest return when every test passes but --max-warnings is exceeded?",
     "CI job marked red with return code 6 although the summary says everything passed; we recently "
     "added a cap on warnings"),
    (WA, "The :fixture:`recwarn` fixture automatically resets", "no global state is leaked.",
     "Does using the recwarn fixture leave modified warning filters behind for later tests?",
     "worried that a test requesting recwarn changes warnings.simplefilter for the rest of the suite, "
     "do I need to restore it myself?"),
    # --- logging
    (LG, "If the root logger is\n    modified during a test", "cause no logs to be captured.",
     "Why might caplog capture nothing after the application reconfigures logging during a test?",
     "caplog.records is empty in tests that start our app, which calls its setup_logging() with a dict "
     "config on startup; other tests capture fine"),
    # --- doctest
    (DT, "By default, pytest would report only the first failure", "for a given doctest.",
     "When a docstring example has several failing lines, how many of them does pytest report?",
     "fixing doctest problems is painful, each run only tells me about one broken example in the "
     "docstring and hides the rest"),
    # --- cache / stepwise
    (CA, "Providing ``--stepwise-skip`` will also enable", "implicitly.",
     "Do I need to pass --sw together with --stepwise-skip?",
     "is `pytest --sw --stepwise-skip` redundant, or does the skip flag on its own do nothing?"),
    # --- output
    (OU, "the right hand side of the ``in`` statement is truncated", "(240 characters currently).",
     "At what length does pytest cut off the right-hand operand of a failing 'in' assertion at default verbosity?",
     "assert needle in big_log fails and the report shows the log ending in ... so I can't see whether "
     "the text is there"),
    (OU, "Default truncation limits are 8 lines or 640 characters", "whichever comes first.",
     "How much of an assertion failure explanation does pytest show before shortening it, by default?",
     "assertion diff of two large dicts gets chopped after a handful of lines; what are the default "
     "cutoffs and can I raise them?"),
    # --- unittest
    (UT, "For example, if a ``unittest``-based suite", "raise the error during ``call``.",
     "In which test phase does pytest report an exception raised by a unittest TestCase setUp method?",
     "our setUp() in a TestCase throws, but pytest shows it as FAILED instead of an ERROR at setup "
     "like our fixtures do"),
    # --- writing plugins
    (WP, "if it was already imported at the time the", "assertions inside the plugin will not be rewritten.",
     "Why would asserts in a module listed in pytest_plugins lose their detailed introspection?",
     "conftest has pytest_plugins = ['myproj.testing.fixtures'] and I get a warning about assert "
     "rewriting; failures in that module show plain AssertionError"),
    # --- writing hook functions
    (WH, "Note that hook functions other than ``pytest_runtest_*``", "allowed to raise exceptions.",
     "Which pytest hook implementations are permitted to raise exceptions?",
     "raising ValueError from my pytest_collection_modifyitems to abort on bad config kills the whole "
     "session with an internal error"),
    # --- about fixtures
    (EF, "so fixtures that manage external resources which are important",
     "(by those signals) might leak resources.",
     "Does pytest run fixture teardown when the test process receives SIGTERM?",
     "when the CI runner cancels the job it sends a termination signal, and the docker containers our "
     "session fixture starts are never removed"),
    # --- good practices
    (GP, "This results in a drawback compared to the import mode ``importlib``:",
     "must have **unique names**.",
     "With the default prepend import mode and no __init__.py files, can two test files share the same basename?",
     "tests/api/test_utils.py and tests/db/test_utils.py give an 'import file mismatch' error during collection"),
    # --- flaky tests
    (FL, "Avoid using primitives provided by pytest", "as they are not thread-safe.",
     "Can I use pytest's raises/warns context managers from several threads at once within a test?",
     "intermittent failures in a test where several threads each wrap their call in pytest.warns(...), "
     "sometimes the warning isn't recorded"),
]


def main():
    rows = []
    for n, (doc, start, end, course, ticket) in enumerate(GT, 1):
        with open(os.path.join(HERE, "docs", doc), encoding="utf-8", newline="") as fh:
            text = fh.read()
        assert text.count(start) == 1, (n, "start marker not unique", start)
        a = text.index(start)
        b = text.index(end, a) + len(end)
        rows.append({"id": f"q{n:02d}", "doc": doc, "needle": text[a:b],
                     "queries": {"course": course, "ticket": ticket}})
    with open(os.path.join(HERE, "questions.jsonl"), "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    for r in rows:
        print(r["id"], r["doc"], len(r["needle"]), repr(r["needle"])[:300])


if __name__ == "__main__":
    main()
