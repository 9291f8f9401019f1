/**
 * JSON.parse's message without the piece of the text V8 quotes in some of them
 * (`Unexpected token 'x', "…text…" is not valid JSON`): a config file or a request body may
 * hold a password or a secret next to the mistake, and the message is printed, logged and
 * answered (docs/architecture.md, "Invariants" 4). Where the mistake is (position, line and
 * column) stays.
 */
export function jsonErrorText(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/, (?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s, '');
}
