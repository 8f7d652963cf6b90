#!/usr/bin/env python3
"""Copy the selected Cargo Book pages byte-for-byte into docs/ (or into the folder given
as the first argument), renamed with a numeric prefix in reading order.

Source: the mdBook HTML output of the Cargo Book shipped with the stable Rust toolchain,
/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/share/doc/rust/html/cargo/.
Nothing is converted and no asset (CSS, JavaScript, fonts, images) is copied."""
import os
import shutil
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = "/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/share/doc/rust/html/cargo"

# (target name, source path under html/cargo), in reading order
PAGES = [
    ("01-guide-cargo-toml-vs-cargo-lock.html", "guide/cargo-toml-vs-cargo-lock.html"),
    ("02-guide-cargo-home.html", "guide/cargo-home.html"),
    ("03-guide-continuous-integration.html", "guide/continuous-integration.html"),
    ("04-guide-build-performance.html", "guide/build-performance.html"),
    ("05-reference-manifest.html", "reference/manifest.html"),
    ("06-reference-cargo-targets.html", "reference/cargo-targets.html"),
    ("07-reference-rust-version.html", "reference/rust-version.html"),
    ("08-reference-workspaces.html", "reference/workspaces.html"),
    ("09-reference-specifying-dependencies.html", "reference/specifying-dependencies.html"),
    ("10-reference-overriding-dependencies.html", "reference/overriding-dependencies.html"),
    ("11-reference-features.html", "reference/features.html"),
    ("12-reference-features-examples.html", "reference/features-examples.html"),
    ("13-reference-profiles.html", "reference/profiles.html"),
    ("14-reference-resolver.html", "reference/resolver.html"),
    ("15-reference-semver.html", "reference/semver.html"),
    ("16-reference-build-scripts.html", "reference/build-scripts.html"),
    ("17-reference-config.html", "reference/config.html"),
    ("18-reference-environment-variables.html", "reference/environment-variables.html"),
    ("19-reference-source-replacement.html", "reference/source-replacement.html"),
    ("20-reference-registries.html", "reference/registries.html"),
    ("21-reference-publishing.html", "reference/publishing.html"),
    ("22-commands-cargo-update.html", "commands/cargo-update.html"),
    ("23-commands-cargo-install.html", "commands/cargo-install.html"),
    ("24-commands-cargo-tree.html", "commands/cargo-tree.html"),
]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "docs")
    os.makedirs(out, exist_ok=True)
    for name, src in PAGES:
        shutil.copyfile(os.path.join(SRC, src), os.path.join(out, name))


if __name__ == "__main__":
    main()
