const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

/**
 * The demo's resource-owner log-in: a minimal page that posts username and password back
 * to the authorization endpoint with the request's parameters (the authorization
 * code flow: docs/demo-platform.md, "Demo platform").
 */
export function loginPage(action: string, params: ReadonlyMap<string, string>): string {
  const hidden = [...params]
    .filter(([k]) => !['username', 'password', 'action', 'client_secret'].includes(k))
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('\n    ');
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Demo platform log-in</title></head>
<body>
  <h1>Sign in to the demo platform</h1>
  <form method="post" action="${escapeHtml(action)}">
    ${hidden}
    <label>Username <input name="username" autocomplete="username" required></label>
    <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
    <button type="submit" name="action" value="login">Sign in</button>
    <button type="submit" name="action" value="deny" formnovalidate>Deny</button>
  </form>
</body>
</html>
`;
}
