import { describe, expect, it } from '@jest/globals';
import { resolveTemporalTarget } from '../../src/connection/temporal-target';
import { webUiLine } from '../../src/cli/commands/run-command';

/** Where runs link in the Web UI when the connection names a server but not its UI. */

describe('Web UI links', () => {
  const uiOf = (environment: NodeJS.ProcessEnv) => resolveTemporalTarget(environment).uiUrl;

  it('derives the UI of a dev server on this machine (its port + 1000) and of Temporal Cloud', () => {
    expect(uiOf({})).toBe('http://127.0.0.1:8233');
    expect(uiOf({ TEMPORAL_ADDRESS: '127.0.0.1:7233' })).toBe('http://127.0.0.1:8233');
    expect(uiOf({ TEMPORAL_ADDRESS: 'localhost:7500' })).toBe('http://localhost:8500');
    expect(uiOf({ TEMPORAL_ADDRESS: '[::1]:7233' })).toBe('http://[::1]:8233');
    expect(uiOf({ TEMPORAL_ADDRESS: 'prod.a2b3c.tmprl.cloud:7233' })).toBe('https://cloud.temporal.io');
    expect(uiOf({ TEMPORAL_ADDRESS: 'temporal.internal:7233', TEMPORAL_UI_URL: 'https://ui.internal' })).toBe('https://ui.internal');
  });

  it('says how to get a link when the UI of a remote server cannot be known', () => {
    expect(uiOf({ TEMPORAL_ADDRESS: 'temporal.internal:7233' })).toBeNull();
    expect(webUiLine(null)).toBe('Web UI: no link (set TEMPORAL_UI_URL to your Temporal Web UI, for example http://temporal-ui:8080, to get a link)');
  });
});
