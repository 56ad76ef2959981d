/**
 * The packages to install before the first turn, from what the build files declare
 * (`repo/declared-deps.ts`): every declaration resolved in ONE batched look-up through the package
 * resolver, the required ones installed up front, each package recorded with the declarations it came
 * from. Optional declarations (`required: false`, CMake's find_package without REQUIRED, autoconf checks
 * without an error when missing) are not installed: the default build succeeds without them and the final
 * recipe stays minimal; they are listed as skipped. The repair loop stays for what this misses.
 */
import type { BuildDeclaration } from '../../repo/types.js';
import type { Need, Resolution } from './needs.js';
import { PACKAGE_NAME } from './needs.js';
import { packageIncludeRoot } from './rules/packages.js';
import { defaultRepairTables, firstMatch } from './tables.js';

/** One pre-installed package and why. */
export interface PreinstalledPackage {
  package: string;
  /** The declarations it answers, as `file:line: text`. */
  declarations: string[];
}

/** A declaration that did not lead to an install, and why. */
export interface SkippedDeclaration {
  declaration: string;
  why: string;
}

/** A package include root put on CPATH from the first script, and the declarations (headers) that need it. */
export interface PreinstalledIncludeDir {
  dir: string;
  declarations: string[];
}

export interface PreinstallPlan {
  packages: PreinstalledPackage[];
  /**
   * Include roots outside the compiler's default search path where a declared header's package ships it
   * (`<Eigen/Core>` in /usr/include/eigen3): on CPATH from the first script, as the repair that would add it
   * after the first failure does. Absent when there are none.
   */
  includeDirs?: PreinstalledIncludeDir[];
  skipped: SkippedDeclaration[];
  /** How long the look-up took (ms), the one batched call included. */
  lookupMs: number;
}

/** The look-ups the plan needs: the resolver (one call) and, for names a doc lists, apt-cache. */
export interface PreinstallServices {
  resolvePackages?: (needs: Need[]) => Promise<Resolution[]>;
  /** What apt says of these package names: installed, available, or (absent) unknown. */
  packageStatus?: (names: string[]) => Promise<Map<string, 'installed' | 'available'>>;
}

/** A declaration as result.json lists it. */
export function describeDeclaration(d: BuildDeclaration): string {
  return `${d.source}: ${d.text}`;
}

function needOf(d: BuildDeclaration): Need | undefined {
  return d.kind === 'package' || d.kind === 'm4-macro' ? undefined : { kind: d.kind, name: d.name };
}

/**
 * An undefined autoconf macro as the packages that ship it (the knowledge base's `autoconf_macros` table, as
 * the repair of autoreconf's "possibly undefined macro" uses it); a macro the table does not know is no
 * declaration of a dependency (a shell word, a macro defined where this does not look) and is dropped.
 */
function macroPackagesOf(
  declarations: readonly BuildDeclaration[],
  lookup: (macro: string) => readonly string[] | undefined,
): BuildDeclaration[] {
  return declarations.flatMap((d) => {
    if (d.kind !== 'm4-macro') return [d];
    const packages = lookup(d.name) ?? [];
    return packages.map((pkg): BuildDeclaration => ({ ...d, kind: 'package', name: pkg }));
  });
}

/** Adds `why` for `pkg` (or an include root) to the plan, keeping one entry per package. */
function record(into: Map<string, string[]>, pkg: string, why: string): void {
  const list = into.get(pkg) ?? [];
  if (!list.includes(why)) list.push(why);
  into.set(pkg, list);
}

/**
 * The pre-install plan for `declarations`: one resolver call for all needs (required ones only), one
 * apt-cache check for package names the docs list. Without a resolver, nothing is installed.
 */
export async function planPreinstall(
  declared: readonly BuildDeclaration[],
  services: PreinstallServices,
  now: () => number = Date.now,
  macroPackages: (macro: string) => readonly string[] | undefined = (macro) =>
    firstMatch(defaultRepairTables().autoconfMacros, macro),
): Promise<PreinstallPlan> {
  const started = now();
  const declarations = macroPackagesOf(declared, macroPackages);
  const chosen = new Map<string, string[]>();
  const includeDirs = new Map<string, string[]>();
  const skipped: SkippedDeclaration[] = [];
  const required = declarations.filter((d) => d.required);
  for (const d of declarations.filter((x) => !x.required))
    skipped.push({
      declaration: describeDeclaration(d),
      why: 'optional: the default build goes on without it',
    });

  const withNeeds = required.flatMap((d) => {
    const need = needOf(d);
    return need ? [{ d, need }] : [];
  });
  if (withNeeds.length > 0 && services.resolvePackages) {
    const resolutions = await services.resolvePackages(withNeeds.map((x) => x.need));
    // Alternatives of one need (`group`): the first that is installed or resolves ends the group.
    const settled = new Map<string, string>();
    withNeeds.forEach(({ d }, i) => {
      const r = resolutions[i];
      const why = describeDeclaration(d);
      const root = d.kind === 'header' && r?.package ? packageIncludeRoot(d.name, r.paths ?? []) : undefined;
      if (root) record(includeDirs, root, why);
      const by = d.group !== undefined ? settled.get(d.group) : undefined;
      if (by !== undefined) {
        skipped.push({ declaration: why, why: `an alternative of ${by}, which settles the same check` });
        return;
      }
      if (r?.package && !r.installed) record(chosen, r.package, why);
      else if (!r?.noPackageNeeded && !r?.installed) {
        skipped.push({ declaration: why, why: r?.note ?? 'not resolved to a package' });
        return;
      }
      if (d.group !== undefined) settled.set(d.group, `${d.name} (${d.source})`);
    });
  } else if (withNeeds.length > 0) {
    for (const { d } of withNeeds)
      skipped.push({ declaration: describeDeclaration(d), why: 'no package resolver' });
  }

  const listed = required.filter((d) => d.kind === 'package' && PACKAGE_NAME.test(d.name));
  if (listed.length > 0) {
    const status = services.packageStatus
      ? await services.packageStatus([...new Set(listed.map((d) => d.name))])
      : new Map<string, 'installed' | 'available'>();
    for (const d of listed) {
      const state = status.get(d.name);
      if (state === 'available') record(chosen, d.name, describeDeclaration(d));
      else if (state === undefined)
        skipped.push({
          declaration: describeDeclaration(d),
          why: services.packageStatus ? `apt does not know ${d.name}` : 'no package check',
        });
    }
  }
  return {
    packages: [...chosen].map(([pkg, why]) => ({ package: pkg, declarations: why })),
    ...(includeDirs.size > 0
      ? { includeDirs: [...includeDirs].map(([dir, why]) => ({ dir, declarations: why })) }
      : {}),
    skipped,
    lookupMs: now() - started,
  };
}
