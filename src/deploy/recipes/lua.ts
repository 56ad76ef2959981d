/**
 * Lua setup: the Lua the rockspec asks for (lua5.1 … lua5.4 from the distribution; 5.4 when it says only
 * `>= 5.x`), and the rocks either with luarocks into a tree under `.buildbench/lua` (online; LUA_PATH and
 * LUA_CPATH exported from `luarocks path`) or, offline, from Debian's `lua-*` packages: a rock `luafoo` or
 * `foo` is looked up as `lua-foo` (Debian's Lua policy names a module's package lua-<module>), and a rock
 * with no package is named.
 */
import { shq } from '../../base/shell.js';
import type { Recipe } from '../../recipe/model.js';
import type { EcosystemInfo } from '../../repo/types.js';
import type { EcosystemSetup } from './setup.js';
import { DEPLOY_RECORD_DIR, exportLines, script, DEPLOY_INSTALL_FN } from './setup-shell.js';

/** The Lua release a rockspec's `lua` constraint picks among those bookworm has. */
export function luaVersion(constraint: string | undefined): string {
  const upper = /(?:<|~>)\s*5\.(\d)/.exec(constraint ?? '');
  if (upper?.[1]) {
    const minor = constraint?.includes('~>') ? Number(upper[1]) : Number(upper[1]) - 1;
    return `5.${Math.min(4, Math.max(1, minor))}`;
  }
  return '5.4';
}

/** Debian package names that may hold a rock, most likely first. */
export function debianLuaPackages(rock: string): string[] {
  const name = rock.toLowerCase();
  const bare = name.replace(/^lua-?/, '');
  return [...new Set([`lua-${bare}`, `lua-${name}`])];
}

function recipe(eco: EcosystemInfo, offline: boolean): Recipe {
  const version = luaVersion(eco.runtime?.version);
  const rocks = [...new Set(eco.dependencies.filter((d) => !d.dev).map((d) => d.name))];
  const rockspec = eco.manifests[0] ?? '';
  const deps = offline
    ? [
        DEPLOY_INSTALL_FN,
        `mkdir -p ${DEPLOY_RECORD_DIR}`,
        'bb_pkgs=""',
        `for bb_spec in ${rocks.map((r) => shq(`${r}=${debianLuaPackages(r).join(',')}`)).join(' ')}; do`,
        '  bb_found=""',
        '  for bb_p in $(printf %s "${bb_spec#*=}" | tr , " "); do',
        '    if apt-cache show "$bb_p" >/dev/null 2>&1; then bb_found="$bb_p"; bb_pkgs="$bb_pkgs $bb_p"; break; fi',
        '  done',
        '  [ -n "$bb_found" ] || echo "buildbench: rock ${bb_spec%%=*} has no Debian package (tried ${bb_spec#*=}): it cannot be had offline"',
        'done',
        '# shellcheck disable=SC2086 # a list of package names',
        `if [ -n "$bb_pkgs" ]; then bb_deploy_install $bb_pkgs; dpkg-query -W -f '\${Package} \${Version}\\n' $bb_pkgs > ${DEPLOY_RECORD_DIR}/lua-debian-packages.txt; fi`,
      ]
    : [
        `mkdir -p .buildbench/lua ${DEPLOY_RECORD_DIR}`,
        `luarocks --lua-version ${version} --tree .buildbench/lua install --only-deps ${shq(rockspec)}`,
        `luarocks --lua-version ${version} --tree .buildbench/lua list --porcelain > ${DEPLOY_RECORD_DIR}/lua-rocks.txt`,
        `eval "$(luarocks --lua-version ${version} --tree .buildbench/lua path)"`,
        ...exportLines('LUA_PATH', '"$LUA_PATH"'),
        ...exportLines('LUA_CPATH', '"$LUA_CPATH"'),
      ];
  return {
    id: offline ? 'lua:debian' : 'lua:luarocks',
    system: 'deploy',
    label: offline ? `lua ${version} with Debian lua-* packages` : `lua ${version} with luarocks`,
    evidence: `${rockspec} needs ${rocks.length} rock(s) and lua ${eco.runtime?.version ?? '(any)'}`,
    dir: '',
    tools: [
      { command: `lua${version}`, pkg: `lua${version}` },
      ...(offline ? [] : [{ command: 'luarocks', pkg: `luarocks liblua${version}-dev` }]),
    ],
    steps: [{ purpose: 'dependencies', command: script(deps) }],
  };
}

export const luaSetup: EcosystemSetup = {
  kind: 'lua',
  recipes(eco, { goal }) {
    if (goal.registries.mode === 'offline') return [recipe(eco, true)];
    if (goal.registries.mode === 'online') return [recipe(eco, false)];
    return [recipe(eco, true), recipe(eco, false)];
  },
};
