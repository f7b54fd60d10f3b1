import { describe, expect, it } from '@jest/globals';
import { type Answer, AnswerCache } from './answer-cache.js';
import type { ProductLine } from './build-index.js';

const line = (): ProductLine => ({ builds: [], rolloutBuilds: [] });
const answer = (body: string): Answer => ({ etag: `W/"${body}"`, body, contentDigest: '', signedAt: 0 });

describe('AnswerCache', () => {
  it('finds an answer by line, version and variant only', () => {
    const cache = new AnswerCache(1_000_000);
    const a = line();
    const kept = answer('[1]');
    cache.set(a, '1.0', '-', kept);
    expect(cache.get(a, '1.0', '-')).toBe(kept);
    expect(cache.get(a, '1.0', '+beta')).toBeUndefined();
    expect(cache.get(a, '1.1', '-')).toBeUndefined();
    // The same line of a reloaded index is another object: nothing of the old index is found.
    expect(cache.get(line(), '1.0', '-')).toBeUndefined();
  });

  it('replaces an answer in place and stays within its byte budget, oldest out first', () => {
    const cache = new AnswerCache(3 * (2 * (3 + 1 + 100 + 106) + 192));
    const a = line();
    const bodies = ['a', 'b', 'c', 'd'].map((c) => c.repeat(100));
    cache.set(a, '1.0', '-', answer(bodies[0]));
    cache.set(a, '1.0', '-', answer(bodies[1])); // replaces: still one
    expect(cache.kept.count).toBe(1);
    expect(cache.get(a, '1.0', '-')?.body).toBe(bodies[1]);
    cache.set(a, '1.1', '-', answer(bodies[2]));
    cache.set(a, '1.2', '-', answer(bodies[3]));
    cache.set(a, '1.3', '-', answer(bodies[0]));
    expect(cache.kept.count).toBe(3);
    expect(cache.kept.bytes).toBeLessThanOrEqual(cache.maxBytes);
    expect(cache.get(a, '1.0', '-')).toBeUndefined();
    expect(['1.1', '1.2', '1.3'].map((v) => cache.get(a, v, '-')?.body)).toEqual([bodies[2], bodies[3], bodies[0]]);
  });
});
