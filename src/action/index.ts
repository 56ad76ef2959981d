/**
 * The action's entry point (main and post alike): it only calls run() — on the main thread. The bundle is also
 * the file a diagnosis worker thread runs (ncc inlines knowledge/diagnose/worker.ts here, so that is the file it
 * knows); imported here, that module serves the diagnosis in such a thread, and run() is not called there.
 */
import { isMainThread } from 'node:worker_threads';
import { parse as parseYaml } from 'yaml';

import { useYamlParser } from '../base/shipped-yaml.js';
import '../knowledge/diagnose/worker.js';
import { run } from './main.js';

// The bundle has no lib/data JSON: the shipped YAML is parsed, by the parser bundled here (shipped-yaml.ts).
useYamlParser(parseYaml);
if (isMainThread) await run();
