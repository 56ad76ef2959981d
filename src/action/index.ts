/** The action's entry point (main and post alike): it only calls run(). */
import { run } from './main.js';

await run();
