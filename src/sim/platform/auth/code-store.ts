import { randomBytes } from 'node:crypto';
import type { Subject } from './subjects.js';

/** Authorization codes live 60 s and can be exchanged once (RFC 6749 4.1.2). */
export const CODE_LIFETIME_MS = 60_000;

export interface CodeEntry {
  clientId: string;
  redirectUri: string;
  scope: string[];
  subject: Subject;
  /** The log-in session the code belongs to; its tokens share it. */
  sessionId: string;
  /** Platform-clock milliseconds. */
  authTime: number;
  expiresAt: number;
}

export type CodeTake = { ok: true; entry: CodeEntry } | { ok: false; reason: string; replayedSession?: string };

export class CodeStore {
  private readonly codes = new Map<string, CodeEntry & { used: boolean }>();

  create(entry: Omit<CodeEntry, 'expiresAt'>, now: number): string {
    for (const [c, e] of this.codes) if (now >= e.expiresAt) this.codes.delete(c);
    const code = randomBytes(24).toString('base64url');
    this.codes.set(code, { ...entry, expiresAt: now + CODE_LIFETIME_MS, used: false });
    return code;
  }

  /** Consumes the code; a second exchange is refused even inside the 60 s. */
  take(code: string, now: number): CodeTake {
    const entry = this.codes.get(code);
    if (entry === undefined) return { ok: false, reason: 'authorization code is unknown' };
    if (entry.used)
      return { ok: false, reason: 'authorization code was already used', replayedSession: entry.sessionId };
    entry.used = true;
    if (now >= entry.expiresAt) return { ok: false, reason: 'authorization code expired' };
    return { ok: true, entry };
  }
}
