const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Whether `uri` is one of the client's registered redirect URIs. Exact match, except that
 * a registered loopback `http` URI matches on any port (RFC 8252 7.3: a native app listens
 * on a port it gets from the system), so a terminal's callback on loopback can be
 * registered once (docs/demo-platform.md, "Demo platform").
 */
export function redirectUriRegistered(registered: readonly string[], uri: string): boolean {
  if (registered.includes(uri)) return true;
  let asked: URL;
  try {
    asked = new URL(uri);
  } catch {
    return false;
  }
  if (
    asked.protocol !== 'http:' ||
    !LOOPBACK_HOSTS.has(asked.hostname) ||
    asked.username !== '' ||
    asked.password !== '' ||
    asked.hash !== ''
  )
    return false;
  return registered.some((r) => {
    let reg: URL;
    try {
      reg = new URL(r);
    } catch {
      return false;
    }
    return (
      reg.protocol === 'http:' &&
      reg.port === '' &&
      reg.hostname === asked.hostname &&
      reg.pathname === asked.pathname &&
      reg.search === asked.search
    );
  });
}
