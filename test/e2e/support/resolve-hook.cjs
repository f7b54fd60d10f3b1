// Jest loads globalSetup/globalTeardown through require() (transpiled to CommonJS by
// @swc/jest) without the project's moduleNameMapper. This hook gives those two files (and
// what they import) the same two rules as jest.config.mjs: `@app/<lib>` to libs/<lib>/src,
// and a relative `./x.js` imported from a .ts file to `./x.ts`. Test files never go through
// it (jest's own resolver serves them).
'use strict';
const Module = require('node:module');
const path = require('node:path');

const { root, pathAliases: aliases } = require('../../../scripts/path-aliases.cjs');

if (!Module.__e2eResolveHook) {
  Module.__e2eResolveHook = true;
  const original = Module._resolveFilename;
  Module._resolveFilename = function resolveForE2e(request, parent, isMain, options) {
    if (Object.prototype.hasOwnProperty.call(aliases, request)) return path.join(root, aliases[request]);
    if (/^\.\.?\//.test(request) && request.endsWith('.js') && parent && typeof parent.filename === 'string' && parent.filename.endsWith('.ts')) {
      try {
        return original.call(this, request.slice(0, -3) + '.ts', parent, isMain, options);
      } catch {
        // fall through to the file as named
      }
    }
    return original.call(this, request, parent, isMain, options);
  };
}
