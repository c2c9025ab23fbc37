/**
 * Validation of the names kexp pastes into API request paths, before any request is made:
 * a namespace must be a DNS-1123 label and a ReplicaSet or Deployment name a DNS-1123
 * subdomain, the rules the API server itself enforces on them (apimachinery
 * pkg/util/validation: IsDNS1123Label, IsDNS1123Subdomain). A value that breaks them cannot
 * name a real object, and could otherwise steer a request to another path (`x/secrets?`, `..`).
 *
 * A bad value is an InvalidNameError naming it (quoted, so it stays one line) and where it came
 * from: a command-line flag or argument (a usage error, exit 2) or the kubeconfig (exit 7).
 */

/** Where a checked value came from; decides the exit code (see src/cli/error-exit.ts). */
export type NameOrigin = 'argument' | 'kubeconfig';

export class InvalidNameError extends Error {
  constructor(message: string, readonly origin: NameOrigin) {
    super(message);
    this.name = 'InvalidNameError';
  }
}

const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_MAX = 63;
const SUBDOMAIN_MAX = 253;

/** Why `v` is not a DNS-1123 label (a namespace name), or undefined when it is one. */
export function dns1123LabelProblem(v: unknown): string | undefined {
  if (typeof v !== 'string') return `is a ${v === null ? 'null' : Array.isArray(v) ? 'list' : typeof v}, not a string`;
  if (v.length === 0) return 'is empty';
  if (v.length > LABEL_MAX) return `is ${v.length} characters long (at most ${LABEL_MAX})`;
  if (!LABEL.test(v)) return "must consist of lowercase letters, digits and '-', and start and end with a letter or digit (a DNS-1123 label)";
  return undefined;
}

/** Why `v` is not a DNS-1123 subdomain (an object name), or undefined when it is one. */
export function dns1123SubdomainProblem(v: unknown): string | undefined {
  if (typeof v !== 'string') return `is a ${v === null ? 'null' : Array.isArray(v) ? 'list' : typeof v}, not a string`;
  if (v.length === 0) return 'is empty';
  if (v.length > SUBDOMAIN_MAX) return `is ${v.length} characters long (at most ${SUBDOMAIN_MAX})`;
  if (!v.split('.').every((part) => LABEL.test(part))) {
    return "must consist of lowercase letters, digits, '-' and '.', with each dot-separated part starting and ending with a letter or digit (a DNS-1123 subdomain)";
  }
  return undefined;
}

/**
 * `v` quoted for a one-line message: JSON string escapes make newlines and C0 controls visible
 * (the terminal sanitiser catches the rest on the way out), and a long value is cut.
 */
export function quoteValue(v: unknown, max = 80): string {
  if (typeof v !== 'string') {
    try {
      const s = JSON.stringify(v) ?? String(v);
      return s.length > max ? `${s.slice(0, max)}…` : s;
    } catch {
      return String(v);
    }
  }
  return JSON.stringify(v.length > max ? `${v.slice(0, max)}…` : v);
}

/** Returns `v` when it is a valid namespace name; throws InvalidNameError naming `source` otherwise. */
export function checkNamespace(v: unknown, source: string, origin: NameOrigin): string {
  const problem = dns1123LabelProblem(v);
  if (problem) throw new InvalidNameError(`namespace ${quoteValue(v)} (${source}) is not a valid namespace name: it ${problem}`, origin);
  return v as string;
}

/** Returns `v` when it is a valid object name; throws InvalidNameError (a usage error) otherwise. */
export function checkObjectName(v: unknown, kind: string): string {
  const problem = dns1123SubdomainProblem(v);
  if (problem) throw new InvalidNameError(`${kind} name ${quoteValue(v)} is not a valid object name: it ${problem}`, 'argument');
  return v as string;
}
