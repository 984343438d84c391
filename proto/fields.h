// Generated from proto/omprof.proto by scripts/gen_fields.py; do not edit.
// The field numbers of every message, named, for the collector's encoder
// (collector/writer/). tests/unit/fields_test.cc checks them against protoc's output.
#pragma once

#include <cstdint>

namespace omprof::format::fields {

namespace Record {
constexpr uint32_t kHeader = 1;
constexpr uint32_t kStrings = 2;
constexpr uint32_t kMapping = 3;
constexpr uint32_t kFunction = 4;
constexpr uint32_t kLocation = 5;
constexpr uint32_t kStack = 6;
constexpr uint32_t kThread = 7;
constexpr uint32_t kFork = 8;
constexpr uint32_t kRegionNode = 9;
constexpr uint32_t kRegionStats = 10;
constexpr uint32_t kTrailer = 15;
}  // namespace Record

namespace Header {
constexpr uint32_t kFormatMajor = 1;
constexpr uint32_t kFormatMinor = 2;
constexpr uint32_t kCollectorVersion = 3;
constexpr uint32_t kProgram = 4;
constexpr uint32_t kArgv = 5;
constexpr uint32_t kPid = 6;
constexpr uint32_t kHostname = 7;
constexpr uint32_t kStartTimeUnixNs = 8;
constexpr uint32_t kDurationNs = 9;
constexpr uint32_t kClock = 10;
constexpr uint32_t kRateHz = 11;
constexpr uint32_t kPeriodNs = 12;
constexpr uint32_t kMaxDepth = 13;
constexpr uint32_t kSignal = 14;
constexpr uint32_t kOmpRuntime = 15;
constexpr uint32_t kOmptActive = 16;
constexpr uint32_t kOmpNote = 17;
constexpr uint32_t kMpiRank = 18;
constexpr uint32_t kMpiSize = 19;
constexpr uint32_t kRegionWindowStartNs = 20;
constexpr uint32_t kExactWaits = 21;
constexpr uint32_t kSymbolizeOffline = 22;
constexpr uint32_t kEnding = 23;
constexpr uint32_t kRecovered = 24;
constexpr uint32_t kMpiLibrary = 25;
constexpr uint32_t kMpiThreadLevel = 26;
constexpr uint32_t kMpiCallsExact = 27;
constexpr uint32_t kMpiNote = 28;
constexpr uint32_t kMpiInitEndNs = 29;
constexpr uint32_t kMpiFinalizeStartNs = 30;
constexpr uint32_t kMpiCpuExact = 31;
constexpr uint32_t kRegionCpuExact = 32;
constexpr uint32_t kTaskwaitSampled = 33;
constexpr uint32_t kOffCpuWaits = 34;
constexpr uint32_t kWallClock = 35;
constexpr uint32_t kWallClockDriftNs = 36;
constexpr uint32_t kWallClockNote = 37;
constexpr uint32_t kCpusOnline = 38;
constexpr uint32_t kCpusAllowed = 39;
constexpr uint32_t kStealPermille = 40;
constexpr uint32_t kLoadAvgMilli = 41;
constexpr uint32_t kOmpSetting = 42;
constexpr uint32_t kOmpRuntimeVersion = 43;
constexpr uint32_t kCounterEvent = 44;
constexpr uint32_t kCounterPeriod = 45;
constexpr uint32_t kRegionCountersExact = 46;
constexpr uint32_t kStateMeasurement = 47;
constexpr uint32_t kWrapperStates = 48;
constexpr uint32_t kClockChoice = 49;
}  // namespace Header

namespace StateMeasurement {
constexpr uint32_t kFirstState = 1;
constexpr uint32_t kLastState = 2;
constexpr uint32_t kHow = 3;
}  // namespace StateMeasurement

namespace Ending {
constexpr uint32_t kKind = 1;
constexpr uint32_t kExitStatus = 2;
constexpr uint32_t kSignal = 3;
constexpr uint32_t kCoreDumped = 4;
}  // namespace Ending

namespace StringTable {
constexpr uint32_t kEntries = 1;
}  // namespace StringTable

namespace Mapping {
constexpr uint32_t kId = 1;
constexpr uint32_t kStart = 2;
constexpr uint32_t kLimit = 3;
constexpr uint32_t kFileOffset = 4;
constexpr uint32_t kFilename = 5;
constexpr uint32_t kBuildId = 6;
constexpr uint32_t kLoadBias = 7;
constexpr uint32_t kUnloaded = 8;
constexpr uint32_t kIsOmpRuntime = 9;
}  // namespace Mapping

namespace Function {
constexpr uint32_t kId = 1;
constexpr uint32_t kName = 2;
constexpr uint32_t kSystemName = 3;
constexpr uint32_t kFilename = 4;
}  // namespace Function

namespace Line {
constexpr uint32_t kFunctionId = 1;
constexpr uint32_t kLine = 2;
}  // namespace Line

namespace Location {
constexpr uint32_t kId = 1;
constexpr uint32_t kMappingId = 2;
constexpr uint32_t kAddress = 3;
constexpr uint32_t kLine = 4;
constexpr uint32_t kCallee = 5;
}  // namespace Location

namespace Stack {
constexpr uint32_t kId = 1;
constexpr uint32_t kLocationId = 2;
constexpr uint32_t kTruncated = 3;
constexpr uint32_t kUnwindFailed = 4;
}  // namespace Stack

namespace Sample {
constexpr uint32_t kStackId = 1;
constexpr uint32_t kCount = 2;
constexpr uint32_t kWeightNs = 3;
constexpr uint32_t kOmpState = 4;
constexpr uint32_t kForkId = 5;
constexpr uint32_t kOmpThreadNum = 6;
constexpr uint32_t kRegionNode = 7;
constexpr uint32_t kCpuNs = 8;
constexpr uint32_t kTaskOriginId = 9;
constexpr uint32_t kIdleWorkersNs = 10;
constexpr uint32_t kCounter = 11;
constexpr uint32_t kOffCpuSeenNs = 12;
}  // namespace Sample

namespace ThreadProfile {
constexpr uint32_t kIndex = 1;
constexpr uint32_t kTid = 2;
constexpr uint32_t kIsMain = 3;
constexpr uint32_t kStartNs = 4;
constexpr uint32_t kEndNs = 5;
constexpr uint32_t kCpuTimeNs = 6;
constexpr uint32_t kSample = 7;
constexpr uint32_t kDroppedSamples = 8;
constexpr uint32_t kDroppedWeightNs = 9;
constexpr uint32_t kTruncatedSamples = 10;
constexpr uint32_t kTimerFailed = 11;
constexpr uint32_t kTimerErrno = 12;
constexpr uint32_t kUnwindFailed = 13;
constexpr uint32_t kIsOmpThread = 14;
constexpr uint32_t kWait = 15;
constexpr uint32_t kWaitsDropped = 16;
constexpr uint32_t kWaitsDroppedNs = 17;
constexpr uint32_t kSamplingLost = 18;
constexpr uint32_t kArmedClockNs = 19;
constexpr uint32_t kPeriodsSampled = 20;
constexpr uint32_t kMpiLibraryThread = 21;
constexpr uint32_t kContextSwitches = 22;
constexpr uint32_t kCpuClockFromNs = 23;
constexpr uint32_t kSwitchesPerCpuSAtMove = 24;
constexpr uint32_t kShortStackSamples = 25;
constexpr uint32_t kParallelWallNs = 26;
constexpr uint32_t kRunDelayNs = 27;
constexpr uint32_t kInvoluntarySwitches = 28;
constexpr uint32_t kCpus = 29;
constexpr uint32_t kUnmeasuredWaits = 30;
constexpr uint32_t kCounterTotal = 31;
constexpr uint32_t kCounterErrno = 32;
constexpr uint32_t kCounterSamplesLost = 33;
constexpr uint32_t kIntervalNs = 34;
constexpr uint32_t kIntervalCoarsenings = 35;
constexpr uint32_t kInterval = 36;
constexpr uint32_t kEvent = 37;
constexpr uint32_t kEventMinNs = 38;
constexpr uint32_t kEventsDropped = 39;
constexpr uint32_t kCounterEnabledNs = 40;
constexpr uint32_t kCounterRunningNs = 41;
constexpr uint32_t kNowState = 42;
constexpr uint32_t kNowSinceNs = 43;
}  // namespace ThreadProfile

namespace Interval {
constexpr uint32_t kIndex = 1;
constexpr uint32_t kClassNs = 2;
constexpr uint32_t kSamples = 3;
constexpr uint32_t kLastState = 4;
constexpr uint32_t kForkId = 5;
constexpr uint32_t kRegionNode = 6;
constexpr uint32_t kMeasuredNs = 7;
constexpr uint32_t kMeasuredWaits = 8;
constexpr uint32_t kCounter = 9;
constexpr uint32_t kLeadSample = 10;
constexpr uint32_t kLeadSamples = 11;
}  // namespace Interval

namespace Event {
constexpr uint32_t kStartNs = 1;
constexpr uint32_t kEndNs = 2;
constexpr uint32_t kKind = 3;
constexpr uint32_t kId = 4;
constexpr uint32_t kSite = 5;
}  // namespace Event

namespace ForkRecord {
constexpr uint32_t kId = 1;
constexpr uint32_t kParentId = 2;
constexpr uint32_t kStackId = 3;
constexpr uint32_t kCodeptrLocationId = 4;
constexpr uint32_t kInstances = 5;
constexpr uint32_t kTeamSizes = 6;
constexpr uint32_t kTask = 7;
constexpr uint32_t kWallNs = 8;
constexpr uint32_t kCounter = 9;
}  // namespace ForkRecord

namespace RegionNode {
constexpr uint32_t kId = 1;
constexpr uint32_t kParentId = 2;
constexpr uint32_t kName = 3;
}  // namespace RegionNode

namespace RegionStats {
constexpr uint32_t kNodeId = 1;
constexpr uint32_t kThreadIndex = 2;
constexpr uint32_t kCalls = 3;
constexpr uint32_t kWallNs = 4;
constexpr uint32_t kCpuNs = 5;
constexpr uint32_t kSelfWallNs = 6;
constexpr uint32_t kSelfCpuNs = 7;
constexpr uint32_t kActive = 8;
constexpr uint32_t kCounter = 9;
constexpr uint32_t kSelfCounter = 10;
}  // namespace RegionStats

namespace Trailer {
constexpr uint32_t kRecordCount = 1;
constexpr uint32_t kThreadsUntracked = 2;
constexpr uint32_t kTimerCreateFailures = 3;
constexpr uint32_t kForwardedSignals = 4;
constexpr uint32_t kForkRecordsDropped = 5;
constexpr uint32_t kHandlerCallsTimed = 6;
constexpr uint32_t kHandlerNsTotal = 7;
constexpr uint32_t kThreadsBeforeStart = 8;
constexpr uint32_t kMemberCountsLost = 9;
}  // namespace Trailer

namespace JournalEntry {
constexpr uint32_t kStart = 1;
constexpr uint32_t kModule = 2;
constexpr uint32_t kUnloaded = 3;
constexpr uint32_t kOmp = 4;
constexpr uint32_t kFork = 5;
constexpr uint32_t kRegion = 6;
constexpr uint32_t kRegionNode = 7;
constexpr uint32_t kMpi = 8;
}  // namespace JournalEntry

namespace JournalModule {
constexpr uint32_t kPath = 1;
constexpr uint32_t kBuildId = 2;
constexpr uint32_t kLoadBias = 3;
constexpr uint32_t kSegment = 4;
constexpr uint32_t kIsVdso = 5;
constexpr uint32_t kIsOmpRuntime = 6;
}  // namespace JournalModule

namespace JournalSegment {
constexpr uint32_t kStart = 1;
constexpr uint32_t kLimit = 2;
constexpr uint32_t kFileOffset = 3;
}  // namespace JournalSegment

namespace JournalOmp {
constexpr uint32_t kOmpRuntime = 1;
constexpr uint32_t kOmptActive = 2;
constexpr uint32_t kOmpNote = 3;
constexpr uint32_t kExactWaits = 4;
constexpr uint32_t kOffCpuWaits = 5;
constexpr uint32_t kMeasurement = 6;
}  // namespace JournalOmp

namespace JournalFork {
constexpr uint32_t kId = 1;
constexpr uint32_t kParentId = 2;
constexpr uint32_t kFrame = 3;
constexpr uint32_t kTruncated = 4;
constexpr uint32_t kCodeptr = 5;
constexpr uint32_t kTask = 6;
}  // namespace JournalFork

namespace JournalRegion {
constexpr uint32_t kId = 1;
constexpr uint32_t kName = 2;
}  // namespace JournalRegion

namespace JobSummary {
constexpr uint32_t kFormatMajor = 1;
constexpr uint32_t kFormatMinor = 2;
constexpr uint32_t kCollectorVersion = 3;
constexpr uint32_t kProgram = 4;
constexpr uint32_t kSize = 5;
constexpr uint32_t kScope = 6;
constexpr uint32_t kRun = 7;
constexpr uint32_t kRegion = 8;
constexpr uint32_t kDifferingRank = 9;
constexpr uint32_t kReductionNs = 10;
}  // namespace JobSummary

namespace SummaryRow {
constexpr uint32_t kPath = 1;
constexpr uint32_t kRanks = 2;
constexpr uint32_t kInclMinNs = 3;
constexpr uint32_t kInclMinRank = 4;
constexpr uint32_t kInclMaxNs = 5;
constexpr uint32_t kInclMaxRank = 6;
constexpr uint32_t kInclSumNs = 7;
constexpr uint32_t kCompMinNs = 8;
constexpr uint32_t kCompMinRank = 9;
constexpr uint32_t kCompMaxNs = 10;
constexpr uint32_t kCompMaxRank = 11;
constexpr uint32_t kCompSumNs = 12;
constexpr uint32_t kSelfSumNs = 13;
constexpr uint32_t kOutsideMpiSumNs = 14;
constexpr uint32_t kWorkSumNs = 15;
constexpr uint32_t kOmpWaitSumNs = 16;
constexpr uint32_t kMpiWaitSumNs = 17;
constexpr uint32_t kCallsMin = 18;
constexpr uint32_t kCallsMax = 19;
constexpr uint32_t kCallsSum = 20;
constexpr uint32_t kThreadsSum = 21;
constexpr uint32_t kSamplesSum = 22;
constexpr uint32_t kSetupSumNs = 23;
constexpr uint32_t kSetupMaxNs = 24;
}  // namespace SummaryRow

}  // namespace omprof::format::fields
