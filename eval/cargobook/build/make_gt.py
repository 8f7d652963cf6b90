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
    ("02-guide-cargo-home.html", "However, caching the entire directory", "downloaded sources twice.",
     "When caching the Cargo home for continuous integration, why is saving the whole folder wasteful?",
     "our GitHub Actions cache of ~/.cargo is huge and restoring/uploading it takes longer than just downloading the crates again, what are we doing wrong?"),
    ("03-guide-continuous-integration.html", "CARGO_RESOLVER_INCOMPATIBLE_RUST_VERSIONS is set", "project’s Rust version.",
     "In the suggested CI job that verifies the newest dependency versions, why is an environment variable about the resolver set?",
     "nightly 'latest deps' job keeps picking old crate versions because our manifest declares rust-version = 1.70; I want that job to test the newest releases anyway"),
    ("04-guide-build-performance.html", "While dependencies may be built in parallel, linking", "for incremental rebuilds.",
     "Why can the link step take up so much of the time of an incremental rebuild?",
     "after touching one line in main.rs, cargo build spends 20 seconds at the very end with a single core pegged; every crate was already compiled. why is that last phase so slow?"),
    ("05-reference-manifest.html", "If the edition field is not present", "for backwards compatibility.",
     "Which Rust edition does a package get when its manifest has no edition key?",
     "old crate, fresh 1.85 toolchain: `async fn` gives 'not permitted in Rust 2015' even though 2015 is ancient, what makes it think that?"),
    ("05-reference-manifest.html", "If the package is in a git repository, any files", "will be skipped.",
     "Are files that git ignores left out of the packaged crate even when neither include nor exclude is set?",
     "cargo package tarball is missing our generated src/bindings.rs and the build fails for users; that file is listed in .gitignore"),
    ("06-reference-cargo-targets.html", "Note: Examples are built by cargo test", "not tested by default.",
     "Does cargo test execute the #[test] functions inside example targets unless told to?",
     "put some #[test] fns in examples/demo.rs, the example compiles during the test run but none of those tests show up in the output"),
    ("07-reference-rust-version.html", "Compiler pre-release identifiers such as -nightly", "checking the Rust version.",
     "Is a nightly toolchain's suffix taken into account when the compiler is compared with the package's declared minimum Rust release?",
     "rust-version = \"1.80\" and I'm on a 1.80.0-nightly from before the stable release, why doesn't cargo complain the compiler is too old?"),
    ("08-reference-workspaces.html", "The [patch], [replace] and [profile.*] sections", "member crates’ manifests.",
     "Does a [profile.release] table placed in one member crate's manifest take effect when the whole workspace is built?",
     "set opt-level = 3 under [profile.dev] in crates/engine/Cargo.toml of our monorepo, cargo prints a warning and debug builds are still slow"),
    ("09-reference-specifying-dependencies.html", "Version requirements exclude pre-release versions", "unless specifically asked for.",
     "Will an ordinary requirement like \"1.0\" ever select an alpha or beta release?",
     "the crate only has 2.0.0-rc.1 on crates.io, I wrote foo = \"2.0\" and cargo says failed to select a version for the requirement"),
    ("09-reference-specifying-dependencies.html", "Unlike in your Rust source code, you cannot use", "based on optional features.",
     "Can a target table keyed on a cfg(feature = ...) expression pull in a dependency when one of my features is on?",
     "wrote [target.'cfg(feature = \"tls\")'.dependencies] with rustls in it, and rustls never gets compiled even when I build with --features tls"),
    ("10-reference-overriding-dependencies.html", "Note: using a local configuration to override paths", "published to crates.io.",
     "Can the paths setting in .cargo/config.toml point Cargo at a local crate that was never released?",
     "added paths = [\"../my-new-lib\"] to .cargo/config.toml, that lib isn't on any registry yet, and cargo still says no matching package named my-new-lib found"),
    ("11-reference-features.html", "If another dependency includes flate2", "will be enabled.",
     "If I turn off a dependency's default feature set, can those features still end up switched on?",
     "set default-features = false on tokio to drop a heavy feature but cargo tree -e features shows it's still on"),
    ("11-reference-features.html", "With version “2”, it will disable", "all workspace members.",
     "Under resolver 2, which packages does the flag that turns off default features act on?",
     "in the workspace root, cargo build --no-default-features turns off defaults in every member crate, not only the one I cd'd into before - is that new?"),
    ("13-reference-profiles.html", "Tests, benchmarks, build scripts, and proc macros ignore", "panic setting.",
     "Does setting panic = \"abort\" in a profile change how test binaries handle a panic?",
     "we set panic=abort in [profile.dev] but cargo test still unwinds and #[should_panic] tests pass; is the setting being dropped?"),
    ("13-reference-profiles.html", "To compile quickly, all profiles, by default, do not optimize", "and their dependencies)",
     "Are build scripts and procedural macros compiled with optimizations when using the release profile?",
     "our build.rs does heavy codegen and takes forever even with cargo build --release; is it running unoptimized?"),
    ("14-reference-resolver.html", "When the resolver is building the graph, it will ignore", "of cargo update (nightly only).",
     "When is a version that has been yanked still chosen during resolution?",
     "a crate we depend on got yanked last week; builds using our existing lockfile keep working but a fresh clone without Cargo.lock fails to resolve. why the difference?"),
    ("14-reference-resolver.html", "For example, if you specify a tilde requirement", "should be compatible.",
     "Why can a ~ version requirement make resolution fail alongside other crates' requirements?",
     "my lib pins bar = \"~1.3\", an app that also depends on bar = \"1.4\" can't build: failed to select a version for bar. aren't minor versions compatible?"),
    ("15-reference-semver.html", "Note that in some rare cases this can be a breaking change due to glob", "glob imports.",
     "Can adding a new trait to a library break dependents even though that is normally a minor change?",
     "bumped a dependency by a minor version and now `use their_crate::*;` gives an ambiguous associated item error in my code"),
    ("15-reference-semver.html", "Note that for tuple structs, this is a major change", "index of any public field.",
     "Can a library add a hidden member to a tuple-like struct in a minor release when it already has one non-public member?",
     "upstream inserted a private field before the public ones in their tuple struct in a point release and my code using `.1` no longer compiles"),
    ("15-reference-semver.html", "Removing an optional dependency can break", "via Cargo features.",
     "Is it a breaking change to drop an optional dependency from a crate?",
     "after they deleted the unused chrono optional dep in 1.4.0, our build fails with 'package does not have that feature' for chrono"),
    ("16-reference-build-scripts.html", "do not use the cfg! macro or #[cfg] attribute", "target platform you’re compiling for.",
     "Why does checking the target OS with conditional compilation inside build.rs give the wrong answer when cross-compiling?",
     "build.rs links a .dll when cfg!(windows) is true; cross compiling from Linux to x86_64-pc-windows-gnu it never takes that branch"),
    ("16-reference-build-scripts.html", "Warnings are only shown for path dependencies", "unless the build fails.",
     "Why are messages emitted with cargo::warning by a dependency's build script not displayed?",
     "a -sys crate from the registry should print a notice about a missing system library from its build.rs, but I see nothing in the output; how can I see it?"),
    ("17-reference-config.html", "At present, when being invoked from a workspace", "crates within the workspace.",
     "When Cargo runs from a workspace root, are the .cargo/config.toml files inside individual member directories loaded?",
     "put a .cargo/config.toml with a custom linker inside crates/firmware/, but cargo build run from the repo root ignores it completely"),
    ("17-reference-config.html", "Things being built for the host", "will not receive the args.",
     "With --target given, do RUSTFLAGS also apply to build scripts and proc macros?",
     "RUSTFLAGS='-C target-cpu=native' plus an explicit --target x86_64-unknown-linux-gnu: the verbose log shows our build.rs and proc-macro crates compiled without that flag, but without --target they get it"),
    ("17-reference-config.html", "Relative path dependencies in such a [patch] section", "they appear in.",
     "Where does a local-directory override written under [patch] in ~/.cargo/config.toml look when given a non-absolute location?",
     "patch with path = \"../foo\" works in Cargo.toml but after moving it into .cargo/config.toml cargo can't find foo - relative to what?"),
    ("18-reference-environment-variables.html", "Note that if one of these values is not provided in the manifest", "the empty string, \"\".",
     "What value does CARGO_PKG_HOMEPAGE or a similar package metadata variable hold at compile time when the manifest leaves that field out?",
     "env!(\"CARGO_PKG_REPOSITORY\") compiles fine but prints nothing; I expected a compile error since we never set repository"),
    ("18-reference-environment-variables.html", "Note that since Rust 1.55, RUSTFLAGS is removed", "CARGO_ENCODED_RUSTFLAGS instead.",
     "How should a build script read the extra compiler flags the user configured, given that one familiar variable is no longer passed to it?",
     "build.rs does std::env::var on the flags variable to check for target-feature but it's always Err(NotPresent), even when I export it in the shell"),
    ("19-reference-source-replacement.html", "Note that this also means that a replacement source", "in the original source.",
     "May a mirror used through source replacement offer crates the upstream registry doesn't have?",
     "we redirected crates-io to our internal Artifactory mirror and uploaded a private crate only there; cargo can't find it"),
    ("21-reference-publishing.html", "crates.io currently has a 10MB size limit", "on the .crate file.",
     "Is there a maximum size for the archive uploaded when a package is released on the public registry?",
     "cargo publish rejected, payload too large; our package includes a 40 MB tests/data folder"),
    ("22-commands-cargo-update.html", "Its transitive dependencies will be updated only if SPEC", "without updating dependencies.",
     "When updating a single package by spec, are its own dependencies bumped too?",
     "cargo update -p serde_json only bumped serde_json, its deps like itoa stayed at old versions; I expected everything under it refreshed"),
    ("23-commands-cargo-install.html", "By default, the Cargo.lock file that is included with the package", "will be ignored.",
     "Does installing a binary crate from crates.io respect the lockfile shipped inside it?",
     "cargo install ripgrep suddenly fails to compile on our build box because a transitive dep changed; the same release built fine last month"),
    ("24-commands-cargo-tree.html", "Note that in a workspace, by default it will only display", "in the current directory.",
     "When inverting the dependency graph inside a workspace, whose dependents are shown by default?",
     "cargo tree -i openssl-sys run from inside crates/api shows nothing, although another crate of our monorepo definitely pulls it in"),
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
        print(r["id"], r["doc"], len(r["needle"]), repr(r["needle"])[:300])


if __name__ == "__main__":
    main()
