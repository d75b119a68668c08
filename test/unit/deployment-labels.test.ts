import { describe, expect, it } from '@jest/globals';
import { defineAgent, type AgentDefinition } from '../../src/agents/define-agent';
import { labelConflicts, mergedRecord, parseRecordedAgents, recordOf, type BuildRecord } from '../../src/agents/deployment-labels';

/** One label, one definition across a Worker Deployment (issue #42 item 6): the pure comparison. */

const support = defineAgent({ config: { name: 'support', model: 'scripted:any', instructions: 'Help with orders.' }, label: 'r1' });
const changed = defineAgent({ config: { name: 'support', model: 'scripted:any', instructions: 'Help with orders, politely.' }, label: 'r1' });
const relabelled = defineAgent({ config: { name: 'support', model: 'scripted:any', instructions: 'Help with orders, politely.' }, label: 'r2' });
const billing = defineAgent({ config: { name: 'billing', model: 'scripted:any' } });
const billingChanged = defineAgent({ config: { name: 'billing', model: 'scripted:other' } });

const build = (buildId: string, definitions: AgentDefinition[]): BuildRecord => ({ buildId, agents: recordOf(definitions) });

describe('the label check of a Worker Deployment', () => {
  it('records each agent by name with its version and label', () => {
    expect(recordOf([support, billing])).toEqual({
      support: { version: support.version, label: 'r1' },
      billing: { version: billing.version, label: null },
    });
  });

  it('lets a worker start on the first build, on a build that agrees, and on a new label', () => {
    expect(labelConflicts(build('1', [support, billing]), [])).toEqual([]);
    expect(labelConflicts(build('1', [support]), [build('1', [support, billing])])).toEqual([]);
    expect(labelConflicts(build('2', [relabelled]), [build('1', [support])])).toEqual([]);
    // Another build may change an unlabelled agent: there is no release name to keep.
    expect(labelConflicts(build('2', [billingChanged]), [build('1', [billing])])).toEqual([]);
  });

  it('refuses a worker whose build already offers another version of an agent, naming both versions and the build', () => {
    expect(labelConflicts(build('1', [changed]), [build('1', [support])])).toEqual([
      `support: this worker offers version ${changed.version} (label 'r1'), but another worker of the same build '1' offers version ${support.version} (label 'r1'); every worker of a build must offer the same definitions`,
    ]);
    expect(labelConflicts(build('1', [billingChanged]), [build('1', [billing])])).toEqual([
      expect.stringContaining(`billing: this worker offers version ${billingChanged.version} (no label)`),
    ]);
  });

  it('refuses a changed definition under a label another build recorded, naming the label, both versions and that build', () => {
    expect(labelConflicts(build('2', [changed, billing]), [build('1', [support, billing]), build('3', [relabelled])])).toEqual([
      `support: label 'r1' is version ${changed.version} here, but build '1' offers version ${support.version} under the same label; give the changed definition a new label`,
    ]);
  });

  it('reads back only records it understands, and keeps the entries of other workers of the build when it writes', () => {
    expect(parseRecordedAgents({ support: { version: 'abc', label: null } })).toEqual({ support: { version: 'abc', label: null } });
    expect(parseRecordedAgents({ support: { version: 7, label: null } })).toBeNull();
    expect(parseRecordedAgents(['support'])).toBeNull();
    expect(parseRecordedAgents('support')).toBeNull();
    expect(mergedRecord({ billing: { version: 'b', label: null } }, recordOf([support]))).toEqual({
      billing: { version: 'b', label: null },
      support: { version: support.version, label: 'r1' },
    });
    expect(mergedRecord(null, recordOf([support]))).toEqual(recordOf([support]));
  });
});
