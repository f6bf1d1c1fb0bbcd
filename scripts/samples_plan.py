#!/usr/bin/env python3
"""How to build each NVIDIA cuda-sample with plain nvcc, read from its CMakeLists.txt.

For every sample under Samples/{0_Introduction,2_Concepts_and_Techniques,3_CUDA_Features,
6_Performance} of a cuda-samples tree, prints one tab-separated line:

    sample  dir  skip  command

`sample` is CATEGORY/NAME, `dir` the sample's folder (relative to the tree), `skip` why it is not
built ("-" when it is: bash's `read` would merge an empty field away), `command` a bash command run inside `dir` that builds it: nvcc -O2
-arch=sm_90 -std=c++17 on the sources its add_executable names, with Common/ and its own include
folders, -rdc=true where it asks for separable compilation (dynamic parallelism needs it), host
OpenMP, the CUDA toolkit libraries its target_link_libraries names (CUDA::cublas -> -lcublas, ...),
and the kernels it compiles to a fatbin or PTX file its program loads at run time. Samples that
need OpenGL, GLUT, EGL, Vulkan, MPI, X11 or NvSci are skipped, with the reason.

Usage: samples_plan.py CUDA_SAMPLES_TREE [ARCH]   (ARCH default 90)
"""
import os
import re
import shlex
import sys

CATEGORIES = ["0_Introduction", "2_Concepts_and_Techniques", "3_CUDA_Features", "6_Performance"]
# CMake packages that make a sample need what a headless GPU server has not (or a launcher).
NEEDS = {"OpenGL": "OpenGL", "GLUT": "OpenGL (GLUT)", "GLEW": "OpenGL (GLEW)", "EGL": "EGL",
         "Vulkan": "Vulkan", "MPI": "MPI", "X11": "X11", "NVSCI": "NvSci", "glfw3": "GLFW",
         "OpenACC": "OpenACC"}
# CUDA::name -> the linker flag (the CUDA toolkit's own libraries).
LIBRARIES = {"cudart": "", "cudart_static": "", "cuda_driver": "-lcuda", "nvrtc": "-lnvrtc",
             "cublas": "-lcublas", "cublasLt": "-lcublasLt", "cusparse": "-lcusparse", "curand": "-lcurand",
             "cufft": "-lcufft", "cusolver": "-lcusolver", "nvjpeg": "-lnvjpeg", "nvml": "-lnvidia-ml",
             "nvJitLink": "-lnvJitLink", "nppc": "-lnppc", "nppial": "-lnppial", "nppicc": "-lnppicc",
             "nppidei": "-lnppidei", "nppif": "-lnppif", "nppig": "-lnppig", "nppim": "-lnppim",
             "nppist": "-lnppist", "nppisu": "-lnppisu", "nppitc": "-lnppitc", "npps": "-lnpps",
             "cupti": "-lcupti", "nvtx3": ""}


def uncommented(text):
    return "\n".join(line.split("#", 1)[0] for line in text.splitlines())


def calls(text, command):
    """The argument lists of every `command(...)` in the CMake text, as words."""
    return [m.group(1).split() for m in re.finditer(r"\b" + command + r"\s*\(([^)]*)\)", text, re.S)]


def plan(tree, category, name, arch):
    rel = os.path.join("Samples", category, name)
    folder = os.path.join(tree, rel)
    cmake = os.path.join(folder, "CMakeLists.txt")
    if not os.path.exists(cmake):
        return rel, "no CMakeLists.txt", ""
    text = uncommented(open(cmake, encoding="utf-8", errors="replace").read())
    packages = {words[0] for words in calls(text, "find_package") if words}
    needs = sorted({NEEDS[p] for p in packages if p in NEEDS})
    if re.search(r"nvsci", text, re.I) and "NvSci" not in needs:
        needs.append("NvSci")
    if needs:
        return rel, "needs " + ", ".join(needs), ""
    targets = [words for words in calls(text, "add_executable") if len(words) > 1]
    if not targets:
        return rel, "no executable target", ""
    target, sources = targets[0][0], [s for s in targets[0][1:] if not s.startswith("$")]
    flags = ["-O2", "-arch=sm_%s" % arch, "-std=c++17", "--extended-lambda", "-Wno-deprecated-gpu-targets",
             "-I../../../Common"]
    if re.search(r"CUDA_SEPARABLE_COMPILATION\s+ON", text):
        flags.append("-rdc=true")
    for words in calls(text, "target_include_directories"):
        for w in words:
            m = re.match(r"\$\{CMAKE_CURRENT_SOURCE_DIR\}(?:/(\S+))?$", w)
            if m:
                flags.append("-I" + (m.group(1) or "."))
    for words in calls(text, "target_compile_definitions"):
        flags += ["-D" + w for w in words[1:] if w not in ("PRIVATE", "PUBLIC", "INTERFACE") and not w.startswith("$")]
    libs = ["-lpthread"]
    for m in re.finditer(r"CUDA::(\w+)", text):
        if m.group(1) not in LIBRARIES:
            return rel, "links CUDA::%s, not known to this script" % m.group(1), ""
        if LIBRARIES[m.group(1)] and LIBRARIES[m.group(1)] not in libs:
            libs.append(LIBRARIES[m.group(1)])
    if "OpenMP" in packages:
        flags += ["-Xcompiler", "-fopenmp"]
        libs.append("-lgomp")
    steps = [" ".join(["nvcc"] + flags + [shlex.quote(s) for s in sources] + ["-o", target] + libs)]
    # Kernels its program loads from a file at run time (the driver API samples): built beside it.
    outputs = re.findall(r"set\(CUDA_(FATBIN|PTX)_FILE\s+\"\$\{CMAKE_CURRENT_BINARY_DIR\}/([^\"]+)\"\)", text)
    kernels = re.findall(r"set\(CUDA_KERNEL_SOURCE\s+\"\$\{CMAKE_CURRENT_SOURCE_DIR\}/([^\"]+)\"\)", text)
    for (kind, output), kernel in zip(outputs, kernels):
        mode = "-fatbin" if kind == "FATBIN" else "-ptx"
        steps.append("nvcc -arch=sm_%s -I../../../Common -Wno-deprecated-gpu-targets %s -o %s %s" %
                     (arch, mode, shlex.quote(output), shlex.quote(kernel)))
    return rel, "", " && ".join(steps)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    tree = sys.argv[1]
    arch = sys.argv[2] if len(sys.argv) > 2 else "90"
    for category in CATEGORIES:
        folder = os.path.join(tree, "Samples", category)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            if not os.path.isdir(os.path.join(folder, name)):
                continue
            rel, skip, command = plan(tree, category, name, arch)
            print("\t".join([category + "/" + name, rel, skip or "-", command or "-"]))


if __name__ == "__main__":
    main()
