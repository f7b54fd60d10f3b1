import { setFlagsFromString } from 'node:v8';
import { exitUnlessSupportedNode } from './supported-node.js';

/** The V8 flag below, as an operator would write it on the command line to choose otherwise. */
export const EXTERNAL_MEMORY_FLAG = 'external-memory-accounted-in-global-limit';

/**
 * What every entry point runs first: the Node.js check, then the garbage collector's tuning.
 *
 * Streamed bodies (uploads, downloads, archives) allocate a new buffer for every chunk read,
 * memory outside V8's heap. By default V8 starts a full collection of the whole heap each time
 * such memory grows by 64 MB, even though the chunks die young: with every app's code loaded
 * (about 80 MB of heap) that was a full collection per 50 MiB uploaded, a third of the upload
 * path's CPU. Counting that memory in the heap's overall limit instead lets the young
 * collections free the chunks (docs/performance.md, "Log uploads"). Like any V8 flag set on the
 * command line, `--no-external-memory-accounted-in-global-limit` keeps V8's default.
 */
export function prepareServiceRuntime(execArgv: readonly string[] = process.execArgv): void {
  exitUnlessSupportedNode();
  if (!execArgv.some((arg) => arg.includes(EXTERNAL_MEMORY_FLAG))) setFlagsFromString(`--${EXTERNAL_MEMORY_FLAG}`);
}
