// What both fixtures do wrong: start a process in its own group and never stop it; its pid goes to FIXTURE_PID_FILE.
import { writeFileSync } from 'node:fs';
import { spawnInGroup } from '../support/process-group';

export function leaveProcessRunning(): number {
  const child = spawnInGroup('sleep', ['3600'], { stdio: 'ignore' });
  child.unref();
  writeFileSync(process.env.FIXTURE_PID_FILE!, String(child.pid));
  return child.pid!;
}
