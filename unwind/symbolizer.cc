#include "unwind/symbolizer.h"

#include <cxxabi.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <tuple>
#include <unordered_map>

#include "unwind/dwarf_scopes.h"
#include "unwind/module_kind.h"
#include "unwind/plt.h"

namespace omprof::unwind {

std::string demangle(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !d) return name;
  std::string out = d;
  std::free(d);
  return out;
}

namespace {

char* debuginfo_path = nullptr;

// The vdso has no separate debug info: looking for it on disk costs about 20 ms for nothing.
int find_debuginfo(Dwfl_Module* mod, void** userdata, const char* modname, Dwarf_Addr base,
                   const char* file_name, const char* debuglink_file, GElf_Word debuglink_crc,
                   char** debuginfo_file_name) {
  if (modname && modname[0] == '[') return -1;
  return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
                                      debuglink_crc, debuginfo_file_name);
}

const Dwfl_Callbacks kCallbacks = {
    dwfl_build_id_find_elf,
    find_debuginfo,
    dwfl_offline_section_address,
    &debuginfo_path,
};

std::string die_name(Dwarf_Die* die, std::string* linkage) {
  Dwarf_Attribute attr;
  const char* link = nullptr;
  if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
      dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
    link = dwarf_formstring(&attr);
  if (link) {
    if (linkage) *linkage = link;
    return demangle(link);
  }
  const char* n = dwarf_diename(die);
  if (!n && dwarf_attr_integrate(die, DW_AT_name, &attr)) n = dwarf_formstring(&attr);
  return n ? n : "";
}

// A module's file, opened only if it is a regular file: a FIFO or a device planted at a
// mapping's path would block libdwfl's open (every subcommand hung) or feed it endless bytes.
// Non-blocking, so that opening a FIFO returns at once; the check is on what was opened.
int open_regular_file(const std::string& path, std::string& problem) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    problem = "cannot read " + path + ": " + std::strerror(errno);
    return -1;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    problem = "cannot read " + path + ": not a regular file";
    return -1;
  }
  return fd;
}

std::string module_build_id(Dwfl_Module* mod) {
  const unsigned char* bits = nullptr;
  GElf_Addr vaddr = 0;
  const int n = dwfl_module_build_id(mod, &bits, &vaddr);
  return n > 0 ? hex(bits, size_t(n)) : std::string();
}

}  // namespace

// Address ranges of every compile unit of one module. Needed because clang emits no
// .debug_aranges, and elfutils 0.188 then cannot map an address to its CU by itself.
struct CuIndex {
  bool built = false;
  std::vector<std::tuple<Dwarf_Addr, Dwarf_Addr, Dwarf_Off>> ranges;  // [lo, hi), CU die offset
};

// One name per function address of a module's symbol table. glibc defines one function under
// several names (cbrt, cbrtf64, cbrtf32x; ldexp, ldexpf64, scalbn): libdw returns any of them,
// so the same function would be named differently by version, and by an alias users never call.
// (Outside the anonymous namespace, as CuIndex: a field of Impl, which has linkage.)
struct CanonicalNames {
  bool built = false;
  std::unordered_map<GElf_Addr, std::string> by_address;  // only addresses with aliases
};

namespace {

// Which of two names of one function a reader knows: not a reserved name ("__cbrt"), then the
// shortest ("cbrt" over "cbrtf64"), then the first in alphabetical order (stable).
bool better_alias(const std::string& a, const std::string& b) {
  auto reserved = [](const std::string& n) {
    return n.size() > 1 && n[0] == '_' &&
           (n[1] == '_' || std::isupper(static_cast<unsigned char>(n[1])) != 0) &&
           n.compare(0, 2, "_Z") != 0;
  };
  if (reserved(a) != reserved(b)) return !reserved(a);
  if (a.size() != b.size()) return a.size() < b.size();
  return a < b;
}

}  // namespace

struct Symbolizer::Impl {
  Dwfl* dwfl = nullptr;
  std::vector<Module> modules;
  std::vector<Dwfl_Module*> handles;
  std::vector<bool> names_only;
  std::vector<std::string> problems;
  mutable std::vector<CuIndex> cu_index;
  mutable std::vector<ScopeFinder> scopes;  // per module
  mutable std::vector<CanonicalNames> canonical;
  mutable std::vector<std::unique_ptr<std::vector<PltStub>>> plt;

  // The PLT stub holding `address` in `module` (built on first use), or nullptr.
  const PltStub* plt_stub(size_t module, uint64_t address) const {
    GElf_Addr bias = 0;
    Elf* elf = dwfl_module_getelf(handles[module], &bias);
    if (!plt[module]) plt[module] = std::make_unique<std::vector<PltStub>>(plt_stubs(elf));
    return plt_stub_at(*plt[module], address - bias);
  }

  // The preferred name of the function symbol starting at `start` in `module` ("" if it has
  // no aliases). Built on first use from the whole symbol table.
  const std::string& canonical_name(size_t module, GElf_Addr start) const {
    static const std::string none;
    CanonicalNames& names = canonical[module];
    if (!names.built) {
      names.built = true;
      Dwfl_Module* mod = handles[module];
      std::unordered_map<GElf_Addr, std::pair<std::string, int>> best;  // name, count
      const int n = dwfl_module_getsymtab(mod);
      for (int i = 1; i < n; ++i) {
        GElf_Sym sym;
        GElf_Addr addr = 0;
        const char* name = dwfl_module_getsym_info(mod, i, &sym, &addr, nullptr, nullptr, nullptr);
        const int type = GELF_ST_TYPE(sym.st_info);
        if (!name || !*name || (type != STT_FUNC && type != STT_GNU_IFUNC)) continue;
        std::string plain = name;
        const size_t at = plain.find('@');
        if (at != std::string::npos && at > 0) plain.resize(at);
        auto [it, fresh] = best.try_emplace(addr, plain, 1);
        if (fresh || it->second.first == plain) continue;
        ++it->second.second;
        if (better_alias(plain, it->second.first)) it->second.first = plain;
      }
      for (auto& [addr, entry] : best)
        if (entry.second > 1) names.by_address.emplace(addr, std::move(entry.first));
    }
    auto it = names.by_address.find(start);
    return it == names.by_address.end() ? none : it->second;
  }

  // The CU containing `address`; *bias receives the module's DWARF bias.
  bool find_cu(size_t module, Dwarf_Addr address, Dwarf_Die* out, Dwarf_Addr* bias) const {
    Dwfl_Module* mod = handles[module];
    if (Dwarf_Die* die = dwfl_module_addrdie(mod, address, bias)) {
      *out = *die;
      return true;
    }
    Dwarf* dw = dwfl_module_getdwarf(mod, bias);
    if (!dw) return false;
    CuIndex& idx = cu_index[module];
    if (!idx.built) {
      idx.built = true;
      Dwarf_Off off = 0, next = 0;
      size_t header = 0;
      while (dwarf_nextcu(dw, off, &next, &header, nullptr, nullptr, nullptr) == 0) {
        Dwarf_Die cu;
        if (dwarf_offdie(dw, off + header, &cu)) {
          Dwarf_Addr base, lo, hi;
          ptrdiff_t it = 0;
          while ((it = dwarf_ranges(&cu, it, &base, &lo, &hi)) > 0)
            idx.ranges.emplace_back(lo, hi, off + header);
        }
        off = next;
      }
    }
    const Dwarf_Addr a = address - *bias;
    for (const auto& [lo, hi, die_off] : idx.ranges)
      if (a >= lo && a < hi) return dwarf_offdie(dw, die_off, out) != nullptr;
    return false;
  }
};

Symbolizer::Symbolizer(const std::vector<Module>& modules, bool system_lines) : impl_(new Impl) {
  impl_->modules = modules;
  impl_->names_only.resize(modules.size());
  for (size_t i = 0; i < modules.size(); ++i)
    impl_->names_only[i] =
        modules[i].is_vdso || (!system_lines && is_system_module(modules[i].path));
  impl_->dwfl = dwfl_begin(&kCallbacks);
  impl_->handles.assign(modules.size(), nullptr);
  impl_->problems.resize(modules.size());
  impl_->cu_index.resize(modules.size());
  impl_->scopes.resize(modules.size());
  impl_->canonical.resize(modules.size());
  impl_->plt.resize(modules.size());
  if (!impl_->dwfl) return;
  // Each module gets its own report so that unloaded modules overlapping a later load still
  // resolve: lookups go through the module we matched, not through dwfl_addrmodule.
  for (size_t i = 0; i < modules.size(); ++i) {
    const Module& m = modules[i];
    // A library loaded again at the same place (dlopen, dlclose, dlopen) is the same module to
    // libdwfl: reporting it twice would close the first report's ELF under it.
    bool same_as_earlier = false;
    for (size_t j = 0; j < i && !same_as_earlier; ++j)
      if (modules[j].path == m.path && modules[j].load_bias == m.load_bias &&
          modules[j].build_id == m.build_id && !m.is_vdso) {
        impl_->handles[i] = impl_->handles[j];
        impl_->problems[i] = impl_->problems[j];
        same_as_earlier = true;
      }
    if (same_as_earlier) continue;
    int fd = -1;
    if (m.is_vdso && !m.unloaded) {
      // The vdso has no file, but it is a complete ELF image in memory: hand libdw a copy.
      fd = memfd_create("omprof-vdso", MFD_CLOEXEC);
      const size_t size = m.limit() - m.load_bias;
      if (fd < 0 || write(fd, reinterpret_cast<const void*>(m.load_bias), size) != ssize_t(size)) {
        if (fd >= 0) close(fd);
        continue;
      }
    } else if (m.path.empty() || m.path[0] != '/') {
      continue;
    } else if ((fd = open_regular_file(m.path, impl_->problems[i])) < 0) {
      continue;
    }
    dwfl_report_begin_add(impl_->dwfl);
    Dwfl_Module* mod = dwfl_report_elf(impl_->dwfl, m.path.c_str(), m.path.c_str(), fd, m.load_bias,
                                       false);  // takes ownership of fd
    dwfl_report_end(impl_->dwfl, nullptr, nullptr);
    if (!mod) {
      impl_->problems[i] = "cannot read " + m.path;
      continue;
    }
    const std::string found = module_build_id(mod);
    if (!m.build_id.empty() && found != m.build_id) {
      impl_->problems[i] = m.path + " has changed since the run (build-id " +
                           (found.empty() ? std::string("none") : found) + ", recorded " +
                           m.build_id + ")";
      continue;
    }
    impl_->handles[i] = mod;
  }
}

const std::string& Symbolizer::problem(size_t i) const {
  static const std::string none;
  return i < impl_->problems.size() ? impl_->problems[i] : none;
}

std::string hex(const unsigned char* bytes, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += digits[bytes[i] >> 4];
    s += digits[bytes[i] & 15];
  }
  return s;
}

Symbolizer::~Symbolizer() {
  if (impl_->dwfl) dwfl_end(impl_->dwfl);
}

namespace {

// The module holding `address`: one still loaded at the end first, else one unloaded earlier.
int module_of(const std::vector<Module>& modules, uint64_t address) {
  for (int pass = 0; pass < 2; ++pass)
    for (size_t i = 0; i < modules.size(); ++i)
      if (modules[i].unloaded == (pass == 1) && modules[i].contains(address)) return int(i);
  return -1;
}

// The function from the symbol table (no file or line); *offset receives address - its start.
SourceFrame symbol_frame(Dwfl_Module* mod, uint64_t address, uint64_t* offset_out) {
  SourceFrame f;
  GElf_Off offset = 0;
  GElf_Sym sym;
  const char* name = dwfl_module_addrinfo(mod, address, &offset, &sym, nullptr, nullptr, nullptr);
  if (!name) return f;
  *offset_out = offset;
  // Versioned definitions read "name@@GLIBC_2.34": the version is not part of the name.
  std::string plain = name;
  const size_t at = plain.find('@');
  if (at != std::string::npos && at > 0) plain.resize(at);
  f.system_name = plain;
  f.function = demangle(plain);
  return f;
}

// The innermost scope (subprogram, inlined call, block) at `pc` below `parent`, searched through
// the tree: GCC nests an OpenMP body's outlined function (main._omp_fn.0) inside its parent
// function's DIE, whose ranges do not cover it, and dwarf_getscopes, which descends only into
// DIEs that contain the address, stops at the compilation unit there, losing every function
// inlined into the body (LU's blts and buts). Descends into DIEs that contain `pc`, and into
// subprograms whatever their ranges.
bool innermost_scope(Dwarf_Die* parent, Dwarf_Addr pc, Dwarf_Die* found) {
  Dwarf_Die child;
  if (dwarf_child(parent, &child) != 0) return false;
  do {
    const int tag = dwarf_tag(&child);
    if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine && tag != DW_TAG_lexical_block)
      continue;
    if (dwarf_haspc(&child, pc) == 1) {
      *found = child;
      innermost_scope(&child, pc, found);
      return true;
    }
    if (tag == DW_TAG_subprogram && innermost_scope(&child, pc, found)) return true;
  } while (dwarf_siblingof(&child, &child) == 0);
  return false;
}

// The chain of scopes containing `pc`, innermost first, reaching a subprogram when `pc` is in
// one: from the unit's index of functions (dwarf_scopes.h), else from libdw's walk of the whole
// unit. dwarf_getscopes finds the innermost scope at the address, but past an inlined function
// it continues with that function's abstract definition (its namespace), not its callers. The
// concrete chain (inline, its inlined caller, ..., the subprogram) is the containment of that
// innermost DIE: dwarf_getscopes_die.
std::vector<Dwarf_Die> scopes_at(ScopeFinder& finder, Dwarf_Die* cu, Dwarf_Addr pc) {
  std::vector<Dwarf_Die> chain = finder.scopes_at(cu, pc);
  if (!chain.empty()) return chain;
  Dwarf_Die* at_pc = nullptr;
  const int n_at_pc = dwarf_getscopes(cu, pc, &at_pc);
  bool in_subprogram = false;
  for (int i = 0; i < n_at_pc; ++i) in_subprogram |= dwarf_tag(&at_pc[i]) == DW_TAG_subprogram;
  Dwarf_Die innermost;
  Dwarf_Die* scopes = nullptr;
  int n = 0;
  if (in_subprogram)
    n = dwarf_getscopes_die(&at_pc[0], &scopes);
  else if (innermost_scope(cu, pc, &innermost))
    n = dwarf_getscopes_die(&innermost, &scopes);
  free(at_pc);
  if (n > 0) chain.assign(scopes, scopes + n);
  free(scopes);
  return chain;
}

// Source frames at `pc` inside compilation unit `cu`: the inlined chain, innermost first, then
// `outer` (the real function) with its file and line.
std::vector<SourceFrame> source_frames(ScopeFinder& finder, Dwarf_Die* cu, Dwarf_Addr pc,
                                       SourceFrame outer) {
  std::string file;
  int leaf_line = 0;
  if (Dwarf_Line* line = dwarf_getsrc_die(cu, pc)) {
    if (const char* f = dwarf_linesrc(line, nullptr, nullptr)) file = f;
    dwarf_lineno(line, &leaf_line);
  }
  int64_t lineno = leaf_line;
  std::vector<Dwarf_Die> scopes = scopes_at(finder, cu, pc);
  Dwarf_Files* files = nullptr;
  size_t nfiles = 0;
  dwarf_getsrcfiles(cu, &files, &nfiles);
  std::vector<SourceFrame> out;
  for (Dwarf_Die& scope : scopes) {
    Dwarf_Die* die = &scope;
    const int tag = dwarf_tag(die);
    if (tag == DW_TAG_subprogram) {
      if (outer.function.empty()) outer.function = die_name(die, &outer.system_name);
      break;
    }
    if (tag != DW_TAG_inlined_subroutine) continue;
    SourceFrame f;
    f.function = die_name(die, &f.system_name);
    f.file = file;
    f.line = lineno;
    out.push_back(f);
    // The caller's position is this inline's call site.
    Dwarf_Attribute attr;
    Dwarf_Word v = 0;
    if (dwarf_attr(die, DW_AT_call_file, &attr) && dwarf_formudata(&attr, &v) == 0 && files)
      if (const char* cf = dwarf_filesrc(files, v, nullptr, nullptr)) file = cf;
    if (dwarf_attr(die, DW_AT_call_line, &attr) && dwarf_formudata(&attr, &v) == 0)
      lineno = int64_t(v);
  }
  outer.file = file;
  outer.line = lineno;
  out.push_back(outer);
  return out;
}

}  // namespace

Symbolized Symbolizer::lookup(uint64_t address) const {
  Symbolized out;
  out.module = module_of(impl_->modules, address);
  if (out.module < 0) return out;
  Dwfl_Module* mod = impl_->handles[size_t(out.module)];
  if (!mod) return out;
  // A stub has no symbol of its own: name it after the function it jumps to, as perf does.
  if (const PltStub* stub = impl_->plt_stub(size_t(out.module), address)) {
    SourceFrame f;
    f.function = f.system_name = stub->target + "@plt";
    out.frames.push_back(f);
    return out;
  }
  SourceFrame outer = symbol_frame(mod, address, &out.symbol_offset);
  if (!outer.system_name.empty()) {
    const std::string& canonical =
        impl_->canonical_name(size_t(out.module), address - out.symbol_offset);
    if (!canonical.empty() && canonical != outer.system_name) {
      outer.system_name = canonical;
      outer.function = demangle(canonical);
    }
  }
  Dwarf_Addr bias = 0;
  Dwarf_Die cu_die;
  if (impl_->names_only[size_t(out.module)] ||
      !impl_->find_cu(size_t(out.module), address, &cu_die, &bias)) {
    out.frames.push_back(outer);
    return out;
  }
  out.frames = source_frames(impl_->scopes[size_t(out.module)], &cu_die, address - bias, outer);
  return out;
}

int64_t Symbolizer::first_line_at(uint64_t address) const {
  const int module = module_of(impl_->modules, address);
  if (module < 0 || !impl_->handles[size_t(module)] || impl_->names_only[size_t(module)]) return 0;
  Dwarf_Addr bias = 0;
  Dwarf_Die cu_die;
  if (!impl_->find_cu(size_t(module), address, &cu_die, &bias)) return 0;
  Dwarf_Lines* lines = nullptr;
  size_t n = 0;
  if (dwarf_getsrclines(&cu_die, &lines, &n) != 0) return 0;
  for (size_t i = 0; i < n; ++i) {  // sorted by address, rows at one address in table order
    Dwarf_Line* line = dwarf_onesrcline(lines, i);
    Dwarf_Addr a = 0;
    int lineno = 0;
    if (line && dwarf_lineaddr(line, &a) == 0 && a == address - bias &&
        dwarf_lineno(line, &lineno) == 0)
      return lineno;
  }
  return 0;
}

}  // namespace omprof::unwind
