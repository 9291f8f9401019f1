import { describe, expect, it } from 'vitest';
import { isLogLevel, logLevelControl } from '../../src/core/index.js';
import { testLogger } from '../helpers/log-sink.js';

describe('log level at run time', () => {
  it('changes the level of the root and of every child made before and after', () => {
    const { log, sink } = testLogger('debug');
    const early = log.child({ module: 'early' });
    const grandchild = early.child({ step: 'deep' });
    const control = logLevelControl(log);
    expect(control.get()).toBe('debug');
    early.debug('before');
    control.set('warn');
    expect(control.get()).toBe('warn');
    early.info('hidden');
    grandchild.info('hidden');
    log.child({ module: 'late' }).info('hidden');
    grandchild.warn('shown');
    control.set('trace');
    grandchild.trace('traced');
    expect(sink.records().map((r) => r.msg)).toEqual(['before', 'shown', 'traced']);
  });

  it('knows the level names', () => {
    expect(isLogLevel('debug')).toBe(true);
    expect(isLogLevel('verbose')).toBe(false);
    expect(isLogLevel(3)).toBe(false);
  });
});
