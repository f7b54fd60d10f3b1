/**
 * The operator files (docker-compose.yml, deploy/Dockerfile, README.md, docs/) checked
 * against the code, since nothing here can run them (no Docker engine, no cluster):
 *
 * - every app a manifest runs exists (apps/<app>/src/main.ts, `npm run start:<app>`), and
 *   every container command points at a dist/ file whose TypeScript source exists;
 * - every environment variable a manifest sets is one the code reads
 *   (libs/infra/src/config/config.ts, or a standard OTEL_* / NODE_* variable), the values
 *   pass loadConfig, and each app gets what its entry point asserts at start
 *   (assertDistributedConfig in apps/<app>/src/main.ts or libs/platform/src/run-app.ts);
 * - the gateway publishes PORT (k8s/ is rendered and checked by k8s-manifests.medium-spec.ts);
 * - every server image of docker-compose.yml is pinned to one release (no `latest`, no bare
 *   major); deploy/Dockerfile.dockerignore lets in what the Dockerfile copies and only paths
 *   that exist;
 * - libs/infra/src/config/variables.ts lists exactly the variables config.ts reads, with the
 *   defaults loadConfig applies; the table of docs/configuration.md lists the same ones in the
 *   same order with the same defaults; every `npm run <script>` that README.md or docs/*.md
 *   shows exists.
 *
 * No YAML parser is installed: the manifests keep to a small YAML subset read by
 * `parseYamlDocuments` below, which refuses anything outside it (so the subset cannot
 * silently be misread). The checks are plain functions returning problems; the last tests
 * feed them deliberately broken fixtures to show that each kind of mistake is reported.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { APP_NAMES } from '../../libs/contracts/src/apps.js';
import { assertDistributedConfig, loadConfig, SECRET_VARIABLES, type ServiceConfig } from '../../libs/infra/src/config/config.js';
import { compareVersions } from '../../libs/infra/src/runtime/supported-node.js';
import { CONFIG_VARIABLES, type ConfigVariable } from '../../libs/infra/src/config/variables.js';

const ROOT = resolve(process.cwd());

// ---------------------------------------------------------------------------------------------
// A reader for the YAML subset the manifests use.
//
// Supported: `---` document separators; block mappings (`key: value`, plain or quoted keys);
// block sequences (`- value`, `- key: value` starting a mapping item); comments; scalars that
// are plain, "double-quoted" (JSON escapes) or 'single-quoted'; flow collections written as
// JSON (`["a", "b"]`, `{}`); anchors on block values (`key: &name` + indented block), aliases
// (`*name`) and merge keys (`<<: *name`). Plain true/false, null/~ and numbers are typed.
// Refused: block scalars (| >), tags, multi-line plain scalars, tabs, YAML 1.1 booleans
// (yes/no/on/off, which YAML 1.1 and 1.2 readers disagree on), anything mis-indented.

export type Yaml = null | boolean | number | string | Yaml[] | { [key: string]: Yaml };
type YamlMap = { [key: string]: Yaml };

interface Line {
  readonly indent: number;
  readonly text: string;
  readonly no: number;
}

const MAP_ENTRY = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s"'#\-[\]{},&*!|>%@`][^:]*?|-[^\s:][^:]*?)\s*:(?:[ ]+(.*))?$/;

function stripComment(raw: string): string {
  let quote: string | null = null;
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i];
    if (quote) {
      if (quote === '"' && ch === '\\') i++;
      else if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") {
      // a quote only opens a quoted scalar at the start of a token
      if (i === 0 || /[\s:[{,-]/.test(raw[i - 1])) quote = ch;
    } else if (ch === '#' && (i === 0 || /\s/.test(raw[i - 1]))) {
      return raw.slice(0, i).trimEnd();
    }
  }
  return raw.trimEnd();
}

class YamlReader {
  private pos = 0;
  private readonly anchors = new Map<string, Yaml>();

  constructor(
    private readonly lines: Line[],
    private readonly file: string,
  ) {}

  read(): Yaml {
    if (this.lines.length === 0) return null;
    const first = this.lines[0];
    if (first.indent !== 0) this.fail(first, 'a document must start at column 0');
    const value = this.block(first.indent);
    if (this.pos < this.lines.length) this.fail(this.lines[this.pos], 'unexpected content');
    return value;
  }

  private fail(line: Line | undefined, message: string): never {
    throw new Error(`${this.file}:${line?.no ?? '?'}: ${message}`);
  }

  private block(indent: number): Yaml {
    const line = this.lines[this.pos];
    if (isSequenceItem(line.text)) return this.sequence(indent);
    if (MAP_ENTRY.test(line.text)) return this.mapping(indent);
    this.fail(line, `a mapping entry or sequence item was expected, found "${line.text}"`);
  }

  private sequence(indent: number): Yaml[] {
    const items: Yaml[] = [];
    while (this.pos < this.lines.length) {
      const line = this.lines[this.pos];
      if (line.indent < indent) break;
      if (line.indent > indent) this.fail(line, 'unexpected indentation');
      if (!isSequenceItem(line.text)) break;
      const marker = /^-( +|$)/.exec(line.text)![0];
      const rest = line.text.slice(marker.length);
      const column = indent + marker.length;
      if (rest === '') {
        this.pos++;
        items.push(this.nested(indent));
      } else if (isSequenceItem(rest) || MAP_ENTRY.test(rest)) {
        // `- key: value` / `- - x`: the rest of the line starts a block at its own column
        this.lines[this.pos] = { indent: column, text: rest, no: line.no };
        items.push(this.block(column));
      } else {
        this.pos++;
        items.push(this.scalar(rest, line));
      }
    }
    return items;
  }

  private mapping(indent: number): YamlMap {
    const map: YamlMap = {};
    const merges: YamlMap[] = [];
    while (this.pos < this.lines.length) {
      const line = this.lines[this.pos];
      if (line.indent < indent) break;
      if (line.indent > indent) this.fail(line, 'unexpected indentation');
      if (isSequenceItem(line.text)) break;
      const match = MAP_ENTRY.exec(line.text);
      if (!match) this.fail(line, `"${line.text}" is not a mapping entry`);
      const key = unquoteKey(match[1], () => this.fail(line, 'bad quoted key'));
      const rest = match[2] ?? '';
      this.pos++;
      let value: Yaml;
      const anchor = /^&([\w.-]+)$/.exec(rest);
      if (rest === '' || anchor) {
        const next = this.lines[this.pos];
        if (next && next.indent > indent) value = this.block(next.indent);
        else if (next && next.indent === indent && isSequenceItem(next.text)) value = this.sequence(indent);
        else if (anchor) this.fail(line, 'an anchor needs a block value');
        else value = null;
        if (anchor) this.anchors.set(anchor[1], value);
      } else {
        value = this.scalar(rest, line);
      }
      if (key === '<<') {
        if (!isMap(value)) this.fail(line, 'a merge key needs a mapping alias');
        merges.push(value);
      } else {
        if (Object.prototype.hasOwnProperty.call(map, key)) this.fail(line, `duplicate key "${key}"`);
        map[key] = value;
      }
    }
    for (const merged of merges) for (const [key, value] of Object.entries(merged)) if (!(key in map)) map[key] = value;
    return map;
  }

  private nested(parentIndent: number): Yaml {
    const next = this.lines[this.pos];
    return next && next.indent > parentIndent ? this.block(next.indent) : null;
  }

  private scalar(text: string, line: Line): Yaml {
    const alias = /^\*([\w.-]+)$/.exec(text);
    if (alias) {
      if (!this.anchors.has(alias[1])) this.fail(line, `unknown alias *${alias[1]}`);
      return structuredClone(this.anchors.get(alias[1])!);
    }
    if (text.startsWith('[') || text.startsWith('{') || text.startsWith('"')) {
      try {
        return JSON.parse(text) as Yaml;
      } catch {
        this.fail(line, `flow collections and double-quoted scalars must be valid JSON: ${text}`);
      }
    }
    if (text.startsWith("'")) {
      if (!/^'(?:[^']|'')*'$/.test(text)) this.fail(line, `bad single-quoted scalar: ${text}`);
      return text.slice(1, -1).replace(/''/g, "'");
    }
    if (/^[&!|>%@`]/.test(text)) this.fail(line, `unsupported YAML: ${text}`);
    if (/:(\s|$)/.test(text)) this.fail(line, `a plain scalar may not contain ": " (quote it): ${text}`);
    if (/^(y|n|yes|no|on|off)$/i.test(text)) this.fail(line, `quote "${text}": YAML 1.1 reads it as a boolean`);
    if (text === 'true' || text === 'false') return text === 'true';
    if (text === 'null' || text === '~') return null;
    if (/^-?(0|[1-9]\d*)(\.\d+)?$/.test(text)) return Number(text);
    return text;
  }
}

function isSequenceItem(text: string): boolean {
  return text === '-' || text.startsWith('- ');
}

function unquoteKey(key: string, fail: () => never): string {
  if (key.startsWith('"')) {
    try {
      return JSON.parse(key) as string;
    } catch {
      fail();
    }
  }
  if (key.startsWith("'")) return key.slice(1, -1).replace(/''/g, "'");
  return key;
}

export function parseYamlDocuments(text: string, file = '<yaml>'): Yaml[] {
  const documents: Line[][] = [[]];
  text.split(/\r?\n/).forEach((raw, index) => {
    const no = index + 1;
    if (/^---\s*$/.test(raw)) {
      documents.push([]);
      return;
    }
    const indentation = /^[ \t]*/.exec(raw)![0];
    if (indentation.includes('\t') && raw.trim() !== '') throw new Error(`${file}:${no}: tabs are not allowed in indentation`);
    const content = stripComment(raw);
    if (content.trim() === '') return;
    documents[documents.length - 1].push({ indent: indentation.length, text: content.slice(indentation.length), no });
  });
  return documents.filter((lines) => lines.length > 0).map((lines) => new YamlReader(lines, file).read());
}

function isMap(value: Yaml | undefined): value is YamlMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function map(value: Yaml | undefined): YamlMap {
  return isMap(value) ? value : {};
}

function list(value: Yaml | undefined): Yaml[] {
  return Array.isArray(value) ? value : [];
}

function text(value: Yaml | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

// ---------------------------------------------------------------------------------------------
// What the code says.

type Needs = Parameters<typeof assertDistributedConfig>[1];

export interface CodeFacts {
  readonly appNames: readonly string[];
  readonly npmScripts: Readonly<Record<string, string>>;
  /** Environment variables libs/infra/src/config/config.ts reads. */
  readonly configVariables: ReadonlySet<string>;
  /** The documented list, libs/infra/src/config/variables.ts. */
  readonly documentedVariables: readonly ConfigVariable[];
  readonly defaultPort: number;
  /** The Node.js the project runs on: package.json's engines and pinned `node`, and the entry points' minimum. */
  readonly runtime: { readonly engines: string; readonly pinned: string; readonly minimum: string };
  exists(path: string): boolean;
  /** What the entry point (a source path) asserts at start; null when it cannot be told. */
  needsOf(entry: string): Needs | null;
}

function readRepoFile(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8');
}

function parseNeeds(source: string): Needs | null {
  const call = /assertDistributedConfig\(\s*config\s*,\s*\{([^}]*)\}\s*\)/.exec(source);
  if (!call) return null;
  const needs: Record<string, boolean> = {};
  for (const [, key] of call[1].matchAll(/(\w+)\s*:\s*true/g)) needs[key] = true;
  return needs;
}

export function codeFacts(): CodeFacts {
  const config = readRepoFile('libs/infra/src/config/config.ts');
  const configVariables = new Set<string>();
  for (const pattern of [
    /\b(?:integer|optional|bool|httpUrl|secret)\(env,\s*'([A-Z][A-Z0-9_]*)'/g,
    /\benv\.([A-Z][A-Z0-9_]*)\b/g,
    /\benv\[['"]([A-Z][A-Z0-9_]*)['"]\]/g,
  ]) {
    for (const [, name] of config.matchAll(pattern)) configVariables.add(name);
  }
  const port = /integer\(env,\s*'PORT',\s*(\d+)/.exec(config);
  const pkg = JSON.parse(readRepoFile('package.json')) as {
    scripts: Record<string, string>;
    engines: { node: string };
    devDependencies: Record<string, string>;
  };
  const minimum = /MINIMUM_NODE_VERSION = '([\d.]+)'/.exec(readRepoFile('libs/infra/src/runtime/supported-node.ts'))?.[1] ?? '';
  return {
    appNames: APP_NAMES,
    npmScripts: pkg.scripts,
    configVariables,
    documentedVariables: CONFIG_VARIABLES,
    defaultPort: port ? Number(port[1]) : NaN,
    runtime: { engines: pkg.engines.node, pinned: pkg.devDependencies.node ?? '', minimum },
    exists: (path) => existsSync(join(ROOT, path)),
    needsOf(entry) {
      if (!existsSync(join(ROOT, entry))) return null;
      const source = readRepoFile(entry);
      const own = parseNeeds(source);
      if (own) return own;
      if (/\brunDistributedApp\(/.test(source)) return parseNeeds(readRepoFile('libs/platform/src/run-app.ts'));
      return null;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Checks shared by compose and Kubernetes.

/** The app a container runs, from its command: `node [flags] dist/apps/<app>/src/main.js [args]`. */
interface Entry {
  readonly app: string;
  readonly source: string;
  readonly args: readonly string[];
}

function checkCommand(where: string, command: Yaml[], facts: CodeFacts, problems: string[]): Entry | null {
  if (command.length === 0 || command.some((part) => typeof part !== 'string')) {
    problems.push(`${where}: the command must be a list of strings`);
    return null;
  }
  const parts = command as string[];
  if (parts[0] !== 'node') problems.push(`${where}: the command must start with node, not ${parts[0]}`);
  const at = parts.findIndex((part) => /^dist\/.+\.js$/.test(part));
  if (at === -1) {
    problems.push(`${where}: the command names no dist/**/*.js file`);
    return null;
  }
  const dist = parts[at];
  const source = dist.replace(/^dist\//, '').replace(/\.js$/, '.ts');
  if (!facts.exists(source)) problems.push(`${where}: ${dist} is built from ${source}, which does not exist`);
  const app = /^apps\/([^/]+)\/src\/main\.ts$/.exec(source)?.[1];
  if (!app) {
    problems.push(`${where}: ${dist} is not an app entry point (dist/apps/<app>/src/main.js)`);
    return null;
  }
  if (app === 'cli') {
    if (!Object.values(facts.npmScripts).some((script) => script.includes(dist))) problems.push(`${where}: no npm script runs ${dist}`);
  } else {
    if (!facts.appNames.includes(app)) problems.push(`${where}: "${app}" is not one of the apps (${facts.appNames.join(', ')})`);
    const script = facts.npmScripts[`start:${app}`];
    if (!script) problems.push(`${where}: package.json has no "start:${app}" script`);
    else if (!script.includes(dist)) problems.push(`${where}: "npm run start:${app}" runs something else than ${dist}`);
  }
  const entry = { app, source, args: parts.slice(at + 1) };
  const role = roleOf(entry);
  if (role !== null && app !== 'cli') {
    const script = facts.npmScripts[`start:${app}-${role}`];
    if (!script || !script.includes(`${dist} --role=${role}`)) problems.push(`${where}: no "start:${app}-${role}" script runs ${dist} --role=${role}`);
  }
  return entry;
}

/** An app started with `--role=<role>` (e.g. the firmware app's update check alone) runs as `<app>-<role>`. */
function roleOf(entry: Entry): string | null {
  return entry.args.find((arg) => arg.startsWith('--role='))?.slice('--role='.length) ?? null;
}

function runsAs(entry: Entry): string {
  const role = roleOf(entry);
  return role === null ? entry.app : `${entry.app}-${role}`;
}

/** What an entry needs: its own assertion; the operator CLI always needs the real database. */
function needsOf(entry: Entry, facts: CodeFacts): Needs | null {
  const asserted = facts.needsOf(entry.source);
  if (entry.app === 'cli') return { ...(asserted ?? {}), database: true };
  return asserted;
}

function checkEnvironment(where: string, entry: Entry, env: Record<string, Yaml>, facts: CodeFacts, problems: string[]): ServiceConfig | null {
  const strings: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    const secretFile = (SECRET_VARIABLES as readonly string[]).some((secret) => name === `${secret}_FILE`);
    if (!facts.configVariables.has(name) && !secretFile && !/^(OTEL|NODE)_/.test(name)) {
      problems.push(`${where}: ${name} is not read by libs/infra/src/config/config.ts`);
    }
    if (typeof value !== 'string') problems.push(`${where}: the value of ${name} must be a string`);
    else strings[name] = value;
  }
  let config: ServiceConfig;
  try {
    config = loadConfig(strings);
  } catch (err) {
    problems.push(`${where}: ${err instanceof Error ? err.message : String(err)}`);
    return null;
  }
  const needs = needsOf(entry, facts);
  if (!needs) {
    problems.push(`${where}: cannot tell from ${entry.source} which variables it needs (no assertDistributedConfig)`);
    return config;
  }
  try {
    assertDistributedConfig(config, needs);
  } catch (err) {
    problems.push(`${where}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (needs.s3 && !('S3_ENDPOINT' in strings)) problems.push(`${where}: S3_ENDPOINT is not set (set it empty for AWS S3)`);
  return config;
}

// ---------------------------------------------------------------------------------------------
// docker-compose.yml

const URL_VARIABLES = ['DATABASE_URL', 'NATS_URL', 'REDIS_URL', 'S3_ENDPOINT', 'SMTP_URL'];

/**
 * Why a server's image is not pinned to one release, or null when it is: a digest, or a tag
 * of at least major.minor (`15.19`, `v1.31.1`). No tag (which means `latest`), `latest`, and
 * a bare major (`15`, `v1`) move under the file without anyone changing it.
 */
export function unpinnedImage(image: string | undefined): string | null {
  if (!image) return 'names no image';
  if (/@sha256:[0-9a-f]{64}$/.test(image)) return null;
  const tag = /:([^/:@]+)$/.exec(image)?.[1];
  if (!tag) return `image ${image} has no tag (that is latest): pin one release`;
  if (!/^v?\d+\.\d+/.test(tag)) return `image ${image} is not pinned to one release (a tag of at least major.minor, not latest or a bare major)`;
  return null;
}

export function checkCompose(compose: Yaml, facts: CodeFacts, file = 'docker-compose.yml'): string[] {
  const problems: string[] = [];
  const services = map(map(compose).services);
  if (Object.keys(services).length === 0) return [`${file}: no services`];
  const appImages = new Set<string>();
  for (const service of Object.values(services)) {
    const build = map(map(service).build);
    if (text(build.dockerfile) !== undefined) {
      if (!facts.exists(text(build.dockerfile)!)) problems.push(`${file}: ${text(build.dockerfile)} does not exist`);
      if (text(map(service).image)) appImages.add(text(map(service).image)!);
    }
  }
  const running = new Set<string>();
  for (const [name, value] of Object.entries(services)) {
    const service = map(value);
    const where = `${file} services.${name}`;
    const image = text(service.image);
    if (!(isMap(service.build) || (image !== undefined && appImages.has(image)))) {
      // a server, not ours: pinned, so the file means the same tomorrow
      const unpinned = unpinnedImage(image);
      if (unpinned) problems.push(`${where}: ${unpinned}`);
      continue;
    }
    const command = [...list(service.entrypoint), ...list(service.command)];
    const entry = checkCommand(where, command, facts, problems);
    if (!entry) continue;
    if (entry.app === 'cli') {
      if (name !== 'migrate' && name !== 'cli') problems.push(`${where}: runs the operator CLI, so it should be called migrate or cli`);
      if (name === 'migrate' && entry.args[0] !== 'migrate') problems.push(`${where}: should run "migrate"`);
    } else {
      running.add(entry.app);
      if (name !== runsAs(entry)) problems.push(`${where}: runs the ${entry.app} app, so it should be called ${runsAs(entry)}`);
      const migrate = map(map(service.depends_on).migrate);
      if (text(migrate.condition) !== 'service_completed_successfully')
        problems.push(`${where}: should depend on migrate (condition service_completed_successfully)`);
    }
    const rawEnv = service.environment;
    const env: Record<string, Yaml> = Array.isArray(rawEnv) ? Object.fromEntries(rawEnv.map((item) => String(item).split(/=(.*)/s).slice(0, 2))) : map(rawEnv);
    const config = checkEnvironment(where, entry, env, facts, problems);
    for (const variable of URL_VARIABLES) {
      const value = text(env[variable]);
      if (!value) continue;
      for (const url of value.split(',')) {
        let host: string;
        try {
          host = new URL(url.trim()).hostname;
        } catch {
          problems.push(`${where}: ${variable} is not a URL: ${url}`);
          continue;
        }
        if (!(host in services)) problems.push(`${where}: ${variable} points at "${host}", which is not a service of this file`);
      }
    }
    if (entry.app === 'gateway' && config) {
      const published = list(service.ports).map((port) => String(port).split(':').pop());
      if (!published.includes(String(config.port)))
        problems.push(`${where}: publishes ${published.join(', ') || 'no port'} but listens on PORT ${config.port}`);
    }
  }
  for (const app of facts.appNames) if (!running.has(app)) problems.push(`${file}: no service runs the ${app} app`);
  return problems;
}

// ---------------------------------------------------------------------------------------------
// The Node.js runtime: one version everywhere

/** package.json's engines, the pinned `node` devDependency and the entry points' check agree. */
export function checkRuntime(runtime: CodeFacts['runtime']): string[] {
  const problems: string[] = [];
  if (runtime.engines !== `>=${runtime.minimum}`) {
    problems.push(`package.json: engines.node is ${runtime.engines}, the entry points refuse Node.js older than ${runtime.minimum}`);
  }
  if (!/^\d+\.\d+\.\d+$/.test(runtime.pinned))
    problems.push(`package.json: devDependencies.node must pin one exact version, not ${runtime.pinned || '(none)'}`);
  else if (compareVersions(runtime.pinned, runtime.minimum) < 0)
    problems.push(`package.json: the pinned node ${runtime.pinned} is older than the supported minimum ${runtime.minimum}`);
  return problems;
}

// ---------------------------------------------------------------------------------------------
// libs/infra/src/config/variables.ts, docs/configuration.md, README.md + docs/*.md, deploy/Dockerfile

/** Does `name` (a variable or the `OTEL_*` group) cover the variable config.ts reads? */
function covers(name: string, variable: string): boolean {
  return name === variable || (name === 'OTEL_*' && variable.startsWith('OTEL_'));
}

/** The structured list of variables against what config.ts reads, both ways. */
export function checkVariableList(facts: CodeFacts): string[] {
  const problems: string[] = [];
  const listed = facts.documentedVariables.map((v) => v.name);
  for (const variable of facts.configVariables) {
    if (!listed.some((name) => covers(name, variable))) problems.push(`variables.ts: does not list ${variable}, which config.ts reads`);
  }
  for (const name of listed) {
    if (name !== 'OTEL_*' && !facts.configVariables.has(name)) problems.push(`variables.ts: lists ${name}, which config.ts does not read`);
    if (listed.indexOf(name) !== listed.lastIndexOf(name)) problems.push(`variables.ts: lists ${name} twice`);
  }
  for (const variable of facts.documentedVariables) {
    if (!variable.default.trim() || !variable.meaning.trim()) problems.push(`variables.ts: ${variable.name} needs a default and a meaning`);
  }
  return [...new Set(problems)];
}

/**
 * The defaults variables.ts states, against loadConfig: setting a variable to its stated
 * default must change nothing. Defaults that are not a literal value ("unset...", ones naming
 * another variable or a placeholder) are skipped. S3_BUCKET is set so the S3_* defaults apply.
 */
export function checkVariableDefaults(facts: CodeFacts): string[] {
  const problems: string[] = [];
  const base = { S3_BUCKET: 'bucket' };
  const expected = JSON.stringify(loadConfig(base));
  for (const variable of facts.documentedVariables) {
    const literal = variable.default.split(' ')[0];
    if (literal === 'unset' || literal.startsWith('unset:') || /[$<]/.test(literal) || variable.name.endsWith('*')) continue;
    let actual: string;
    try {
      actual = JSON.stringify(loadConfig({ ...base, [variable.name]: literal }));
    } catch (err) {
      problems.push(`variables.ts: the default of ${variable.name}, "${literal}", is refused: ${err instanceof Error ? err.message : String(err)}`);
      continue;
    }
    if (actual !== expected) problems.push(`variables.ts: ${variable.name} does not default to "${literal}" in config.ts`);
  }
  return problems;
}

/** The table of docs/configuration.md (`| \`NAME\` | default | meaning |`) against the list. */
export function checkConfigurationDoc(doc: string, facts: CodeFacts, file = 'docs/configuration.md'): string[] {
  const problems: string[] = [];
  const rows = [...doc.matchAll(/^\| `([A-Z][A-Z0-9_]*\*?)` \| ([^|]*) \|/gm)].map((m) => ({ name: m[1], default: m[2].replace(/`/g, '').trim() }));
  if (rows.length === 0) return [`${file}: no configuration table`];
  const listed = facts.documentedVariables;
  for (const variable of listed) {
    const row = rows.find((r) => r.name === variable.name);
    if (!row) problems.push(`${file}: the configuration table does not list ${variable.name}`);
    else if (row.default !== variable.default)
      problems.push(`${file}: ${variable.name} defaults to "${row.default}" in the table but "${variable.default}" in variables.ts`);
  }
  for (const row of rows) {
    if (!listed.some((v) => v.name === row.name)) problems.push(`${file}: the configuration table lists ${row.name}, which variables.ts does not`);
  }
  const order = rows.map((r) => r.name).filter((name) => listed.some((v) => v.name === name));
  const expected = listed.map((v) => v.name).filter((name) => order.includes(name));
  if (order.join() !== expected.join()) problems.push(`${file}: the configuration table is not in the order of variables.ts`);
  return problems;
}

/** Every `npm run <script>` a document shows is a script of package.json. */
export function checkNpmScripts(text: string, facts: CodeFacts, file: string): string[] {
  const problems: string[] = [];
  for (const [, script, placeholder] of text.matchAll(/npm run (?:-[\w-]+ )*([\w:][\w:-]*)(<)?/g)) {
    if (!placeholder && !(script in facts.npmScripts)) problems.push(`${file}: "npm run ${script}" is not a script in package.json`);
  }
  return problems;
}

export function checkDockerfile(dockerfile: string, facts: CodeFacts): string[] {
  const problems: string[] = [];
  const image = (/^ARG NODE_IMAGE=node:(\S+)/m.exec(dockerfile) ?? /^FROM node:(\S+)/m.exec(dockerfile))?.[1];
  const imageNode = image?.split('-')[0];
  if (imageNode !== facts.runtime.pinned) {
    problems.push(
      `deploy/Dockerfile: the base image runs Node.js ${imageNode ?? '(none)'}, the project pins ${facts.runtime.pinned} (package.json devDependencies.node)`,
    );
  }
  if (!/RUN node scripts\/build\.mjs/.test(dockerfile)) problems.push('deploy/Dockerfile: does not build with scripts/build.mjs');
  if (!facts.exists('scripts/build.mjs')) problems.push('deploy/Dockerfile: scripts/build.mjs does not exist');
  if (!/npm ci --omit=dev/.test(dockerfile)) problems.push('deploy/Dockerfile: the runtime stage should install production dependencies only');
  for (const [, script] of dockerfile.matchAll(/RUN bash (\S+\.sh)/g)) {
    if (!facts.exists(script)) problems.push(`deploy/Dockerfile: runs ${script}, which does not exist`);
  }
  const user = [...dockerfile.matchAll(/^USER (\S+)/gm)].pop()?.[1];
  if (!user || user === 'root' || user === '0') problems.push('deploy/Dockerfile: the final stage must run as a non-root USER');
  const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
  if (!cmd) problems.push('deploy/Dockerfile: no CMD');
  else {
    const dist = (JSON.parse(cmd) as string[]).find((part) => part.startsWith('dist/'));
    if (!dist || !facts.exists(dist.replace(/^dist\//, '').replace(/\.js$/, '.ts')))
      problems.push(`deploy/Dockerfile: CMD runs ${dist}, whose source does not exist`);
  }
  return problems;
}

/**
 * deploy/Dockerfile.dockerignore against the tree and the Dockerfile: every path it lets in
 * (`!path`) exists, and every path the Dockerfile copies from the build context is let in.
 */
export function checkDockerignore(ignore: string, dockerfile: string, facts: CodeFacts): string[] {
  const problems: string[] = [];
  const letIn = ignore
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('!'))
    .map((line) => line.slice(1).replace(/\/\*\*$/, ''));
  for (const path of letIn) {
    if (!/[*?[]/.test(path) && !facts.exists(path)) problems.push(`deploy/Dockerfile.dockerignore: lets in ${path}, which does not exist`);
  }
  for (const [, sources] of dockerfile.matchAll(/^COPY (?!--)(.+) \S+$/gm)) {
    for (const source of sources.trim().split(/\s+/)) {
      if (!letIn.some((path) => path === source || path.startsWith(`${source}/`)))
        problems.push(`deploy/Dockerfile: copies ${source}, which deploy/Dockerfile.dockerignore leaves out of the build context`);
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------

describe('operator files against the code', () => {
  const facts = codeFacts();

  it('reads the facts it checks against from the code', () => {
    for (const variable of ['PORT', 'DATABASE_URL', 'NATS_URL', 'REDIS_URL', 'S3_BUCKET', 'S3_ENDPOINT', 'DOWNLOAD_LINK_SECRET']) {
      expect(facts.configVariables.has(variable)).toBe(true);
    }
    expect(facts.defaultPort).toBe(8080);
    // the gateway owns no tables; backend apps (runDistributedApp) need every server
    expect(facts.needsOf('apps/gateway/src/main.ts')).toMatchObject({ nats: true, downloadSecret: true });
    expect(facts.needsOf('apps/gateway/src/main.ts')?.database).toBeUndefined();
    expect(facts.needsOf('apps/logdata/src/main.ts')).toMatchObject({ database: true, nats: true, redis: true });
  });

  it('docker-compose.yml runs every app, each with the command and configuration the code expects', () => {
    const [compose] = parseYamlDocuments(readRepoFile('docker-compose.yml'), 'docker-compose.yml');
    expect(checkCompose(compose, facts)).toEqual([]);
  });

  it('deploy/Dockerfile builds dist/ on the pinned Node.js and runs as a non-root user', () => {
    expect(checkDockerfile(readRepoFile('deploy/Dockerfile'), facts)).toEqual([]);
  });

  it('deploy/Dockerfile.dockerignore lets in what the Dockerfile copies, and only paths that exist', () => {
    expect(checkDockerignore(readRepoFile('deploy/Dockerfile.dockerignore'), readRepoFile('deploy/Dockerfile'), facts)).toEqual([]);
  });

  it('one Node.js version: engines, the pinned node package and the entry points agree', () => {
    expect(facts.runtime.minimum).toMatch(/^\d+\.\d+\.\d+$/);
    expect(checkRuntime(facts.runtime)).toEqual([]);
  });

  it('variables.ts lists exactly the variables the code reads, and docs/configuration.md documents that list', () => {
    expect(checkVariableList(facts)).toEqual([]);
    expect(checkVariableDefaults(facts)).toEqual([]);
    expect(checkConfigurationDoc(readRepoFile('docs/configuration.md'), facts)).toEqual([]);
  });

  it('README.md and docs/*.md show only npm scripts that exist', () => {
    const documents = [
      'README.md',
      ...readdirSync(join(ROOT, 'docs'))
        .filter((name) => name.endsWith('.md'))
        .map((name) => `docs/${name}`),
    ];
    expect(documents.length).toBeGreaterThan(1);
    expect(documents.flatMap((file) => checkNpmScripts(readRepoFile(file), facts, file))).toEqual([]);
  });
});

describe('the checks report broken manifests', () => {
  const facts = codeFacts();

  it('runtime: engines, pin and entry-point minimum that disagree', () => {
    expect(checkRuntime({ engines: '>=20.19', pinned: '^24', minimum: '24.11.0' })).toEqual([
      'package.json: engines.node is >=20.19, the entry points refuse Node.js older than 24.11.0',
      'package.json: devDependencies.node must pin one exact version, not ^24',
    ]);
    expect(checkRuntime({ engines: '>=24.11.0', pinned: '24.10.0', minimum: '24.11.0' })).toEqual([
      'package.json: the pinned node 24.10.0 is older than the supported minimum 24.11.0',
    ]);
  });

  it('compose: server images not pinned to one release', () => {
    expect(
      ['postgres:15.19', 'nats:2.14.3', 'axllent/mailpit:v1.31.1', 'registry.example.com:5000/s3:4.47', `redis@sha256:${'a'.repeat(64)}`].map(unpinnedImage),
    ).toEqual([null, null, null, null, null]);
    expect(unpinnedImage('minio/minio')).toBe('image minio/minio has no tag (that is latest): pin one release');
    expect(unpinnedImage('registry.example.com:5000/minio')).toBe('image registry.example.com:5000/minio has no tag (that is latest): pin one release');
    for (const image of ['minio/minio:latest', 'postgres:15', 'axllent/mailpit:v1', 'redis:alpine'])
      expect(unpinnedImage(image)).toBe(`image ${image} is not pinned to one release (a tag of at least major.minor, not latest or a bare major)`);
  });

  it('compose: unknown app, missing source, unknown and missing variables, wrong host and port', () => {
    const [compose] = parseYamlDocuments(
      `
x-env: &env
  DATABASE_URL: "postgres://fds:fds@postgres:5432/fds"
  NATS_URL: "nats://natz:4222"
  REDIS_URL: "redis://redis:6379"
  S3_ENDPOINT: "http://minio:9000"
  S3_BUCKET: "fds"
  DOWNLOAD_LINK_SECRET: "x"
services:
  postgres:
    image: "postgres:15"
  redis:
    image: "redis:7"
  minio:
    image: "minio/minio"
  gateway:
    build:
      dockerfile: "deploy/Dockerfile"
    image: "fds"
    command: ["node", "dist/apps/gateway/src/main.js"]
    environment:
      <<: *env
      PORT: "8080"
    ports: ["9090:9090"]
    depends_on:
      migrate:
        condition: "service_completed_successfully"
  logdata:
    image: "fds"
    command: ["node", "dist/apps/logdata/src/main.js"]
    environment:
      NATS_URL: "nats://natz:4222"
      UNKNOWN_SETTING: "1"
  reporting:
    image: "fds"
    command: ["node", "dist/apps/reporting/src/main.js"]
    environment: *env
  logdata-archive:
    image: "fds"
    command: ["node", "dist/apps/logdata/src/main.js", "--role=archive"]
    environment: *env
`,
      'fixture.yml',
    );
    const problems = checkCompose(compose, facts, 'fixture.yml');
    const expected = [
      'fixture.yml services.gateway: NATS_URL points at "natz", which is not a service of this file',
      'fixture.yml services.gateway: publishes 9090 but listens on PORT 8080',
      'fixture.yml services.logdata: should depend on migrate (condition service_completed_successfully)',
      'fixture.yml services.logdata: UNKNOWN_SETTING is not read by libs/infra/src/config/config.ts',
      'fixture.yml services.logdata: running as a separate app needs DATABASE_URL, REDIS_URL, S3_BUCKET (and S3_ENDPOINT, S3_* credentials), DOWNLOAD_LINK_SECRET',
      'fixture.yml services.reporting: dist/apps/reporting/src/main.js is built from apps/reporting/src/main.ts, which does not exist',
      `fixture.yml services.reporting: "reporting" is not one of the apps (${facts.appNames.join(', ')})`,
      'fixture.yml services.reporting: package.json has no "start:reporting" script',
      'fixture.yml: no service runs the firmware app',
      'fixture.yml services.logdata-archive: no "start:logdata-archive" script runs dist/apps/logdata/src/main.js --role=archive',
      'fixture.yml services.postgres: image postgres:15 is not pinned to one release (a tag of at least major.minor, not latest or a bare major)',
      'fixture.yml services.minio: image minio/minio has no tag (that is latest): pin one release',
    ];
    for (const problem of expected) expect(problems).toContain(problem);
  });

  it('variables.ts: a variable config.ts reads but the list lacks, one it lists but nobody reads, wrong defaults', () => {
    const broken: CodeFacts = {
      ...facts,
      documentedVariables: [...facts.documentedVariables.filter((v) => v.name !== 'DATABASE_URL'), { name: 'TRUST_PROXY', default: 'unset', meaning: '' }],
    };
    expect(checkVariableList(broken)).toEqual([
      'variables.ts: does not list DATABASE_URL, which config.ts reads',
      'variables.ts: lists TRUST_PROXY, which config.ts does not read',
      'variables.ts: TRUST_PROXY needs a default and a meaning',
    ]);
    const wrongDefaults: CodeFacts = {
      ...facts,
      documentedVariables: facts.documentedVariables.map((v) =>
        v.name === 'PORT' ? { ...v, default: '80' } : v.name === 'LOG_LEVEL' ? { ...v, default: 'verbose' } : v,
      ),
    };
    expect(checkVariableDefaults(wrongDefaults)).toEqual([
      'variables.ts: PORT does not default to "80" in config.ts',
      'variables.ts: the default of LOG_LEVEL, "verbose", is refused: LOG_LEVEL must be debug, info, warn or error',
    ]);
  });

  it('docs, README and Dockerfile: undocumented variables, wrong defaults, unknown scripts, root user', () => {
    const doc =
      '# x\n\n| Variable | Default | Meaning |\n|---|---|---|\n| `DATA_DIR` | `./data` | dir |\n| `PORT` | `80` | port |\n| `TRUST_PROXY` | unset | ? |\n';
    const problems = checkConfigurationDoc(doc, facts);
    expect(problems).toContain('docs/configuration.md: the configuration table does not list DATABASE_URL');
    expect(problems).toContain('docs/configuration.md: PORT defaults to "80" in the table but "8080" in variables.ts');
    expect(problems).toContain('docs/configuration.md: the configuration table lists TRUST_PROXY, which variables.ts does not');
    expect(problems).toContain('docs/configuration.md: the configuration table is not in the order of variables.ts');
    expect(checkConfigurationDoc('# nothing\n', facts)).toEqual(['docs/configuration.md: no configuration table']);
    expect(checkNpmScripts('Run `npm run start:everything`, `npm run -s clix -- help` or `npm run start:<app>`.\n', facts, 'README.md')).toEqual([
      'README.md: "npm run start:everything" is not a script in package.json',
      'README.md: "npm run clix" is not a script in package.json',
    ]);
    expect(
      checkDockerignore(
        '**\n!package.json\n!deploy/npm-ci.sh\n!apps/**\n**/*.spec.ts\n',
        'COPY package.json .swcrc ./\nCOPY apps ./apps\nCOPY libs ./libs\nCOPY --from=build /app/dist ./dist\n',
        facts,
      ),
    ).toEqual([
      'deploy/Dockerfile.dockerignore: lets in deploy/npm-ci.sh, which does not exist',
      'deploy/Dockerfile: copies .swcrc, which deploy/Dockerfile.dockerignore leaves out of the build context',
      'deploy/Dockerfile: copies libs, which deploy/Dockerfile.dockerignore leaves out of the build context',
    ]);
    expect(checkDockerfile('FROM node:20\nRUN npm ci\nCMD ["node", "dist/apps/nothing/src/main.js"]\n', facts)).toEqual([
      `deploy/Dockerfile: the base image runs Node.js 20, the project pins ${facts.runtime.pinned} (package.json devDependencies.node)`,
      'deploy/Dockerfile: does not build with scripts/build.mjs',
      'deploy/Dockerfile: the runtime stage should install production dependencies only',
      'deploy/Dockerfile: the final stage must run as a non-root USER',
      'deploy/Dockerfile: CMD runs dist/apps/nothing/src/main.js, whose source does not exist',
    ]);
  });
});

describe('the YAML subset reader', () => {
  it('reads mappings, sequences, scalars, JSON flow, anchors, aliases and merge keys', () => {
    const docs = parseYamlDocuments(`
# comment
base: &base
  a: "1"  # trailing comment
  b: 'it''s'
  c: 3
top:
  <<: *base
  c: 4
  list:
    - plain value
    - key: v
      other: [1, "two"]
    -
      nested: true
  same-indent:
  - x
  - "#not a comment"
empty:
url: http://host:8080/a#b
---
second: null
`);
    expect(docs).toEqual([
      {
        base: { a: '1', b: "it's", c: 3 },
        top: { c: 4, list: ['plain value', { key: 'v', other: [1, 'two'] }, { nested: true }], 'same-indent': ['x', '#not a comment'], a: '1', b: "it's" },
        empty: null,
        url: 'http://host:8080/a#b',
      },
      { second: null },
    ]);
  });

  it('refuses what it does not support instead of misreading it', () => {
    const refused = [
      'a: |\n  text\n',
      'a: on\n',
      'a:\n\t- x\n',
      'a:\n  b: 1\n   c: 2\n',
      'a: b: c\n',
      'a: 1\na: 2\n',
      'a: *missing\n',
      'a: [unquoted, list]\n',
      'a: !!str x\n',
      'just a scalar\n',
    ];
    for (const source of refused) expect(() => parseYamlDocuments(source)).toThrow();
  });
});
