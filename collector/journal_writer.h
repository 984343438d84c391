// The journal (proto/journal.h, docs/format.md): a file in the output directory, mapped shared,
// that holds every thread's samples and waits and an append-only list of entries (modules,
// OpenMP fork records, explicit-region names and nodes), so that a process that dies without
// writing its profile (a signal, _exit, SIGKILL) leaves one that `omprof run` or `omprof report`
// recovers. Removed once the profile is written. Ordinary context.
#pragma once

#include <cstdint>
#include <string>

#include "proto/journal.h"
#include "proto/wire.h"

namespace omprof::journal {

struct Shape {
  uint32_t max_threads;
  uint64_t block_bytes;  // one thread's block, a multiple of the page size
};

// Creates <dir>/<stem>[.<n>].ompjournal and maps its header and entry area. On failure returns
// false with `error`: the collector then keeps its data in anonymous memory, as before.
bool open_journal(const std::string& dir, const std::string& stem, const Shape& shape,
                  std::string& error);
bool journal_open();
const std::string& journal_path();
FileHeader* journal_header();  // nullptr without a journal
// Fork record `id`'s counts in the journal (zero, made once per record, as it is created), or
// nullptr (no journal, or an id beyond its table).
ForkCounts* fork_counts(uint64_t id);

// Appends one JournalEntry whose one field `field` holds `message`. Lock-free; counts entries
// that do not fit in journal_header()->entries_dropped.
void append_entry(uint32_t field, const wire::Encoder& message);
void append_entry_u64(uint32_t field, uint64_t value);

// Thread `index`'s block, mapped from the journal (zero-filled), or nullptr.
void* map_thread_block(uint32_t index);

// In the child of fork(): its mappings of the journal become private copies, so that nothing
// the child does reaches the parent's file. Each thread block first (remap_private), then the
// rest (detach_in_child), before the descriptor is released.
void remap_private(void* block, uint32_t index);
void detach_in_child();

// Journal pages the filesystem could not back, replaced by memory (FileHeader::pages_not_durable;
// also counted when the header page itself was one of them).
uint64_t pages_not_durable();
// Whether another process truncated the journal during the run (the thread states were lost).
bool journal_truncated();
// Whether the journal on disk can be read: it exists and its header page was kept.
bool journal_recoverable();

// The profile was written: the journal goes.
void remove_journal();

}  // namespace omprof::journal
