/**
 * The colours of every page the service serves (the console, /health, /docs, the login and
 * token pages), by role, written once: the gateway's stylesheets start with PALETTE_CSS, the
 * console's stylesheet imports the same block (generated at build into
 * console/src/palette.gen.css). Text colours keep 4.5:1 against `paper` and `wash`.
 */
export const PALETTE = {
  /** Text. */
  ink: '#1b2027',
  /** Secondary text (hints, captions). */
  muted: '#56606b',
  /** Rules and borders. */
  line: '#d5dae0',
  /** Panels, tables, the pages' own background. */
  paper: '#ffffff',
  /** The console's background behind panels. */
  wash: '#f4f6f8',
  /** Links and primary buttons. */
  accent: '#0a58a8',
  /** Text on `accent`. */
  'accent-ink': '#ffffff',
  /** Errors and destructive actions. */
  danger: '#a3000e',
  /** Success and "up". */
  ok: '#16672f',
} as const;

/** PALETTE as CSS custom properties (`var(--ink)`). */
export const PALETTE_CSS = `:root {\n${Object.entries(PALETTE)
  .map(([role, colour]) => `  --${role}: ${colour};\n`)
  .join('')}}\n`;
