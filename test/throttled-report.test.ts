import { describe, expect, it } from '@jest/globals';
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
  it('sends the first offer at once, then at most one report per interval, ending with the latest', async () => {
    const { live, sent } = recordingHeartbeat();
    const reports = new ThrottledReport(live, 50);
    let text = '';
    for (let index = 0; index < 20; index++) {
      text += `${index} `;
      const snapshot = text;
      reports.offer(() => snapshot);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(sent.length).toBeLessThan(6);
    expect(sent[0]!.details).toBe('0 ');
    expect(sent.at(-1)!.details).toBe(text);
    sent.slice(1).forEach((report, index) => expect(report.at - sent[index]!.at).toBeGreaterThanOrEqual(45));
    reports.stop();
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
