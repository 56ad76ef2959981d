/**
 * Java setup: the distribution's JDK (default-jdk-headless: 17 on bookworm) with Maven or Gradle, their
 * state under the repository's `.buildbench/` (a settings.xml, never the user's ~/.m2). Maven either
 * resolves from the registry (or the `MAVEN_MIRROR` the user passed) into `.buildbench/maven/repo`, or,
 * offline, runs `mvn -o` with Debian's /usr/share/maven-repo as its local repository: Debian's Java packages
 * (libXXX-java, installed by maven-repo-helper) put each artifact there as <group path>/<artifact>/<version>/,
 * so the package of `groupId:artifactId` — and of the default lifecycle plugins — is looked up in the package
 * index (apt-file, one search for all of them). After the build the resolved classpath is recorded in
 * `.buildbench/deploy/` and exported as CLASSPATH (the built classes first), so `java <main class>` runs.
 * Gradle uses the wrapper when the repository has one (it downloads its own Gradle: online only), else the
 * distribution's gradle (4.4.1 on bookworm, too old for most current builds: said in the evidence).
 */
import { shq } from '../../base/shell.js';
import type { Recipe } from '../../recipe/model.js';
import type { EcosystemInfo } from '../../repo/types.js';
import type { DeployGoal } from '../types.js';
import type { EcosystemSetup } from './setup.js';
import {
  DEPLOY_RECORD_DIR,
  SOURCE_DEPLOY_ENV,
  exportLines,
  script,
  DEPLOY_INSTALL_FN,
} from './setup-shell.js';
import { moduleAlternation } from './go.js';

/** Debian's Maven repository (maven-repo-helper's layout). */
export const DEBIAN_MAVEN_REPO = '/usr/share/maven-repo';

/**
 * The plugins Maven's default lifecycle binds for a jar project (resources, compiler, surefire, jar, install)
 * and the dependency plugin the setup records the classpath with.
 */
export const MAVEN_LIFECYCLE_PLUGINS = [
  'org.apache.maven.plugins:maven-resources-plugin',
  'org.apache.maven.plugins:maven-compiler-plugin',
  'org.apache.maven.plugins:maven-surefire-plugin',
  'org.apache.maven.plugins:maven-jar-plugin',
  'org.apache.maven.plugins:maven-install-plugin',
  'org.apache.maven.plugins:maven-dependency-plugin',
];

const JDK: Recipe['tools'][number] = { command: 'javac', pkg: 'default-jdk-headless' };

/** `groupId:artifactId` → its folder in a Maven repository. */
export function mavenPath(coordinate: string): string {
  const [group = '', artifact = ''] = coordinate.split(':');
  return `${group.replaceAll('.', '/')}/${artifact}`;
}

/** Bash: the dependency plugin's version present in a repository folder (the newest), into $bb_dep. */
function dependencyPluginLines(repo: string): string[] {
  return [
    `bb_dep=$(ls ${repo}/org/apache/maven/plugins/maven-dependency-plugin 2>/dev/null | sort -V | tail -n 1)`,
    'bb_dep="org.apache.maven.plugins:maven-dependency-plugin:${bb_dep:-3.5.0}"',
  ];
}

/** The build, the classpath and dependency list recorded, CLASSPATH exported. */
function mavenBuildLines(offline: boolean, repo: string): string[] {
  const o = offline ? ' -o' : '';
  return [
    SOURCE_DEPLOY_ENV,
    `mvn -B${o} -s .buildbench/maven/settings.xml package -DskipTests`,
    ...dependencyPluginLines(repo),
    `mkdir -p ${DEPLOY_RECORD_DIR}`,
    `mvn -B -q${o} -s .buildbench/maven/settings.xml "$bb_dep:build-classpath" -Dmdep.outputFile="$PWD/${DEPLOY_RECORD_DIR}/classpath.txt" -Dmdep.includeScope=runtime`,
    `mvn -B -q${o} -s .buildbench/maven/settings.xml "$bb_dep:list" -DoutputFile="$PWD/${DEPLOY_RECORD_DIR}/maven-dependencies.txt" || true`,
    `bb_cp="$PWD/target/classes"; [ -s ${DEPLOY_RECORD_DIR}/classpath.txt ] && bb_cp="$bb_cp:$(cat ${DEPLOY_RECORD_DIR}/classpath.txt)"`,
    ...exportLines('CLASSPATH', '"$bb_cp"'),
  ];
}

function settingsLines(localRepo: string, offline: boolean, goal: DeployGoal): string[] {
  const mirror = goal.registries.mirrors.MAVEN_MIRROR;
  const mirrorXml =
    mirror && !/:\/\/[^/]*@/.test(mirror)
      ? `<mirrors><mirror><id>buildbench-mirror</id><mirrorOf>*</mirrorOf><url>${mirror.replace(/[<>&]/g, '')}</url></mirror></mirrors>`
      : '';
  return [
    'mkdir -p .buildbench/maven',
    `printf '%s\\n' "<settings><localRepository>${localRepo}</localRepository><offline>${offline}</offline>${mirrorXml}</settings>" > .buildbench/maven/settings.xml`,
  ];
}

/** Bash: look up and install the Debian packages of the artifacts (and the lifecycle plugins, for Maven). */
function debianArtifactLines(eco: EcosystemInfo, plugins = true): string[] {
  const wanted = [
    ...new Set([...eco.dependencies.map((d) => d.name), ...(plugins ? MAVEN_LIFECYCLE_PLUGINS : [])]),
  ].filter((c) => /^[\w.-]+:[\w.-]+$/.test(c));
  const paths = wanted.map(mavenPath);
  return [
    DEPLOY_INSTALL_FN,
    'command -v apt-file >/dev/null 2>&1 || bb_deploy_install apt-file',
    '[ -n "$(ls /var/lib/apt/lists/*Contents* 2>/dev/null)" ] || apt-file update',
    `bb_hits=$(apt-file search -x ${shq(`^${DEBIAN_MAVEN_REPO}/(${moduleAlternation(paths)})/[^/]+/[^/]+\\.pom$`)} 2>/dev/null || true)`,
    'bb_pkgs=""',
    `for bb_a in ${wanted.map((c) => shq(`${c}=${mavenPath(c)}`)).join(' ')}; do`,
    `  bb_p=$(printf '%s\\n' "$bb_hits" | grep -F ": ${DEBIAN_MAVEN_REPO}/\${bb_a#*=}/" | head -n 1 | cut -d: -f1)`,
    '  if [ -n "$bb_p" ]; then echo "buildbench: Maven artifact ${bb_a%%=*} -> Debian package $bb_p"; bb_pkgs="$bb_pkgs $bb_p"',
    `  else echo "buildbench: Maven artifact \${bb_a%%=*} cannot be had offline: no Debian package ships ${DEBIAN_MAVEN_REPO}/\${bb_a#*=}/"; fi`,
    'done',
    `mkdir -p ${DEPLOY_RECORD_DIR}`,
    '# shellcheck disable=SC2086 # a list of package names',
    'if [ -n "$bb_pkgs" ]; then bb_deploy_install $(printf "%s\\n" $bb_pkgs | sort -u)',
    `  dpkg-query -W -f '\${Package} \${Version}\\n' $(printf "%s\\n" $bb_pkgs | sort -u) > ${DEPLOY_RECORD_DIR}/java-debian-packages.txt`,
    `  echo "buildbench: versions Debian gives: $(tr '\\n' ';' < ${DEPLOY_RECORD_DIR}/java-debian-packages.txt)"`,
    'fi',
  ];
}

function mavenRecipe(eco: EcosystemInfo, goal: DeployGoal, offline: boolean): Recipe {
  const repo = offline ? DEBIAN_MAVEN_REPO : '$PWD/.buildbench/maven/repo';
  return {
    id: offline ? 'java:maven-debian' : 'java:maven',
    system: 'deploy',
    label: offline ? 'maven -o with Debian artifacts (offline)' : 'maven',
    evidence: `pom.xml declares ${eco.dependencies.length} dependency(ies)${runtimeNote(eco)}; ${
      offline
        ? `artifacts from Debian's libXXX-java packages in ${DEBIAN_MAVEN_REPO} (mvn -o)`
        : 'artifacts from the registry into .buildbench/maven/repo'
    }`,
    dir: '',
    tools: [JDK, { command: 'mvn', pkg: 'maven' }],
    steps: [
      {
        purpose: 'dependencies',
        command: script([
          `mkdir -p ${DEPLOY_RECORD_DIR}`,
          ...settingsLines(offline ? DEBIAN_MAVEN_REPO : `$PWD/.buildbench/maven/repo`, offline, goal),
          ...(offline ? debianArtifactLines(eco) : []),
          ...exportLines('MAVEN_OPTS', `"-Dmaven.repo.local=${repo}"`),
        ]),
      },
      { purpose: 'build', command: script(mavenBuildLines(offline, repo)) },
    ],
  };
}

function runtimeNote(eco: EcosystemInfo): string {
  return eco.runtime?.version
    ? ` for Java ${eco.runtime.version} (${eco.runtime.why}); the JDK is the distribution's`
    : '';
}

function gradleRecipe(eco: EcosystemInfo, offline: boolean): Recipe {
  const wrapper = eco.notes.some((n) => n.includes('gradlew'));
  const init = ['allprojects { repositories { maven { url "file://' + DEBIAN_MAVEN_REPO + '" } } }'];
  return {
    id: offline ? 'java:gradle-debian' : 'java:gradle',
    system: 'deploy',
    label: offline ? 'gradle --offline with Debian artifacts' : 'gradle',
    evidence: `a Gradle build${runtimeNote(eco)}; ${
      wrapper && !offline
        ? 'its wrapper (gradlew) downloads the Gradle it pins: needs the network'
        : "the distribution's gradle (4.4.1 on bookworm: older than most current builds expect)"
    }${offline ? `; Debian's ${DEBIAN_MAVEN_REPO} added as a repository by an init script` : ''}`,
    dir: '',
    tools: [JDK, ...(wrapper && !offline ? [] : [{ command: 'gradle', pkg: 'gradle' }])],
    steps: [
      {
        purpose: 'build',
        command: script(
          offline
            ? [
                'mkdir -p .buildbench/gradle',
                `printf '%s\\n' ${init.map(shq).join(' ')} > .buildbench/gradle/debian-repo.gradle`,
                'gradle --no-daemon --offline -I .buildbench/gradle/debian-repo.gradle build -x test',
              ]
            : [
                wrapper
                  ? 'chmod +x gradlew && ./gradlew --no-daemon build -x test'
                  : 'gradle --no-daemon build -x test',
              ],
        ),
      },
    ],
  };
}

/** Where Debian's Java packages put their jars. */
export const DEBIAN_JAVA_JARS = '/usr/share/java';

/**
 * Building without the build tool: the Debian packages of the declared dependencies, then `javac` over the
 * main sources (`src/main/java` when there is one, else every .java file outside test folders) into
 * `target/classes` — where Maven and a `java -cp target/classes` target expect them — with every jar the
 * distribution's Java packages installed in /usr/share/java on the classpath (transitive dependencies
 * included: Debian's packages depend on theirs), resources copied beside. What an expert does when the build
 * tool's own plugins cannot be had offline.
 */
function javacRecipe(eco: EcosystemInfo): Recipe {
  return {
    id: 'java:javac',
    system: 'deploy',
    label: 'javac without the build tool (Debian jars)',
    evidence: `${eco.manifests[0] ?? 'the build file'} declares ${eco.dependencies.length} dependency(ies)${runtimeNote(eco)}; built without the build tool: javac over the sources with the Debian jars of the dependencies (${DEBIAN_JAVA_JARS}) on the classpath`,
    dir: '',
    tools: [JDK],
    steps: [
      { purpose: 'dependencies', command: script(debianArtifactLines(eco, false)) },
      {
        purpose: 'build',
        command: script([
          SOURCE_DEPLOY_ENV,
          'bb_src=.; [ -d src/main/java ] && bb_src=src/main/java',
          `mkdir -p target/classes ${DEPLOY_RECORD_DIR}`,
          // without src/main/java: every .java file but the test folders' (src/test, test, tests at the root)
          `find "$bb_src" \\( -path ./.buildbench -o -path ./.git -o -path ./src/test -o -path ./test -o -path ./tests \\) -prune -o -name '*.java' -print > ${DEPLOY_RECORD_DIR}/javac-sources.txt`,
          `bb_cp=$(find ${DEBIAN_JAVA_JARS} -maxdepth 1 -name '*.jar' 2>/dev/null | sort | tr '\\n' ':')`,
          `printf '%s\\n' "$bb_cp" | tr ':' '\\n' | sed '/^$/d' > ${DEPLOY_RECORD_DIR}/classpath.txt`,
          `echo "buildbench: javac over $(wc -l < ${DEPLOY_RECORD_DIR}/javac-sources.txt) source file(s) from $bb_src, $(wc -l < ${DEPLOY_RECORD_DIR}/classpath.txt) Debian jar(s) on the classpath"`,
          `javac -nowarn -encoding UTF-8 -d target/classes -cp "\${bb_cp:-.}" @${DEPLOY_RECORD_DIR}/javac-sources.txt`,
          'if [ -d src/main/resources ]; then cp -r src/main/resources/. target/classes/; fi',
          'bb_cp="$PWD/target/classes:$bb_cp"',
          ...exportLines('CLASSPATH', '"${bb_cp%:}"'),
        ]),
      },
    ],
  };
}

export const javaSetup: EcosystemSetup = {
  kind: 'java',
  recipes(eco, { goal }) {
    const maven = eco.manifests.some((m) => m.endsWith('pom.xml'));
    const make = maven
      ? (offline: boolean): Recipe => mavenRecipe(eco, goal, offline)
      : (offline: boolean): Recipe => gradleRecipe(eco, offline);
    if (goal.registries.mode === 'offline') return [make(true), javacRecipe(eco)];
    if (goal.registries.mode === 'online') return [make(false)];
    return [make(false), make(true), javacRecipe(eco)];
  },
};
