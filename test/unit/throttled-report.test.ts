import { describe, expect, it, jest } from '@jest/globals';
import { MockActivityEnvironment } from '@temporalio/testing';
import { LiveHeartbeat, ThrottledReport, withHeartbeat } from '../../src/activities/heartbeat';

/** An activity context from Temporal's testing package, recording each heartbeat and when. */
function recordingHeartbeat() {
  const sent: Array<{ details: unknown; at: number }> = [];
  const environment = new MockActivityEnvironment();
  environment.on('heartbeat', (details: unknown) => sent.push({ details, at: Date.now() }));
  return { live: new LiveHeartbeat(environment.context), sent };
}

describe('ThrottledReport', () => {
  it('sends the first offer at once, then at most one report per interval, ending with the latest', () => {
    jest.useFakeTimers({ now: 0 });
    try {
      const { live, sent } = recordingHeartbeat();
      const reports = new ThrottledReport(live, 50);
      const texts: string[] = [];
      // 20 deltas, 5 ms apart (simulated time): t = 0, 5, ..., 95.
      for (let index = 0; index < 20; index++) {
        texts.push(`${texts.at(-1) ?? ''}${index} `);
        const snapshot = texts.at(-1)!;
        reports.offer(() => snapshot);
        jest.advanceTimersByTime(5);
      }
      jest.advanceTimersByTime(80);
      // At 0 ms the first text; at 50 ms the latest of t <= 45; at 100 ms the last one.
      expect(sent).toEqual([
        { details: texts[0], at: 0 },
        { details: texts[9], at: 50 },
        { details: texts[19], at: 100 },
      ]);
      reports.stop();
    } finally {
      jest.useRealTimers();
    }
  });

  it('drops a pending report when stopped', async () => {
    const { live, sent } = recordingHeartbeat();
    const reports = new ThrottledReport(live, 30);
    reports.offer(() => 'first');
    reports.offer(() => 'second');
    reports.stop();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(sent.map((report) => report.details)).toEqual(['first']);
  });
});

describe('withHeartbeat', () => {
  // A beat at the start would detect nothing sooner (the server counts the timeout from the start)
  // and costs a server call and write for every activity; see docs/performance.md.
  it('sends nothing for a call that ends within a third of the heartbeat timeout, then one beat every third', async () => {
    jest.useFakeTimers({ now: 0 });
    try {
      const sent: number[] = [];
      const environment = new MockActivityEnvironment({ heartbeatTimeoutMs: 3_000 });
      environment.on('heartbeat', () => sent.push(Date.now()));
      const after = (ms: number, value: string) => () => new Promise<string>((resolve) => setTimeout(() => resolve(value), ms));

      const quick = environment.run(() => withHeartbeat(after(900, 'quick')));
      await jest.advanceTimersByTimeAsync(900);
      await expect(quick).resolves.toBe('quick');
      expect(sent).toEqual([]);

      const slow = environment.run(() => withHeartbeat(after(3_500, 'slow')));
      await jest.advanceTimersByTimeAsync(3_500);
      await expect(slow).resolves.toBe('slow');
      expect(sent).toEqual([1_900, 2_900, 3_900]);
    } finally {
      jest.useRealTimers();
    }
  });
});
