// The content model of engine/sim/buffer_contents.h.
#include "engine/sim/buffer_contents.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <numeric>

namespace streamlab {
namespace {

Contents Unknown(uint64_t elements) {
  Contents c;
  c.state = Contents::State::kUnknown;
  c.elements = elements;
  return c;
}

Contents Uniform(uint32_t value, uint64_t elements) {
  Contents c;
  c.value = value;
  c.elements = elements;
  return c;
}

uint64_t SumOf(const Contents& c) {
  return c.state == Contents::State::kUniform ? uint64_t{c.value} * c.elements : c.sum;
}

uint64_t Elements(const Scenario& s, int buffer) { return s.buffers[StorageOf(s, buffer)].bytes / 4; }

// Whether an op's byte count covers the whole storage (a partial write is not modelled).
bool Whole(const Scenario& s, int buffer, uint64_t bytes) {
  return bytes == s.buffers[StorageOf(s, buffer)].bytes && bytes % 4 == 0;
}

void ApplyKernel(const Scenario& s, const std::vector<bool>& checked, const Op& op, std::vector<Contents>& st) {
  if (op.kernel.writes.empty()) return;
  int w = StorageOf(s, op.kernel.writes.front());  // the GPU kernels write their first buffer
  if (!checked[w]) return;
  uint64_t n = Elements(s, w);
  const KernelSpec& k = op.kernel;
  if (k.kind == KernelKind::kSpin) {
    Contents in = Uniform(0, n);
    if (!k.reads.empty()) {
      int r = StorageOf(s, k.reads.front());
      in = checked[r] ? st[r] : Unknown(n);
    }
    st[w] = in.state == Contents::State::kUniform ? Uniform(in.value + 1, n) : Unknown(n);
  } else if (k.kind == KernelKind::kAtomic && st[w].state != Contents::State::kUnknown) {
    Contents c;
    c.state = Contents::State::kSum;
    c.elements = n;
    c.sum = SumOf(st[w]) + static_cast<uint64_t>(k.grid) * static_cast<uint64_t>(k.block) *
                               static_cast<uint64_t>(k.work);
    st[w] = c;
  } else {
    st[w] = Unknown(n);
  }
}

}  // namespace

std::vector<Contents> ApplyOps(const Scenario& s, const std::vector<int>& order) {
  std::vector<bool> checked = CheckedStorage(s);
  std::vector<Contents> st;
  for (size_t b = 0; b < s.buffers.size(); ++b) st.push_back(Uniform(0, s.buffers[b].bytes / 4));
  for (int i : order) {
    const Op& op = s.ops[i];
    switch (op.kind) {
      case OpKind::kMemset: {
        int b = StorageOf(s, op.buffer);
        uint32_t byte = static_cast<uint32_t>(op.value) & 0xffu;
        st[b] = Whole(s, op.buffer, op.bytes) ? Uniform(byte * 0x01010101u, Elements(s, b))
                                              : Unknown(Elements(s, b));
        break;
      }
      case OpKind::kMemcpy:
      case OpKind::kPeerCopy: {
        int d = StorageOf(s, op.dst), src = StorageOf(s, op.src);
        bool whole = Whole(s, op.dst, op.bytes) && Whole(s, op.src, op.bytes);
        st[d] = whole && checked[src] ? st[src] : Unknown(Elements(s, d));
        break;
      }
      case OpKind::kCollective:  // the sum over ranks is not modelled
        st[StorageOf(s, op.buffer)] = Unknown(Elements(s, StorageOf(s, op.buffer)));
        break;
      case OpKind::kMalloc:
      case OpKind::kMallocHost:
        st[op.buffer] = Unknown(Elements(s, op.buffer));
        break;
      case OpKind::kKernel:
        ApplyKernel(s, checked, op, st);
        break;
      default:
        break;
    }
  }
  return st;
}

std::vector<Contents> ProgramOrderContents(const Scenario& s) {
  std::vector<int> order(s.ops.size());
  std::iota(order.begin(), order.end(), 0);
  return ApplyOps(s, order);
}

std::vector<int> CompletionOrder(const Trace& t) {
  std::vector<int> order(t.ops.size());
  std::iota(order.begin(), order.end(), 0);
  auto finished = [&](int i) { return t.ops[i].gpu ? t.ops[i].end : t.ops[i].ret; };
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return finished(a) < finished(b); });
  return order;
}

std::string Describe(const Contents& c) {
  switch (c.state) {
    case Contents::State::kUniform:
      return "all " + std::to_string(c.elements) + " elements = " + std::to_string(c.value);
    case Contents::State::kSum:
      return "element sum " + std::to_string(c.sum);
    default:
      return "not modelled";
  }
}

BufferCheck CheckElements(const std::string& buffer, const Contents& expected,
                          const std::vector<uint32_t>& elements) {
  BufferCheck c{buffer, Describe(expected), "", true};
  if (expected.state == Contents::State::kUnknown) {
    c.actual = "not compared";
    return c;
  }
  if (expected.state == Contents::State::kSum) {
    uint64_t sum = 0;
    for (uint32_t e : elements) sum += e;
    c.actual = "element sum " + std::to_string(sum);
    c.ok = sum == expected.sum;
    return c;
  }
  uint64_t wrong = 0;
  uint32_t first_wrong = 0;
  for (uint32_t e : elements) {
    if (e == expected.value) continue;
    if (wrong++ == 0) first_wrong = e;
  }
  c.ok = wrong == 0;
  c.actual = c.ok ? c.expected
                  : std::to_string(wrong) + " of " + std::to_string(elements.size()) +
                        " elements differ (the first is " + std::to_string(first_wrong) + ")";
  return c;
}

std::vector<BufferCheck> SavedContentsChecks(const Scenario& s, const std::string& dir, std::vector<TraceNote>& notes) {
  std::vector<bool> checked = CheckedStorage(s);
  std::vector<Contents> expected;
  std::vector<BufferCheck> checks;
  for (size_t b = 0; b < s.buffers.size(); ++b) {
    if (!checked[b] || s.buffers[b].alias_of >= 0) continue;
    if (expected.empty()) expected = ProgramOrderContents(s);
    std::ifstream in(dir + "/" + std::to_string(b) + ".bin", std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // (istreambuf_iterator sets no eof bit: whether the file opened and its size say it all.)
    if (!in.is_open() || bytes.size() != s.buffers[b].bytes || bytes.size() % 4 != 0) {
      notes.push_back(Note("buffer_not_saved", {{"buffer", s.buffers[b].name}}));
      continue;
    }
    std::vector<uint32_t> elements(bytes.size() / 4);
    std::memcpy(elements.data(), bytes.data(), bytes.size());
    checks.push_back(CheckElements(s.buffers[b].name, expected[b], elements));
  }
  return checks;
}

std::vector<BufferCheck> SimulatedChecks(const Trace& t) {
  const Scenario& s = t.scenario;
  bool any = false;
  for (const BufferDesc& b : s.buffers) any |= b.checked;
  if (!any) return {};  // most scenarios: nothing to model
  std::vector<Contents> expected = ProgramOrderContents(s);
  std::vector<Contents> actual = ApplyOps(s, CompletionOrder(t));
  std::vector<BufferCheck> out;
  for (size_t b = 0; b < s.buffers.size(); ++b) {
    if (!s.buffers[b].checked || s.buffers[b].alias_of >= 0) continue;
    const Contents& e = expected[b];
    const Contents& a = actual[b];
    BufferCheck c{s.buffers[b].name, Describe(e), Describe(a), true};
    if (e.state != Contents::State::kUnknown) {
      c.ok = a.state == e.state && (e.state == Contents::State::kSum ? a.sum == e.sum : a.value == e.value);
      // The simulator has one value per buffer: a wrong result is wrong in every element.
      if (!c.ok && a.state == Contents::State::kUniform)
        c.actual = std::to_string(a.elements) + " of " + std::to_string(a.elements) +
                   " elements differ (the first is " + std::to_string(a.value) + ")";
    }
    out.push_back(c);
  }
  return out;
}

const BufferCheck* FindCheck(const Trace& t, const std::string& buffer) {
  for (const BufferCheck& c : t.checks)
    if (c.buffer == buffer) return &c;
  return nullptr;
}

}  // namespace streamlab
