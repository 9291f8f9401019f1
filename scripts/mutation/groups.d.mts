// Types of groups.mjs for vitest.mutation.config.ts.
export interface MutationGroup {
  name: string;
  mutate: string[];
  tests: string[];
  exclude?: string[];
}
export const GROUPS: MutationGroup[];
export function groupNamed(name: string | undefined): MutationGroup;
