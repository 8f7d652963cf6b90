#!/usr/bin/env python3
"""Write unanswerable.jsonl.  check_gt.py holds, for each question, key-term regexes
(UNANSWERABLE_TERMS) that must not occur anywhere in the corpus, as evidence the manuals
do not answer it.  `near` questions are CMake topics documented elsewhere in CMake's
help (command, module, variable and property pages, cpack, the file API) but not in the
11 manuals of this corpus; `off` questions are off-topic (none of them one of the off
questions of eval/sqlitedoc, debpolicy, pytutorial or rustbook)."""
import json
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
U = [
    ("near", "How do I produce a .deb package with CPack and declare its dependencies with CPACK_DEBIAN_PACKAGE_DEPENDS?"),
    ("near", "How do I pull a third-party library from Git at configure time with FetchContent_Declare and FetchContent_MakeAvailable?"),
    ("near", "How do I read the codemodel-v2 reply of the file API to list the targets an IDE should show?"),
    ("near", "How do I register each GoogleTest case as a separate CTest test with gtest_discover_tests?"),
    ("near", "How does #cmakedefine work in a configure_file template, and what does the @ONLY option change?"),
    ("near", "How do I speed up rebuilds by running the compiler through ccache with CMAKE_CXX_COMPILER_LAUNCHER?"),
    ("near", "How do I add precompiled headers to a target with target_precompile_headers?"),
    ("near", "How do I turn on unity (jumbo) builds with the UNITY_BUILD property and control the batch size?"),
    ("near", "How do I get a compile_commands.json for clangd by setting CMAKE_EXPORT_COMPILE_COMMANDS?"),
    ("near", "How do I build C++20 named modules with CMake and the CXX_SCAN_FOR_MODULES property?"),
    ("near", "How do I enable link-time optimization through INTERPROCEDURAL_OPTIMIZATION and check that the compiler supports it?"),
    ("near", "How do I link the static MSVC runtime (/MT) for all targets with CMAKE_MSVC_RUNTIME_LIBRARY?"),
    ("near", "How do I generate Python bindings for a C++ library with SWIG from CMake?"),
    ("near", "How do I add a target that builds the API documentation with Doxygen?"),
    ("near", "How do I set the install RPATH, for example $ORIGIN/../lib, so installed executables find their shared libraries?"),
    ("near", "How do I choose which GPU architectures nvcc compiles for with CMAKE_CUDA_ARCHITECTURES?"),
    ("near", "How do I compile a CMake project to WebAssembly with the Emscripten toolchain?"),
    ("near", "How do I use vcpkg or Conan to provide dependencies to a CMake project?"),
    ("near", "How do I group source files into folders in the Visual Studio solution explorer with source_group?"),
    ("near", "How do I download a file during configuration with file(DOWNLOAD) and verify it with EXPECTED_HASH?"),
    ("near", "How do I run clang-tidy on every source file as it compiles by setting CMAKE_CXX_CLANG_TIDY?"),
    ("off", "How do I descale an electric kettle with vinegar?"),
    ("off", "How can an adult learn to breathe properly while swimming front crawl?"),
    ("off", "How do I get rid of black mould on the silicone around my shower?"),
    ("off", "How much should I tip a taxi driver in the United States?"),
    ("off", "Which houseplants are not toxic to a curious kitten?"),
    ("off", "How do I change a flat tyre safely at the side of a motorway?"),
    ("off", "What is a good way to start learning to juggle three balls?"),
    ("off", "How can I keep cut tulips fresh in a vase for longer?"),
    ("off", "Which birds are likely to visit a garden feeder in winter, and what seed do they prefer?"),
]
with open(os.path.join(HERE, "unanswerable.jsonl"), "w", encoding="utf-8") as fh:
    for n, (kind, q) in enumerate(U, 1):
        fh.write(json.dumps({"id": f"u{n:02d}", "query": q, "kind": kind}, ensure_ascii=False) + "\n")
