/** Activities of the benchmark baseline workflow. */
export function createBenchActivities() {
  return {
    async noop(step: number): Promise<number> {
      return step;
    },
  };
}

export type BenchActivities = ReturnType<typeof createBenchActivities>;
