#!/usr/bin/env python3
"""Copy the selected npm documentation pages byte-for-byte into docs/ (or into the
folder given as the first argument), renamed with a numeric prefix in reading order.

Source: the Markdown sources installed with npm, /usr/lib/node_modules/npm/docs/content/.
Nothing is converted: the YAML front matter and the Markdown stay exactly as shipped."""
import os
import shutil
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = "/usr/lib/node_modules/npm/docs/content"

# (target name, source path under docs/content), in reading order
PAGES = [
    ("01-install.md", "configuring-npm/install.md"),
    ("02-npm.md", "commands/npm.md"),
    ("03-package-spec.md", "using-npm/package-spec.md"),
    ("04-package-json.md", "configuring-npm/package-json.md"),
    ("05-package-lock-json.md", "configuring-npm/package-lock-json.md"),
    ("06-npm-shrinkwrap-json.md", "configuring-npm/npm-shrinkwrap-json.md"),
    ("07-npmrc.md", "configuring-npm/npmrc.md"),
    ("08-folders.md", "configuring-npm/folders.md"),
    ("09-registry.md", "using-npm/registry.md"),
    ("10-scope.md", "using-npm/scope.md"),
    ("11-orgs.md", "using-npm/orgs.md"),
    ("12-workspaces.md", "using-npm/workspaces.md"),
    ("13-scripts.md", "using-npm/scripts.md"),
    ("14-dependency-selectors.md", "using-npm/dependency-selectors.md"),
    ("15-developers.md", "using-npm/developers.md"),
    ("16-logging.md", "using-npm/logging.md"),
    ("17-removal.md", "using-npm/removal.md"),
    ("18-npm-install.md", "commands/npm-install.md"),
    ("19-npm-ci.md", "commands/npm-ci.md"),
    ("20-npm-uninstall.md", "commands/npm-uninstall.md"),
    ("21-npm-update.md", "commands/npm-update.md"),
    ("22-npm-outdated.md", "commands/npm-outdated.md"),
    ("23-npm-dedupe.md", "commands/npm-dedupe.md"),
    ("24-npm-ls.md", "commands/npm-ls.md"),
    ("25-npm-link.md", "commands/npm-link.md"),
    ("26-npm-run.md", "commands/npm-run.md"),
    ("27-npm-exec.md", "commands/npm-exec.md"),
    ("28-npx.md", "commands/npx.md"),
    ("29-npm-init.md", "commands/npm-init.md"),
    ("30-npm-version.md", "commands/npm-version.md"),
    ("31-npm-pack.md", "commands/npm-pack.md"),
    ("32-npm-publish.md", "commands/npm-publish.md"),
    ("33-npm-audit.md", "commands/npm-audit.md"),
]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "docs")
    os.makedirs(out, exist_ok=True)
    for name, src in PAGES:
        shutil.copyfile(os.path.join(SRC, src), os.path.join(out, name))


if __name__ == "__main__":
    main()
