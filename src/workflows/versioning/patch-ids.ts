// The id of every patch the workflow code consults (`patched(id)`); what each changed is in patches.ts's register.
//
// None since the 0.2.0 replay baseline (CHANGELOG.md). Workflow code imports ids from this file,
// not from patches.ts, so the register's texts stay out of the workflow bundle. To add one:
//
//   /** What runs since the patch do differently (one line). */
//   export const SOME_CHANGE_PATCH = 'some-change';
//
// then register it last in patches.ts and record its histories (docs/patches.md, "Adding a patch").
export {};
