import { byId, show } from './dom.js';
import { showFailure } from './error-banner.js';
import { t, type TextKey } from './i18n.js';
import { SESSION_ENDED, platformAuthorizationUrl, signIn, signOut, type Clerk, type SessionAnswer } from './session.js';

/** What the agent's callback says when the platform sign-in gave no session (`/?sign-in=<reason>`, routes/platform-sign-in.ts). */
const PLATFORM_REFUSALS: Record<string, TextKey> = {
  state_missing: 'signIn.refusedStateMissing',
  state_unknown: 'signIn.refusedStateUnknown',
  state_expired: 'signIn.refusedStateExpired',
  denied: 'signIn.refusedDenied',
  no_code: 'signIn.refusedNoCode',
  refused: 'signIn.refusedRefused',
  unreachable: 'signIn.refusedUnreachable',
};

/**
 * The sign-in screen (#sign-in) shown instead of the counter until a clerk signs in, and the
 * clerk's name with "Sign out" in the header (#clerk). While signed out, the body carries
 * the class `signed-out`, which hides every other section (styles.css).
 */
export class SignInScreen {
  /**
   * Shows the form; resolves when a clerk has signed in, with the page's settings for them.
   * With `platform` (auth.mode custom_token) it also offers the merchant's sign-in with the
   * platform, which leaves the page for the platform's sign-in and comes back signed in (or
   * with `?sign-in=<reason>`).
   */
  ask(platform = false): Promise<SessionAnswer & { staff: Clerk }> {
    document.body.classList.add('signed-out');
    show(byId('sign-in'), true);
    const form = byId<HTMLFormElement>('sign-in-form');
    const message = byId('sign-in-message');
    const refused = new URLSearchParams(location.search).get('sign-in');
    if (refused !== null) {
      message.textContent = t(PLATFORM_REFUSALS[refused] ?? 'signIn.refusedRefused');
      message.dataset.reason = refused;
      history.replaceState(null, '', '/');
    }
    const platformButton = byId<HTMLButtonElement>('platform-sign-in');
    show(platformButton, platform);
    platformButton.addEventListener('click', () => {
      platformButton.disabled = true;
      message.textContent = t('signIn.platformOpening');
      platformAuthorizationUrl()
        .then((url) => location.assign(url))
        .catch((err: unknown) => {
          platformButton.disabled = false;
          showFailure(message, err, 'sign-in-details');
        });
    });
    const user = byId<HTMLInputElement>('sign-in-username');
    const pass = byId<HTMLInputElement>('sign-in-password');
    const button = byId<HTMLButtonElement>('sign-in-submit');
    user.focus();
    return new Promise((resolve) => {
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        button.disabled = true;
        message.textContent = t('signIn.busy');
        signIn(user.value.trim(), pass.value)
          .then((answer) => {
            pass.value = '';
            message.textContent = '';
            show(byId('sign-in'), false);
            document.body.classList.remove('signed-out');
            resolve(answer);
          })
          .catch((err: unknown) => {
            pass.value = '';
            showFailure(message, err, 'sign-in-details');
          })
          .finally(() => {
            button.disabled = false;
          });
      });
    });
  }

  /**
   * The clerk in the header and sign-out. Every operation button shows whatever the clerk's
   * permissions: a tap without the permission is answered by the agent's refusal naming it
   * (transaction-list.ts, web-refund.ts), so a trainee learns what to ask a supervisor for.
   */
  signedIn(clerk: Clerk): void {
    // Also when the page opens on a session it already has (a reload, or back from the platform sign-in).
    show(byId('sign-in'), false);
    document.body.classList.remove('signed-out');
    byId('clerk-name').textContent = clerk.offline ? t('header.offlineSignIn', { name: clerk.name }) : clerk.name;
    show(byId('clerk'), true);
    byId('sign-out').addEventListener('click', () => {
      void signOut().then(() => location.reload());
    });
    // A 401 from any call: the session is over; start again at the sign-in screen.
    window.addEventListener(SESSION_ENDED, () => location.reload(), { once: true });
  }
}
