/** Collects input problems and warnings while forwarding them to the command (stderr). */
import type { Diagnostics, InputProblem } from './source.js';

export interface CollectingDiagnostics extends Diagnostics {
  problems: InputProblem[];
  warnings: string[];
}

export function collectDiagnostics(onProblem?: (p: InputProblem) => void, onWarning?: (m: string) => void): CollectingDiagnostics {
  const d: CollectingDiagnostics = {
    problems: [],
    warnings: [],
    problem: (p) => {
      d.problems.push(p);
      onProblem?.(p);
    },
    warn: (m) => {
      d.warnings.push(m);
      onWarning?.(m);
    },
  };
  return d;
}
