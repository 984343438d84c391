// The program's own code at a task construct's source line is task creation, not the program's
// work: what the compiler emits there evaluates the construct's clauses and copies the task's
// data environment (shared pointers, firstprivate values) into the descriptor the runtime
// allocated, around its calls into the runtime. docs/semantics.md "Work and Wait".
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <tuple>

#include "omp/user_model.h"

namespace omprof::omp {

// A source line of a function: where a program frame is (its innermost inlined frame).
struct CodeLine {
  std::string function, file;
  int64_t line = 0;
  friend bool operator<(const CodeLine& a, const CodeLine& b) {
    return std::tie(a.line, a.file, a.function) < std::tie(b.line, b.file, b.function);
  }
};

// The entry points that create a task (allocation, submission, undeferred begin and end,
// taskloop), as opposed to taskwait, taskyield and taskgroup.
bool is_task_creation_entry(const std::string& entry);

class TaskConstructLines {
 public:
  // Lines without a file or a line number are never recorded: without a line table a
  // function's code cannot be told from its construct's.
  void add(CodeLine line);
  bool contains(const CodeLine& line) const { return lines_.count(line) > 0; }
  bool empty() const { return lines_.empty(); }
  // Records each program frame of `raw` (leaf first) that calls a task-creation entry point.
  void add_call_sites(const FrameStack& raw);
  // Whether `raw`'s first frame past the system functions it called is program code at one of
  // the recorded lines, or gcc's copy function of a task's data (`foo._omp_cpyfn.N`).
  bool at_construct(const FrameStack& raw) const;

 private:
  std::set<CodeLine> lines_;
};

// `state`, resolved from the stack (resolve_state), made task overhead if it is work done at a
// task construct's line.
uint32_t construct_code_state(uint32_t state, bool at_construct);

}  // namespace omprof::omp
