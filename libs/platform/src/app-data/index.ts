export * from './app-data.declaration.js';
export * from './app-data.commands.js';
export * from './app-data.controller.js';
export * from './export-app-data.js';
export * from './import-app-data.js';
export * from './stored-file-refs.js';
