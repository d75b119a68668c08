import { describe, expect, it } from '@jest/globals';
import { StreamLimiter } from '../../src/gateway/streams/stream-limits';

describe('StreamLimiter', () => {
  it('counts streams per principal and in all, refusing beyond each limit with its own code', () => {
    const limiter = new StreamLimiter({ maxStreams: 3, maxStreamsPerPrincipal: 2 });
    const a1 = limiter.acquire('a');
    limiter.acquire('a');
    expect(() => limiter.acquire('a')).toThrow(
      expect.objectContaining({ status: 429, code: 'TooManyStreams', details: { limit: 'maxStreamsPerPrincipal', max: 2 } }),
    );
    limiter.acquire('b');
    expect(() => limiter.acquire('c')).toThrow(
      expect.objectContaining({ status: 503, code: 'StreamLimitReached', details: { limit: 'maxStreams', max: 3 } }),
    );
    expect(limiter.stats()).toEqual({
      maxStreams: 3,
      maxStreamsPerPrincipal: 2,
      open: 3,
      principals: 2,
      refused: { maxStreams: 1, maxStreamsPerPrincipal: 1 },
    });
    a1();
    a1(); // a second release of the same stream gives back nothing more
    expect(limiter.stats()).toMatchObject({ open: 2, principals: 2 });
    limiter.acquire('c');
    expect(limiter.stats()).toMatchObject({ open: 3, principals: 3 });
  });

  it('has no limits by default, and refuses a limit that is not a whole number from 1, naming it', () => {
    const limiter = new StreamLimiter();
    for (let index = 0; index < 100; index++) limiter.acquire('a');
    expect(limiter.stats()).toMatchObject({ maxStreams: null, maxStreamsPerPrincipal: null, open: 100, principals: 1 });
    expect(() => new StreamLimiter({ maxStreams: 0 })).toThrow(/maxStreams: .*not 0/);
    expect(() => new StreamLimiter({ maxStreamsPerPrincipal: 1.5 })).toThrow(/maxStreamsPerPrincipal: .*not 1.5/);
  });
});
