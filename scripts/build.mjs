// Compiles apps/, libs/, deploy/, test/, packages/ and tools/ TypeScript into dist/ with swc (no type check:
// `npm run typecheck` does that), then the console (scripts/build-console.mjs). Fast enough to
// run before every start.
import { transformFile } from '@swc/core';
import { mkdir, readdir, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const outDir = join(root, 'dist');
const sourceDirs = ['apps', 'libs', 'deploy', 'test', 'packages', 'tools'];
// .swcrc holds the transform settings; the path aliases come from tsconfig.json.
const { base, swcPaths } = createRequire(import.meta.url)('./path-aliases.cjs');
const aliasOptions = { jsc: { baseUrl: base, paths: swcPaths } };

async function* walk(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') && !/[.-]spec\.ts$/.test(entry.name)) yield path;
  }
}

// Each output is written to a temporary name and renamed, so several builds racing (e.g.
// `npm run start:<app>` for every app at once) never expose a half-written file.
async function writeAtomically(path, text) {
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, text);
  await rename(temp, path);
}
const jobs = [];
for (const dir of sourceDirs) {
  try {
    for await (const file of walk(join(root, dir))) {
      jobs.push(
        (async () => {
          const target = join(outDir, relative(root, file)).replace(/\.ts$/, '.js');
          const out = await transformFile(file, { cwd: root, swcrc: true, ...aliasOptions, filename: file, sourceFileName: relative(dirname(target), file) });
          await mkdir(dirname(target), { recursive: true });
          await writeAtomically(target, out.code + `\n//# sourceMappingURL=${target.split('/').pop()}.map\n`);
          if (out.map) await writeAtomically(target + '.map', out.map);
        })(),
      );
    }
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
  }
}
await Promise.all(jobs);
console.log(`built ${jobs.length} files into dist/`);
const { buildConsole } = await import('./build-console.mjs');
console.log(await buildConsole(root));
