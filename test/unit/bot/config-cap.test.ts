/**
 * `.github/buildbench.yml` is read under a cap (issue 28): through a real ProbotOctokit (its config plugin,
 * as `context.config` uses it) against nock, a file over 64 KiB is refused before YAML parsing sees it, by
 * its declared length or by the bytes that arrive; a small one reads as before.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { ProbotOctokit } from 'probot';

import { loadBotConfig, MAX_CONFIG_BYTES } from '../../../src/bot/config.js';
import nock from '../../helpers/nock.js';

const API = 'https://api.github.com';
const FILE = '/repos/octo-org/octo-repo/contents/.github%2Fbuildbench.yml';

/** A context with what loadBotConfig uses: the Octokit, and `config` as Probot's Context defines it. */
function context() {
  const octokit = new ProbotOctokit({ retry: { enabled: false }, throttle: { enabled: false } });
  return {
    octokit,
    config: async (name: string) => {
      const { config, files } = await octokit.config.get({
        owner: 'octo-org',
        repo: 'octo-repo',
        path: `.github/${name}`,
      });
      return files.some((f) => f.config !== null) ? config : null;
    },
  };
}

/** Valid YAML of `bytes` bytes: one field and a comment to pad it. */
const yamlOf = (bytes: number): string => {
  const head = 'workflow: buildbench.yml\n# ';
  return head + 'x'.repeat(bytes - head.length - 1) + '\n';
};

afterEach(() => {
  nock.cleanAll();
});

describe('the bot configuration file under a cap', () => {
  it('reads a small file through the capped fetch as before', async () => {
    nock(API).get(FILE).reply(200, yamlOf(2048));
    const result = await loadBotConfig(context() as never);
    expect(result).toMatchObject({ config: { workflow: 'buildbench.yml' } });
  });

  it('refuses a file whose declared length is over the cap, without reading its body', async () => {
    nock(API)
      .get(FILE)
      .reply(200, yamlOf(MAX_CONFIG_BYTES + 1), { 'content-length': String(MAX_CONFIG_BYTES + 1) });
    expect(await loadBotConfig(context() as never)).toEqual({
      error: {
        field: '(the file)',
        message: `is ${MAX_CONFIG_BYTES + 1} bytes, over the bot's cap of 64 KiB; it was not read`,
      },
    });
  });

  it('refuses a file that sends more than the cap without saying its length', async () => {
    nock(API)
      .get(FILE)
      .reply(200, () => yamlOf(1024 * 1024));
    expect(await loadBotConfig(context() as never)).toEqual({
      error: {
        field: '(the file)',
        message: "is more than 65536 bytes, over the bot's cap of 64 KiB; it was not read",
      },
    });
    expect(nock.isDone()).toBe(true);
  });
});
