/**
 * How the demo platform answers (docs/demo-platform.md, "Demo platform"). `standard` answers
 * the way the agent's own decisions describe; `strict` answers from the extremes the
 * platform contract allows (docs/platform-contract.md, "Tolerance of answers"), so an
 * assumption the contract does not promise breaks in a test instead of in the field.
 * Switchable at run time (PUT /sim/control/profile) so one platform serves both.
 */
export const SIM_PROFILES = ['standard', 'strict'] as const;
export type SimProfileName = (typeof SIM_PROFILES)[number];

export function isSimProfileName(value: unknown): value is SimProfileName {
  return typeof value === 'string' && (SIM_PROFILES as readonly string[]).includes(value);
}

/**
 * The platform's time zone in the strict profile: server times are written in it, in the
 * 12-hour form (docs/demo-platform.md, "Demo platform"). West of UTC, so an agent that
 * read them as UTC would end a QR's life hours early; a terminal talking to a strict demo
 * platform sets `platform.timeZone` to this.
 */
export const STRICT_TIME_ZONE = 'America/Los_Angeles';

export class SimProfile {
  constructor(private current: SimProfileName = 'standard') {}

  get name(): SimProfileName {
    return this.current;
  }

  /** True when the platform answers from the contract's extremes. */
  get strict(): boolean {
    return this.current === 'strict';
  }

  /** The zone server times are written in: UTC in the standard profile. */
  get timeZone(): string {
    return this.strict ? STRICT_TIME_ZONE : 'UTC';
  }

  set(name: SimProfileName): void {
    this.current = name;
  }
}
