// The register of every patch id the workflow code consults: what each changed and when, oldest first.
import type { PatchRecord } from './patch-record';

/** The ids live in patch-ids.ts (workflow code needs only them); this module re-exports them with the register. */
export * from './patch-ids';
export type { PatchHistories, PatchRecord } from './patch-record';

/**
 * Every patch, oldest first: a recording is labelled with the newest one (see
 * test/histories/README.md). Empty at the 0.2.0 replay baseline: every patch before it was
 * removed, as no execution of a released version depended on it (CHANGELOG.md, docs/patches.md).
 */
export const PATCHES: readonly PatchRecord[] = [];

/** The newest patch, or null while the register is empty: recordings made by this code are labelled by it. */
export const NEWEST_PATCH: string | null = PATCHES.at(-1)?.id ?? null;
