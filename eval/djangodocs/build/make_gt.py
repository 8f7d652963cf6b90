#!/usr/bin/env python3
"""Write questions.jsonl: each needle is cut verbatim from its document's canonical text
(citeline's HTML extraction of the page, not the raw HTML) between a start marker and an
end marker (both included), so nothing is retyped by hand.
The queries were written by hand from the text alone (no retrieval was run).

Run with citeline's interpreter: /work/main/.venv/bin/python build/make_gt.py"""
import json
import os
import sys
from pathlib import Path

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(HERE, "..", "..", "src"))
from citeline.extract import extractor_for  # noqa: E402


def canonical(name):
    p = Path(HERE, "docs", name)
    return extractor_for(p).extract(p, name).text


GT = [
    ("01-db-queries.html", "Further filtering or ordering of a sliced queryset is prohibited", "how that might work.",
     "May I narrow down or re-sort a set of rows after limiting it with Python slice syntax?",
     "latest = Article.objects.all()[:20] and then latest.filter(published=True) raises 'Cannot filter a query once a slice has been taken'"),
    ("01-db-queries.html", "run any save() methods on your models, or emit the pre_save", "honor the auto_now field option.",
     "Does a bulk update on a filtered set of rows call each instance's save method and fire the model signals?",
     "our receiver that reindexes products never fires when we do Product.objects.filter(shop=s).update(price=F('price') * 2), and the last-changed timestamp stays old too"),
    ("02-db-aggregation.html", "Combining multiple aggregations with annotate()", "instead of subqueries:",
     "Why are the numbers wrong when I annotate a queryset with two aggregates over different relations?",
     "Book.objects.annotate(Count('authors'), Count('stores')) returns inflated values, each count looks multiplied by the other one"),
    ("03-db-managers.html", "Base managers aren", "or many-to-many relationship.",
     "Is the model's base manager applied when filtering across a relation or following a reverse foreign key?",
     "we set Meta.base_manager_name to a manager hiding soft-deleted questions, yet Choice.objects.filter(question__title__icontains='x') still returns choices of deleted ones"),
    ("04-db-transactions.html", "If you call on_commit() while there", "the callback will be executed immediately.",
     "What happens when a commit hook is registered while no atomic block is open?",
     "in a management command running in autocommit mode, transaction.on_commit(send_welcome) sends the mail right away instead of waiting for anything"),
    ("04-db-transactions.html", "This means that no transaction is ever actually committed", "callbacks will never be run.",
     "Why don't functions scheduled to run after a successful commit execute in Django's standard test case class?",
     "my test checks that the welcome email goes out after signup; with TestCase the deferred handler is never called, although it works on the dev server"),
    ("05-db-optimization.html", "Using QuerySet.exists() for the if", "would each cause additional queries.",
     "If a queryset gets evaluated anyway, does asking whether it has rows or how many it has cost extra database round trips?",
     "code review says replace `if emails:` with emails.exists() before looping over them, but the debug toolbar now shows more SQL, not less"),
    ("06-http-file-uploads.html", "Note that request.FILES will only contain data", "enctype=\"multipart/form-data\".",
     "Under what conditions does the uploaded-files dictionary of a request get populated?",
     "request.FILES is always an empty dict in my upload view even though I pick a file in the browser; the POST data only has the filename"),
    ("06-http-file-uploads.html", "By default, if an uploaded file is smaller than 2.5 megabytes", "contents of the upload in memory.",
     "Below what size is an incoming file kept in RAM rather than written to a temporary file?",
     "small uploads never show up in /tmp while big ones do; where is the cutoff, and does it mean each request holds the data in RAM?"),
    ("07-http-sessions.html", "# Gotcha: Session is NOT modified", "instead of request.session.",
     "Is a change to a nested value inside a stored session dictionary saved automatically?",
     "I append to request.session['cart']['items'] and it looks right during the request, but on the next page load the cart is back to what it was"),
    ("07-http-sessions.html", "Note that unlike PickleSerializer, the JSONSerializer", "arbitrary Python data types.",
     "Can the default session serializer store any kind of Python object?",
     "putting a Decimal order total into request.session raises 'Object of type Decimal is not JSON serializable'"),
    ("08-forms-index.html", "Usually, an error in a hidden field is a sign of form tampering", "won\u2019t alter them.",
     "What does a validation failure on an invisible form input usually indicate?",
     "our template renders only visible_fields, and now and then a submission fails without any message; the invalid input turned out to be the concealed 'step' one. Can a genuine user even cause that?"),
    ("09-forms-modelforms.html", "To work around this problem, every time you save a form using commit=False", "to your ModelForm subclass.",
     "After saving a model-backed form without writing to the database, how do I store its many-to-many selections?",
     "I do obj = form.save(commit=False); obj.owner = request.user; obj.save() and the tags picked in the multi-select are never stored"),
    ("10-migrations.html", "MySQL lacks support for transactions around schema alteration", "in order to try again",
     "Are schema changes from a failed migration undone automatically on MySQL?",
     "a migration crashed halfway on our MariaDB server and now half the new columns exist; rerunning migrate dies with 'Duplicate column name'"),
    ("11-testing-overview.html", "Regardless of the value of the DEBUG setting", "all Django tests run with DEBUG=False.",
     "Do tests honour the debug flag from my project settings?",
     "settings.py has DEBUG = True, but during manage.py test our debug-only toolbar never loads and error pages look like production"),
    ("12-testing-tools.html", "By default, the test client will disable any CSRF checks", "performed by your site.",
     "Does Django's simulated browser for tests enforce cross-site request forgery protection?",
     "posting through self.client works in our tests, but submitting the same form in a real browser gets 403 'token missing or incorrect'"),
    ("12-testing-tools.html", "For instance, you cannot test that a block of code is executing within a transaction", "when using select_for_update().",
     "Can a test built on Django's TestCase verify that row-locking code really runs inside a transaction?",
     "I wrote a test expecting our row-locking query outside atomic() to raise TransactionManagementError, but under TestCase it never raises"),
    ("12-testing-tools.html", "If you use any of Django\u2019s custom TestCase classes, the test runner will clear", "at the start of each test case.",
     "Is the list of captured outgoing messages reset between tests?",
     "assertEqual(len(mail.outbox), 1) passes in every test; do I have to empty that list myself when the whole suite runs?"),
    ("13-auth-default.html", "Changing a user\u2019s password will log out all their sessions.", "log out all their sessions.",
     "What happens to someone's other logins when their password is changed?",
     "after I reset a staff member's password from the shell she got kicked out on both her phone and her laptop"),
    ("13-auth-default.html", "Since get_session_auth_hash() is based on SECRET_KEY", "invalidate all existing sessions.",
     "Does rotating the project's signing key force everyone to sign in again?",
     "we replaced the secret key in settings during a deploy and every user was logged out at once"),
    ("14-auth-customizing.html", "Changing AUTH_USER_MODEL after you", "many-to-many relationships, for example.",
     "How hard is it to switch to a custom user model once the project's tables already exist?",
     "halfway through the project we want our own User class with email login; pointing the setting at it now gives migration errors about admin.LogEntry"),
    ("15-cache.html", "No, that\u2019s not a typo: the \u201cupdate\u201d middleware", "middleware must be last.",
     "In which order do the two site-wide caching middleware classes have to appear?",
     "I put FetchFromCacheMiddleware at the top and UpdateCacheMiddleware at the bottom like our other middleware, and pages are never cached"),
    ("15-cache.html", "incr()/decr() methods are not guaranteed to be atomic.", "guaranteed to be atomic.",
     "Can I rely on cache counter increments being race-free with every backend?",
     "our page-view counter uses cache.incr with the database cache backend and loses hits under load"),
    ("16-conditional-view-processing.html", "It doesn\u2019t save you from generating the response", "which may be expensive.",
     "Why can the conditional-GET middleware still leave heavy pages slow?",
     "with ConditionalGetMiddleware browsers get 304s, but server CPU is unchanged and the report view still takes 3 seconds each time"),
    ("17-email.html", "The outbox attribute is created when the first message is sent.", "first message is sent.",
     "When does the in-memory mail backend create its list of messages?",
     "AttributeError: module 'django.core.mail' has no attribute 'outbox' in a script using locmem before anything was mailed"),
    ("18-i18n-timezones.html", "When support for time zones is enabled, Django stores datetime information", "in UTC in the database",
     "In what zone are date-times saved when USE_TZ is turned on?",
     "rows written at 9:00 Paris time show 07:00 or 08:00 when I look at the table in psql; is the ORM shifting our timestamps?"),
    ("18-i18n-timezones.html", "When the database layer receives one, it attempts to make it aware", "and raises a warning.",
     "What happens if I save a datetime without tzinfo while time zone support is on?",
     "RuntimeWarning: DateTimeField Order.placed received a naive datetime while time zone support is active"),
    ("19-logging.html", "Disabled loggers are not the same as removed", "propagating entries to a parent logger.",
     "What does switching off the pre-existing loggers actually do to them?",
     "after adding our LOGGING dict, messages from a third-party library vanished completely and do not even reach the root handler"),
    ("20-pagination.html", "When determining the number of objects contained in the passed object", "has no count() method.",
     "How does the paging class work out how many items the sequence it is given holds?",
     "paginating a custom search-results object that only implements __len__; will Paginator still work and which method gives the total?"),
    ("21-security.html", "Django does not throttle requests to authenticate users.", "authenticate users.",
     "Does the framework rate-limit login attempts by itself?",
     "a penetration test found that our sign-in form accepts unlimited password guesses from one IP"),
    ("22-signals.html", "For example, the ready() method may be executed more than once during testing.", "during testing.",
     "Why might a receiver end up connected more than once?",
     "our handler sends two emails per save, but only in the test suite"),
    ("23-async.html", "If you have called a sync function directly from an async function", "then it can also occur.",
     "Can the async-unsafe error appear even when the code touching the ORM is an ordinary function?",
     "my async view calls a plain helper that does a query, and it raises 'You cannot call this from an async context' although the helper itself isn't async"),
]


def main():
    rows = []
    texts = {}
    for n, (doc, start, end, course, ticket) in enumerate(GT, 1):
        text = texts.setdefault(doc, canonical(doc))
        assert text.count(start) == 1, (n, "start marker not unique", start)
        a = text.index(start)
        b = text.index(end, a) + len(end)
        rows.append({"id": f"q{n:02d}", "doc": doc, "needle": text[a:b],
                     "queries": {"course": course, "ticket": ticket}})
    with open(os.path.join(HERE, "questions.jsonl"), "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    for r in rows:
        t = texts[r["doc"]]
        print(r["id"], r["doc"][:2], len(r["needle"]), f"{t.index(r['needle']) / len(t):.2f}", repr(r["needle"])[:200])


if __name__ == "__main__":
    main()
