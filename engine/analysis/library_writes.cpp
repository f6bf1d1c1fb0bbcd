// Known writes of library kernels (library_writes.h). The multi_tensor_apply layouts follow
// PyTorch's ATen/native/cuda/MultiTensorApply.cuh: the kernel's first argument is a metadata
// struct that begins with `addresses[lists][slots]`, `slots` set by the depth and by the
// kernel-argument size the build uses: 4 KB, or 32 KB where the name says `, true>` (versions
// that had both name the choice; PyTorch 2.11's names do not, and its H200 recordings hold the
// 4 KB layout: 4 x 36 addresses from byte 0 for fused AdamW, 2 x 64 for _foreach_lerp_). The
// foreach functors (ForeachFunctors.cuh) are templates <T, depth, r_args_depth, res_arg_index>
// that store their result in list `res_arg_index`; the fused optimizers (fused_adam_utils.cuh
// and the like) store the parameters, list 0, among others.
//
// The struct is filled for this launch's tensors only: past them a slot may hold the previous
// launch's tensor (the same call reuses it) or, where the struct lives on the stack, an old
// word that happens to point into device memory. So a slot counts as a tensor of the launch
// only when every list holds an address there, as the code fills them together.
#include "engine/analysis/library_writes.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace streamlab {
namespace {

// The recorder reads this many bytes of a launch's arguments (kernels/recorder/launch_memory.cpp).
constexpr int kScannedBytes = 4096;
constexpr int kTensorSlots4kb[5] = {110, 64, 48, 36, 30};
constexpr int kTensorSlots32kb[5] = {770, 448, 336, 252, 210};
constexpr int kScalarListSlots4kb[5] = {96, 64, 48, 36, 30};
constexpr int kScalarListSlots32kb[5] = {672, 448, 336, 252, 210};

// The top-level template arguments of the template whose '<' is at `open`.
std::vector<std::string> TemplateArgs(const std::string& s, size_t open) {
  std::vector<std::string> args;
  if (open >= s.size() || s[open] != '<') return args;
  int depth = 0;
  size_t start = open + 1;
  for (size_t i = open; i < s.size(); ++i) {
    char c = s[i];
    if (c == '<' || c == '(') {
      ++depth;
    } else if (c == '>' || c == ')') {
      if (--depth == 0) {
        args.push_back(s.substr(start, i - start));
        return args;
      }
    } else if (c == ',' && depth == 1) {
      args.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return {};  // unbalanced: not a name this table reads
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// A small non-negative integer, or -1.
int SmallInt(const std::string& text) {
  std::string t = Trim(text);
  if (t.empty() || t.size() > 3 || !std::all_of(t.begin(), t.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return -1;
  return std::stoi(t);
}

// The template's own name in `arg` (after its last "::" before '<') and where its '<' is.
std::string TemplateName(const std::string& arg, size_t* open) {
  *open = arg.find('<');
  std::string head = arg.substr(0, *open);
  size_t colon = head.rfind("::");
  return Trim(colon == std::string::npos ? head : head.substr(colon + 2));
}

// Which lists the functor writes, given the metadata's depth.
std::vector<int> WrittenLists(const std::string& functor, int lists) {
  size_t open = 0;
  std::string name = TemplateName(functor, &open);
  if (name.rfind("Fused", 0) == 0 && name.find("MathFunctor") != std::string::npos) return {0};
  if (open == std::string::npos) return {};
  std::vector<std::string> args = TemplateArgs(functor, open);
  // <T, depth, r_args_depth, res_arg_index>: the foreach functors' shape.
  if (args.size() != 4 || SmallInt(args[1]) != lists || SmallInt(args[2]) < 1) return {};
  int result = SmallInt(args[3]);
  if (result < 0 || result >= lists) return {};
  return {result};
}

TensorListLayout ReadLayout(const std::string& function) {
  TensorListLayout out;
  size_t at = function.find("multi_tensor_apply_kernel<");
  if (at == std::string::npos) return out;
  std::vector<std::string> args = TemplateArgs(function, at + 25);
  if (args.size() < 2) return out;
  size_t open = 0;
  std::string meta = TemplateName(args[0], &open);
  if (open == std::string::npos) return out;
  std::vector<std::string> meta_args = TemplateArgs(args[0], open);
  bool scalar_list = meta == "TensorListScalarListMetadata", fused = meta == "FusedOptimizerTensorListMetadata";
  if (!scalar_list && !fused && meta != "TensorListMetadata") return out;
  size_t depth_at = scalar_list ? 1 : 0;
  if (meta_args.size() <= depth_at) return out;
  int lists = SmallInt(meta_args[depth_at]);
  if (lists < 1 || lists > 5) return out;
  // A list of complex<double> scalars has a layout of its own; not read.
  if (scalar_list && meta_args[0].find("complex<double>") != std::string::npos) return out;
  bool large = meta_args.size() > depth_at + 1 && Trim(meta_args[depth_at + 1]) == "true";
  out.written = WrittenLists(args[1], lists);
  if (out.written.empty()) return out;
  out.lists = lists;
  out.slots = (scalar_list ? (large ? kScalarListSlots32kb : kScalarListSlots4kb) : (large ? kTensorSlots32kb : kTensorSlots4kb))[lists - 1];
  return out;
}

const TensorListLayout& CachedLayout(const std::string& function) {
  thread_local std::unordered_map<std::string, TensorListLayout> cache;
  auto it = cache.find(function);
  if (it != cache.end()) return it->second;
  if (cache.size() > 512) cache.clear();  // an app opening trace after trace
  return cache.emplace(function, ReadLayout(function)).first->second;
}

// PyTorch's TensorIterator kernels take a data array with the outputs first, and its softmax
// forward kernels take (output, input, classes).
bool WritesFirstAddress(const Op& op) {
  static const char* const kOutputsFirst[] = {"at::native::vectorized_elementwise_kernel",
                                              "at::native::unrolled_elementwise_kernel", "at::native::elementwise_kernel"};
  for (const char* name : kOutputsFirst)
    if (op.name == name) return true;
  size_t at = op.name.rfind("::");
  return op.name.compare(at == std::string::npos ? 0 : at + 2, 19, "cunn_SoftMaxForward") == 0;
}

}  // namespace

TensorListLayout TensorListLayoutOf(const std::string& function) { return ReadLayout(function); }

bool IsTensorListKernel(const Op& op) {
  return op.kind == OpKind::kKernel && op.name.find("multi_tensor_apply_kernel") != std::string::npos;
}

std::vector<bool> KnownKernelWrites(const Op& op) {
  std::vector<bool> out(op.addresses.size(), false);
  if (op.kind != OpKind::kKernel || op.addresses.empty()) return out;
  // The first address in the order the recorder kept (its first 16 in the arguments' order).
  if (WritesFirstAddress(op)) {
    out[0] = true;
    return out;
  }
  if (!IsTensorListKernel(op)) return out;
  const TensorListLayout& layout = CachedLayout(op.kernel.function);
  if (layout.lists == 0) return out;
  std::unordered_set<int> at;  // the offsets that held an address
  for (const AddressPassed& a : op.addresses) {
    if (a.offset < 0) return out;  // recorded without offsets: which list is unknown
    at.insert(a.offset);
  }
  int list_bytes = 8 * layout.slots;
  auto filled = [&](int slot) {  // every list read holds an address at `slot`
    for (int list = 0; list < layout.lists; ++list) {
      int offset = list * list_bytes + slot * 8;
      if (offset + 8 <= kScannedBytes && !at.count(offset)) return false;
    }
    return true;
  };
  for (size_t k = 0; k < op.addresses.size(); ++k) {
    int list = op.addresses[k].offset / list_bytes, slot = (op.addresses[k].offset % list_bytes) / 8;
    bool written = std::find(layout.written.begin(), layout.written.end(), list) != layout.written.end();
    out[k] = written && op.addresses[k].offset % 8 == 0 && filled(slot);
  }
  return out;
}

}  // namespace streamlab
