#!/usr/bin/env python3
"""Write questions.jsonl: each needle is cut verbatim from its document between a
start marker and an end marker (both included), so nothing is retyped by hand.
The queries were written by hand from the text alone (no retrieval was run)."""
import json
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

B, L, G, F = ("01-cmake-buildsystem.7.rst", "02-cmake-language.7.rst",
              "03-cmake-generator-expressions.7.rst", "04-cmake-compile-features.7.rst")
P, T, Q, R = ("05-cmake-packages.7.rst", "06-cmake-toolchains.7.rst", "07-cmake-qt.7.rst",
              "08-cmake-presets.7.rst")
C, CT, D = "09-cmake.1.rst", "10-ctest.1.rst", "11-cmake-developer.7.rst"

GT = [
    (B, "resource DLL, C++/CLI DLL), it is required", "at least one symbol.",
     "What restriction on the library type applies to a DLL that exports no unmanaged symbols, such as a resource-only DLL?",
     "add_library(icons SHARED icons.rc) for a resources-only dll: no import .lib ever appears and the link of the app fails"),
    (B, "When the :prop_tgt:`INTERFACE_INCLUDE_DIRECTORIES` of an\n:ref:", "``SYSTEM`` include directories",
     "Are the header search paths that come from an imported target's interface handled as system directories by its consumers?",
     "-Wall warnings inside the headers of a lib I pull in with find_package never show up, yet they do when I vendor it as a subdirectory"),
    (B, "The default value will often be none of the above standard", "instead be an empty string.",
     "With a single-configuration generator, what value does CMAKE_BUILD_TYPE have if the user never sets it?",
     "Ninja build without -DCMAKE_BUILD_TYPE: the binaries get neither -O2 nor -g, I assumed Debug was what you get"),
    (B, "It may be accessed and used from subdirectories, but", "sibling directories.",
     "From which parts of the source tree can an IMPORTED target be referenced, relative to where it was created?",
     "find_package(ZLIB) in libs/CMakeLists.txt, then target_link_libraries(app ZLIB::ZLIB) in apps/ says the target was not found"),
    (L, "No evaluation of the\nenclosed content", "is performed.",
     "Are ${...} references and backslash escapes expanded inside a [=[ ... ]=] bracket argument?",
     "message([=[Building ${PROJECT_VERSION}]=]) prints the dollar sign and braces literally instead of my version number"),
    (L, "Changed values are not written back to the calling process", "build or test processes.",
     "If a CMakeLists sets an environment variable with set(ENV{...}), does the change survive into later compilation or ctest runs?",
     "set(ENV{LD_LIBRARY_PATH} ...) in CMakeLists.txt, but the unit tests launched by ctest still can't load the .so"),
    (G, "and not during processing of ``CMakeLists.txt`` files, it is not possible to", "the :command:`message()` command.",
     "Can the value that a $<...> expression produces be printed from a CMakeLists script with message()?",
     "message(STATUS \"lib is $<TARGET_FILE:mylib>\") just echoes the raw $<TARGET_FILE:mylib> text, no path"),
    (G, "Boolean-like ``condition`` values other than", "generator expression",
     "How can a variable holding ON/OFF or TRUE/FALSE be used as the test of a conditional $<cond:...> expression?",
     "$<${ENABLE_LOGGING}:-DLOGGING> blows up at generate time when ENABLE_LOGGING is ON, but works if I set it to 1"),
    (G, "Under these\n  generators, expressions for both C and C++ sources", "otherwise using ``C``.",
     "With Visual Studio generators, which language does $<COMPILE_LANGUAGE:...> see for a target that mixes C and C++ files?",
     "mixed .c/.cpp target: $<$<COMPILE_LANGUAGE:C>:USE_C_API> never reaches my .c files in the VS solution, fine with Ninja"),
    (G, "The absence of a feature is also incompatible", "with all other features.",
     "May one library be linked through $<LINK_LIBRARY:WHOLE_ARCHIVE,...> by one target and plainly by another in the same link?",
     "error about incompatible features for libcore: plugin A links it with WHOLE_ARCHIVE, app B links it normally"),
    (G, "Many :ref:`Find Modules` produce imported targets", "will be ignored.",
     "Does $<TARGET_RUNTIME_DLLS:...> list the DLLs of libraries that were located by CMake's find modules?",
     "POST_BUILD copy of $<TARGET_RUNTIME_DLLS:app> copies our own dlls but not libpng's dll from find_package(PNG)"),
    (F, "This is simpler than specifying all the features individually, but does", "any particular feature.",
     "If I request a meta-feature like cxx_std_17, can I rely on every C++17 language feature being usable?",
     "target_compile_features(app PRIVATE cxx_std_17) configures fine on our old compiler, then std::optional breaks the compile; why no configure error?"),
    (P, "where ``Foo*`` is a case-insensitive", "globbing expression.",
     "When find_package searches lib/cmake for a package's config directory, must that directory's name match the package name exactly?",
     "our lib installs its config to lib/cmake/foo-1.2/ (lowercase, version suffix); will find_package(Foo) see it or do I need lib/cmake/Foo?"),
    (P, "All ``REQUIRED``\ndependencies of a package", "``Config.cmake`` file",
     "Where should a package that links publicly against another package's target make sure that dependency gets located for consumers?",
     "projects using our installed SDK fail with 'Stats::Types target not found' unless they call find_package(Stats) themselves first"),
    (P, "There is no system package registry", "non-Windows platforms.",
     "Is there a machine-wide package registry on Linux or macOS comparable to the HKEY_LOCAL_MACHINE key on Windows?",
     "our .deb postinst should register the package for every user so find_package sees it; where does that registry live on Ubuntu?"),
    (T, "The toolchain\nfile is used in contexts where", "a call to :command:`try_compile`).",
     "Why is it a bad idea to refer to CMAKE_SOURCE_DIR or CMAKE_BINARY_DIR in a toolchain file?",
     "toolchain sets the sysroot from ${CMAKE_SOURCE_DIR}/sysroot; the main configure is fine but the compiler checks look in a scratch dir and fail"),
    (T, "If not specified, this\n  variable will default to the first supported ABI", "``arm64-v8a``.",
     "Which Android ABI is chosen when CMAKE_ANDROID_ARCH_ABI is left unset for an NDK build?",
     "cross-compiling with the NDK, my .so files come out 32-bit ARM but the phones are 64-bit; I never picked an ABI"),
    (Q, "The ``<basename>.moc`` must", "``#include``.",
     "With AUTOMOC, what must I add when a Q_OBJECT class is declared in a .cpp file rather than in a header?",
     "undefined reference to `vtable for MainWindow`: the Q_OBJECT class lives in main.cpp and CMAKE_AUTOMOC is ON"),
    (R, "Note that for Visual Studio generators, unlike in the command line", "in the generator name.",
     "In a configure preset, can the target platform such as x64 be written as part of the Visual Studio generator string?",
     "CMakePresets.json with \"Visual Studio 15 2017 Win64\" as generator fails, although -G with that exact string worked for years"),
    (R, "use a build\n    preset that inherits that configuration preset or the ExternalProject", "set in the configuration preset.",
     "How do environment variables defined in a configure preset reach an ExternalProject sub-build?",
     "configure preset sets CC=gcc-12, yet the ExternalProject part compiles with clang (system default) when I run cmake --build build"),
    (R, "All macros are\nevaluated in the context of the preset being used", "inherited from another preset.",
     "When a hidden base preset uses ${presetName} in binaryDir, which preset's name gets substituted?",
     "base preset has binaryDir build/${presetName}; will my 'linux-debug' child preset write to build/base or build/linux-debug?"),
    (R, "Similar to ``$env{<variable-name>}``, except that the value only comes from", "the ``environment`` field.",
     "In preset macros, how does $penv{...} differ from $env{...}?",
     "environment PATH: \"/opt/ninja/bin:$env{PATH}\" in my preset gives a cycle error; how am I supposed to prepend to PATH?"),
    (C, "The source tree must contain a ``CMakeLists.txt`` file and must", "identifies an existing build tree.",
     "When cmake is given a directory path, what makes it treat that directory as a build tree rather than a source tree?",
     "I once ran 'cmake .' in the repo root by accident; now 'cd build && cmake ..' regenerates into the repo root instead of build/"),
    (C, "If variables are defined using ``-D``, this must be", "before the ``-P`` argument.",
     "In script mode, where on the command line must -D definitions be placed?",
     "cmake -P gen.cmake -DOUT=foo.h runs without complaint but OUT is empty inside the script"),
    (C, "The implementation was buggy", "always returned 0.",
     "Does the deprecated cmake -E remove report failure when one of the listed files is missing?",
     "CI step 'cmake -E remove out/stale.bin' never fails even when that file isn't there, and I didn't pass -f"),
    (CT, "If no tests were found, the default behavior of CTest is to always log an", "in script mode only.",
     "What exit status does ctest give when it finds no tests to run, and can that be made an error?",
     "ctest output complains that there is nothing to run, yet the pipeline stays green; a wrong test dir went unnoticed for weeks"),
    (CT, "but exits after the\n", "no changes to the source tree.",
     "In Continuous dashboard mode, what happens when updating the sources brings in no new revisions?",
     "our ctest -D Continuous job stops right after Update and never configures or builds; log says 0 files updated"),
    (CT, "The result is the same\n  as ``git pull``", "are overwritten.",
     "How does the CTest update step bring a Git checkout up to date, and what becomes of uncommitted edits?",
     "ran our dashboard script on my dev box and ctest_update threw away the uncommitted work in my source tree"),
    (CT, "In addition, it means that a single test that uses more of a resource than is", "``Not Run``).",
     "What happens to a test whose resource requirement exceeds what the resource specification file declares?",
     "after adding --resource-spec-file, test gpu_big shows up as 'Not Run' in the summary and never starts; the others are fine"),
    (CT, "Uppercase letters are not\n  allowed, because certain platforms", "environment\n  variables.",
     "May resource type names in a CTest resource spec file contain capital letters, and why?",
     "ctest rejects my resources.json declaring \"GPUs\": [...]; renaming the key to lowercase gpus fixes it, why?"),
    (D, "Note that all variables start with", "including upper/lowercase.",
     "Should the prefix of a find module's result variables follow the exact capitalization of the module's own file name?",
     "wrote FindLibXml.cmake that sets LIBXML_FOUND and LIBXML_LIBRARIES, but find_package(LibXml) reports not found"),
    (D, "The ``RELEASE`` variant should be listed first in the property", "listed ``IMPORTED_CONFIGURATIONS``.",
     "For an imported target with several build variants, which configuration should come first in IMPORTED_CONFIGURATIONS and why?",
     "building RelWithDebInfo, our app links the debug build of libfoo from our custom FindFoo module; Release and Debug are fine"),
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
