import { AgentError } from '../../src/core/index.js';

/** The AgentError `fn` throws; anything else thrown is rethrown, and not throwing fails the test. */
export function errorOf(fn: () => unknown): AgentError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AgentError) return err;
    throw err;
  }
  throw new Error('expected an AgentError');
}
