// The path aliases (`@app/<lib>`) are declared once, in tsconfig.json's compilerOptions.paths
// (the type check reads them there); the swc build (scripts/build.mjs), jest
// (jest.config.mjs) and the e2e resolve hook take them from here.
'use strict';
const { readFileSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const { baseUrl = '.', paths } = JSON.parse(readFileSync(path.join(root, 'tsconfig.json'), 'utf8')).compilerOptions;
const base = path.resolve(root, baseUrl);

/** tsconfig's paths as swc's `jsc.paths` (relative to `jsc.baseUrl`, the absolute `base`). */
const swcPaths = paths;

/** Each alias and the one file it names, relative to the repository root. */
const pathAliases = Object.fromEntries(Object.entries(paths).map(([alias, [target]]) => [alias, path.relative(root, path.join(base, target))]));

/** jest's moduleNameMapper entries for the aliases (exact names only). */
const jestModuleNameMapper = Object.fromEntries(
  Object.entries(pathAliases).map(([alias, target]) => [`^${alias.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`, `<rootDir>/${target}`]),
);

module.exports = { root, base, swcPaths, pathAliases, jestModuleNameMapper };
