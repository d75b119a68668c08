import { describe, expect, it, jest } from '@jest/globals';
import { MockActivityEnvironment } from '@temporalio/testing';
import { LiveHeartbeat, ThrottledReport } from '../src/activities/heartbeat';

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
