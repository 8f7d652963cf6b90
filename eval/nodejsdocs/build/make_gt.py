#!/usr/bin/env python3
"""Write questions.jsonl: each needle is cut verbatim from its document between a
start marker and an end marker (both included), so nothing is retyped by hand.
The queries were written by hand from the text alone (no retrieval was run)."""
import json
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

GT = [
    ("01-documentation.md", "Features are marked as legacy rather", "npm ecosystem.",
     "Why would a feature be labelled Legacy in the stability index instead of Deprecated?",
     "the API we depend on is tagged 'Stability: 3' now; does that mean it's harmful and on its way out like the deprecated stuff?"),
    ("02-cli.md", "If an option that takes a single value", "the last passed value is used.",
     "Which value does Node.js use when the same single-value command-line flag appears twice?",
     "a wrapper script appends --title=worker after our own --title=api, so node gets the flag two times; which one is applied?"),
    ("02-cli.md", "If they don't match, Node.js refuses to load the snapshot", "status code 1.",
     "What happens if a startup snapshot blob was produced by a different Node.js binary or platform than the one loading it?",
     "we build snapshot.blob on the Mac CI runner; on the Linux servers node --snapshot-blob just quits with exit code 1 and never starts the app"),
    ("02-cli.md", "The `NODE_EXTRA_CA_CERTS` environment variable is only read", "first launched.",
     "Does changing NODE_EXTRA_CA_CERTS from inside a running script have any effect?",
     "I set process.env.NODE_EXTRA_CA_CERTS at the top of index.js to our corporate root cert but https calls still fail with 'self signed certificate in chain'"),
    ("02-cli.md", "Because libuv's threadpool has a fixed size", "degraded performance.",
     "Why can slow file-system or crypto calls make other, unrelated asynchronous APIs sluggish as well?",
     "while a few big pbkdf2 hashes are running, our dns.lookup and fs.readFile calls suddenly take seconds even though the CPU is mostly idle"),
    ("03-modules.md", "`require('./foo')` and `require('./FOO')` return", "are the same file.",
     "On a case-insensitive file system, is the cached module reused when a file is required with different letter case?",
     "on my Mac a singleton gets initialised twice - one file does require('./Config') and another require('./config')"),
    ("03-modules.md", "Core modules can be identified using the `node:` prefix", "bypasses the `require` cache.",
     "Is require.cache consulted when a built-in is loaded with the node: scheme?",
     "our test helper puts a fake 'http' into require.cache; mocking works for require('http') but code using require('node:http') still gets the real one"),
    ("03-modules.md", "Assignment to `module.exports` must be done immediately.",
     "Assignment to `module.exports` must be done immediately.",
     "Can a CommonJS file set what it exports later, for example inside an asynchronous callback?",
     "I do module.exports = client inside the db connect callback, and every file that requires it gets an empty {}"),
    ("04-esm.md", "Modules are loaded multiple times if the `import` specifier", "query or fragment.",
     "Is an ES module evaluated again when it is imported with a different ?search suffix or #hash?",
     "one file imports './state.js?v=2' and another imports './state.js', and now my in-memory store exists twice"),
    ("04-esm.md", "`NODE_PATH` is not part of resolving `import` specifiers.",
     "`NODE_PATH` is not part of resolving `import` specifiers.",
     "Are the folders listed in NODE_PATH searched when an ES module statically imports a bare name?",
     "after switching to \"type\": \"module\" our shared libs fail with ERR_MODULE_NOT_FOUND, though NODE_PATH=/opt/shared worked fine with require"),
    ("04-esm.md", "If a top level `await` expression never resolves", "[status code][].",
     "What exit status does node return when an await in the body of the entry ES module never settles?",
     "our .mjs script just stops, no error message at all, and echo $? prints 13. there is an await on a promise outside any function"),
    ("05-packages.md", "(Package scopes under `node_modules` are always treated", "for backward compatibility.)",
     "With --experimental-default-type=module, how are .js files interpreted in a dependency whose manifest declares no module format?",
     "started node with the flag that makes ESM the default; my own .js files load as ESM but a dependency without a \"type\" entry still gets parsed as CJS"),
    ("05-packages.md", "If the package main export is a constructor", "two versions returns `false`",
     "Why can instanceof checks fail when both the CommonJS and the ES module build of one library get loaded?",
     "err instanceof LibError is false although the error clearly came from that lib - our code imports it, a plugin require()s it"),
    ("06-corepack.md", "npm prevents accidentally overriding the Corepack binaries", "global\ninstall.",
     "Why does installing yarn globally with npm fail once Corepack shims are set up?",
     "npm i -g yarn errors with EEXIST on /usr/local/bin/yarn after I ran corepack enable, how do I get yarn onto this machine?"),
    ("07-path.md", "Although Windows usually treats file names", "this function does not.",
     "Does path.basename strip a suffix whose letter case differs from the file name's on Windows?",
     "path.basename('C:\\\\docs\\\\REPORT.PDF', '.pdf') still returns REPORT.PDF on our Windows box, I expected REPORT"),
    ("07-path.md", "The resulting path is normalized and trailing slashes", "root directory.",
     "Does path.resolve keep a trailing separator on the path it returns?",
     "path.resolve('dist/') gives me /home/me/app/dist without the slash, which breaks my string concatenation; but for '/' the slash stays?"),
    ("08-events.md", "When a single function has been added as a handler multiple times", "recently added instance.",
     "If one function was registered several times for the same event, which registration does removeListener take away?",
     "I attached the same handler three times by mistake (the last via once); calling off() one time removed the once one, not the first one I added - why?"),
    ("08-events.md", "By default `EventEmitter`s will print a warning", "for a particular event.",
     "How many handlers can an emitter have for one event before Node.js warns about it?",
     "logs show 'Possible EventEmitter memory leak detected. 11 close listeners added to [Socket]' - at what count does node start complaining?"),
    ("08-events.md", "When a registered event listener throws", "`process.nextTick()`.",
     "What happens by default when a handler attached to an EventTarget throws or rejects?",
     "an async callback I attached with addEventListener rejects and the whole process dies; I assumed EventTarget would just log it"),
    ("09-timers.md", "If an immediate timer is queued", "next event loop iteration.",
     "When does a setImmediate callback that was scheduled from inside another immediate callback run?",
     "I call setImmediate recursively to chunk work, expecting the batch to run back to back, but each step lands on a separate loop turn and I/O sneaks in between"),
    ("10-console.md", "This function bypasses any custom `inspect()`", "defined on `obj`.",
     "Does console.dir honour an object's own custom inspection method?",
     "my class defines [util.inspect.custom] and console.log prints it nicely, but console.dir(x) dumps all the raw fields"),
    ("11-child-process.md", "On Windows,\nhowever, `.bat` and `.cmd` files are not executable", "[`child_process.execFile()`][].",
     "Can execFile start a batch script directly on Windows?",
     "execFile('build.cmd') fails with spawn EINVAL on our Windows agent while the same call works for .exe programs"),
    ("11-child-process.md", "If the parent's `stdio` is inherited", "controlling terminal.",
     "Does a detached child keep running in the background if it shares the parent's standard streams?",
     "spawned a daemon with detached: true and stdio: 'inherit', yet closing the terminal kills it together with the parent"),
    ("11-child-process.md", "On Linux, child processes of child processes", "kill their parent.",
     "On Linux, does killing a spawned process also stop the processes it started itself?",
     "we spawn with shell: true and call kill() on timeout; the shell goes away but the ffmpeg it launched keeps running as an orphan"),
    ("12-cluster.md", "However, in a cluster, each worker will receive the", "each time they do `listen(0)`.",
     "In a cluster, which port does each worker end up with when its server asks for port 0?",
     "every forked worker calls server.listen(0) expecting its own free port, but they all report the same port number"),
    ("12-cluster.md", "`SCHED_RR` is the default on all operating systems except Windows.",
     "`SCHED_RR` is the default on all operating systems except Windows.",
     "Which scheduling policy does the cluster module use by default, and on which platform does that differ?",
     "connections get spread across workers very unevenly on our Windows server but nicely on Linux, is cluster balancing differently there?"),
    ("13-worker-threads.md", "In particular, [`Buffer`][] objects will be read as", "plain JavaScript objects.",
     "What do a Buffer and an instance of a user-defined class look like after being posted to a worker thread?",
     "I postMessage a Buffer to my worker and on the other side Buffer.isBuffer() is false, and my Point objects have lost their methods"),
    ("13-worker-threads.md", "If the preload script unconditionally launches", "until the application crashes.",
     "What goes wrong if a module preloaded with -r always starts a worker thread?",
     "added -r ./instrument.js which creates a Worker for metrics, now the app keeps making threads endlessly and dies with OOM"),
    ("14-permissions.md", "When loading resources the entire URL must match", "hash fragment.",
     "Does a policy manifest entry for a module also apply when it is loaded with a ?query appended?",
     "with --experimental-policy on, import('./plugin.js?reload=1') fails the policy check even though ./plugin.js is listed in policy.json"),
    ("15-report.md", "If both filename and error object are passed", "second parameter.",
     "In which order must a file name and an Error be given to process.report.writeReport?",
     "process.report.writeReport(err, 'crash.json') writes something but the JS stack in it is not from my error, wrong arguments?"),
    ("16-debugger.md", "Pressing `enter` without typing a command", "debugger\ncommand.",
     "What does hitting Enter on an empty prompt do in the built-in node inspect client?",
     "in node inspect I keep typing n over and over to step through a loop, is there a quicker way to redo the last step?"),
    ("17-single-executable-applications.md", "Attempting to load a module that can\nonly be found", "throw an error.",
     "Can the script injected into a single executable application require modules from disk?",
     "built a single binary with postject, it runs fine until require('./lib/db'), which throws, while require('fs') works"),
]


def main():
    rows = []
    for n, (doc, start, end, course, ticket) in enumerate(GT, 1):
        text = open(os.path.join(HERE, "docs", doc), encoding="utf-8").read()
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
