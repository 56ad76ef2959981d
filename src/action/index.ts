/**
 * The action's entry point (main and post alike): it only calls run() — on the main thread. The bundle is also
 * the file a diagnosis worker thread runs (ncc inlines knowledge/diagnose/worker.ts here, so that is the file it
 * knows); imported here, that module serves the diagnosis in such a thread, and run() is not called there.
 */
import { isMainThread } from 'node:worker_threads';

import '../knowledge/diagnose/worker.js';
import { run } from './main.js';

if (isMainThread) await run();
