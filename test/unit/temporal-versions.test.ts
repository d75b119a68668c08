import { describe, expect, it } from '@jest/globals';
import { assertSupportedTemporal, installedTemporalVersions } from '../../src/worker/temporal-versions';

describe('Temporal peer dependency check', () => {
  it('accepts the SDK this repository is tested with', () => {
    const installed = installedTemporalVersions();
    expect(Object.values(installed).every((version) => version !== null)).toBe(true);
    expect(() => assertSupportedTemporal(installed)).not.toThrow();
  });

  it('names each missing or unsupported package and what to install', () => {
    const check = () =>
      assertSupportedTemporal({
        '@temporalio/worker': '1.23.2',
        '@temporalio/workflow': '1.24.0',
        '@temporalio/client': null,
        '@temporalio/activity': '2.0.0',
      });
    expect(check).toThrow(
      '@temporalio/worker 1.23.2 is outside >=1.24.0 <2.0.0; @temporalio/client is not installed; @temporalio/activity 2.0.0 is outside >=1.24.0 <2.0.0',
    );
    expect(check).toThrow('npm install @temporalio/worker@^1.24.0');
  });
});
