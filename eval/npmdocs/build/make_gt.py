#!/usr/bin/env python3
"""Write questions.jsonl: each needle is cut verbatim from its document between a
start marker and an end marker (both included), so nothing is retyped by hand.
The queries were written by hand from the text alone (no retrieval was run)."""
import json
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

GT = [
    ("04-package-json.md", "At the root of your package it will not override", "but in subdirectories it will.",
     "Does an .npmignore placed at the package root take priority over the files list in package.json?",
     "I listed src in \"files\" and excluded src/secret.js in my top-level .npmignore, but the secret still ends up in the tarball"),
    ("04-package-json.md", "Please make sure that your file(s) referenced in `bin`", "without the node executable!",
     "What must the first line of an executable declared in the bin field contain?",
     "after npm i -g of my CLI, running it gives 'import: command not found' - the shell is trying to run my JS itself?"),
    ("04-package-json.md", "Overrides in installed dependencies (including", "dependency tree resolution.",
     "Are overrides declared in a workspace's own package.json taken into account?",
     "put an overrides block in packages/api/package.json of our monorepo to pin a patched minimist, npm install ignores it completely"),
    ("04-package-json.md", "Unless the user has set the [`engine-strict` config]", "installed as a dependency.",
     "Will installing a dependency whose engines field excludes my Node version fail, or only warn?",
     "lib says node >=20 but on node 18 npm i just printed EBADENGINE and carried on, how do I make that a hard error?"),
    ("18-npm-install.md", "Note that most version ranges must be put in quotes", "single argument.",
     "Why should a version range given to npm install on the command line be wrapped in quotes?",
     "ran npm install sax@>=0.1.0 <0.2.0 and now there's a weird file called '=0.1.0' in my folder and the wrong version got in"),
    ("18-npm-install.md", "If the `latest` tag points to a version incompatible", "compatible version instead.",
     "Which release does installing a package by bare name pick when the one tagged latest doesn't support the running Node.js?",
     "npmjs.com shows v5 as newest but npm i foo gives me 4.8 on my Node 16 box, I didn't pin anything, why?"),
    ("18-npm-install.md", "This algorithm is deterministic", "in a different order.",
     "Can the installer produce different node_modules layouts for the same set of dependencies?",
     "me and my coworker added the same two packages but in opposite order and our node_modules are nested differently, is npm random?"),
    ("13-scripts.md", "Runs on local `npm install` without package arguments", "like `npm install express`)",
     "Is the prepare lifecycle script triggered when adding a single named package to a project?",
     "our husky setup lives in prepare; it fires on plain npm install but not when a teammate does npm i lodash, bug?"),
    ("13-scripts.md", "**Note:** In npm 7 and later, most package.json fields", "environment variables.",
     "Can a package script still read arbitrary package.json fields from npm_package_* environment variables?",
     "process.env.npm_package_description is undefined inside my build script since we moved off npm 6, name still works"),
    ("33-npm-audit.md", "This option does not filter the report output", "failure threshold.",
     "Does setting a minimum audit level hide lower-severity findings from the report?",
     "CI runs npm audit --audit-level=high but the log still lists all the low and moderate advisories, is the flag broken?"),
    ("33-npm-audit.md", "If the chain of metavulnerabilities extends", "the `--force` option",
     "When does automatic vulnerability remediation refuse to proceed unless forced?",
     "npm audit fix leaves 3 high vulns and tells me to add --force, which bumps a direct dep to a new major. why can't it just fix them?"),
    ("19-npm-ci.md", "If a `node_modules` is already present", "begins its install.",
     "What happens to an existing node_modules directory when running a clean install?",
     "we cache node_modules between GitHub Actions runs but npm ci still takes 3 minutes every time, as if the cache is thrown away"),
    ("19-npm-ci.md", "`--legacy-peer-deps` or `--install-links`, you _must_", "encounter errors.",
     "If the lockfile was generated with options that change the tree shape, what does the clean install command need?",
     "locally I did npm i --legacy-peer-deps to get past ERESOLVE, committed the lock, and now npm ci on Jenkins dies with ERESOLVE again"),
    ("21-npm-update.md", "Note that by default `npm update` will not update", "project `package.json`.",
     "Does updating packages rewrite the version ranges recorded in package.json?",
     "ran npm update, node_modules has axios 1.7 now but package.json still says ^1.4.0, is something wrong?"),
    ("25-npm-link.md", "Note that `package-name` is taken from", "the directory name.",
     "When linking a globally linked package into a project, which name has to be given?",
     "did npm link in ~/code/ui-kit then npm link ui-kit in my app and got a 404 from the registry; its package.json calls it @acme/components"),
    ("14-dependency-selectors.md", "Note that severity filtering is done per severity", "the one specified.",
     "Does filtering the vulnerability pseudo selector by a severity also match more severe advisories?",
     "npm query ':vuln([severity=moderate])' returns nothing although npm audit shows two critical ones, I expected moderate and up"),
    ("05-package-lock-json.md", "The difference is that `package-lock.json` cannot be published", "the root project.",
     "Is the lockfile of a dependency used when that dependency is installed into another project?",
     "our library commits its lock with pinned versions, yet apps that install the library still resolve newer transitive deps"),
    ("23-npm-dedupe.md", "Though `d`'s dependency on `c@1.x`", "causes duplication.",
     "Why might the installer put a second, newer copy of a package deeper in the tree when the copy at the root already fits the range?",
     "tree shows lodash 4.17.21 nested under one dep even though the root has 4.17.15 which fits its ^4 range, why the dupe?"),
    ("27-npm-exec.md", "When standard input is not a TTY or a CI environment is detected", "is assumed.",
     "Is there a confirmation before fetching a missing package when running a command non-interactively?",
     "in our pipeline npx some-generator just downloads and runs without the 'Ok to proceed? (y)' question I get locally, why no prompt?"),
    ("29-npm-init.md", "*Note:* if a user already has the `create-<initializer>`", "`npm init` uses.",
     "If a create-* scaffolding tool is already present system-wide, which version does the init command execute?",
     "npm init vite keeps generating last year's template even though create-vite has had several releases since"),
    ("15-developers.md", "If you *want* to include something that is excluded", "to override it.",
     "How can files that git ignores still be shipped in the package without listing them one by one?",
     "build output dir is in .gitignore and missing from the published tarball, users get cannot find module ./dist/index.js"),
    ("22-npm-outdated.md", "This is why currently doing a reinstall of a Git dependency", "clone and install.",
     "Why is a dependency fetched from a Git repository cloned again on every reinstall?",
     "every npm install re-fetches our github: dependency from scratch and takes ages, even though the commit hasn't changed"),
    ("30-npm-version.md", "**Note:** If the current version is a prerelease version", "patch version number.",
     "What does a patch bump do to a version that currently carries a prerelease tag?",
     "package was 3.1.0-rc.2, ran npm version patch expecting 3.1.1 but got 3.1.0"),
    ("32-npm-publish.md", "Once a package is published with a given name and version", "(/commands/npm-unpublish).",
     "Can a version number be reused after the release carrying it has been withdrawn from the registry?",
     "removed my botched 2.3.0 from the registry, fixed it, tried to push 2.3.0 again and get 403 cannot publish over previously published version"),
    ("07-npmrc.md", "Additionally, this file is not read in global mode", "`npm install -g`.",
     "Is a project-level .npmrc consulted during global installs?",
     "our repo .npmrc points at the internal registry; npm i -g @corp/cli from inside the repo still goes to registry.npmjs.org and 404s"),
    ("08-folders.md", "Starting at the $PWD, npm will walk up", "`node_modules` folder.",
     "How does npm decide which directory to treat as the project root for a local install?",
     "cd'd into src/utils and ran npm install dayjs, it didn't create node_modules there but changed the manifest two levels up"),
    ("12-workspaces.md", "Commands will be run in each workspace in the order", "your `package.json`",
     "In what sequence does running a script across all workspaces visit the packages?",
     "npm run build --workspaces builds packages/app before packages/core and app fails since core's dist isn't there yet"),
    ("26-npm-run.md", "The arguments will only be passed to the script specified", "`post` script.",
     "Do extra command-line arguments given to npm run reach the matching pre and post hooks?",
     "npm run deploy -- --env=staging: deploy sees --env but my predeploy check runs without it"),
    ("24-npm-ls.md", "If not set, `npm ls` will show only the immediate", "project.",
     "How deep does listing the installed packages go by default?",
     "npm ls only prints my 12 top-level deps, I need to see what pulled in some nested package"),
    ("28-npx.md", "Use [`NODE_OPTIONS`]", "instead: e.g.,",
     "How should Node runtime flags be supplied when launching a package binary through npx now that its own flag for that was dropped?",
     "old README says npx -n --inspect-brk my-tool, that errors out now; how do I start it under the debugger?"),
    ("10-scope.md", "You will need to specify", "initial `npm publish` command.",
     "What flag does the first release of a scoped package need to be publicly visible?",
     "npm publish for @myname/utils fails with 402 Payment Required, I never wanted a private package"),
    ("09-registry.md", "but if you create a lock file while using a custom registry", "change to another registry.",
     "Does a lockfile generated against a private mirror keep pointing installs at that mirror after the registry setting changes?",
     "switched .npmrc from our Artifactory to registry.npmjs.org but npm ci still downloads tarballs from artifactory.corp"),
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
