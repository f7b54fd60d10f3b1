const UNESCAPE: Record<string, string> = { '\\': '\\', t: '\t', n: '\n', r: '\r', b: '\b', f: '\f', v: '\v' };

/** The values of one line of COPY text (null for `\N`); the escapes COPY writes are undone. */
export function parseCopyLine(line: string): (string | null)[] {
  return line.split('\t').map((field) => (field === '\\N' ? null : field.replace(/\\(.)/g, (_, ch: string) => UNESCAPE[ch] ?? ch)));
}
