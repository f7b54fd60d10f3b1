import { constantTimeEqual, sha256Base64url } from './secrets.js';
import type { LoginChallenge } from './records.js';

/** A magic link's token matches its challenge (only the hash is stored; compared in constant time). */
export function magicLinkMatches(challenge: LoginChallenge, token: string): boolean {
  return constantTimeEqual(sha256Base64url(token), challenge.linkHash);
}
