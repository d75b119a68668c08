import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, jest } from '@jest/globals';

/**
 * src/protocol is loaded by every process, the workflow sandbox included, so it must not pull
 * config's zod schemas at runtime: it imports config with `import type` only (ESLint enforces
 * the import form; this checks the outcome). Every protocol module is loaded in a fresh module
 * registry where requiring zod throws.
 */

const PROTOCOL = path.resolve(__dirname, '..', '..', 'src', 'protocol');

describe('src/protocol', () => {
  it('loads without zod', () => {
    const modules = readdirSync(PROTOCOL).filter((file) => file.endsWith('.ts'));
    expect(modules.length).toBeGreaterThan(0);
    jest.isolateModules(() => {
      jest.doMock('zod', () => {
        throw new Error('src/protocol required zod at runtime');
      });
      for (const module of modules) expect(() => require(path.join(PROTOCOL, module))).not.toThrow();
    });
  });

  it('would notice zod', () => {
    jest.isolateModules(() => {
      jest.doMock('zod', () => {
        throw new Error('required zod');
      });
      expect(() => require('../../src/config/agent-config')).toThrow('required zod');
    });
  });
});
