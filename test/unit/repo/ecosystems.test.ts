import { afterEach, describe, expect, it } from '@jest/globals';
import { detectEcosystems } from '../../../src/repo/ecosystems/index.js';
import {
  markerHolds,
  parseCondaSpec,
  parseRequirement,
  python2Evidence,
} from '../../../src/repo/ecosystems/python.js';
import {
  defaultPythonTable,
  debianPackageFor,
  oldPinNote,
  upperBound,
} from '../../../src/repo/ecosystems/python-table.js';
import { parseRDependencies, scriptPackages } from '../../../src/repo/ecosystems/r.js';
import { walkTree } from '../../../src/repo/walk.js';
import { removeTree, tempTree } from './fixtures.js';

const trees: string[] = [];
afterEach(() => trees.splice(0).forEach(removeTree));

async function detect(files: Record<string, string>) {
  const root = tempTree(files);
  trees.push(root);
  const tree = await walkTree(root, {});
  return detectEcosystems(root, tree.files);
}

describe('Python requirements', () => {
  it('splits name, extras, constraint and marker; leaves URLs and paths to pip', () => {
    expect(parseRequirement('numpy[dev, test] >= 1.20, <2 ; python_version >= "3.8"')).toEqual({
      name: 'numpy',
      extras: ['dev', 'test'],
      constraint: '>=1.20,<2',
      marker: 'python_version >= "3.8"',
    });
    expect(parseRequirement('requests (>=2.0)')).toMatchObject({ name: 'requests', constraint: '>=2.0' });
    expect(parseRequirement('git+https://example.org/x.git')).toBeUndefined();
    expect(parseRequirement('./local/pkg')).toBeUndefined();
  });

  it('evaluates the common markers for Linux and the sandbox Python', () => {
    expect(markerHolds('python_version < "3.6"', '3.11')).toBe(false);
    expect(markerHolds('python_version >= "3.8" and sys_platform == "linux"', '3.11')).toBe(true);
    expect(markerHolds('sys_platform == "win32" or python_version > "3.10"', '3.11')).toBe(true);
    expect(markerHolds('platform_system == "Windows"', '3.11')).toBe(false);
    expect(markerHolds('extra == "gpu"', '3.11')).toBe(true); // unknown: installing too much is safer
  });

  it('reads conda specs and finds Python 2 statements', () => {
    expect(parseCondaSpec('conda-forge::numpy=1.19')).toEqual({
      name: 'numpy',
      extras: [],
      constraint: '==1.19.*',
    });
    expect(parseCondaSpec('scipy>=1.5')).toMatchObject({ constraint: '>=1.5' });
    expect(python2Evidence('import sys\nprint "hello"\n')).toEqual({ line: 2, text: 'print "hello"' });
    expect(python2Evidence('try:\n  pass\nexcept ValueError, e:\n  pass\n')?.line).toBe(3);
    expect(python2Evidence('print("x")\nprint = 3\n"""\nprint "in a docstring"\n"""\n')).toBeUndefined();
  });

  it('maps PyPI names to Debian by the general rule and the table, and knows old pins', () => {
    const table = defaultPythonTable();
    expect(debianPackageFor('NumPy', table)).toBe('python3-numpy');
    expect(debianPackageFor('scikit_learn', table)).toBe('python3-sklearn');
    expect(debianPackageFor('PyYAML', table)).toBe('python3-yaml');
    expect(debianPackageFor('python-dateutil', table)).toBe('python3-dateutil');
    expect(debianPackageFor('tensorflow', table)).toBeNull();
    expect(upperBound('>=1.0,<1.20')).toEqual({ version: '1.20', inclusive: false });
    expect(upperBound('~=1.19.0')).toEqual({ version: '1.20', inclusive: false });
    expect(upperBound('==1.18.*')).toEqual({ version: '1.19', inclusive: false });
    expect(oldPinNote('numpy', '<1.20', table)).toMatch(/predates Python 3\.11 .*1\.23\.2/);
    expect(oldPinNote('numpy', '>=1.20', table)).toBeUndefined();
    expect(oldPinNote('torch', '==1.13.1', table)).toMatch(
      /first torch release with wheels for it is 2\.0\.0/,
    );
    expect(oldPinNote('numpy', '==1.24.2', table)).toBeUndefined();
  });
});

describe('detectEcosystems', () => {
  it('python: requirements with -r includes, markers and dev files; the old pin is noted', async () => {
    const [py] = await detect({
      'requirements.txt':
        '-r requirements/base.txt\nPyYAML>=5.1  # config\npytest ; python_version < "3.6"\n',
      'requirements/base.txt': 'numpy<1.20\n--index-url https://mirror.example/simple\n',
      'requirements-dev.txt': 'black\n',
      'main.py': 'import numpy\n',
    });
    expect(py?.kind).toBe('python');
    expect(py?.manifests).toEqual(['requirements.txt', 'requirements-dev.txt']);
    expect(py?.dependencies).toEqual([
      { name: 'numpy', constraint: '<1.20', manifest: 'requirements/base.txt:1' },
      { name: 'PyYAML', constraint: '>=5.1', manifest: 'requirements.txt:2' },
      { name: 'black', manifest: 'requirements-dev.txt:1', dev: true },
    ]);
    expect(py?.notes.join('\n')).toMatch(/requirements\.txt:3 pytest is skipped here/);
    expect(py?.notes.join('\n')).toMatch(/names a package index/);
    expect(py?.notes.join('\n')).toMatch(/numpy<1\.20 predates Python 3\.11/);
    expect(py?.runtime).toMatchObject({ name: 'python', version: '3' });
  });

  it('python: pyproject (PEP 621 and Poetry), setup.py read statically, Pipfile, environment.yml', async () => {
    const [a] = await detect({
      'pyproject.toml':
        '[project]\nname = "x"\nrequires-python = ">=3.8"\ndependencies = ["scipy>=1.5", "tqdm"]\n[project.optional-dependencies]\ntest = ["pytest"]\n[tool.poetry.dependencies]\npython = "^3.9"\nrich = { version = "^13", optional = true }\n',
      'setup.py':
        "from setuptools import setup\nsetup(name='x', install_requires=['numpy>=1.2', \"pandas\"], python_requires='>=3.6')\n",
    });
    expect(a?.manifests).toEqual(['pyproject.toml', 'setup.py']);
    expect(
      a?.dependencies.map((d) => [d.name, d.constraint ?? '', Boolean(d.dev), Boolean(d.optional)]),
    ).toEqual([
      ['scipy', '>=1.5', false, false],
      ['tqdm', '', false, false],
      ['pytest', '', true, false],
      ['rich', '^13', false, true],
      ['numpy', '>=1.2', false, false],
      ['pandas', '', false, false],
    ]);
    expect(a?.runtime).toMatchObject({ name: 'python', version: '>=3.8' });

    const [b] = await detect({
      Pipfile:
        '[packages]\nrequests = "*"\nflask = ">=2.0"\n[dev-packages]\npytest = "*"\n[requires]\npython_version = "3.7"\n',
      'environment.yml':
        'name: x\ndependencies:\n  - python=3.8\n  - numpy=1.19\n  - cudatoolkit=11.0\n  - pip:\n    - torch==1.7.1\n',
    });
    expect(b?.dependencies.map((d) => `${d.name}${d.constraint ?? ''}`)).toEqual([
      'requests',
      'flask>=2.0',
      'pytest',
      'numpy==1.19.*',
      'torch==1.7.1',
    ]);
    expect(b?.runtime).toMatchObject({ version: '==3.7.*' });
    expect(b?.notes.join('\n')).toMatch(/non-Python packages: cudatoolkit/);
    expect(b?.notes.join('\n')).toMatch(/torch==1\.7\.1 predates Python 3\.11/);
  });

  it('python: a computed install_requires is never run; Python 2 code is said to be Python 2', async () => {
    const [py] = await detect({
      'setup.py':
        'import os\nreqs = open("reqs").read().split()\nsetup(install_requires=reqs)\nos.system("touch /tmp/pwned")\n',
      'tool.py': 'import sys\nprint "usage: tool.py FILE"\n',
    });
    expect(py?.notes.join('\n')).toMatch(/computes install_requires in code; it is not executed/);
    expect(py?.runtime).toMatchObject({ name: 'python', version: '2' });
    expect(py?.runtime?.why).toMatch(/tool\.py:2 is Python 2 .*no Python 2/);
  });

  it('r: DESCRIPTION fields and the R version; renv.lock versions; library() calls of a bare script', async () => {
    expect(parseRDependencies('R (>= 3.5.0), ggplot2 (>= 3.0),\n  data.table')).toEqual([
      { name: 'R', constraint: '>=3.5.0' },
      { name: 'ggplot2', constraint: '>=3.0' },
      { name: 'data.table' },
    ]);
    expect(
      scriptPackages(
        'library(jsonlite)\nrequire("MASS")\nx <- data.table::fread(f)\nlibrary(stats) # base\n',
      ),
    ).toEqual(['jsonlite', 'MASS', 'data.table']);
    const [pkg] = await detect({
      DESCRIPTION:
        'Package: x\nDepends: R (>= 4.0), methods\nImports: jsonlite,\n    Rcpp (>= 1.0)\nSuggests: testthat\n',
    });
    expect(pkg?.kind).toBe('r');
    expect(pkg?.runtime).toMatchObject({ name: 'R', version: '>=4.0' });
    expect(pkg?.dependencies.map((d) => [d.name, d.optional ?? false])).toEqual([
      ['jsonlite', false],
      ['Rcpp', false],
      ['testthat', true],
    ]);
    const [script] = await detect({ 'analysis/fit.R': 'library(jsonlite)\n' });
    expect(script?.dependencies).toEqual([{ name: 'jsonlite', manifest: 'analysis/fit.R' }]);
  });

  it('javascript: package.json sections, engines and the lock file; julia: Project.toml and Manifest.toml', async () => {
    const found = await detect({
      'package.json': JSON.stringify({
        dependencies: { seedrandom: '^2.4.4' },
        devDependencies: { jest: '^29' },
        engines: { node: '>=18' },
        scripts: { postinstall: 'node fetch-data.js' },
      }),
      'package-lock.json': '{}',
      'Project.toml':
        '[deps]\nJSON = "682c06a0-de6a-54ab-a142-c8b1cf79cde6"\nLinearAlgebra = "37e2e46d-f89d-539d-b4ee-838fcccc9c8e"\n[compat]\nJSON = "0.21"\njulia = "1.6"\n',
    });
    const js = found.find((e) => e.kind === 'javascript');
    expect(js?.manifests).toEqual(['package.json', 'package-lock.json']);
    expect(js?.dependencies).toEqual([
      { name: 'seedrandom', constraint: '^2.4.4', manifest: 'package.json (dependencies)' },
      { name: 'jest', constraint: '^29', manifest: 'package.json (devDependencies)', dev: true },
    ]);
    expect(js?.runtime).toMatchObject({ name: 'node', version: '>=18' });
    expect(js?.notes.join('\n')).toMatch(/postinstall script/);
    const jl = found.find((e) => e.kind === 'julia');
    expect(jl?.dependencies).toEqual([{ name: 'JSON', constraint: '0.21', manifest: 'Project.toml [deps]' }]);
    expect(jl?.runtime).toMatchObject({ name: 'julia', version: '1.6' });
  });

  it('finds nothing in a C repository, and a bad manifest is a note, not an error', async () => {
    const c = await detect({ 'main.c': 'int main(void){return 0;}\n', Makefile: 'all:\n' });
    expect(c.map((e) => e.kind)).toEqual(['c-cpp']);
    const [py] = await detect({ 'pyproject.toml': '[project\nname = 1\n' });
    expect(py?.notes.join('\n')).toMatch(/pyproject\.toml could not be read as TOML \(line 1/);
    const [jl] = await detect({
      'Project.toml': '[deps]\nJSON = "682c"\nJSON = "682c"\n',
      'Manifest.toml': 'x = [\n',
    });
    expect(jl?.notes.join('\n')).toMatch(/Project\.toml could not be read as TOML \(line 3, column 1: /);
    expect(jl?.notes.join('\n')).toMatch(/Manifest\.toml could not be read as TOML \(line 2/);
    expect(jl?.manifests).toEqual([]);
  });
});
