import { describe, expect, it } from '@jest/globals';
import { ScriptedModel } from '../../src/models/scripted-model';

describe('ScriptedModel streaming (streamMs)', () => {
  const model = new ScriptedModel({ scripts: { talker: { replies: [{ text: 'One two,\nthree.', streamMs: 1 }, { text: 'Quiet.' }] } } });
  const request = (step: number, deltas: string[]) => ({
    modelId: 'talker',
    system: '',
    messages: [{ role: 'user' as const, content: 'Go' }],
    tools: [],
    temperature: 0,
    maxTokens: null,
    outputSchema: null,
    attempt: 1,
    step,
    onTextDelta: (delta: string) => deltas.push(delta),
  });

  it('passes the text on word by word, in order, when the reply asks to stream', async () => {
    const deltas: string[] = [];
    const response = await model.complete(request(1, deltas));
    expect(deltas).toEqual(['One ', 'two,\n', 'three.']);
    expect(deltas.join('')).toBe(response.text);
  });

  it('does not stream replies without streamMs', async () => {
    const deltas: string[] = [];
    expect((await model.complete(request(2, deltas))).text).toBe('Quiet.');
    expect(deltas).toEqual([]);
  });
});
