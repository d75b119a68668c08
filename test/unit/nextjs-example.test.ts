// The Next.js example of docs/gateway.md type-checks: its route, page and useChat component against React, the AI SDK and our sources.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { expect, it } from '@jest/globals';

const EXAMPLE = path.resolve(__dirname, '..', '..', 'examples', 'nextjs-chat');

it('compiles examples/nextjs-chat with its tsconfig (tsc --noEmit)', async () => {
  const tsc = require.resolve('typescript/bin/tsc');
  // A whole type check of React and the AI SDK: minutes on a loaded 2-core machine, hence the long limits.
  // --listFiles: the errors (if any) and every file checked, so the test sees the example's files were in it.
  const result = await new Promise<{ code: number; output: string }>((resolve) => {
    const args = [tsc, '-p', path.join(EXAMPLE, 'tsconfig.check.json'), '--listFiles'];
    execFile(process.execPath, args, { cwd: EXAMPLE, timeout: 290_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
  const lines = result.output.split('\n');
  expect(lines.filter((line) => line.includes('error TS'))).toEqual([]);
  expect(result.code).toBe(0);
  const checked = lines.filter((line) => line.startsWith(EXAMPLE)).map((line) => path.relative(EXAMPLE, line));
  expect(checked.sort()).toEqual(['app/api/agents/[...path]/route.ts', 'app/chat.tsx', 'app/layout.tsx', 'app/page.tsx']);
  // The gateway the route mounts is this repository's, not a copy.
  expect(lines).toContain(path.resolve(EXAMPLE, '..', '..', 'src', 'gateway', 'index.ts'));
}, 300_000);
