#!/usr/bin/env python3
"""Check the CMake-manuals corpus and its needle-style ground truth (gtcheck.py says what
is checked): reStructuredText manuals of Debian's cmake-data, copied as they are.

Usage: python3 check_gt.py [--no-rebuild] [-v]
  If /usr/share/cmake-3.25/Help/manual exists (Debian's cmake-data), every document is
  copied again with build/copy.py into a temporary folder and compared byte-for-byte.
  -v lists each needle's context.
  Exit status 0 = all checks pass, 1 = at least one failure.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import gtcheck  # noqa: E402

SRC_DIR = "/usr/share/cmake-3.25/Help/manual"

# Key terms that must NOT occur anywhere in the corpus for each unanswerable query
# (regexes, case-insensitive unless wrapped in (?-i:...)).
UNANSWERABLE_TERMS = {
    "u01": [r"CPACK_", r"\.deb\b", r"\bdebian\b", r"package_depends"],
    "u02": [r"fetchcontent", r"makeavailable"],
    "u03": [r"codemodel", r"\breply\b", r"file api\b"],
    "u04": [r"gtest", r"googletest", r"discover_tests"],
    "u05": [r"cmakedefine", r"@ONLY", r"@VAR@"],
    "u06": [r"ccache", r"COMPILER_LAUNCHER", r"sccache"],
    "u07": [r"precompile", r"\bPCH\b"],
    "u08": [r"\bunity", r"\bjumbo"],
    "u09": [r"compile_commands", r"EXPORT_COMPILE_COMMANDS", r"clangd"],
    "u10": [r"SCAN_FOR_MODULES", r"C\+\+ ?20", r"named modules", r"\bp1689"],
    "u11": [r"interprocedural", r"\bLTO\b", r"link.time optimi", r"\bIPO\b"],
    "u12": [r"MSVC_RUNTIME_LIBRARY", r"(?-i:/MT\b)", r"MultiThreaded"],
    "u13": [r"\bswig", r"pybind", r"python binding"],
    "u14": [r"doxygen", r"API documentation"],
    "u15": [r"rpath", r"\$ORIGIN", r"LD_RUN_PATH"],
    "u16": [r"CUDA_ARCHITECTURES", r"\bsm_\d", r"gpu architectures?"],
    "u17": [r"emscripten", r"webassembly", r"\bwasm"],
    "u18": [r"vcpkg", r"\bconan"],
    "u19": [r"\bsource_group", r"solution explorer", r"FOLDER\b"],
    "u20": [r"file\(DOWNLOAD", r"EXPECTED_HASH", r"EXPECTED_MD5"],
    "u21": [r"clang.tidy", r"CLANG_TIDY", r"\bcppcheck", r"include-what-you-use"],
    "u22": [r"kettle", r"vinegar", r"limescale", r"descal"],
    "u23": [r"\bswim", r"front crawl", r"breath"],
    "u24": [r"\bmould", r"\bmold\b", r"shower", r"silicone"],
    "u25": [r"\btaxi", r"\btips?\b", r"gratuity"],
    "u26": [r"houseplant", r"kitten", r"toxic"],
    "u27": [r"\btyres?\b", r"flat tire", r"motorway"],
    "u28": [r"juggl", r"three balls"],
    "u29": [r"tulips?", r"\bvase", r"flowers?"],
    "u30": [r"\bbirds?\b", r"feeder", r"\bseeds?\b"],
}


class CmakeDoc(gtcheck.RstCorpus):
    FILE_NAME = r"\d\d-[a-z0-9]+(?:-[a-z0-9]+)*\.[0-9]\.rst"
    SOURCE = "cmake-data"
    SKIPPED = f"skipped (no {SRC_DIR})"

    def rebuild(self):
        if not os.path.isdir(SRC_DIR):
            return None
        return self.copy_rebuild(SRC_DIR, "differs from the Debian cmake-data manual it was copied from")


if __name__ == "__main__":
    CmakeDoc(__file__, UNANSWERABLE_TERMS).run()
