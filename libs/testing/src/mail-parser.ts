/**
 * A small RFC 5322 / MIME reader for tests (mailparser's dependencies are not installable
 * here): headers with RFC 2047 encoded words, multipart bodies, quoted-printable and base64.
 */
export interface ParsedMail {
  /** Recipients: the SMTP envelope for the sink, To/Cc headers for outbox files. */
  readonly to: string[];
  readonly from: string | null;
  readonly subject: string;
  /** The first text/plain part, decoded (or the HTML with tags stripped when there is none). */
  readonly text: string;
  readonly html: string | null;
  readonly messageId: string | null;
  /** Header names in lower case; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  /** The whole message as received. */
  readonly raw: string;
}

interface Part {
  readonly headers: Record<string, string>;
  readonly body: string; // latin1: one char per byte
}

/** Parses a raw message (Buffer, or a string holding it). */
export function parseMail(input: Buffer | string, envelopeTo?: string[]): ParsedMail {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  const part = splitPart(bytes.toString('latin1'));
  const headers = Object.fromEntries(Object.entries(part.headers).map(([k, v]) => [k, decodeWords(v)]));
  const found: { text: string | null; html: string | null } = { text: null, html: null };
  collectBodies(part, found);
  const text = found.text ?? (found.html !== null ? htmlToText(found.html) : '');
  return {
    to: envelopeTo ?? [...addresses(headers['to'] ?? ''), ...addresses(headers['cc'] ?? '')],
    from: addresses(headers['from'] ?? '')[0] ?? null,
    subject: headers['subject'] ?? '',
    text,
    html: found.html,
    messageId: headers['message-id'] ?? null,
    headers,
    raw: bytes.toString('utf8'),
  };
}

/** The first run of `digits` digits standing alone in the text (a login or invitation code). */
export function extractCode(text: string, digits = 6): string | null {
  return new RegExp(`(?<!\\d)\\d{${digits}}(?!\\d)`).exec(text)?.[0] ?? null;
}

function splitPart(raw: string): Part {
  const match = /\r?\n\r?\n/.exec(raw);
  const head = match ? raw.slice(0, match.index) : raw;
  const body = match ? raw.slice(match.index + match[0].length) : '';
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] !== undefined ? `${headers[name]}, ${value}` : value;
  }
  return { headers, body };
}

function collectBodies(part: Part, found: { text: string | null; html: string | null }): void {
  const { type, params } = parseContentType(part.headers['content-type'] ?? 'text/plain');
  if (type.startsWith('multipart/') && params['boundary']) {
    for (const child of splitMultipart(part.body, params['boundary'])) collectBodies(splitPart(child), found);
    return;
  }
  if ((part.headers['content-disposition'] ?? '').toLowerCase().startsWith('attachment')) return;
  if (type === 'text/plain' && found.text === null) found.text = decodeBody(part, params['charset']);
  else if (type === 'text/html' && found.html === null) found.html = decodeBody(part, params['charset']);
}

function splitMultipart(body: string, boundary: string): string[] {
  const parts: string[] = [];
  const delimiter = `--${boundary}`;
  const lines = body.split(/\r?\n/);
  let current: string[] | null = null;
  for (const line of lines) {
    const trimmed = line.trimEnd();
    if (trimmed === delimiter || trimmed === `${delimiter}--`) {
      if (current) parts.push(current.join('\r\n'));
      if (trimmed.endsWith('--') && trimmed !== delimiter) return parts;
      current = [];
    } else if (current) {
      current.push(line);
    }
  }
  if (current) parts.push(current.join('\r\n'));
  return parts;
}

function parseContentType(value: string): { type: string; params: Record<string, string> } {
  const [type = 'text/plain', ...rest] = value.split(';');
  const params: Record<string, string> = {};
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    params[p.slice(0, eq).trim().toLowerCase()] = p
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
  }
  return { type: type.trim().toLowerCase(), params };
}

function decodeBody(part: Part, charset = 'utf-8'): string {
  const encoding = (part.headers['content-transfer-encoding'] ?? '7bit').trim().toLowerCase();
  let bytes: Buffer;
  if (encoding === 'base64') bytes = Buffer.from(part.body.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64');
  else if (encoding === 'quoted-printable') bytes = decodeQuotedPrintable(part.body);
  else bytes = Buffer.from(part.body, 'latin1');
  return decodeCharset(bytes, charset).replace(/\r\n/g, '\n').replace(/\n$/, '');
}

function decodeQuotedPrintable(text: string): Buffer {
  // Trailing blanks before a hard line break were added in transit (RFC 2045 6.7 rule 3);
  // blanks before a soft line break ("=" at the end) are content.
  const soft = text.replace(/[ \t]+(?=\r?\n)/g, '').replace(/=\r?\n/g, '');
  const out: number[] = [];
  for (let i = 0; i < soft.length; i++) {
    const c = soft[i];
    if (c === '=' && /^[0-9A-Fa-f]{2}$/.test(soft.slice(i + 1, i + 3))) {
      out.push(parseInt(soft.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      out.push(c.charCodeAt(0) & 0xff);
    }
  }
  return Buffer.from(out);
}

function decodeCharset(bytes: Buffer, charset: string): string {
  try {
    return new TextDecoder(charset.toLowerCase()).decode(bytes);
  } catch {
    return bytes.toString('utf8');
  }
}

/** RFC 2047 encoded words (adjacent ones joined), then the latin1 carrier read as UTF-8. */
function decodeWords(value: string): string {
  const joined = value.replace(/(=\?[^?]+\?[bBqQ]\?[^?]*\?=)\s+(?==\?[^?]+\?[bBqQ]\?[^?]*\?=)/g, '$1');
  const decoded = joined.replace(/=\?([^?*]+)(?:\*[^?]*)?\?([bBqQ])\?([^?]*)\?=/g, (_m, charset: string, enc: string, data: string) => {
    const bytes = enc.toUpperCase() === 'B' ? Buffer.from(data, 'base64') : decodeQuotedPrintable(data.replace(/_/g, ' '));
    // Re-encode to latin1 so the final UTF-8 pass below leaves it intact.
    return Buffer.from(decodeCharset(bytes, charset), 'utf8').toString('latin1');
  });
  return Buffer.from(decoded, 'latin1').toString('utf8');
}

function addresses(value: string): string[] {
  // Split at top-level commas (not inside "quoted names" or <angle brackets>).
  const entries: string[] = [];
  let current = '';
  let quoted = false;
  let angled = false;
  for (const c of value) {
    if (c === '"' && !angled) quoted = !quoted;
    else if (c === '<' && !quoted) angled = true;
    else if (c === '>' && !quoted) angled = false;
    if (c === ',' && !quoted && !angled) {
      entries.push(current);
      current = '';
    } else current += c;
  }
  entries.push(current);
  const out: string[] = [];
  for (const entry of entries) {
    const address =
      /<([^<>\s]+@[^<>\s]+)>/.exec(entry)?.[1] ??
      entry
        .replace(/"[^"]*"/g, '')
        .replace(/^[^:]*:/, '')
        .replace(/;$/, '')
        .trim();
    if (address.includes('@')) out.push(address);
  }
  return out;
}

function htmlToText(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, '')
    .replace(/<br\s*\/?>|<\/p>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .trim();
}
