import { AsyncLocalStorage } from 'node:async_hooks';

/** The operator of rows the agent makes on its own (start-up recovery, an offline upload's capture). */
export const AGENT_OPERATOR = 'agent';

const current = new AsyncLocalStorage<string>();

/**
 * Runs `fn` on behalf of `operator` (docs/journal.md, "Journal", operator): every
 * journal row inserted while it runs, and by the work it starts (a sale's immediate
 * capture, a retried operation), records that operator. The local API wraps each request
 * in it (the signed-in clerk's username, `cli` or `local-api`), so no payment call needs a
 * parameter for it.
 */
export function withOperator<T>(operator: string, fn: () => T): T {
  return current.run(operator, fn);
}

/** The operator of the work running now; `agent` outside any request. */
export function currentOperator(): string {
  return current.getStore() ?? AGENT_OPERATOR;
}
