/**
 * bot/app.yml as Probot's setup flow turns it into the manifest it posts to GitHub (Probot's own
 * ManifestCreation.getManifest, given the file's text): the name is not the bare global `buildbench`, the
 * webhook URL is the one the flow supplies (its smee.io channel), and the permissions cover every GitHub call the
 * bot's code makes (src/bot/*.ts and the Action's pull-request code it reuses), read from the source.
 */
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// Probot's package exports do not name this module: it is imported by its file (the setup flow's own code).
import { ManifestCreation } from '../../../node_modules/probot/lib/manifest-creation.js';
import { parse } from 'yaml';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const APP_YML = readFileSync(path.join(ROOT, 'bot/app.yml'), 'utf8');

interface Manifest {
  name: string;
  public: boolean;
  hook_attributes: { url: string };
  redirect_url: string;
  default_events: string[];
  default_permissions: Record<string, 'read' | 'write'>;
}

function generated(proxyUrl: string | undefined): Manifest {
  const saved = process.env.WEBHOOK_PROXY_URL;
  const savedDomain = process.env.PROJECT_DOMAIN;
  if (proxyUrl === undefined) delete process.env.WEBHOOK_PROXY_URL;
  else process.env.WEBHOOK_PROXY_URL = proxyUrl;
  delete process.env.PROJECT_DOMAIN;
  try {
    const text = new ManifestCreation().getManifest({
      pkg: { name: 'pkg-name', description: 'pkg' },
      baseUrl: 'http://localhost:3000',
      readFileSync: ((file: string) => {
        expect(path.basename(file)).toBe('app.yml');
        return APP_YML;
      }) as unknown as typeof readFileSync,
    });
    return JSON.parse(text) as Manifest;
  } finally {
    if (saved === undefined) delete process.env.WEBHOOK_PROXY_URL;
    else process.env.WEBHOOK_PROXY_URL = saved;
    if (savedDomain !== undefined) process.env.PROJECT_DOMAIN = savedDomain;
  }
}

/** The permission each REST scope the bot calls belongs to. */
const SCOPE_PERMISSION: Record<string, string> = {
  actions: 'actions',
  git: 'contents',
  issues: 'issues',
  pulls: 'pull_requests',
  reactions: 'issues',
  checks: 'checks',
};
/** Repository reads that need only metadata or contents read (both held). */
const REPOS_READ: Record<string, string> = {
  get: 'metadata',
  getCollaboratorPermissionLevel: 'metadata',
  getContent: 'contents',
  compareCommitsWithBasehead: 'contents',
};

function sources(): string {
  const dir = path.join(ROOT, 'src/bot');
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(dir, f));
  files.push(path.join(ROOT, 'src/action/pull-request.ts'));
  return files.map((f) => readFileSync(f, 'utf8')).join('\n');
}

describe('bot/app.yml through Probot’s setup flow', () => {
  const raw = parse(APP_YML) as Record<string, unknown>;

  it('has a name of its own, not the bare global name, within GitHub’s 34 characters', () => {
    const manifest = generated(undefined);
    expect(manifest.name).not.toBe('buildbench');
    expect(manifest.name).toMatch(/^buildbench-/);
    expect(manifest.name.length).toBeLessThanOrEqual(34);
    expect(manifest.public).toBe(false);
  });

  it('sets no webhook URL of its own: the setup flow’s proxy channel is the one GitHub gets', () => {
    expect(raw.hook_attributes).toBeUndefined();
    expect(generated('https://smee.io/abc123').hook_attributes.url).toBe('https://smee.io/abc123');
    expect(generated(undefined).hook_attributes.url).toBe('http://localhost:3000/');
    expect(generated(undefined).redirect_url).toBe('http://localhost:3000/probot/setup');
  });

  it('holds a permission, at the level needed, for every GitHub call the bot makes', () => {
    const manifest = generated(undefined);
    const calls = [...sources().matchAll(/\brest\.([a-z]+)\.([A-Za-z]+)\(/g)].map(
      (m) => [m[1]!, m[2]!] as const,
    );
    expect(calls.length).toBeGreaterThan(10);
    for (const [scope, method] of calls) {
      const writes = /^(create|update|add|remove|delete)/.test(method);
      const permission = scope === 'repos' ? REPOS_READ[method] : SCOPE_PERMISSION[scope];
      expect([`${scope}.${method}`, permission !== undefined]).toEqual([`${scope}.${method}`, true]);
      const held = manifest.default_permissions[permission!];
      expect([`${scope}.${method}`, held]).toEqual([
        `${scope}.${method}`,
        writes ? 'write' : expect.anything(),
      ]);
    }
    // The failed job's log (a raw request): actions read.
    expect(sources()).toMatch(/actions\/jobs\/\{job_id\}\/logs/);
    expect(manifest.default_permissions.actions).toBeDefined();
  });

  it('subscribes to the events the App handles', () => {
    const registered = [
      ...readFileSync(path.join(ROOT, 'src/bot/app.ts'), 'utf8').matchAll(/app\.on\('([a-z_]+)\./g),
    ].map((m) => m[1]!);
    expect(new Set(generated(undefined).default_events)).toEqual(new Set(registered));
  });
});
