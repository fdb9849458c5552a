/**
 * Which msprobe release a run reproduces (msprobe-format.md §0, §4.5). `--format vis` writes the last JSON era's
 * files (mid 2025, the `vis-202507` goldens); `--format db` the current SQLite era. They differ in more than the
 * container, and the goldens hold both, so the differences are switches here rather than guesses in the writers.
 */
export type FormatEra = 'vis202507' | 'db';

export interface EraRules {
  /** E2 simplified stacks to one line (module: the line calling it; API: the line after `…Template(`). */
  simplifyStack: boolean;
  /** E2 only recognised `X.parameters_grad`; since late 2025 also `X.parameters_grad.{n}`. */
  legacyParametersGradNames: boolean;
  /** 2025-09: backward nodes under an in-place layer borrow the forward twin's parent (§2.3). */
  inplaceBackwardFix: boolean;
  /** 2025-09: recompute modules at the top level move under their backward parent (§2.7). */
  recompute: boolean;
  /** 2025-09: `micro_step_id` is propagated to every node (E2: root children only). */
  propagateMicroSteps: boolean;
  /** E2 exported `state` and dropped `requires_grad`; since 2025-08 the reverse (§4.1 step 1). */
  itemKeepsState: boolean;
}

export function eraRules(era: FormatEra): EraRules {
  const legacy = era === 'vis202507';
  return {
    simplifyStack: legacy,
    legacyParametersGradNames: legacy,
    inplaceBackwardFix: !legacy,
    recompute: !legacy,
    propagateMicroSteps: !legacy,
    itemKeepsState: legacy,
  };
}
