// Operator CLI: `npm run -s cli -- <command>` (-s: without npm's banner, stdout carries only
// the command's output, e.g. TOKEN=$(npm run -s cli -- token create ...); log lines go to
// stderr). `npm run -s cli -- --help` lists the commands (docs/operations.md "Operator CLI").
import { prepareServiceRuntime } from '../../../libs/infra/src/runtime/service-runtime.js';

// The runtime check runs before anything else is loaded (docs/operations.md, "Runtime").
prepareServiceRuntime();
const { configureLogging } = await import('@app/infra');
const { runCli } = await import('./cli.js');
const { cliContext } = await import('./cli-context.js');

// stdout carries only the command's result (a token, migration reports): log lines go to stderr.
configureLogging({ sink: (line) => process.stderr.write(line + '\n') });

process.exitCode = await runCli(
  process.argv.slice(2),
  cliContext(
    process.env,
    (line) => process.stdout.write(line + '\n'),
    (line) => process.stderr.write(line + '\n'),
  ),
);
