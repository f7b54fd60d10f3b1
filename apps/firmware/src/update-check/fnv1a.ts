/** FNV-1a (32 bits) of a string, continuing from `hash` (0x811c9dc5 to start): cheap, for the hot path's ETags and jitter. */
export function fnv1a(text: string, hash = 0x811c9dc5): number {
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
