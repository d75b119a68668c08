/** Logged by build 2's step and looked for in its bundle: proof the model-calls swap applied. */
export const BUILD_TWO_MARK = 'rolling-upgrade build two: one more activity per step';
