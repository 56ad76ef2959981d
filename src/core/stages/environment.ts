import { errorMessage } from '../../base/errors.js';
import { DEPLOY_ENV_FILE } from '../../deploy/types.js';
import { detectGpuEnvironment } from '../../verify/gpu.js';
import { say, type Opened, type RunState } from './state.js';

/**
 * Stage 4b: what the environment the loop made offers a GPU task — the devices, the driver and CUDA versions,
 * the toolkit and the framework's CUDA build (verify/gpu.ts), read in the run's sandbox after the setup, for
 * result.json (`environment.gpu`) and the RUNBOOK's Environment. Only for deploy runs that require a GPU; the
 * run's status never depends on it (the GPU check step and the verifier judge). Its own failures are warnings.
 */
export async function recordEnvironment(state: RunState, { box }: Opened): Promise<void> {
  if (!state.settings.deploy?.requires.includes('gpu') || state.options.signal?.aborted) return;
  try {
    state.gpu = await detectGpuEnvironment(box, {
      required: true,
      envFile: DEPLOY_ENV_FILE,
      timeoutMs: 5 * 60_000,
      ...(state.options.signal ? { signal: state.options.signal } : {}),
    });
    const problems = state.gpu.problems.length;
    say(
      state,
      'sandbox',
      `GPU: ${state.gpu.devices.length} device(s)${state.gpu.driver ? `, driver ${state.gpu.driver}` : ''}${problems > 0 ? `; ${problems} problem(s): ${state.gpu.problems[0]}` : ''}`,
    );
  } catch (error) {
    say(state, 'sandbox', `warning: the GPU environment could not be read: ${errorMessage(error)}`);
  }
}
