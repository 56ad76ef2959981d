/**
 * Java: Maven's pom.xml (dependencies with `${property}` versions resolved from the pom's own properties,
 * the parent POM, modules, the Java release from `maven.compiler.release/source/target`, `java.version` or
 * the compiler plugin) and Gradle's build.gradle / build.gradle.kts (`implementation 'g:a:v'` and friends,
 * `sourceCompatibility`, a toolchain's `languageVersion`). Read as text, never executed: a Gradle build
 * script is a program, so what it computes at run time is not seen here (said in a note).
 */
import type { DeclaredDependency, EcosystemInfo } from '../types.js';
import type { EcosystemDetector } from './detector.js';
import { lineRef, manifestsNamed, readManifest } from './manifest-files.js';

export const javaDetector: EcosystemDetector = {
  kind: 'java',
  async detect(root, files) {
    const poms = manifestsNamed(files, 'pom.xml');
    const gradles = manifestsNamed(files, 'build.gradle', 'build.gradle.kts');
    if (poms.length === 0 && gradles.length === 0) return undefined;
    const info: EcosystemInfo = {
      kind: 'java',
      manifests: [...poms, ...gradles],
      dependencies: [],
      notes: [],
    };
    for (const manifest of poms) {
      const text = await readManifest(root, manifest);
      if (text === undefined) continue;
      const pom = parsePom(manifest, text);
      info.dependencies.push(...pom.dependencies);
      info.notes.push(...pom.notes);
      if (!info.runtime && pom.release) info.runtime = pom.release;
    }
    for (const manifest of gradles) {
      const text = await readManifest(root, manifest);
      if (text === undefined) continue;
      const gradle = parseGradle(manifest, text);
      info.dependencies.push(...gradle.dependencies);
      if (!info.runtime && gradle.release) info.runtime = gradle.release;
    }
    if (gradles.length > 0) {
      const wrapper = files.includes('gradlew')
        ? 'a Gradle wrapper (gradlew) pins its Gradle release and downloads it'
        : 'no Gradle wrapper';
      info.notes.push(
        `Gradle build (${wrapper}); build scripts are programs: only their literal dependencies are read here`,
      );
    }
    const seen = new Set<string>();
    info.dependencies = info.dependencies.filter((d) => {
      const key = `${d.name}|${d.constraint ?? ''}`;
      return !seen.has(key) && Boolean(seen.add(key));
    });
    return info;
  },
};

export interface PomInfo {
  dependencies: DeclaredDependency[];
  release?: EcosystemInfo['runtime'];
  notes: string[];
}

/** The text of the first `<tag>` element directly in `xml` (no attributes expected), trimmed. */
function tag(xml: string, name: string): string | undefined {
  const m = new RegExp(`<${name}(?:\\s[^>]*)?>([\\s\\S]*?)</${name}>`).exec(xml);
  return m?.[1]?.trim();
}

/** `xml` with the elements named removed (their content is not the project's own dependencies). */
function without(xml: string, ...names: string[]): string {
  return names.reduce(
    (s, n) => s.replace(new RegExp(`<${n}(?:\\s[^>]*)?>[\\s\\S]*?</${n}>`, 'g'), (m) => ' '.repeat(m.length)),
    xml,
  );
}

/** Reads a pom.xml's dependencies, parent, modules and Java release; never throws. */
export function parsePom(manifest: string, raw: string): PomInfo {
  const xml = raw.replace(/<!--[\s\S]*?-->/g, (m) => m.replace(/[^\n]/g, ' '));
  const out: PomInfo = { dependencies: [], notes: [] };
  const props = new Map<string, string>();
  for (const m of (tag(xml, 'properties') ?? '').matchAll(/<([\w.-]+)>([^<]*)<\/\1>/g))
    props.set(m[1] as string, (m[2] as string).trim());
  const project = {
    version: tag(
      without(xml, 'parent', 'dependencies', 'dependencyManagement', 'build', 'profiles'),
      'version',
    ),
  };
  const expand = (v: string | undefined): string | undefined =>
    v?.replace(/\$\{([\w.-]+)\}/g, (whole, key: string) =>
      key === 'project.version' && project.version ? project.version : (props.get(key) ?? whole),
    );
  const parent = tag(xml, 'parent');
  if (parent) {
    out.notes.push(
      `${manifest}: parent POM ${tag(parent, 'groupId') ?? '?'}:${tag(parent, 'artifactId') ?? '?'}:${tag(parent, 'version') ?? '?'} must resolve too${tag(parent, 'relativePath') !== undefined ? '' : ' (from the repository or ../pom.xml)'}`,
    );
  }
  const modules = [...(tag(xml, 'modules') ?? '').matchAll(/<module>([^<]+)<\/module>/g)].map((m) => m[1]);
  if (modules.length > 0) out.notes.push(`${manifest}: multi-module build (${modules.join(', ')})`);
  const own = without(xml, 'dependencyManagement', 'build', 'profiles', 'parent', 'reporting');
  for (const m of own.matchAll(/<dependency>([\s\S]*?)<\/dependency>/g)) {
    const body = m[1] as string;
    const group = expand(tag(body, 'groupId'));
    const artifact = expand(tag(body, 'artifactId'));
    if (!group || !artifact) continue;
    const dep: DeclaredDependency = {
      name: `${group}:${artifact}`,
      manifest: lineRef(manifest, xml, m.index),
    };
    const version = expand(tag(body, 'version'));
    if (version) dep.constraint = version;
    const scope = tag(body, 'scope');
    if (scope === 'test') dep.dev = true;
    if (tag(body, 'optional') === 'true') dep.optional = true;
    out.dependencies.push(dep);
  }
  out.release = pomRelease(manifest, xml, props, expand);
  return out;
}

function pomRelease(
  manifest: string,
  xml: string,
  props: ReadonlyMap<string, string>,
  expand: (v: string | undefined) => string | undefined,
): EcosystemInfo['runtime'] {
  for (const key of [
    'maven.compiler.release',
    'maven.compiler.source',
    'maven.compiler.target',
    'java.version',
  ]) {
    const v = expand(props.get(key));
    if (v && !v.includes('${')) return { name: 'java', version: v, why: `${key} = ${v} in ${manifest}` };
  }
  const plugin = /<artifactId>maven-compiler-plugin<\/artifactId>([\s\S]*?)<\/plugin>/.exec(xml)?.[1] ?? '';
  for (const key of ['release', 'source', 'target']) {
    const v = expand(tag(plugin, key));
    if (v && !v.includes('${'))
      return { name: 'java', version: v, why: `maven-compiler-plugin <${key}>${v}</${key}> in ${manifest}` };
  }
  return undefined;
}

/** Gradle configurations whose dependencies are only for tests. */
const GRADLE_TEST = /^test|^androidTest/;
const GRADLE_DEP =
  /^\s*(implementation|api|compile|compileOnly|runtimeOnly|runtime|annotationProcessor|kapt|testImplementation|testCompile|testRuntimeOnly|testCompileOnly)\s*\(?\s*["']([\w.-]+):([\w.-]+)(?::([^"'@]+))?(?:@\w+)?["']/gm;

export function parseGradle(manifest: string, text: string): PomInfo {
  const out: PomInfo = { dependencies: [], notes: [] };
  for (const m of text.matchAll(GRADLE_DEP)) {
    const dep: DeclaredDependency = { name: `${m[2]}:${m[3]}`, manifest: lineRef(manifest, text, m.index) };
    if (m[4]) dep.constraint = m[4];
    if (GRADLE_TEST.test(m[1] as string)) dep.dev = true;
    out.dependencies.push(dep);
  }
  const toolchain = /languageVersion(?:\.set\()?\s*=?\s*JavaLanguageVersion\.of\(\s*(\d+)\s*\)/.exec(text);
  const compat = /sourceCompatibility\s*=?\s*(?:JavaVersion\.VERSION_([\d_]+)|['"]?([\d.]+)['"]?)/.exec(text);
  if (toolchain)
    out.release = {
      name: 'java',
      version: toolchain[1],
      why: `Java toolchain languageVersion ${toolchain[1]} in ${manifest}`,
    };
  else if (compat) {
    const v = compat[1] ? compat[1].replace('_', '.') : (compat[2] as string);
    out.release = { name: 'java', version: v, why: `sourceCompatibility ${v} in ${manifest}` };
  }
  return out;
}
