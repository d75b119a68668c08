// The shape of an entry of the patch register (patches.ts): a patch id, what it changed, its stage and its histories.
/**
 * One `patched()` id. Its lifecycle (docs/patches.md): `patched` (both code paths live), then
 * `deprecated` (`deprecatePatch(id)`, new code only, once no open execution can replay without the
 * marker: the deployment versions without it have drained), then removed (the call and this entry
 * go, once no open execution carries the marker).
 */
export interface PatchRecord {
  /** The marker id written to histories; never reused. */
  readonly id: string;
  /** The day the patch was added (UTC, ISO date). */
  readonly added: string;
  /** What runs since the patch do differently, and what runs before it keep doing. */
  readonly changed: string;
  /** Where it is in Temporal's patch lifecycle. */
  readonly stage: 'patched' | 'deprecated';
  /** The recorded histories (test/histories) that show each side: the register test checks their markers. */
  readonly histories: PatchHistories;
}

/**
 * Executions in the replay corpus on each side of a patch, as paths relative to test/histories.
 * `without` ones went through the patched code with no marker (recorded by older code), so they
 * replay the old branch; `with` ones recorded the marker.
 */
export interface PatchHistories {
  readonly with: readonly string[];
  readonly without: readonly string[];
  /** Why a side has no history, when it has none (the register test states it). */
  readonly missing?: { readonly with?: string; readonly without?: string };
}
