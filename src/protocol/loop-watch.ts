// What loop detection remembers of a run's recent tool calls: serialisable, carried through continue-as-new.

/**
 * One tool call as loop detection compares calls: the tool's name and a fingerprint of its
 * executable arguments (canonical JSON, hashed; injected arguments left out). Two calls are "the
 * same call" when both fields are equal.
 */
export interface CallFingerprint {
  tool: string;
  /** 16 hex digits: FNV-1a (64 bits) of the tool name and the canonical JSON of the executable arguments. */
  key: string;
}

/**
 * Loop detection's memory of a run (or of a thread's current turn): the newest call fingerprints,
 * as many as the rule needs to see (`(max_repeats + 1) × max_cycle_length`), and whether the run
 * was already nudged. Bounded, so a continuation carries it whole.
 */
export interface LoopWatch {
  recent: CallFingerprint[];
  nudged: boolean;
}
